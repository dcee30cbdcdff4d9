// LoadOptions::device, device_policy and log_placement from the API's side,
// on any machine: a bad policy or device name is refused before anything is
// read, and a GPU that is not there (or a build without CUDA kernels) fails
// the load saying why, never falling back to the CPU unasked. Running on a
// GPU is checked by scripts/gpu_check.sh (the conformance subset on CUDA:0).
#include <string>
#include <string_view>
#include <vector>

#include "device/device_registry.h"
#include "gtest/gtest.h"
#include "smrt/log.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/paths.h"

namespace smrt {
namespace {

std::string Mlp() { return testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model"; }

TEST(DeviceOptionsTest, TheTextKeysSetTheFields) {
  LoadOptions options;
  EXPECT_EQ(options.device, "CPU");
  EXPECT_EQ(options.device_policy, "prefer");
  ASSERT_TRUE(SetLoadOption(&options, "device", "CUDA:0").ok());
  ASSERT_TRUE(SetLoadOption(&options, "device_policy", "require").ok());
  ASSERT_TRUE(SetLoadOption(&options, "log_placement", "true").ok());
  ASSERT_TRUE(SetLoadOption(&options, "cache_dir", "/var/cache/smrt").ok());
  EXPECT_EQ(options.cache_dir, "/var/cache/smrt");
  EXPECT_EQ(options.device, "CUDA:0");
  EXPECT_EQ(options.device_policy, "require");
  EXPECT_TRUE(options.log_placement);
}

// float16 on the CPU is widened to float32: slower, and said so (bfloat16
// too on a CPU without bf16 kernels; DescribeCpuPrecision's tests).
TEST(DeviceOptionsTest, Fp16OnTheCpuWarnsThatItIsSlower) {
  std::vector<std::string> warnings;
  SetLogSink([&](LogLevel level, std::string_view message) {
    if (level == LogLevel::kWarning) warnings.emplace_back(message);
  });
  LoadOptions options;
  options.precision = "float16";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Mlp(), options);
  options.precision = "float32";
  absl::StatusOr<std::unique_ptr<Model>> plain = Model::Load(Mlp(), options);
  SetLogSink(nullptr);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("precision=float16 on the CPU"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("slower than float32"), std::string::npos) << warnings[0];
}

TEST(DeviceOptionsTest, AnUnknownPolicyIsRefused) {
  LoadOptions options;
  options.device_policy = "soft";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Mlp(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("\"prefer\" or \"require\""), std::string::npos)
      << model.status();
}

TEST(DeviceOptionsTest, TheCpuByAnyNameRunsAsBefore) {
  for (const char* name : {"CPU", "cpu", "CPU:0", ""}) {
    LoadOptions options;
    options.device = name;
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Mlp(), options);
    ASSERT_TRUE(model.ok()) << name << ": " << model.status();
    EXPECT_EQ((*model)->GetMemoryStats().device_bytes_reserved, 0u);
    EXPECT_EQ((*model)->TrimMemory(), 0);
  }
}

TEST(DeviceOptionsTest, AMalformedOrMissingDeviceFailsTheLoadSayingWhy) {
  LoadOptions options;
  options.device = "TPU:0";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Mlp(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("LoadOptions::device"), std::string::npos)
      << model.status();

  if (device::DeviceRegistry::Get().discovery().cuda_devices() > 0) {
    GTEST_SKIP() << "this machine has a GPU; gpu_check.sh covers loading on it";
  }
  options.device = "CUDA:0";
  model = Model::Load(Mlp(), options);
  ASSERT_FALSE(model.ok());
  // Names the device and why there is no GPU (the discovery's reasons).
  EXPECT_NE(model.status().message().find("no device CUDA:0"), std::string::npos)
      << model.status();
  EXPECT_NE(model.status().message().find("no GPU"), std::string::npos) << model.status();
}

}  // namespace
}  // namespace smrt
