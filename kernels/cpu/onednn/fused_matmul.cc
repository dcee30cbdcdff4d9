// _SmrtFusedMatMul on oneDNN: a 2-D matmul with the bias in the primitive
// and activations as eltwise post-ops; float32, and bfloat16 where the CPU
// has bf16 instructions (onednn::FloatTypes). Constant weights are reordered once
// per (node, rows) to the layout oneDNN picks (format_tag::any).
//
// _SmrtQuantizedFusedMatMul (ops/quantized_ops.h): the same in int8, a
// quantized per call, the constant b quantized per output column when the
// plan is made, the dequantization as oneDNN output scales.
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/quantize_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/post_ops.h"
#include "kernels/registry.h"
#include "ops/einsum_shapes.h"
#include "ops/quantized_ops.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct MatMulPlan {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory::desc user_src, user_weights;
  dnnl::memory weights;
  bool has_bias = false;
  int64_t m = 0, n = 0;
  std::optional<onednn::Int8Attrs> quant;
  std::vector<float> out_scales;  // input scale times each column's weight scale
  onednn::InputQuantizer quantizer;
};

using MatMulState = onednn::PlanCache<MatMulPlan>;

// `einsum`: _SmrtQuantizedFusedEinsum, a dense layer's equation as the
// matmul of x [prod F, prod C] and w [prod C, prod G] (views: no copies),
// output F G.
absl::Status Compute(KernelContext& ctx, bool quantized, bool einsum = false) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return ops.status();
  absl::StatusOr<onednn::NodeTypes> types = onednn::ResolveNodeTypes(
      ctx, quantized, ops->weights_constant, "fused matmul", "matmul", "b");
  if (!types.ok()) return types.status();
  const DataType float_type = types->float_type, in_dtype = types->in, out_dtype = types->out;
  const std::optional<onednn::Int8Attrs>& quant = types->quant;
  Tensor a = ctx.input(0), b = ctx.input(1);
  std::optional<Shape> out_shape;  // an einsum's; else [m, n]
  if (einsum) {
    absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
    if (!equation.ok()) return equation.status();
    absl::StatusOr<ops::einsum::DenseProduct> dims =
        ops::einsum::DenseProductOf(*equation, a.shape(), b.shape());
    if (!dims.ok()) return dims.status();
    absl::StatusOr<Tensor> a2 = a.Reshaped({dims->m, dims->k});
    absl::StatusOr<Tensor> b2 = b.Reshaped({dims->k, dims->n});
    if (!a2.ok()) return a2.status();
    if (!b2.ok()) return b2.status();
    a = *std::move(a2), b = *std::move(b2);
    out_shape = dims->out_shape;
  }
  if (a.dtype() != in_dtype || b.dtype() != float_type || a.rank() != 2 || b.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fused matmul takes a ", DataTypeShortName(in_dtype), " and a ",
        DataTypeShortName(float_type), " matrix, got ", a.DebugString(), " and ", b.DebugString()));
  }
  const bool ta = ctx.attrs().GetOr<bool>("transpose_a", false).value_or(false);
  const bool tb = ctx.attrs().GetOr<bool>("transpose_b", false).value_or(false);
  const int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  const int64_t kb = tb ? b.dim(1) : b.dim(0), n = tb ? b.dim(0) : b.dim(1);
  if (k != kb) {
    return absl::InvalidArgumentError(
        absl::StrCat("Matrix size-incompatible: In[0]: ", ShapeToString(a.shape()),
                     ", In[1]: ", ShapeToString(b.shape())));
  }
  // oneDNN divides by zero-size dims: an empty result needs no primitive.
  if (m == 0 || n == 0) {
    return ctx.allocate_output(0, out_dtype, out_shape ? *out_shape : Shape{m, n}).status();
  }
  if (k == 0 && out_dtype != DataType::kFloat) {
    return absl::UnimplementedError(absl::StrCat(
        "a fused matmul with a ", DataTypeShortName(out_dtype), " output and an empty product"));
  }
  if (k == 0 && einsum) {
    return absl::UnimplementedError("an int8 einsum with an empty product");
  }
  if (k == 0) {  // an empty product is zeros: only the post-ops remain
    absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kFloat, {m, n});
    if (!out.ok()) return out.status();
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(&ctx.input(i));
    return ApplyPostOps(*ops, inputs, **out);
  }
  auto* state = static_cast<MatMulState*>(ctx.kernel_state());
  return onednn::Guard("matmul", [&]() -> absl::Status {
    Shape key = {a.dim(0), a.dim(1), b.dim(0), b.dim(1)};
    std::shared_ptr<const MatMulPlan> plan;
    if (state != nullptr) plan = state->Find(key);
    if (plan == nullptr) {
      onednn::CreationLock creating;
      auto p = std::make_shared<MatMulPlan>();
      p->m = m, p->n = n;
      p->quant = quant;
      const dt float_dt = onednn::DnnlType(float_type);
      const dt src_type = !quant ? float_dt : quant->input.is_signed ? dt::s8 : dt::u8;
      const dt weights_type = quant ? dt::s8 : float_dt;
      p->user_src = dnnl::memory::desc({m, k}, src_type,
                                       ta ? dnnl::memory::dims{1, m} : dnnl::memory::dims{k, 1});
      p->user_weights = dnnl::memory::desc(
          {k, n}, weights_type, tb ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1});
      dnnl::memory::desc weights_any({k, n}, weights_type, tag::any);
      onednn::QuantizedWeights qw;
      if (quant) {  // b is [k, n], or [n, k] when transposed
        qw = onednn::QuantizePerChannel(b.data<float>(), b.num_elements(), n,
                                        /*channel_fastest=*/!tb);
        p->out_scales.resize(n);
        for (int64_t i = 0; i < n; ++i) p->out_scales[i] = quant->input.scale * qw.scales[i];
      }
      dnnl::memory::desc dst({m, n}, quant ? quant->output_type() : float_dt, tag::ab);
      p->has_bias = !ops->ops.empty() && ops->ops[0].kind == PostOp::kBiasAdd;
      dnnl::primitive_attr attr;
      bool summand = false;
      dnnl::post_ops post_ops = onednn::MakePostOps(*ops, summand);
      if (quant) onednn::AppendOutputQuantization(post_ops, *quant);
      attr.set_post_ops(post_ops);
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      if (quant) attr.set_output_scales(/*mask: per dst column*/ 1 << 1, p->out_scales);
      dnnl::matmul::desc d =
          p->has_bias ? dnnl::matmul::desc(p->user_src, weights_any,
                                           dnnl::memory::desc({1, n}, float_dt, tag::ab), dst)
                      : dnnl::matmul::desc(p->user_src, weights_any, dst);
      p->pd = dnnl::matmul::primitive_desc(d, attr, Engine());
      p->prim = dnnl::matmul(p->pd);
      if (quant) {
        if (!quant->input_quantized)
          p->quantizer = onednn::InputQuantizer(p->user_src, quant->input);
        p->weights =
            onednn::QuantizedWeightsIn(state, p->user_weights, qw, b.shape(), p->pd.weights_desc());
      } else if (ops->weights_constant && state != nullptr) {
        p->weights = state->Weights(p->user_weights, b, p->pd.weights_desc());
      }
      plan = p;
      if (state != nullptr) state->Insert(key, plan);
    }
    // The primitive writes every element.
    absl::StatusOr<Tensor*> out =
        ctx.allocate_output_for_overwrite(0, out_dtype, out_shape ? *out_shape : Shape{m, n});
    if (!out.ok()) return out.status();
    std::unordered_map<int, dnnl::memory> args;
    void* src = plan->quant && !plan->quant->input_quantized ? plan->quantizer.Run(a)
                                                             : const_cast<void*>(a.raw_data());
    args.insert({DNNL_ARG_SRC, dnnl::memory(plan->user_src, Engine(), src)});
    dnnl::memory weights = plan->weights;
    if (!weights) {
      dnnl::memory user(plan->user_weights, Engine(), const_cast<void*>(b.raw_data()));
      weights = dnnl::memory(plan->pd.weights_desc(), Engine());
      dnnl::stream& s = onednn::ThreadStream();
      dnnl::reorder(user, weights).execute(s, user, weights);
      s.wait();
    }
    args.insert({DNNL_ARG_WEIGHTS, weights});
    std::vector<float> scaled_bias;  // outlives the execution
    if (plan->has_bias) {
      const Tensor& bias = ctx.input(ops->ops[0].arg);
      // An einsum's bias holds prod G values in G's shape ([heads, depth]).
      const bool fits = einsum ? bias.num_elements() == n : bias.rank() == 1 && bias.dim(0) == n;
      if (bias.dtype() != float_type || !fits) {
        return absl::InvalidArgumentError(absl::StrCat("bias must be a ",
                                                       DataTypeShortName(float_type), " vector of ",
                                                       n, " values, got ", bias.DebugString()));
      }
      const void* data = bias.raw_data();
      if (plan->quant) {
        scaled_bias = onednn::BiasBeforeOutputScales(bias.data<float>(), plan->out_scales);
        data = scaled_bias.data();
      }
      args.insert(
          {DNNL_ARG_BIAS, dnnl::memory(plan->pd.bias_desc(), Engine(), const_cast<void*>(data))});
    }
    args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), (*out)->raw_data())});
    onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
    return absl::OkStatus();
  });
}

