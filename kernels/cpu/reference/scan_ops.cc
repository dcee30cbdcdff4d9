// Cumsum, Cumprod and CumulativeLogsumexp, as TensorFlow's CPU kernels
// (exclusive, reverse).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/shared/scan_util.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------------------
// Cumsum, Cumprod

// Scans along the middle dim of x viewed as (outer, len, inner).
template <typename T>
void Scan(const T* in, T* out, int64_t outer, int64_t len, int64_t inner, bool prod, bool exclusive,
          bool reverse) {
  const T identity = prod ? T(1) : T(0);
  std::vector<T> acc(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), identity);
    for (int64_t s = 0; s < len; ++s) {
      const int64_t j = reverse ? len - 1 - s : s;
      const int64_t base = (o * len + j) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const T v = in[base + i];
        const T next = prod ? misc::WrapMul(acc[i], v) : misc::WrapAdd(acc[i], v);
        out[base + i] = exclusive ? acc[i] : next;
        acc[i] = next;
      }
    }
  }
}

absl::Status ComputeScan(KernelContext& ctx, bool prod) {
  absl::StatusOr<ScanPlan> plan = PlanScan(ctx);
  if (!plan.ok()) return plan.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  if (x.num_elements() == 0) return absl::OkStatus();
  Tensor* result = *out;
  return misc::VisitRealType(x.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Scan<T>(x.data<T>(), result->data<T>(), plan->outer, plan->len, plan->inner, prod,
            plan->exclusive, plan->reverse);
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// CumulativeLogsumexp: TensorFlow's LogSumExp functor folded from -inf,
// acc' = max + log1p(exp(min - max)) (max itself when it is -inf), in T
// with each step rounded as Eigen's float16/bfloat16 arithmetic rounds.

template <typename T>
void LogSumExpScan(const T* in, T* out, const ScanPlan& p) {
  using C = elementwise::ComputeType<T>;
  using elementwise::Rounded;
  const C lowest = static_cast<C>(std::numeric_limits<T>::lowest());
  std::vector<C> acc(static_cast<size_t>(p.inner));
  for (int64_t o = 0; o < p.outer; ++o) {
    std::fill(acc.begin(), acc.end(), -std::numeric_limits<C>::infinity());
    for (int64_t s = 0; s < p.len; ++s) {
      const int64_t j = p.reverse ? p.len - 1 - s : s;
      const int64_t base = (o * p.len + j) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        const C a = acc[i], b = static_cast<C>(in[base + i]);
        const C lo = b < a ? b : a, hi = a < b ? b : a;  // Eigen's min/max: NaN in a wins
        C next = hi;
        if (!(hi < lowest)) {
          const C e = Rounded<T>(std::exp(Rounded<T>(lo - hi)));
          next = Rounded<T>(Rounded<T>(std::log1p(e)) + hi);
        }
        out[base + i] = static_cast<T>(p.exclusive ? a : next);
        acc[i] = next;
      }
    }
  }
}

absl::Status ComputeLogSumExpScan(KernelContext& ctx) {
  absl::StatusOr<ScanPlan> plan = PlanScan(ctx);
  if (!plan.ok()) return plan.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  return elementwise::Dispatch(elementwise::FloatTypes{}, x.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    LogSumExpScan<T>(x.data<T>(), result->data<T>(), *plan);
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterScanOps(KernelRegistry& r) {
  r.AddKernel({"CumulativeLogsumexp", kCpu, "T", elementwise::DataTypes(elementwise::FloatTypes{}),
               ComputeLogSumExpScan});
  const std::vector<DataType>& real = misc::RealTypes();
  for (const char* op : {"Cumsum", "Cumprod"}) {
    const bool prod = std::string(op) == "Cumprod";
    r.AddKernel(
        {op, kCpu, "T", real, [prod](KernelContext& ctx) { return ComputeScan(ctx, prod); }});
  }
}

}  // namespace smrt::kernels
