// Softmax (float32, over the last axis) on oneDNN's softmax_forward,
// forward_inference: vectorised for this machine's ISA (the reference kernel
// is compiled for baseline x86-64) and split across rows on oneDNN's threads.
// Inputs with infinities or NaNs go to the reference kernel: TensorFlow makes
// NaN rows of +inf and NaN logits, which oneDNN does not. The tensor is seen
// as rows x depth; primitives are made once per (node, shape). The output may
// take the input's buffer when the input is handed over (oneDNN runs softmax
// in place). LogSoftmax stays on the reference kernel: oneDNN's
// logsoftmax_forward takes an approximate log, 1.4e-6 off near 0, where
// log_softmax of a dominant logit lies (a row of one logit gave 1.4e-6, not 0).
#include <memory>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct SoftmaxPlan {
  dnnl::softmax_forward::primitive_desc pd;
  dnnl::softmax_forward prim;
};

absl::Status Compute(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " on oneDNN takes float32, got ", DataTypeName(in.dtype())));
  }
  if (in.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), ": logits must have >= 1 dimension, got ", ShapeToString(in.shape())));
  }
  absl::StatusOr<Tensor*> out =
      ctx.forward_input_or_allocate_output({0}, 0, DataType::kFloat, in.shape());
  if (!out.ok()) return out.status();
  if (in.num_elements() == 0) return absl::OkStatus();  // oneDNN takes no empty dims
  const int64_t depth = in.dim(in.rank() - 1);
  const int64_t rows = in.num_elements() / depth;
  if (!AllFinite(in.data<float>(), in.num_elements())) {
    ReferenceSoftmaxRows(in.data<float>(), rows, depth, /*log=*/false, (*out)->data<float>());
    return absl::OkStatus();
  }
  auto* state = static_cast<onednn::PlanCache<SoftmaxPlan>*>(ctx.kernel_state());
  return onednn::Guard("softmax", [&]() -> absl::Status {
    const Shape key = {rows, depth};
    std::shared_ptr<const SoftmaxPlan> plan;
    if (state != nullptr) plan = state->Find(key);
    if (plan == nullptr) {
      onednn::CreationLock creating;
      auto p = std::make_shared<SoftmaxPlan>();
      dnnl::memory::desc md({rows, depth}, dt::f32, tag::ab);
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, 1);
      p->pd = dnnl::softmax_forward::primitive_desc(d, attr, Engine());
      p->prim = dnnl::softmax_forward(p->pd);
      plan = p;
      if (state != nullptr) state->Insert(key, plan);
    }
    std::unordered_map<int, dnnl::memory> args;
    args.insert({DNNL_ARG_SRC, dnnl::memory(plan->pd.src_desc(), Engine(),
                                            const_cast<void*>(in.raw_data()))});
    args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), (*out)->raw_data())});
    onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterOneDnnSoftmax(KernelRegistry& r) {
  KernelSpec k{"Softmax", kCpu, "T", {DataType::kFloat}, Compute};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.make_state = [] { return std::make_unique<onednn::PlanCache<SoftmaxPlan>>(); };
  r.AddKernel(std::move(k));
}

}  // namespace smrt::kernels
