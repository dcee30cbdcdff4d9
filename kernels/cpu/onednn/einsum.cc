// Einsum on oneDNN for the equations of a dense layer (Keras's EinsumDense,
// ops/einsum_shapes.h: "abc,cd->abd", "abc,cde->abde", "abcd,cde->abe"):
// one matmul, [prod F, prod C] x [prod C, prod G], with no transposes; and
// _SmrtFusedEinsum, the same with the layer's bias in the primitive and
// activations as eltwise post-ops (ops/fused_ops.h). float32 and, where
// the CPU has bf16 instructions, bfloat16 (BERT's attention projections
// under precision=bfloat16). Weights marked constant (ops/weight_attrs.h,
// weights_constant) are reordered once; other equations stay with the
// reference kernel.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/post_ops.h"
#include "kernels/registry.h"
#include "ops/einsum_shapes.h"
#include "ops/weight_attrs.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct EinsumPlan {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory::desc user_weights;
  dnnl::memory weights;  // reordered, when constant
  bool has_bias = false;
};

using EinsumState = onednn::PlanCache<EinsumPlan>;

// A float32 copy of `t` (bfloat16 widened), flattened to [n] when n >= 0.
absl::StatusOr<Tensor> WidenedFlat(const Tensor& t, int64_t n) {
  Shape shape = n >= 0 ? Shape{n} : t.shape();
  if (t.dtype() == DataType::kFloat) return t.Reshaped(std::move(shape));
  absl::StatusOr<Tensor> f = Tensor::Create(DataType::kFloat, t.shape());
  if (!f.ok()) return f.status();
  if (t.dtype() == DataType::kBFloat16) {
    const auto* src = t.data<Eigen::bfloat16>();
    for (int64_t i = 0; i < t.num_elements(); ++i) f->data<float>()[i] = static_cast<float>(src[i]);
  }
  return f->Reshaped(std::move(shape));
}