bool Supports(const AttrMap& attrs) {
  if (!onednn::TypeRunsHere(attrs)) return false;
  absl::StatusOr<std::vector<std::string>> names =
      attrs.GetOr<std::vector<std::string>>("fused_ops", {});
  if (!names.ok()) return false;
  int args = 0;
  for (const std::string& n : *names) {
    if (n == "Add") return false;  // no residual sum for matmuls
    args += n == "BiasAdd";
  }
  absl::StatusOr<FusedOps> ops = ParseFusedOps(attrs, 2 + args);
  return ops.ok() && onednn::PostOpsFit(*ops);
}

}  // namespace

void RegisterOneDnnFusedMatMul(KernelRegistry& r) {
  KernelSpec k{kFusedMatMul, kCpu, "T", onednn::FloatTypes(),
               [](KernelContext& ctx) { return Compute(ctx, /*quantized=*/false); }};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.supports = Supports;
  k.make_state = [] { return std::make_unique<MatMulState>(); };
  r.AddKernel(std::move(k));
  KernelSpec q{ops::kQuantizedFusedMatMul, kCpu, "T", {DataType::kFloat}, [](KernelContext& ctx) {
                 return Compute(ctx, /*quantized=*/true);
               }};
  q.priority = kOneDnnPriority;
  q.backend = kOneDnnBackend;
  q.supports = [](const AttrMap& attrs) {
    return Supports(attrs) && ops::ReadInputQuantization(attrs).ok();
  };
  q.make_state = [] { return std::make_unique<MatMulState>(); };
  r.AddKernel(std::move(q));
  KernelSpec e{ops::kQuantizedFusedEinsum, kCpu, "T", {DataType::kFloat}, [](KernelContext& ctx) {
                 return Compute(ctx, /*quantized=*/true, /*einsum=*/true);
               }};
  e.priority = kOneDnnPriority;
  e.backend = kOneDnnBackend;
  e.supports = [](const AttrMap& attrs) {
    absl::StatusOr<std::string> equation = attrs.Get<std::string>("equation");
    return equation.ok() && ops::einsum::ParseDenseEquation(*equation).has_value() &&
           Supports(attrs) && ops::ReadInputQuantization(attrs).ok();
  };
  e.make_state = [] { return std::make_unique<MatMulState>(); };
  r.AddKernel(std::move(e));
}

}  // namespace smrt::kernels
