#include "kernels/cuda/agreement.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/log.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/half_math.h"
#include "kernels/cuda/tf32.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
bool SameValues(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, double tol) {
  const size_t n = x.size() / sizeof(T);
  const auto* a = reinterpret_cast<const T*>(x.data());
  const auto* b = reinterpret_cast<const T*>(y.data());
  for (size_t i = 0; i < n; ++i) {
    if (!Agree(Widen(a[i]), Widen(b[i]), tol)) return false;
  }
  return true;
}

absl::StatusOr<bool> SameOnHost(const KernelContext& ctx, const Tensor& x, const Tensor& y,
                                cudaStream_t stream) {
  if (x.dtype() != y.dtype() || x.shape() != y.shape()) return false;
  std::vector<uint8_t> hx(x.byte_size()), hy(y.byte_size());
  for (auto [dst, src] : {std::pair{&hx, &x}, std::pair{&hy, &y}}) {
    if (absl::Status s = CudaStatus(cudaMemcpyAsync(dst->data(), src->raw_data(), dst->size(),
                                                    cudaMemcpyDeviceToHost, stream),
                                    ctx.op(), ctx.node_name(), "cudaMemcpyAsync (device to host)");
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CudaStatus(cudaStreamSynchronize(stream), ctx.op(), ctx.node_name(),
                                  "cudaStreamSynchronize");
      !s.ok()) {
    return s;
  }
  switch (x.dtype()) {
    case DataType::kHalf: return SameValues<__half>(hx, hy, 1e-2);
    case DataType::kBFloat16: return SameValues<__nv_bfloat16>(hx, hy, 5e-2);
    // Two TF32 paths round their operands alike but sum in other orders.
    case DataType::kFloat: return SameValues<float>(hx, hy, AllowsTf32(ctx) ? 1e-2 : 1e-3);
    default: return false;
  }
}

}  // namespace

bool Agree(double u, double v, double tol) {
  if (std::isnan(u) || std::isnan(v)) return std::isnan(u) == std::isnan(v);
  if (std::isinf(u) || std::isinf(v)) return u == v;
  return std::fabs(u - v) <= tol * std::max(1.0, std::fabs(v));
}

absl::Status RunChecked(KernelContext& ctx, Verdicts& verdicts, const std::string& key,
                        Tensor& out, cudaStream_t stream,
                        const std::function<absl::Status()>& tested,
                        const std::function<absl::Status(void* dst)>& library,
                        absl::string_view what, absl::string_view kept) {
  if (const std::optional<bool> agrees = verdicts.Find(key); agrees.has_value()) {
    if (!*agrees) return tested();
    // The library may still decline a call (no algorithm for these buffers'
    // alignment, no room for its workspace): the tested path computes it.
    // Where that fails too (a CUDA error that stays), the library's error
    // is the one to report.
    const absl::Status library_ran = library(out.raw_data());
    if (library_ran.ok()) return library_ran;
    const absl::Status tested_ran = tested();
    return tested_ran.ok() ? tested_ran : library_ran;
  }
  if (absl::Status s = tested(); !s.ok()) return s;
  absl::StatusOr<Tensor> check = ctx.device()->Allocate(
      out.dtype(), out.shape(), absl::StrCat(ctx.node_name(), "/library_path_check"));
  if (!check.ok()) return absl::OkStatus();  // no room to compare: keep the tested path
  std::string why;
  const absl::Status ran = library(check->raw_data());
  if (ran.ok()) {
    absl::StatusOr<bool> same = SameOnHost(ctx, *check, out, stream);
    if (!same.ok()) return same.status();
    if (!*same) why = "gave other answers";
  } else if (ran.code() != absl::StatusCode::kUnimplemented) {
    why = std::string(ran.message());
  }
  if (!why.empty()) {
    Log(LogLevel::kWarning, absl::StrCat(ctx.op(), " node '", ctx.node_name(), "': ", what, " ",
                                         why, " for ", key, "; this node keeps ", kept, " there"));
  }
  verdicts.Set(key, ran.ok() && why.empty());
  return absl::OkStatus();
}

}  // namespace smrt::kernels::cuda