absl::Status Compute(KernelContext& ctx, bool fused) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  FusedOps post;
  if (fused) {
    absl::StatusOr<FusedOps> parsed = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
    if (!parsed.ok()) return parsed.status();
    post = *std::move(parsed);
  } else {
    post.weights_constant =
        ctx.attrs().GetOr<bool>(ops::kWeightsConstantAttr, false).value_or(false);
  }
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const DataType type = x.dtype();
  if ((!fused && ctx.num_inputs() != 2) || w.dtype() != type) {
    return absl::InvalidArgumentError(absl::StrCat("Einsum '", *equation, "' on ", x.DebugString(),
                                                   " and ", w.DebugString(),
                                                   " is not a dense layer's"));
  }
  absl::StatusOr<ops::einsum::DenseProduct> dims =
      ops::einsum::DenseProductOf(*equation, x.shape(), w.shape());
  if (!dims.ok()) return dims.status();
  const int64_t m = dims->m, k = dims->k, n = dims->n;
  const Shape& out_shape = dims->out_shape;
  const bool has_bias = !post.ops.empty() && post.ops[0].kind == PostOp::kBiasAdd;
  const Tensor* bias = has_bias ? &ctx.input(post.ops[0].arg) : nullptr;
  if (bias != nullptr && (bias->dtype() != type || bias->num_elements() != n)) {
    return absl::InvalidArgumentError(absl::StrCat("the bias of Einsum '", *equation, "' must be ",
                                                   n, " ", DataTypeShortName(type), " values, got ",
                                                   bias->DebugString()));
  }
  // oneDNN divides by zero-size dims: an empty product is zeros, then the
  // post-ops, in float32 and rounded once.
  if (m == 0 || n == 0 || k == 0) {
    absl::StatusOr<Tensor*> out = ctx.allocate_output(0, type, out_shape);
    if (!out.ok()) return out.status();
    std::memset((*out)->raw_data(), 0, (*out)->byte_size());
    if (post.ops.empty() || (*out)->num_elements() == 0) return absl::OkStatus();
    absl::StatusOr<Tensor> product = Tensor::Create(DataType::kFloat, {m, n});
    if (!product.ok()) return product.status();
    std::vector<Tensor> widened(ctx.num_inputs());
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      absl::StatusOr<Tensor> t = WidenedFlat(ctx.input(i), i == 2 && bias != nullptr ? n : -1);
      if (!t.ok()) return t.status();
      widened[i] = *std::move(t);
      inputs.push_back(&widened[i]);
    }
    if (absl::Status s = ApplyPostOps(post, inputs, *product); !s.ok()) return s;
    const float* p = product->data<float>();
    if (type == DataType::kFloat) {
      std::memcpy((*out)->raw_data(), p, (*out)->byte_size());
    } else {
      auto* o = (*out)->data<Eigen::bfloat16>();
      for (int64_t i = 0; i < m * n; ++i) o[i] = Eigen::bfloat16(p[i]);
    }
    return absl::OkStatus();
  }
  auto* state = static_cast<EinsumState*>(ctx.kernel_state());
  return onednn::Guard("einsum", [&]() -> absl::Status {
    const Shape key = {m, k, n};
    std::shared_ptr<const EinsumPlan> plan;
    if (state != nullptr) plan = state->Find(key);
    if (plan == nullptr) {
      onednn::CreationLock creating;
      auto p = std::make_shared<EinsumPlan>();
      const dt d = onednn::DnnlType(type);
      p->user_weights = dnnl::memory::desc({k, n}, d, tag::ab);
      p->has_bias = has_bias;
      dnnl::primitive_attr attr;
      bool summand = false;
      attr.set_post_ops(onednn::MakePostOps(post, summand));
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      const dnnl::memory::desc src({m, k}, d, tag::ab), weights({k, n}, d, tag::any),
          dst({m, n}, d, tag::ab);
      dnnl::matmul::desc desc =
          has_bias ? dnnl::matmul::desc(src, weights, dnnl::memory::desc({1, n}, d, tag::ab), dst)
                   : dnnl::matmul::desc(src, weights, dst);
      p->pd = dnnl::matmul::primitive_desc(desc, attr, Engine());
      p->prim = dnnl::matmul(p->pd);
      if (post.weights_constant && state != nullptr) {
        p->weights = state->Weights(p->user_weights, w, p->pd.weights_desc());
      }
      plan = p;
      if (state != nullptr) state->Insert(key, plan);
    }
    absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, type, out_shape);
    if (!out.ok()) return out.status();
    dnnl::memory weights = plan->weights;
    if (!weights) {
      dnnl::memory user(plan->user_weights, Engine(), const_cast<void*>(w.raw_data()));
      weights = dnnl::memory(plan->pd.weights_desc(), Engine());
      dnnl::stream& s = onednn::ThreadStream();
      dnnl::reorder(user, weights).execute(s, user, weights);
      s.wait();
    }
    std::unordered_map<int, dnnl::memory> args;
    args.insert({DNNL_ARG_SRC,
                 dnnl::memory(plan->pd.src_desc(), Engine(), const_cast<void*>(x.raw_data()))});
    args.insert({DNNL_ARG_WEIGHTS, weights});
    if (plan->has_bias) {
      args.insert({DNNL_ARG_BIAS, dnnl::memory(plan->pd.bias_desc(), Engine(),
                                               const_cast<void*>(bias->raw_data()))});
    }
    args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), (*out)->raw_data())});
    onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
    return absl::OkStatus();
  });
}

bool Supports(const AttrMap& attrs) {
  if (!onednn::TypeRunsHere(attrs)) return false;
  absl::StatusOr<std::string> equation = attrs.Get<std::string>("equation");
  return equation.ok() && ops::einsum::ParseDenseEquation(*equation).has_value();
}

// The post-ops must fit the primitive: a bias first, then activations.
bool SupportsFused(const AttrMap& attrs) {
  if (!Supports(attrs)) return false;
  absl::StatusOr<std::vector<std::string>> names =
      attrs.GetOr<std::vector<std::string>>("fused_ops", {});
  if (!names.ok()) return false;
  int args = 0;
  for (const std::string& name : *names) {
    if (name == "Add") return false;
    args += name == "BiasAdd";
  }
  absl::StatusOr<FusedOps> ops = ParseFusedOps(attrs, 2 + args);
  return ops.ok() && onednn::PostOpsFit(*ops);
}

}  // namespace

void RegisterOneDnnEinsum(KernelRegistry& r) {
  for (const bool fused : {false, true}) {
    KernelSpec k{fused ? kFusedEinsum : "Einsum", kCpu, "T", onednn::FloatTypes(),
                 [fused](KernelContext& ctx) { return Compute(ctx, fused); }};
    k.priority = kOneDnnPriority;
    k.backend = kOneDnnBackend;
    k.supports = fused ? SupportsFused : Supports;
    k.make_state = [] { return std::make_unique<EinsumState>(); };
    r.AddKernel(std::move(k));
  }
}

}  // namespace smrt::kernels
