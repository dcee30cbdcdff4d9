// Warm-up records: TFRecord framing checked as TensorFlow's RecordReader
// checks it, and TF Serving's warm-up rules on a version's load.
#include "serve/warmup.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "serve/server_core.h"
#include "serve_test_util.h"
#include "smrt/serving/prediction_log.pb.h"
#include "testing/paths.h"
#include "testing/status_matchers.h"

namespace smrt::serve {
namespace {

namespace fs = std::filesystem;
using smrt::testing::IsError;
using smrt::testing::MessageHas;

TEST(TFRecordTest, ReadsWhatTheWriterWrites) {
  const std::string bytes = TFRecord("first") + TFRecord("") + TFRecord(std::string(300, 'x'));
  absl::StatusOr<std::vector<std::string>> records = ReadTFRecords(bytes);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(*records, (std::vector<std::string>{"first", "", std::string(300, 'x')}));
  // TensorFlow's framing: length 5 little-endian, then its masked crc32c.
  EXPECT_EQ(TFRecord("first").substr(0, 8), std::string("\x05\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(TFRecord("first").size(), 8 + 4 + 5 + 4u);
}

TEST(TFRecordTest, BadCrcsAndTruncationAreDataLoss) {
  const std::string good = TFRecord("abc");
  std::string bad_data = good + good;
  bad_data[good.size() + 12] ^= 1;  // the second record's data
  EXPECT_TRUE(IsError(ReadTFRecords(bad_data).status(), absl::StatusCode::kDataLoss,
                      "corrupted record at " + std::to_string(good.size())));
  std::string bad_length = good;
  bad_length[8] ^= 1;  // the length's crc
  EXPECT_TRUE(IsError(ReadTFRecords(bad_length).status(), absl::StatusCode::kDataLoss,
                      "corrupted record at 0"));
  EXPECT_TRUE(IsError(ReadTFRecords(good.substr(0, good.size() - 1)).status(),
                      absl::StatusCode::kDataLoss, "truncated record at 0"));
  EXPECT_TRUE(IsError(ReadTFRecords(good + good.substr(0, 6)).status(), absl::StatusCode::kDataLoss,
                      "truncated record at " + std::to_string(good.size())));
}

// Every single-bit flip and every cut of a three-record file: a flip is
// always caught by one of the crcs, a cut is "truncated" unless it falls
// between records (then the records before it come back).
TEST(TFRecordTest, EveryFlipAndCutIsCaught) {
  const std::vector<std::string> records = {"alpha", std::string(40, '\x7f'), ""};
  std::string bytes;
  std::vector<size_t> boundaries = {0};
  for (const std::string& r : records) {
    bytes += TFRecord(r);
    boundaries.push_back(bytes.size());
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] ^= static_cast<char>(1 << bit);
      const absl::Status s = ReadTFRecords(flipped).status();
      ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << "byte " << i << " bit " << bit;
    }
  }
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    absl::StatusOr<std::vector<std::string>> got = ReadTFRecords(bytes.substr(0, cut));
    auto boundary = std::find(boundaries.begin(), boundaries.end(), cut);
    if (boundary != boundaries.end()) {
      ASSERT_TRUE(got.ok()) << "cut " << cut << ": " << got.status();
      EXPECT_EQ(got->size(), static_cast<size_t>(boundary - boundaries.begin()));
    } else {
      ASSERT_EQ(got.status().code(), absl::StatusCode::kDataLoss) << "cut " << cut;
      EXPECT_TRUE(MessageHas(got.status(), "truncated record at ")) << got.status();
    }
  }
}

tensorflow::serving::PredictionLog PredictLog(float x) {
  tensorflow::serving::PredictionLog log;
  auto* request = log.mutable_predict_log()->mutable_request();
  request->mutable_model_spec()->set_name("hp");
  tfproto::TensorProto& t = (*request->mutable_inputs())["x"];
  t.set_dtype(tfproto::DT_FLOAT);
  t.mutable_tensor_shape()->add_dim()->set_size(1);
  t.mutable_tensor_shape()->add_dim()->set_size(1);
  t.add_float_val(x);
  return log;
}

tensorflow::serving::PredictionLog RegressLog(const std::string& signature) {
  tensorflow::serving::PredictionLog log;
  auto* request = log.mutable_regress_log()->mutable_request();
  request->mutable_model_spec()->set_signature_name(signature);
  *request->mutable_input() = testing::ExampleListInput({1, 2});
  return log;
}

class WarmupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    base_ = smrt::testing::MakeTempDir();
  }
  void TearDown() override {
    if (!base_.empty()) fs::remove_all(base_);
  }

  // Version `version` of half_plus_two with these warm-up file bytes.
  void AddVersionWithWarmup(int64_t version, const std::string& bytes) {
    const std::string dir = testing::AddVersion(base_, version, testing::HalfPlusTwo());
    fs::create_directories(dir + "/assets.extra");
    std::ofstream(dir + "/" + kWarmupFile, std::ios::binary) << bytes;
  }

  absl::StatusOr<std::unique_ptr<ServerCore>> Create() {
    ServerCoreOptions options;
    ModelConfig config;
    config.name = "hp";
    config.base_path = base_;
    options.models.push_back(config);
    options.poll_wait = absl::ZeroDuration();
    return ServerCore::Create(options);
  }

  std::string base_;
};

