// Whether a GPU and its driver can run a build's CUDA kernels
// (kernels/cuda_build.h): the runtime the kernels link against the
// driver's CUDA version, the compute capability against the architectures
// compiled for (machine code for a major's equal or newer minors, PTX for
// anything newer).
#include "kernels/cuda_build.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace smrt::kernels {
namespace {

CudaBuild Build(int runtime, const char* architectures) {
  CudaBuild b;
  b.runtime_version = runtime;
  b.architectures = architectures;
  return b;
}

bool Runs(const CudaBuild& b, int driver, int major, int minor) {
  return WhyCudaBuildCannotRun(b, driver, major, minor).empty();
}

TEST(CudaBuildTest, ArchitecturesCoverTheirMajorAndWithPtxNewerGpus) {
  const CudaBuild plain = Build(13000, "90");  // sm_90 code and compute_90 PTX
  EXPECT_TRUE(Runs(plain, 13000, 9, 0));
  EXPECT_TRUE(Runs(plain, 13000, 10, 0));  // a newer GPU compiles the PTX
  EXPECT_FALSE(Runs(plain, 13000, 8, 0));
  EXPECT_FALSE(Runs(plain, 13000, 8, 9));
  const CudaBuild real = Build(13000, "80-real,90-real");
  EXPECT_TRUE(Runs(real, 13000, 8, 0));
  EXPECT_TRUE(Runs(real, 13000, 8, 6));  // sm_80 code runs on 8.6 and 8.9
  EXPECT_TRUE(Runs(real, 13000, 9, 0));
  EXPECT_FALSE(Runs(real, 13000, 7, 5));
  EXPECT_FALSE(Runs(real, 13000, 10, 0));  // no PTX for a newer major
  EXPECT_TRUE(Runs(Build(13000, "80-real;90-virtual"), 13000, 12, 0));
  EXPECT_TRUE(Runs(Build(13000, "native"), 13000, 7, 0));
  const std::string why = WhyCudaBuildCannotRun(real, 13000, 10, 0);
  EXPECT_TRUE(absl::StrContains(why, "code for sm_80, sm_90, not for this GPU's compute "
                                     "capability 10.0: build with -DSMRT_CUDA_ARCHITECTURES=100"))
      << why;
}

TEST(CudaBuildTest, TheDriverMustSupportTheRuntimesMajor) {
  const CudaBuild b = Build(13000, "90");
  EXPECT_FALSE(Runs(b, 12080, 9, 0));
  EXPECT_TRUE(Runs(b, 13000, 9, 0));
  EXPECT_TRUE(Runs(b, 13020, 9, 0));
  EXPECT_TRUE(Runs(Build(13010, "90"), 13000, 9, 0));  // minor-version compatibility
  EXPECT_TRUE(Runs(b, 0, 9, 0));                        // unknown driver: no complaint
  const std::string why = WhyCudaBuildCannotRun(b, 12040, 9, 0);
  EXPECT_TRUE(absl::StrContains(why, "use the CUDA 13.0 runtime, and the driver supports CUDA "
                                     "12.4: install an NVIDIA driver for CUDA 13"))
      << why;
}

TEST(CudaBuildTest, ABuildWithoutCudaKernelsRunsAnywhere) {
  EXPECT_TRUE(Runs(CudaBuild(), 11000, 5, 0));
  EXPECT_EQ(ThisCudaBuild().runtime_version > 0, !ThisCudaBuild().architectures.empty());
}

}  // namespace
}  // namespace smrt::kernels
