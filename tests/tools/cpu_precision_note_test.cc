// What `smrt doctor` and Model::Load say about 16-bit precision on the CPU
// (device/cpu_info.h): bfloat16 on oneDNN's bf16 kernels where the CPU has
// them, and never silently slower than float32 where it has not.
#include <string>

#include "absl/strings/match.h"
#include "device/cpu_info.h"
#include "gtest/gtest.h"

namespace smrt::device {
namespace {

TEST(CpuPrecisionTest, Float32NeedsNoWords) {
  CpuInfo cpu;
  cpu.isa = {"avx2", "avx512_bf16"};
  EXPECT_EQ(DescribeCpuPrecision(cpu, "float32").text, "");
  EXPECT_FALSE(DescribeCpuPrecision(cpu, "tf32").slower_than_float32);
}

TEST(CpuPrecisionTest, ACpuWithoutBf16SaysItIsSlower) {
  CpuInfo cpu;
  cpu.isa = {"avx2", "fma"};
  cpu.onednn_isa = "avx2";
  const CpuPrecision p = DescribeCpuPrecision(cpu, "bfloat16");
  EXPECT_TRUE(p.slower_than_float32);
  EXPECT_TRUE(absl::StrContains(p.text, "slower than float32")) << p.text;
  EXPECT_TRUE(absl::StrContains(p.text, "this CPU has no bfloat16 instructions")) << p.text;
  EXPECT_TRUE(absl::StrContains(p.text, "Use precision=float32")) << p.text;
}

TEST(CpuPrecisionTest, Bf16HardwareThatOneDnnDoesNotUseIsNamed) {
  // The CPU has the instructions, but oneDNN was capped below them
  // (ONEDNN_MAX_CPU_ISA=AVX512_CORE, say).
  CpuInfo cpu;
  cpu.isa = {"avx512f", "avx512_bf16", "amx_tile", "amx_bf16"};
  cpu.onednn_isa = "avx512_core";
  const CpuPrecision p = DescribeCpuPrecision(cpu, "bfloat16");
  EXPECT_TRUE(p.slower_than_float32);
  EXPECT_TRUE(absl::StrContains(p.text, "this CPU's AVX512_BF16 and AMX-BF16 are not used"))
      << p.text;
  EXPECT_TRUE(absl::StrContains(p.text, "oneDNN dispatches only to avx512_core")) << p.text;
}

TEST(CpuPrecisionTest, Bf16OnOneDnnsBf16KernelsIsNotAWarning) {
  CpuInfo cpu;
  cpu.isa = {"avx512f", "avx512_bf16", "amx_bf16"};
  cpu.onednn_isa = "avx512_core_amx";
  cpu.onednn_bf16 = true;
  const CpuPrecision p = DescribeCpuPrecision(cpu, "bfloat16");
  EXPECT_FALSE(p.slower_than_float32);
  EXPECT_TRUE(absl::StrContains(p.text, "run in bfloat16 on oneDNN's avx512_core_amx")) << p.text;
  // float16 has no kernels of its own on the CPU, whatever the CPU.
  const CpuPrecision half = DescribeCpuPrecision(cpu, "float16");
  EXPECT_TRUE(half.slower_than_float32);
  EXPECT_TRUE(absl::StrContains(half.text, "no float16 instructions")) << half.text;
}

TEST(CpuPrecisionTest, ThisMachineIsDescribedForBf16) {
  const CpuInfo cpu = ProbeCpu();
  const CpuPrecision p = DescribeCpuPrecision(cpu, "bfloat16");
  EXPECT_FALSE(p.text.empty());
  EXPECT_EQ(p.slower_than_float32, !cpu.onednn_bf16);
}

}  // namespace
}  // namespace smrt::device
