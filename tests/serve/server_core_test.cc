// ServerCore on TF Serving's test models copied into temporary base paths:
// version policies, labels, TF Serving's NotFound texts, versions that
// appear, change, break and disappear while the core serves.
#include "serve/server_core.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gtest/gtest.h"
#include "serve/inference.h"
#include "serve/metrics.h"
#include "serve_test_util.h"
#include "testing/paths.h"
#include "testing/status_matchers.h"

namespace smrt::serve {
namespace {

namespace fs = std::filesystem;
using smrt::testing::IsError;
using smrt::testing::MessageHas;
using testing::AddVersion;
using testing::Floats;
using testing::FloatTensor;

class ServerCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    base_ = smrt::testing::MakeTempDir();
  }
  void TearDown() override {
    if (!base_.empty()) fs::remove_all(base_);
  }

  ServerCoreOptions Options(VersionPolicy policy = {}) {
    ServerCoreOptions options;
    ModelConfig config;
    config.name = "hp";
    config.base_path = base_;
    config.policy = std::move(policy);
    options.models.push_back(config);
    options.poll_wait = absl::ZeroDuration();  // tests poll with PollNow
    return options;
  }

  std::vector<int64_t> Available(const ServerCore& core) {
    std::vector<int64_t> out;
    absl::StatusOr<std::vector<VersionStatus>> status = core.Status("hp", std::nullopt);
    if (!status.ok()) return out;
    for (const VersionStatus& v : *status) {
      if (v.state == VersionState::kAvailable) out.push_back(v.version);
    }
    return out;
  }

  // half_plus_two answers 0.5x + 2 on x of shape (n, 1).
  static float HalfPlusTwoOf(const Servable& servable, float x) {
    absl::StatusOr<NamedTensors> y = servable.Run("", {{"x", FloatTensor({1, 1}, {x})}});
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? Floats(y->at("y"))[0] : -1;
  }

  std::string base_;
};

TEST_F(ServerCoreTest, LatestServesTheNewestVersionAndFindsAsTfServing) {
  AddVersion(base_, 123, testing::HalfPlusTwo());
  AddVersion(base_, 124, testing::HalfPlusTwo());
  fs::create_directories(base_ + "/not_a_version");
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(Options());
  ASSERT_TRUE(core.ok()) << core.status();
  EXPECT_TRUE((*core)->Ready());
  EXPECT_EQ((*core)->ModelNames(), std::vector<std::string>{"hp"});
  EXPECT_EQ(Available(**core), std::vector<int64_t>{124});

  absl::StatusOr<std::shared_ptr<const Servable>> latest = (*core)->Find("hp", std::nullopt, "");
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ((*latest)->version(), 124);
  EXPECT_EQ(HalfPlusTwoOf(**latest, 3), 3.5f);

  EXPECT_TRUE(IsError((*core)->Find("hp", 123, "").status(), absl::StatusCode::kNotFound,
                      "Servable not found for request: Specific(hp, 123)"));
  EXPECT_TRUE(IsError((*core)->Find("other", std::nullopt, "").status(),
                      absl::StatusCode::kNotFound,
                      "Servable not found for request: Latest(other)"));
  EXPECT_TRUE(IsError((*core)->Find("hp", std::nullopt, "stable").status(),
                      absl::StatusCode::kInvalidArgument,
                      "Unrecognized servable version label: stable"));
  EXPECT_TRUE(IsError((*core)->Find("hp", 124, "stable").status(),
                      absl::StatusCode::kInvalidArgument, "both"));
  EXPECT_TRUE(IsError((*core)->Status("other", std::nullopt).status(), absl::StatusCode::kNotFound,
                      "Could not find any versions of model other"));
  EXPECT_TRUE(IsError((*core)->Status("hp", 7).status(), absl::StatusCode::kNotFound,
                      "Could not find version 7 of model hp"));
}

