// MaxPool on oneDNN for NHWC windows over rows and columns: float32, uint8
// and int8 (an int8 model's 8-bit values between its convolutions,
// passes/requantize_int8.cc) and, where the CPU has bf16 instructions,
// bfloat16, which the reference kernel runs element by element through
// float (a ResNet50 stem pool cost 10 % of a precision=bfloat16 call
// there). Max is exact in every type, so the results are the reference
// kernel's bit for bit; NCHW nodes and windows across batch or depth stay
// with the reference kernel.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/registry.h"
#include "kernels/shared/conv_util.h"
#include "ops/pool_shapes.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;
using tag = dnnl::memory::format_tag;

struct PoolPlan {
  dnnl::pooling_forward::primitive_desc pd;
  dnnl::pooling_forward prim;
  Shape out_shape;
};

using PoolState = onednn::PlanCache<PoolPlan>;

absl::StatusOr<std::shared_ptr<const PoolPlan>> MakePlan(const Tensor& in,
                                                         const ops::PoolAttrs& p) {
  const int64_t n = in.dim(0), h = in.dim(1), w = in.dim(2), c = in.dim(3);
  absl::StatusOr<WindowedSize> rows =
      WindowedOutputSize(h, p.ksize[1], 1, p.strides[1], p.padding, p.pads[0][0], p.pads[0][1]);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<WindowedSize> cols =
      WindowedOutputSize(w, p.ksize[2], 1, p.strides[2], p.padding, p.pads[1][0], p.pads[1][1]);
  if (!cols.ok()) return cols.status();
  auto plan = std::make_shared<PoolPlan>();
  plan->out_shape = {n, rows->size, cols->size, c};
  const dnnl::memory::data_type type = in.dtype() == DataType::kUInt8 ? dnnl::memory::data_type::u8
                                       : in.dtype() == DataType::kInt8
                                           ? dnnl::memory::data_type::s8
                                           : onednn::DnnlType(in.dtype());
  const dnnl::memory::desc src({n, c, h, w}, type, tag::nhwc);
  const dnnl::memory::desc dst({n, c, rows->size, cols->size}, type, tag::nhwc);
  // oneDNN wants the window to fit the padded input exactly: the padding
  // after is what the last window needs (TensorFlow may count more).
  const int64_t pad_b = (rows->size - 1) * p.strides[1] + p.ksize[1] - h - rows->pad_before;
  const int64_t pad_r = (cols->size - 1) * p.strides[2] + p.ksize[2] - w - cols->pad_before;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
                                src, dst, {p.strides[1], p.strides[2]}, {p.ksize[1], p.ksize[2]},
                                {rows->pad_before, cols->pad_before},
                                {std::max<int64_t>(pad_b, 0), std::max<int64_t>(pad_r, 0)});
  plan->pd = dnnl::pooling_forward::primitive_desc(d, attr, Engine());
  plan->prim = dnnl::pooling_forward(plan->pd);
  return std::shared_ptr<const PoolPlan>(std::move(plan));
}

absl::Status Compute(KernelContext& ctx) {
  absl::StatusOr<ops::PoolAttrs> p =
      ops::ReadPoolAttrs(ctx.attrs(), ops::PoolKind::kMax, /*allow_explicit=*/true);
  if (!p.ok()) return p.status();
  const Tensor& in = ctx.input(0);
  if (in.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("MaxPool input must be 4-dimensional, got ", ShapeToString(in.shape())));
  }
  if (in.num_elements() == 0) {  // oneDNN divides by zero-size dims
    absl::StatusOr<WindowedSize> rows = WindowedOutputSize(
        in.dim(1), p->ksize[1], 1, p->strides[1], p->padding, p->pads[0][0], p->pads[0][1]);
    if (!rows.ok()) return rows.status();
    absl::StatusOr<WindowedSize> cols = WindowedOutputSize(
        in.dim(2), p->ksize[2], 1, p->strides[2], p->padding, p->pads[1][0], p->pads[1][1]);
    if (!cols.ok()) return cols.status();
    return ctx.allocate_output(0, in.dtype(), {in.dim(0), rows->size, cols->size, in.dim(3)})
        .status();
  }
  auto* state = static_cast<PoolState*>(ctx.kernel_state());
  return onednn::Guard("max pooling", [&]() -> absl::Status {
    std::shared_ptr<const PoolPlan> plan;
    if (state != nullptr) plan = state->Find(in.shape());
    if (plan == nullptr) {
      onednn::CreationLock creating;
      absl::StatusOr<std::shared_ptr<const PoolPlan>> made = MakePlan(in, *p);
      if (!made.ok()) return made.status();
      plan = *made;
      if (state != nullptr) state->Insert(in.shape(), plan);
    }
    absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, in.dtype(), plan->out_shape);
    if (!out.ok()) return out.status();
    std::unordered_map<int, dnnl::memory> args;
    args.insert({DNNL_ARG_SRC,
                 dnnl::memory(plan->pd.src_desc(), Engine(), const_cast<void*>(in.raw_data()))});
    args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), (*out)->raw_data())});
    onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
    return absl::OkStatus();
  });
}

// NHWC windows over rows and columns only.
bool Supports(const AttrMap& attrs) {
  const DataType t = attrs.GetOr<DataType>("T", DataType::kFloat).value_or(DataType::kInvalid);
  if (t != DataType::kUInt8 && t != DataType::kInt8 && !onednn::TypeRunsHere(attrs)) return false;
  absl::StatusOr<ops::PoolAttrs> p =
      ops::ReadPoolAttrs(attrs, ops::PoolKind::kMax, /*allow_explicit=*/true);
  return p.ok() && p->layout == ops::Layout::kNhwc && p->ksize[0] == 1 && p->ksize[3] == 1 &&
         p->strides[0] == 1 && p->strides[3] == 1;
}

}  // namespace

void RegisterOneDnnPool(KernelRegistry& r) {
  std::vector<DataType> types = onednn::FloatTypes();
  types.push_back(DataType::kUInt8);
  types.push_back(DataType::kInt8);
  KernelSpec k{"MaxPool", kCpu, "T", std::move(types), Compute};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.supports = Supports;
  k.make_state = [] { return std::make_unique<PoolState>(); };
  r.AddKernel(std::move(k));
}

}  // namespace smrt::kernels
