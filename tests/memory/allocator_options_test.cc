// SMRT_GPU_ALLOCATOR / SMRT_GPU_ALLOW_GROWTH are read in one place, and bad
// values are errors naming the variable, the value and what is accepted.
#include "memory/allocator_options.h"

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace smrt::memory {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(AllocatorOptionsTest, UnsetKeepsTheOptions) {
  GpuAllocatorOptions base;
  base.kind = GpuAllocatorKind::kCudaMallocAsync;
  base.bfc.allow_growth = false;
  auto o = ApplyGpuAllocatorEnvironment(base, Env({}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, GpuAllocatorKind::kCudaMallocAsync);
  EXPECT_FALSE(o->bfc.allow_growth);
  o = ApplyGpuAllocatorEnvironment(base, Env({{"SMRT_GPU_ALLOCATOR", ""},
                                              {"SMRT_GPU_ALLOW_GROWTH", ""}}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, GpuAllocatorKind::kCudaMallocAsync);
}

TEST(AllocatorOptionsTest, EnvironmentOverridesTheOptions) {
  auto o = ApplyGpuAllocatorEnvironment(
      GpuAllocatorOptions{}, Env({{"SMRT_GPU_ALLOCATOR", "cuda_malloc_async"},
                                  {"SMRT_GPU_ALLOW_GROWTH", "false"}}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, GpuAllocatorKind::kCudaMallocAsync);
  EXPECT_FALSE(o->bfc.allow_growth);
  GpuAllocatorOptions async;
  async.kind = GpuAllocatorKind::kCudaMallocAsync;
  async.bfc.allow_growth = false;
  o = ApplyGpuAllocatorEnvironment(async, Env({{"SMRT_GPU_ALLOCATOR", "BFC"},
                                               {"SMRT_GPU_ALLOW_GROWTH", " True "}}));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->kind, GpuAllocatorKind::kBfc);
  EXPECT_TRUE(o->bfc.allow_growth);
  for (const char* v : {"1", "TRUE"}) {
    o = ApplyGpuAllocatorEnvironment(async, Env({{"SMRT_GPU_ALLOW_GROWTH", v}}));
    ASSERT_TRUE(o.ok()) << v;
    EXPECT_TRUE(o->bfc.allow_growth) << v;
  }
  o = ApplyGpuAllocatorEnvironment(GpuAllocatorOptions{}, Env({{"SMRT_GPU_ALLOW_GROWTH", "0"}}));
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->bfc.allow_growth);
}

TEST(AllocatorOptionsTest, BadValuesSayWhatIsAccepted) {
  auto o = ApplyGpuAllocatorEnvironment(GpuAllocatorOptions{},
                                        Env({{"SMRT_GPU_ALLOCATOR", "cuda_malloc"}}));
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(o.status().message(), "SMRT_GPU_ALLOCATOR='cuda_malloc'"))
      << o.status();
  EXPECT_TRUE(absl::StrContains(o.status().message(), "bfc or cuda_malloc_async")) << o.status();
  o = ApplyGpuAllocatorEnvironment(GpuAllocatorOptions{},
                                   Env({{"SMRT_GPU_ALLOW_GROWTH", "yes"}}));
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(o.status().message(), "SMRT_GPU_ALLOW_GROWTH='yes'"))
      << o.status();
  EXPECT_TRUE(absl::StrContains(o.status().message(), "true or false")) << o.status();
}

TEST(AllocatorOptionsTest, KindNamesRoundTrip) {
  for (GpuAllocatorKind k : {GpuAllocatorKind::kBfc, GpuAllocatorKind::kCudaMallocAsync}) {
    auto parsed = ParseGpuAllocatorKind(GpuAllocatorKindName(k));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_FALSE(ParseGpuAllocatorKind("").ok());
}

}  // namespace
}  // namespace smrt::memory
