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
};

CpuInfo ProbeCpu();

}  // namespace smrt::device

#endif  // SMRT_DEVICE_CPU_INFO_H_