TEST_F(WarmupTest, EveryKindOfRequestRunsBeforeTheVersionServes) {
  tensorflow::serving::PredictionLog classify;
  auto* request = classify.mutable_classify_log()->mutable_request();
  request->mutable_model_spec()->set_signature_name("classify_x_to_y");
  *request->mutable_input() = testing::ExampleListInput({3});
  tensorflow::serving::PredictionLog multi;
  auto* task = multi.mutable_multi_inference_log()->mutable_request()->add_tasks();
  task->mutable_model_spec()->set_name("hp");
  task->mutable_model_spec()->set_signature_name("regress_x_to_y");
  task->set_method_name("tensorflow/serving/regress");
  *multi.mutable_multi_inference_log()->mutable_request()->mutable_input() =
      testing::ExampleListInput({3});
  AddVersionWithWarmup(1, TFRecord(PredictLog(1).SerializeAsString()) +
                              TFRecord(RegressLog("regress_x_to_y").SerializeAsString()) +
                              TFRecord(classify.SerializeAsString()) +
                              TFRecord(multi.SerializeAsString()));
  absl::StatusOr<std::unique_ptr<ServerCore>> core = Create();
  ASSERT_TRUE(core.ok()) << core.status();
  EXPECT_TRUE((*core)->Ready());
}

TEST_F(WarmupTest, BadCrcFailsTheLoadWithTfServingsHint) {
  std::string bytes = TFRecord(PredictLog(1).SerializeAsString());
  bytes[bytes.size() - 1] ^= 0x40;  // the data's crc
  AddVersionWithWarmup(1, bytes);
  const absl::Status status = Create().status();
  EXPECT_TRUE(IsError(status, absl::StatusCode::kDataLoss, "corrupted record at 0"));
  EXPECT_TRUE(MessageHas(status, ". Please verify your warmup data is in TFRecord format."));
  EXPECT_TRUE(MessageHas(status, "Model hp: version 1 failed to load"));
}

TEST_F(WarmupTest, FailingRequestFailsTheNewVersionWhichNeverServes) {
  AddVersionWithWarmup(1, "");  // an empty file: no records, loads
  absl::StatusOr<std::unique_ptr<ServerCore>> core = Create();
  ASSERT_TRUE(core.ok()) << core.status();
  AddVersionWithWarmup(2, TFRecord(RegressLog("no_such_signature").SerializeAsString()));
  (*core)->PollNow();
  (*core)->PollNow();
  absl::StatusOr<std::vector<VersionStatus>> status = (*core)->Status("hp", 2);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ((*status)[0].state, VersionState::kEnd);
  EXPECT_TRUE(IsError((*status)[0].status, absl::StatusCode::kInvalidArgument,
                      "No signature was found with the name: no_such_signature"));
  EXPECT_EQ((*(*core)->Find("hp", std::nullopt, ""))->version(), 1);
}

TEST_F(WarmupTest, MoreThanAThousandRecordsAreRefused) {
  const std::string record = TFRecord(PredictLog(1).SerializeAsString());
  std::string bytes;
  for (int i = 0; i < kMaxWarmupRecords; ++i) bytes += record;
  AddVersionWithWarmup(1, bytes);
  ASSERT_TRUE(Create().ok());
  fs::remove_all(base_ + "/1");
  AddVersionWithWarmup(1, bytes + record);
  EXPECT_TRUE(IsError(Create().status(), absl::StatusCode::kInvalidArgument,
                      "Number of warmup records exceeds the maximum (1000) at "));
}

TEST_F(WarmupTest, SessionRunLogsAreRefusedByName) {
  // Field 5 (session_run_log) is not declared: written by hand, an empty
  // message.
  const std::string session_run_log("\x2a\x00", 2);
  AddVersionWithWarmup(1, TFRecord(session_run_log));
  EXPECT_TRUE(IsError(Create().status(), absl::StatusCode::kUnimplemented,
                      "Unsupported log_type for warmup: 5 (session_run_log)"));
}

}  // namespace
}  // namespace smrt::serve
