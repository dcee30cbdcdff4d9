// Models on GPUs other than CUDA:0: each runs on its own device whichever
// device the calling thread last used, so one thread (or several) can
// alternate between a model on CUDA:0 and one on CUDA:1 and get
// TensorFlow's answers from both. Needs two GPUs; the GPU past the last one
// is refused by name on any machine with a GPU.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

int GpuCount() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

TEST(CudaMultiGpuTest, OneThreadAlternatingBetweenTwoGpusGetsTensorFlowsAnswersOnBoth) {
  SMRT_SKIP_WITHOUT_GPU();
  if (GpuCount() < 2) GTEST_SKIP() << "needs 2 GPUs; this machine has " << GpuCount();
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  const testing::ConformanceModel* unet = nullptr;
  for (const testing::ConformanceModel& m : *models) {
    if (m.name == "unet_small") unet = &m;
  }
  ASSERT_NE(unet, nullptr);
  std::vector<std::unique_ptr<Model>> on;  // on[d]: the model on CUDA:d
  for (int d = 0; d < 2; ++d) {
    LoadOptions options;
    options.device = absl::StrCat("CUDA:", d);
    options.device_policy = "require";
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(unet->dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    on.push_back(*std::move(model));
  }
  auto run_all = [&](int first, std::string& failure) {
    for (int i = 0; i < 6; ++i) {
      const int d = (first + i) % 2;
      for (const testing::ConformanceCase& c : unet->cases) {
        absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
        if (!in.ok()) {
          failure = std::string(in.status().message());
          return;
        }
        absl::StatusOr<NamedTensors> out = on[d]->Run(c.signature, *in);
        if (!out.ok()) {
          failure = absl::StrCat("CUDA:", d, ": ", out.status().message());
          return;
        }
        testing::Comparison cmp = testing::CompareOutputs(c, *out, unet->tolerance);
        if (!cmp.ok) {
          failure = absl::StrCat("CUDA:", d, " ", c.name, ": ", cmp.detail);
          return;
        }
      }
    }
  };
  std::string alone;
  run_all(1, alone);
  EXPECT_EQ(alone, "");
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { run_all(t, failures[t]); });
  for (std::thread& th : threads) th.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
}

TEST(CudaMultiGpuTest, AGpuPastTheLastIsRefusedByName) {
  SMRT_SKIP_WITHOUT_GPU();
  LoadOptions options;
  options.device = absl::StrCat("CUDA:", GpuCount());
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::TestDataDir() + "/zoo/unet_small/saved_model", options);
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::StrContains(model.status().message(), options.device)) << model.status();
}

}  // namespace
}  // namespace smrt
