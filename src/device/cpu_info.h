// What the CPU offers and what oneDNN will use on it.
#ifndef SMRT_DEVICE_CPU_INFO_H_
#define SMRT_DEVICE_CPU_INFO_H_

#include <string>
#include <vector>

namespace smrt::device {

struct CpuInfo {
  std::string model;              // /proc/cpuinfo "model name"
  int logical_cores = 0;          // std::thread::hardware_concurrency
  std::vector<std::string> isa;   // "avx2", "avx512f", "avx512_vnni", "amx_tile", ...
  std::string onednn_version;     // "2.6.3"
  std::string onednn_isa;         // the ISA oneDNN's JIT kernels dispatch to
  bool onednn_bf16 = false;       // that ISA has bf16 (AVX512_BF16 or AMX-BF16)
};

CpuInfo ProbeCpu();

// What LoadOptions::precision costs on this CPU, in words, for `smrt doctor`
// and, when it is slower than float32, for a warning at load: "bfloat16"
// runs the convolutions and matmuls on oneDNN's bf16 kernels where
// oneDNN_bf16, and elsewhere, like "float16" everywhere, widens the 16-bit
// products to float32 (slower than float32). Empty for "float32", "tf32".
struct CpuPrecision {
  bool slower_than_float32 = false;
  std::string text;
};
CpuPrecision DescribeCpuPrecision(const CpuInfo& cpu, const std::string& precision);

}  // namespace smrt::device

#endif  // SMRT_DEVICE_CPU_INFO_H_
