#include "kernels/cuda_build.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace smrt::kernels {

const CudaBuild& ThisCudaBuild() {
  static const CudaBuild build = [] {
    CudaBuild b;
#if defined(SMRT_CUDA_RUNTIME_VERSION)
    b.runtime_version = SMRT_CUDA_RUNTIME_VERSION;
    b.architectures = SMRT_CUDA_ARCHITECTURES;
#endif
    return b;
  }();
  return build;
}

std::string WhyCudaBuildCannotRun(const CudaBuild& build, int driver_version, int cc_major,
                                  int cc_minor) {
  if (build.runtime_version == 0) return "";
  const auto version = [](int v) { return absl::StrCat(v / 1000, ".", (v % 1000) / 10); };
  if (driver_version > 0 && driver_version / 1000 < build.runtime_version / 1000) {
    return absl::StrCat("smrt's CUDA kernels use the CUDA ", version(build.runtime_version),
                        " runtime, and the driver supports CUDA ", version(driver_version),
                        ": install an NVIDIA driver for CUDA ", build.runtime_version / 1000,
                        " or build smrt with the CUDA ", driver_version / 1000, " toolkit");
  }
  const int cc = cc_major * 10 + cc_minor;
  std::vector<std::string> listed;
  for (absl::string_view entry :
       absl::StrSplit(build.architectures, absl::ByAnyChar(",;"), absl::SkipEmpty())) {
    if (entry == "all" || entry == "all-major" || entry == "native") return "";
    bool real = true, virt = true;
    if (absl::ConsumeSuffix(&entry, "-real")) virt = false;
    if (absl::ConsumeSuffix(&entry, "-virtual")) real = false;
    int arch = 0;
    if (!absl::SimpleAtoi(entry, &arch)) return "";  // a form not known here: no complaint
    listed.push_back(absl::StrCat("sm_", arch, real ? "" : " (PTX)"));
    if (real && cc_major == arch / 10 && cc_minor >= arch % 10) return "";
    if (virt && cc >= arch) return "";
  }
  return absl::StrCat("smrt's CUDA kernels hold code for ",
                      listed.empty() ? std::string("no architecture") : absl::StrJoin(listed, ", "),
                      ", not for this GPU's compute capability ", cc_major, ".", cc_minor,
                      ": build with -DSMRT_CUDA_ARCHITECTURES=", cc, " (or add it)");
}

}  // namespace smrt::kernels
