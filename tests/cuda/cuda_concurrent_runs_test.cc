// Concurrent Runs of one model on the GPU: each run queues its work on a
// stream of its own (exec/run_device.h), and what one run frees is not handed
// to another before the run has waited for its stream. Threads running one
// model at once must get the answers of runs one at a time. Skips without a
// GPU.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda_test_util.h"
#include "device/cuda_runtime.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "smrt/model.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

// A thread that never used CUDA loads, runs and frees a model on the GPU: it
// is left with no current context, as it started, so an application's own
// CUDA calls on it pick their device as they would have (Model::Load and
// Model::Run hold a device::CallerContextGuard).
TEST(CudaConcurrentRunsTest, TheCallingThreadsCurrentContextIsLeftAsItWas) {
  SMRT_SKIP_WITHOUT_GPU();
  absl::StatusOr<const device::CudaRuntimeApi*> api = device::LoadCudaRuntime();
  ASSERT_TRUE(api.ok()) << api.status();
  ASSERT_NE((*api)->CtxGetCurrent, nullptr) << "cuCtxGetCurrent from libcuda.so.1";
  auto current = [&] {
    void* c = reinterpret_cast<void*>(uintptr_t{1});
    EXPECT_EQ((*api)->CtxGetCurrent(&c), 0);
    return c;
  };
  std::thread fresh([&] {
    ASSERT_EQ(current(), nullptr);
    absl::StatusOr<std::vector<testing::ConformanceModel>> models =
        testing::ListZooModels(testing::TestDataDir() + "/zoo");
    ASSERT_TRUE(models.ok()) << models.status();
    for (const testing::ConformanceModel& m : *models) {
      if (m.name != "mlp_bn_dropout") continue;
      LoadOptions options;
      options.device = "CUDA:0";
      absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
      ASSERT_TRUE(model.ok()) << model.status();
      EXPECT_EQ(current(), nullptr) << "after the load";
      absl::StatusOr<NamedTensors> in = testing::ReadInputs(m.cases.at(0));
      ASSERT_TRUE(in.ok()) << in.status();
      absl::StatusOr<NamedTensors> out = (*model)->Run(m.cases.at(0).signature, *in);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(current(), nullptr) << "after the run";
      model->reset();
      EXPECT_EQ(current(), nullptr) << "after the model was freed";
    }
  });
  fresh.join();
}

TEST(CudaConcurrentRunsTest, ThreadsRunningOneModelGetTheAnswersOfSequentialRuns) {
  SMRT_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  int checked = 0;
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "unet_small" && m.name != "transformer_small") continue;
    LoadOptions options;
    options.device = "CUDA:0";
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    // Each case once, alone: the answers to match.
    std::vector<NamedTensors> inputs, alone;
    for (const testing::ConformanceCase& c : m.cases) {
      absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
      ASSERT_TRUE(in.ok()) << in.status();
      absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *in);
      ASSERT_TRUE(out.ok()) << out.status();
      inputs.push_back(*std::move(in));
      alone.push_back(*std::move(out));
    }
    // Then 6 threads at once, 8 runs each, the cases interleaved.
    std::vector<std::thread> threads;
    std::vector<std::string> failures(6);
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 8; ++i) {
          const size_t c = (t + i) % m.cases.size();
          absl::StatusOr<NamedTensors> out = (*model)->Run(m.cases[c].signature, inputs[c]);
          if (!out.ok()) {
            failures[t] = std::string(out.status().message());
            return;
          }
          for (const auto& [name, tensor] : alone[c]) {
            if (!kernels::testing::TensorsNear(out->at(name), tensor, 1e-5, 1e-5)) {
              failures[t] = m.name + " " + m.cases[c].name + " " + name + " differs";
              return;
            }
          }
        }
      });
    }
    for (std::thread& th : threads) th.join();
    for (const std::string& f : failures) EXPECT_EQ(f, "") << m.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace smrt
