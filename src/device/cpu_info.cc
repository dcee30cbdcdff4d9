#include "device/cpu_info.h"

#include <cpuid.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "oneapi/dnnl/dnnl.h"

namespace smrt::device {
namespace {

std::string OneDnnIsa(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse4.1";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return absl::StrCat("isa 0x", absl::Hex(static_cast<int>(isa)));
  }
}

}  // namespace

CpuInfo ProbeCpu() {
  CpuInfo info;
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (absl::StartsWith(line, "model name")) {
      info.model = std::string(absl::StripAsciiWhitespace(line.substr(line.find(':') + 1)));
      break;
    }
  }
  // CPUID leaf 1 (ecx), leaf 7 subleaf 0 (ebx, ecx, edx) and subleaf 1 (eax).
  unsigned a = 0, b = 0, c = 0, d = 0;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  unsigned c1 = 0, b7 = 0, c7 = 0, d7 = 0, a71 = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) c1 = c;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b7, c7, d7);
    __cpuid_count(7, 1, a71, b, c, d);
  }
  auto bit = [](unsigned reg, int n) { return ((reg >> n) & 1u) != 0; };
  const std::pair<const char*, bool> flags[] = {
      {"sse4.2", bit(c1, 20)},     {"avx", bit(c1, 28)},          {"fma", bit(c1, 12)},
      {"f16c", bit(c1, 29)},       {"avx2", bit(b7, 5)},          {"avx512f", bit(b7, 16)},
      {"avx512bw", bit(b7, 30)},   {"avx512_vnni", bit(c7, 11)},  {"avx512_bf16", bit(a71, 5)},
      {"avx512_fp16", bit(d7, 23)}, {"amx_bf16", bit(d7, 22)},    {"amx_tile", bit(d7, 24)},
      {"amx_int8", bit(d7, 25)},
  };
  for (const auto& [name, on] : flags) {
    if (on) info.isa.push_back(name);
  }
  const dnnl_version_t* v = dnnl_version();
  info.onednn_version = absl::StrCat(v->major, ".", v->minor, ".", v->patch);
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  info.onednn_isa = OneDnnIsa(isa);
  // ISA values are nested bit sets: AMX's includes AVX512_BF16's.
  const unsigned bf16 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_bf16);
  info.onednn_bf16 = (static_cast<unsigned>(isa) & bf16) == bf16;
  return info;
}

CpuPrecision DescribeCpuPrecision(const CpuInfo& cpu, const std::string& precision) {
  CpuPrecision p;
  if (precision != "bfloat16" && precision != "float16") return p;
  if (precision == "bfloat16" && cpu.onednn_bf16) {
    p.text = absl::StrCat(
        "precision=bfloat16 on the CPU: convolutions and matmuls run in bfloat16 on oneDNN's ",
        cpu.onednn_isa,
        " kernels (float32 accumulation); other ops stay float32 or widen (docs/precision.md)");
    return p;
  }
  auto has = [&](const char* name) {
    return std::find(cpu.isa.begin(), cpu.isa.end(), name) != cpu.isa.end();
  };
  std::vector<std::string> hardware;
  if (precision == "bfloat16") {
    if (has("avx512_bf16")) hardware.push_back("AVX512_BF16");
    if (has("amx_bf16")) hardware.push_back("AMX-BF16");
  } else if (has("avx512_fp16")) {
    hardware.push_back("AVX512_FP16");
  }
  p.slower_than_float32 = true;
  p.text = absl::StrCat(
      "precision=", precision,
      " on the CPU: smrt's CPU kernels compute these 16-bit products by widening them to "
      "float32, which is slower than float32 (docs/precision.md); ");
  if (hardware.empty()) {
    absl::StrAppend(&p.text, "this CPU has no ", precision, " instructions",
                    precision == "bfloat16" ? " (oneDNN dispatches to " + cpu.onednn_isa + ")" : "",
                    ". Use precision=float32 on the CPU");
  } else {
    absl::StrAppend(&p.text, "this CPU's ", absl::StrJoin(hardware, " and "), " are not used (",
                    precision == "bfloat16"
                        ? "oneDNN dispatches only to " + cpu.onednn_isa +
                              " here: is ONEDNN_MAX_CPU_ISA set?"
                        : "smrt has no float16 CPU kernels",
                    "). Use precision=float32 on the CPU");
  }
  return p;
}

}  // namespace smrt::device