TEST_F(ServerCoreTest, AllAndSpecificPoliciesAndLabels) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  AddVersion(base_, 2, testing::HalfPlusTwo());
  AddVersion(base_, 3, testing::HalfPlusTwo());
  VersionPolicy all;
  all.kind = VersionPolicy::Kind::kAll;
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(Options(all));
  ASSERT_TRUE(core.ok()) << core.status();
  // Newest first, as TF Serving's GetModelStatus lists them.
  EXPECT_EQ(Available(**core), (std::vector<int64_t>{3, 2, 1}));

  VersionPolicy specific;
  specific.kind = VersionPolicy::Kind::kSpecific;
  specific.versions = {1, 3};
  ServerCoreOptions options = Options(specific);
  options.models[0].version_labels = {{"stable", 1}, {"canary", 3}};
  core = ServerCore::Create(options);
  ASSERT_TRUE(core.ok()) << core.status();
  EXPECT_EQ(Available(**core), (std::vector<int64_t>{3, 1}));
  absl::StatusOr<std::shared_ptr<const Servable>> stable =
      (*core)->Find("hp", std::nullopt, "stable");
  ASSERT_TRUE(stable.ok()) << stable.status();
  EXPECT_EQ((*stable)->version(), 1);
  EXPECT_EQ((*(*core)->Find("hp", std::nullopt, "canary"))->version(), 3);
  EXPECT_EQ((*(*core)->Find("hp", 1, ""))->version(), 1);

  VersionPolicy two;
  two.num_versions = 2;
  core = ServerCore::Create(Options(two));
  ASSERT_TRUE(core.ok()) << core.status();
  EXPECT_EQ(Available(**core), (std::vector<int64_t>{3, 2}));

  // A label on a version that does not serve is refused, as TF Serving does.
  options.models[0].version_labels = {{"stable", 2}};
  EXPECT_TRUE(IsError(ServerCore::Create(options).status(), absl::StatusCode::kFailedPrecondition,
                      "Request to assign label to version 2 of model hp, which is not currently "
                      "available for inference"));
}

TEST_F(ServerCoreTest, CreateFailsWithoutBasePathOrVersions) {
  ServerCoreOptions options = Options();
  options.models[0].base_path = base_ + "/missing";
  EXPECT_TRUE(IsError(ServerCore::Create(options).status(), absl::StatusCode::kInvalidArgument,
                      "Could not find base path " + base_ + "/missing for servable hp"));
  fs::create_directories(base_ + "/model");
  EXPECT_TRUE(IsError(ServerCore::Create(Options()).status(), absl::StatusCode::kNotFound,
                      "Unable to find a numerical version path for servable hp at: " + base_));
  EXPECT_TRUE(MessageHas(ServerCore::Create(Options()).status(), "it holds model"));
  ServerCoreOptions twice = Options();
  twice.models.push_back(twice.models[0]);
  EXPECT_TRUE(IsError(ServerCore::Create(twice).status(), absl::StatusCode::kInvalidArgument,
                      "Illegal to list model hp multiple times in config list"));
}

TEST_F(ServerCoreTest, BrokenVersionIsReportedAndNeverReplacesTheWorkingOne) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(Options());
  ASSERT_TRUE(core.ok()) << core.status();
  const std::string broken = AddVersion(base_, 2, testing::HalfPlusTwo());
  {
    std::ofstream pb(broken + "/saved_model.pb", std::ios::trunc | std::ios::binary);
    pb << "not a SavedModel";
  }
  (*core)->PollNow();  // sees version 2
  absl::StatusOr<std::vector<VersionStatus>> status = (*core)->Status("hp", 2);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ((*status)[0].state, VersionState::kStart);
  (*core)->PollNow();  // unchanged since: loads it, and it fails
  status = (*core)->Status("hp", std::nullopt);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->size(), 2u);
  EXPECT_EQ((*status)[0].version, 2);
  EXPECT_EQ((*status)[0].state, VersionState::kEnd);
  EXPECT_FALSE((*status)[0].status.ok());
  EXPECT_TRUE(MessageHas((*status)[0].status, "saved_model.pb"));
  EXPECT_EQ((*status)[1].version, 1);
  EXPECT_EQ((*status)[1].state, VersionState::kAvailable);
  EXPECT_EQ((*(*core)->Find("hp", std::nullopt, ""))->version(), 1);
  EXPECT_TRUE((*core)->Ready());

  // Unchanged files are not tried again; fixed files are, and then serve.
  (*core)->PollNow();
  EXPECT_EQ((*(*core)->Status("hp", 2))[0].state, VersionState::kEnd);
  fs::remove_all(broken);
  AddVersion(base_, 2, testing::HalfPlusTwo());
  (*core)->PollNow();
  (*core)->PollNow();
  EXPECT_EQ(Available(**core), std::vector<int64_t>{2});
  EXPECT_TRUE((*(*core)->Status("hp", 2))[0].status.ok());
}

