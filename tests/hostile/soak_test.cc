// Under load: many threads call one model with mixed signatures and batch
// sizes; every result must be bit-identical to a single-threaded run, memory
// must stay flat after warm-up, and nothing may burn CPU once calls return.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/goldens.h"
#include "testing/paths.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SMRT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SMRT_SANITIZED 1
#endif
#endif

namespace smrt {
namespace {

// Sanitizers keep freed memory in quarantine (RSS is not flat by design) and
// run several times slower: fewer calls, no RSS bound.
#ifdef SMRT_SANITIZED
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

struct Call {
  std::string signature;
  NamedTensors inputs;
  NamedTensors expected;  // from a single-threaded run
};

bool BitIdentical(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

// Resident set size in bytes (/proc/self/statm, second field, in pages).
int64_t RssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// User + system CPU time of the whole process, in microseconds.
int64_t ProcessCpuMicros() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000LL + u.ru_utime.tv_usec +
         u.ru_stime.tv_usec;
}

// Inputs for the tf1_predict_classify zoo model: predict/serving_default at
// batch sizes 1..8 and classify on serialized tf.Examples (1 and 8).
std::vector<Call> MakeCalls(const Model& model) {
  std::vector<Call> calls;
  for (const char* sig : {"predict", "serving_default"}) {
    for (int64_t batch = 1; batch <= 8; ++batch) {
      Call c;
      c.signature = sig;
      Tensor x = testing::GeneratedInput({batch, 4});
      for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] += 0.1f * batch;
      c.inputs["x"] = x;
      calls.push_back(std::move(c));
    }
  }
  const std::string cases = testing::TestDataDir() + "/zoo/tf1_predict_classify/cases/";
  for (const char* name : {"classify_b1", "classify_b8"}) {
    absl::StatusOr<Tensor> examples =
        testing::ReadGoldenTensor(cases + name + "/inputs/inputs.strings");
    EXPECT_TRUE(examples.ok()) << examples.status();
    if (!examples.ok()) continue;
    Call c;
    c.signature = "classify";
    c.inputs["inputs"] = *examples;
    calls.push_back(std::move(c));
  }
  for (Call& c : calls) {
    absl::StatusOr<NamedTensors> out = model.Run(c.signature, c.inputs);
    EXPECT_TRUE(out.ok()) << c.signature << ": " << out.status();
    if (out.ok()) c.expected = *std::move(out);
  }
  return calls;
}

TEST(SoakTest, ManyThreadsMixedCallsAreBitIdenticalWithFlatMemoryAndIdleCpu) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::TestDataDir() + "/zoo/tf1_predict_classify/saved_model");
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<Call> calls = MakeCalls(**model);
  ASSERT_EQ(calls.size(), 18u);

  constexpr int kThreads = 8;
  std::atomic<int> mismatches{0}, errors{0};
  auto round = [&](int calls_per_thread, int seed) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(seed * 100 + t);
        for (int i = 0; i < calls_per_thread; ++i) {
          const Call& c = calls[rng() % calls.size()];
          absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, c.inputs);
          if (!out.ok()) {
            ++errors;
            continue;
          }
          for (const auto& [name, want] : c.expected) {
            auto got = out->find(name);
            if (got == out->end() || !BitIdentical(got->second, want)) ++mismatches;
          }
        }
      });
    }
    for (std::thread& th : threads) th.join();
  };

  round(100, 1);  // warm-up: shape plans, allocator pools
  const int64_t rss_after_warmup = RssBytes();
  for (int r = 0; r < (kSanitized ? 1 : 4); ++r) round(150, 2 + r);  // 4800 calls
  const int64_t rss_after_load = RssBytes();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  // Flat: growth under 8 MiB after 4800 more calls (a leak of even a few
  // hundred bytes per call would exceed it).
  if (!kSanitized) {
    EXPECT_LT(rss_after_load - rss_after_warmup, int64_t{8} << 20)
        << "RSS grew from " << rss_after_warmup << " to " << rss_after_load << " bytes";
  }

  // Idle: with every call returned, the process uses (almost) no CPU.
  const int64_t cpu_before = ProcessCpuMicros();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int64_t idle_cpu = ProcessCpuMicros() - cpu_before;
  EXPECT_LT(idle_cpu, 50000) << "the process used " << idle_cpu << " us of CPU while idle";
}

}  // namespace
}  // namespace smrt
