// RaggedTensorToTensor on the CPU, any dtype (strings too): the plan
// (ragged_util.h) and then the copies, default first, values over it.
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/ragged_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeRaggedToTensor(KernelContext& ctx) {
  absl::StatusOr<RaggedToTensorPlan> plan = PlanRaggedToTensor(ctx);
  if (!plan.ok()) return plan.status();
  const Tensor& values = ctx.input(1);
  const Tensor& fallback = ctx.input(2);
  const bool is_string = values.dtype() == DataType::kString;
  const size_t esize = DataTypeSize(values.dtype());
  if (!is_string && esize == 0) {
    return absl::UnimplementedError(
        absl::StrCat("RaggedTensorToTensor of ", DataTypeName(values.dtype())));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, values.dtype(), plan->out_shape);
  if (!out.ok()) return out.status();
  Tensor& o = **out;
  auto copy = [&](const Tensor& src, int64_t from, int64_t to) {
    if (is_string) {
      o.data<std::string>()[to] = src.data<std::string>()[from];
    } else {
      std::memcpy(static_cast<char*>(o.raw_data()) + to * esize,
                  static_cast<const char*>(src.raw_data()) + from * esize, esize);
    }
  };
  const int64_t width = plan->out_element;
  if (!plan->default_source.empty()) {
    for (int64_t r = 0; r < plan->rows; ++r) {
      for (int64_t k = 0; k < width; ++k) copy(fallback, plan->default_source[k], r * width + k);
    }
  }
  for (size_t v = 0; v < plan->index.size(); ++v) {
    if (plan->index[v] < 0) continue;
    for (int64_t k = 0; k < width; ++k) {
      copy(values, static_cast<int64_t>(v) * plan->element + k, plan->index[v] * width + k);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterRaggedOps(KernelRegistry& r) {
  r.AddKernel({"RaggedTensorToTensor", kCpu, "", {}, ComputeRaggedToTensor});
}

}  // namespace smrt::kernels