// A folder being copied in changes between scans: it is not loaded (and so
// never fails) until a scan finds it as the one before did.
TEST_F(ServerCoreTest, HalfCopiedVersionWaitsUntilItsFilesStopChanging) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(Options());
  ASSERT_TRUE(core.ok()) << core.status();
  const std::string dir = base_ + "/2";
  fs::create_directories(dir);
  fs::copy_file(testing::HalfPlusTwo() + "/saved_model.pb", dir + "/saved_model.pb");
  (*core)->PollNow();
  fs::copy(testing::HalfPlusTwo() + "/variables", dir + "/variables", fs::copy_options::recursive);
  (*core)->PollNow();
  fs::copy(testing::HalfPlusTwo() + "/assets", dir + "/assets", fs::copy_options::recursive);
  (*core)->PollNow();
  absl::StatusOr<std::vector<VersionStatus>> status = (*core)->Status("hp", 2);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ((*status)[0].state, VersionState::kStart);
  EXPECT_TRUE((*status)[0].status.ok());
  EXPECT_EQ((*(*core)->Find("hp", std::nullopt, ""))->version(), 1);
  (*core)->PollNow();  // unchanged since the last scan: loads
  status = (*core)->Status("hp", 2);
  EXPECT_EQ((*status)[0].state, VersionState::kAvailable);
  EXPECT_TRUE((*status)[0].status.ok());
  EXPECT_EQ(Available(**core), std::vector<int64_t>{2});
}

