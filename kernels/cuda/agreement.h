// A library path that no GPU of ours has checked yet (cuBLASLt's and cuDNN's
// fused epilogues) is taken for a node and shape only after its first call
// gave the answers of the path smrt has tested: the first call computes
// both and compares them on the host (RunChecked), and a node keeps the
// verdicts.
#ifndef SMRT_KERNELS_CUDA_AGREEMENT_H_
#define SMRT_KERNELS_CUDA_AGREEMENT_H_

#include <cuda_runtime.h>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/kernel.h"

namespace smrt::kernels::cuda {

// A node's verdicts by key (dtype and shape); shared by the node's runs.
class Verdicts {
 public:
  std::optional<bool> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = verdicts_.find(key);
    if (it == verdicts_.end()) return std::nullopt;
    return it->second;
  }
  void Set(const std::string& key, bool agrees) {
    std::lock_guard<std::mutex> lock(mu_);
    verdicts_[key] = agrees;
  }

 private:
  std::mutex mu_;
  std::map<std::string, bool> verdicts_;
};

// Whether a library's value u agrees with the tested path's v: both NaN,
// the same infinity, or |u - v| <= tol * max(1, |v|).
bool Agree(double u, double v, double tol);

// A node's call that the library path `library` may compute instead of the
// tested path `tested` (both write `out`; `library` writes the buffer it is
// given). With a verdict for `key`, runs the path it chose (the tested one
// when the library fails that call). Without one, runs `tested` into `out`
// and `library` into a scratch buffer, compares them on the host (Agree, tol
// 1e-3 for float32, 1e-2 for float16 and for float32 where the node allows
// TF32, 5e-2 for bfloat16: a wrong layout or epilogue is off by far more;
// waits for the stream) and records whether they agreed.
// `library` failing Unimplemented (a case it does not take) is a silent
// "no"; a disagreement or another error is one warning (core/log.h): "<op>
// node '<node>': <what> <why> for <key>; this node keeps <kept> there".
absl::Status RunChecked(KernelContext& ctx, Verdicts& verdicts, const std::string& key,
                        Tensor& out, cudaStream_t stream,
                        const std::function<absl::Status()>& tested,
                        const std::function<absl::Status(void* dst)>& library,
                        absl::string_view what, absl::string_view kept);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_AGREEMENT_H_