TEST_F(ServerCoreTest, NewVersionsLoadAndOldOnesUnloadWithoutDroppingRequests) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(Options());
  ASSERT_TRUE(core.ok()) << core.status();
  // A request that holds version 1 while version 2 replaces it.
  std::shared_ptr<const Servable> held = *(*core)->Find("hp", std::nullopt, "");
  AddVersion(base_, 2, testing::HalfPlusThree());
  (*core)->PollNow();
  EXPECT_EQ((*(*core)->Find("hp", std::nullopt, ""))->version(), 1);  // not loaded yet
  (*core)->PollNow();
  absl::StatusOr<std::shared_ptr<const Servable>> now = (*core)->Find("hp", std::nullopt, "");
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ((*now)->version(), 2);
  // half_plus_three: scalar x -> 0.5x + 3.
  absl::StatusOr<NamedTensors> y = (*now)->Run("", {{"x", FloatTensor({}, {4})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Floats(y->at("y"))[0], 5.0f);
  const std::vector<VersionStatus> status = *(*core)->Status("hp", std::nullopt);
  ASSERT_EQ(status.size(), 2u);
  EXPECT_EQ(status[1].version, 1);
  EXPECT_EQ(status[1].state, VersionState::kEnd);
  EXPECT_TRUE(status[1].status.ok());
  // The unloaded version still answers the request that holds it.
  EXPECT_EQ(HalfPlusTwoOf(*held, 1), 2.5f);
  EXPECT_TRUE(
      IsError((*core)->Find("hp", 1, "").status(), absl::StatusCode::kNotFound, "Specific(hp, 1)"));

  // Deleting the newest folder brings the older one back (latest policy).
  fs::remove_all(base_ + "/2");
  (*core)->PollNow();
  (*core)->PollNow();
  EXPECT_EQ(Available(**core), std::vector<int64_t>{1});
  // Deleting every folder unloads everything, as TF Serving does.
  fs::remove_all(base_ + "/1");
  (*core)->PollNow();
  EXPECT_TRUE(Available(**core).empty());
  EXPECT_FALSE((*core)->Ready());
}

TEST_F(ServerCoreTest, ConcurrentRequestsSeeNoErrorWhileVersionsChange) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  ServerCoreOptions options = Options();
  options.poll_wait = absl::Milliseconds(20);  // the core's own poller
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(options);
  ASSERT_TRUE(core.ok()) << core.status();
  std::atomic<bool> done{false};
  std::atomic<int> requests{0}, errors{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&] {
      while (!done) {
        absl::StatusOr<std::shared_ptr<const Servable>> servable =
            (*core)->Find("hp", std::nullopt, "");
        absl::StatusOr<NamedTensors> y =
            servable.ok() ? (*servable)->Run("", {{"x", FloatTensor({1, 1}, {2})}})
                          : absl::StatusOr<NamedTensors>(servable.status());
        if (!y.ok() || Floats(y->at("y"))[0] != 3.0f) ++errors;
        ++requests;
      }
    });
  }
  for (int v = 2; v <= 4; ++v) {
    AddVersion(base_, v, testing::HalfPlusTwo());
    for (int i = 0; i < 200 && Available(**core) != std::vector<int64_t>{v}; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(Available(**core), std::vector<int64_t>{v});
  }
  done = true;
  for (std::thread& t : clients) t.join();
  EXPECT_GT(requests.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

// With batching on, every version the core loads runs through a batcher:
// concurrent Predicts come back right, and batches are counted.
TEST_F(ServerCoreTest, ConcurrentPredictsThroughTheCoresBatcher) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  Metrics metrics;
  ServerCoreOptions options = Options();
  options.metrics = &metrics;
  options.batching.enabled = true;
  options.batching.max_batch_size = 8;
  options.batching.batch_timeout = absl::Milliseconds(2);
  options.batching.allowed_batch_sizes = {2, 8};
  options.batching.num_batch_threads = 2;
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(options);
  ASSERT_TRUE(core.ok()) << core.status();
  std::atomic<int> wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      for (int c = 0; c < 20; ++c) {
        const float x = 100.0f * t + c;
        absl::StatusOr<std::shared_ptr<const Servable>> servable =
            (*core)->Find("hp", std::nullopt, "");
        if (!servable.ok()) {
          ++wrong;
          continue;
        }
        absl::StatusOr<NamedTensors> y =
            Predict(**servable, "", {{"x", FloatTensor({1, 1}, {x})}}, {});
        if (!y.ok() || Floats(y->at("y")) != std::vector<float>{0.5f * x + 2}) ++wrong;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_NE(
      metrics.PrometheusText().find(
          ":tensorflow:serving:batching_session:processed_batch_size_count{model_name=\"hp\"}"),
      std::string::npos);
  ServerCoreOptions bad = options;
  bad.batching.allowed_batch_sizes = {2, 4};
  EXPECT_TRUE(IsError(ServerCore::Create(bad).status(), absl::StatusCode::kInvalidArgument,
                      "Last entry in allowed_batch_sizes must match max_batch_size"));
}

TEST_F(ServerCoreTest, ReloadConfigAddsRemovesAndChangesModels) {
  AddVersion(base_, 1, testing::HalfPlusTwo());
  AddVersion(base_, 2, testing::HalfPlusTwo());
  const std::string other = smrt::testing::MakeTempDir();
  AddVersion(other, 5, testing::HalfPlusThree());
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(Options());
  ASSERT_TRUE(core.ok()) << core.status();

  ModelConfig hp = Options().models[0];
  hp.policy.kind = VersionPolicy::Kind::kAll;
  ModelConfig three;
  three.name = "three";
  three.base_path = other;
  ASSERT_TRUE((*core)->ReloadConfig({hp, three}).ok());
  EXPECT_EQ((*core)->ModelNames(), (std::vector<std::string>{"hp", "three"}));
  EXPECT_EQ(Available(**core), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ((*(*core)->Find("three", std::nullopt, ""))->version(), 5);

  // An invalid config changes nothing.
  ModelConfig missing = three;
  missing.name = "missing";
  missing.base_path = other + "/nowhere";
  EXPECT_TRUE(IsError((*core)->ReloadConfig({hp, missing}), absl::StatusCode::kInvalidArgument,
                      "Could not find base path"));
  EXPECT_TRUE((*core)->Find("three", std::nullopt, "").ok());

  ASSERT_TRUE((*core)->ReloadConfig({three}).ok());
  EXPECT_EQ((*core)->ModelNames(), std::vector<std::string>{"three"});
  EXPECT_TRUE(IsError((*core)->Find("hp", std::nullopt, "").status(), absl::StatusCode::kNotFound,
                      "Latest(hp)"));
  fs::remove_all(other);
}

TEST_F(ServerCoreTest, MetricsGaugesReportModelMemoryAndVersions) {
  AddVersion(base_, 7, testing::HalfPlusTwo());
  Metrics metrics;
  ServerCoreOptions options = Options();
  options.metrics = &metrics;
  {
    absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(options);
    ASSERT_TRUE(core.ok()) << core.status();
    const std::string text = metrics.PrometheusText();
    EXPECT_NE(text.find("# TYPE :smrt:serving:model_memory_bytes gauge\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find(":smrt:serving:model_memory_bytes{model_name=\"hp\",version=\"7\"} "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(":smrt:serving:model_versions_available{model_name=\"hp\"} 1\n"),
              std::string::npos)
        << text;
  }
  // The core's gauges leave with it.
  EXPECT_EQ(metrics.PrometheusText().find("model_memory_bytes"), std::string::npos);
}

}  // namespace
}  // namespace smrt::serve
