// _SmrtFusedConv2D on oneDNN: regular, grouped and depthwise convolution
// with the bias in the primitive and activations / the residual sum as
// post-ops, forward_inference. float32, and bfloat16 (fp32 accumulation;
// AMX or AVX512_BF16) on CPUs that have bf16 instructions: the
// precision=bfloat16 load option converts the graph's convolutions to it.
// Weights are given format_tag::any and
// reordered to the layout oneDNN picks once per (node, input shape) when
// they are constant; primitives are created once per (node, input shape).
//
// _SmrtQuantizedFusedConv2D (ops/quantized_ops.h) is the same convolution
// in int8: the input quantized per call (a oneDNN reorder), the constant
// filter quantized per output channel when the plan is made, s32
// accumulation, and the per-channel dequantization as oneDNN output scales
// before the same post-ops, into a float32 output or an 8-bit one (a last
// eltwise_linear post-op divides by its scale); an 8-bit residual is summed
// from the output's buffer at its own scale (sum post-op of type u8 / s8).
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/quantize_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/registry.h"
#include "kernels/shared/conv_util.h"
#include "ops/quantized_ops.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct ConvPlan {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  dnnl::memory::desc user_weights;
  dnnl::memory weights;  // reordered, when the weights are constant
  bool has_bias = false;
  bool summand = false;
  Shape out_shape;
  // Quantized plans: the input's scale and type, and the output scales
  // (input scale times each output channel's weight scale).
  std::optional<onednn::Int8Attrs> quant;
  std::vector<float> out_scales;
  onednn::InputQuantizer quantizer;
};

using ConvState = onednn::PlanCache<ConvPlan>;

struct Geometry {
  int64_t n, h, w, c, kh, kw, kc, oc, groups, oh, ow;
  int64_t pad_t, pad_b, pad_l, pad_r;
  ConvWindowAttrs a;
  bool depthwise;
};

absl::StatusOr<Geometry> MakeGeometry(const KernelContext& ctx, const FusedOps& /*ops*/) {
  Geometry g;
  absl::StatusOr<ConvWindowAttrs> a = ReadConvWindowAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  g.a = *a;
  absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> pads =
      ReadExplicitPaddings(ctx.attrs(), g.a.padding, g.a.layout);
  if (!pads.ok()) return pads.status();
  g.depthwise = ctx.attrs().GetOr<bool>("depthwise", false).value_or(false);
  const Tensor& in = ctx.input(0);
  const Tensor& f = ctx.input(1);
  if (in.rank() != 4 || f.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat("input and filter must be 4-D, got ",
                                                   ShapeToString(in.shape()), " and ",
                                                   ShapeToString(f.shape())));
  }
  if (g.a.strides[0] != 1 || g.a.strides[3] != 1 || g.a.dilations[0] != 1 ||
      g.a.dilations[3] != 1) {
    return absl::UnimplementedError("strides and dilations must be 1 in batch and depth");
  }
  g.n = in.dim(0), g.h = in.dim(1), g.w = in.dim(2), g.c = in.dim(3);
  g.kh = f.dim(0), g.kw = f.dim(1), g.kc = f.dim(2);
  if (g.depthwise) {
    if (g.kc != g.c) {
      return absl::InvalidArgumentError(
          absl::StrCat("input and filter must have the same depth: ", g.c, " vs ", g.kc));
    }
    g.groups = g.c;
    g.oc = g.c * f.dim(3);
  } else {
    if (g.kc <= 0 || g.c % g.kc != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input depth must be evenly divisible by filter depth: ", g.c, " vs ", g.kc));
    }
    g.groups = g.c / g.kc;
    g.oc = f.dim(3);
    if (g.oc % g.groups != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output depth must be evenly divisible by number of groups: ", g.oc, " vs ", g.groups));
    }
  }
  absl::StatusOr<WindowedSize> rows = WindowedOutputSize(
      g.h, g.kh, g.a.dilations[1], g.a.strides[1], g.a.padding, (*pads)[0][0], (*pads)[0][1]);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<WindowedSize> cols = WindowedOutputSize(
      g.w, g.kw, g.a.dilations[2], g.a.strides[2], g.a.padding, (*pads)[1][0], (*pads)[1][1]);
  if (!cols.ok()) return cols.status();
  g.oh = rows->size, g.ow = cols->size;
  g.pad_t = rows->pad_before, g.pad_b = rows->pad_after;
  g.pad_l = cols->pad_before, g.pad_r = cols->pad_after;
  return g;
}

// TensorFlow's HWIO filter (or depthwise [kh, kw, C, multiplier]) described
// in place for oneDNN: OIHW dims, or GOIHW when grouped.
// Its output channel is the flat index modulo g.oc in both layouts.
dnnl::memory::desc UserWeights(const Geometry& g, dt type = dt::f32) {
  if (g.groups == 1) {
    return dnnl::memory::desc({g.oc, g.kc, g.kh, g.kw}, type,
                              {1, g.oc, g.kw * g.kc * g.oc, g.kc * g.oc});
  }
  const int64_t opg = g.oc / g.groups;
  if (g.depthwise) {
    return dnnl::memory::desc({g.groups, opg, 1, g.kh, g.kw}, type,
                              {opg, 1, g.oc, g.kw * g.oc, g.oc});
  }
  return dnnl::memory::desc({g.groups, opg, g.kc, g.kh, g.kw}, type,
                            {opg, 1, g.oc, g.kw * g.kc * g.oc, g.kc * g.oc});
}

absl::StatusOr<std::shared_ptr<const ConvPlan>> MakePlan(
    const KernelContext& ctx, const Geometry& g, const FusedOps& ops,
    const std::optional<onednn::Int8Attrs>& quant, dt float_type) {
  auto plan = std::make_shared<ConvPlan>();
  plan->quant = quant;
  const dt src_type = !quant ? float_type : quant->input.is_signed ? dt::s8 : dt::u8;
  const dt weights_type = quant ? dt::s8 : float_type;
  dnnl::memory::desc src({g.n, g.c, g.h, g.w}, src_type, tag::nhwc);
  dnnl::memory::desc dst({g.n, g.oc, g.oh, g.ow}, quant ? quant->output_type() : float_type,
                         tag::nhwc);
  plan->user_weights = UserWeights(g, weights_type);
  dnnl::memory::desc weights_any(plan->user_weights.dims(), weights_type, tag::any);
  onednn::QuantizedWeights qw;
  if (quant) {
    qw = onednn::QuantizePerChannel(ctx.input(1).data<float>(), ctx.input(1).num_elements(), g.oc,
                                    /*channel_fastest=*/true);
    plan->out_scales.resize(g.oc);
    for (int64_t i = 0; i < g.oc; ++i) plan->out_scales[i] = quant->input.scale * qw.scales[i];
  }
  plan->has_bias = !ops.ops.empty() && ops.ops[0].kind == PostOp::kBiasAdd;
  dnnl::memory::desc bias({g.oc}, quant ? dt::f32 : float_type, tag::x);
  const dnnl::memory::dims strides = {g.a.strides[1], g.a.strides[2]};
  const dnnl::memory::dims dilations = {g.a.dilations[1] - 1, g.a.dilations[2] - 1};
  const dnnl::memory::dims pad_l = {g.pad_t, g.pad_l};
  const dnnl::memory::dims pad_r = {g.pad_b, g.pad_r};
  dnnl::primitive_attr attr;
  dnnl::post_ops post_ops =
      quant && quant->residual
          ? onednn::MakePostOps(ops, plan->summand, quant->residual_scale(), quant->residual_type())
          : onednn::MakePostOps(ops, plan->summand);
  if (quant) onednn::AppendOutputQuantization(post_ops, *quant);
  attr.set_post_ops(post_ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (quant) attr.set_output_scales(/*mask: per dst channel*/ 1 << 1, plan->out_scales);
  using conv = dnnl::convolution_forward;
  conv::desc d =
      plan->has_bias
          ? conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                       weights_any, bias, dst, strides, dilations, pad_l, pad_r)
          : conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                       weights_any, dst, strides, dilations, pad_l, pad_r);
  plan->pd = conv::primitive_desc(d, attr, Engine());
  plan->prim = conv(plan->pd);
  plan->out_shape = {g.n, g.oh, g.ow, g.oc};
  if (quant) {  // constant (checked): reordered once per plan
    if (!quant->input_quantized) {
      plan->quantizer = onednn::InputQuantizer(plan->pd.src_desc(), quant->input);
    }
    plan->weights =
        onednn::QuantizedWeightsIn(static_cast<ConvState*>(ctx.kernel_state()), plan->user_weights,
                                   qw, ctx.input(1).shape(), plan->pd.weights_desc());
  } else if (ops.weights_constant) {
    auto* state = static_cast<ConvState*>(ctx.kernel_state());
    const Tensor& filter = ctx.input(1);
    plan->weights = state != nullptr
                        ? state->Weights(plan->user_weights, filter, plan->pd.weights_desc())
                        : onednn::ReorderWeights(plan->user_weights, filter.raw_data(),
                                                 plan->pd.weights_desc());
  }
  return std::shared_ptr<const ConvPlan>(std::move(plan));
}

absl::Status Compute(KernelContext& ctx, bool quantized) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return ops.status();
  absl::StatusOr<onednn::NodeTypes> types = onednn::ResolveNodeTypes(
      ctx, quantized, ops->weights_constant, "fused conv", "convolution", "filter");
  if (!types.ok()) return types.status();
  const DataType float_type = types->float_type, in_dtype = types->in, out_dtype = types->out;
  const std::optional<onednn::Int8Attrs>& quant = types->quant;
  if (ctx.input(0).dtype() != in_dtype || ctx.input(1).dtype() != float_type) {
    return absl::InvalidArgumentError(
        absl::StrCat("fused conv input and filter must be ", DataTypeName(in_dtype), " and ",
                     DataTypeName(float_type), ", got ", DataTypeName(ctx.input(0).dtype()),
                     " and ", DataTypeName(ctx.input(1).dtype())));
  }
  absl::StatusOr<Geometry> g = MakeGeometry(ctx, *ops);
  if (!g.ok()) return g.status();
  // oneDNN divides by zero-size dims: an empty result needs no primitive.
  if (g->n == 0 || g->oh == 0 || g->ow == 0 || g->oc == 0) {
    return ctx.allocate_output(0, out_dtype, {g->n, g->oh, g->ow, g->oc}).status();
  }
  if (g->c == 0 || g->kh == 0 || g->kw == 0) {
    return absl::UnimplementedError("fused convolution with an empty input depth or window");
  }
  auto* state = static_cast<ConvState*>(ctx.kernel_state());
  return onednn::Guard("convolution", [&]() -> absl::Status {
    std::shared_ptr<const ConvPlan> plan;
    Shape key = ctx.input(0).shape();
    key.insert(key.end(), ctx.input(1).shape().begin(), ctx.input(1).shape().end());
    if (state != nullptr) plan = state->Find(key);
    if (plan == nullptr) {
      onednn::CreationLock creating;
      absl::StatusOr<std::shared_ptr<const ConvPlan>> made =
          MakePlan(ctx, *g, *ops, quant, onednn::DnnlType(float_type));
      if (!made.ok()) return made.status();
      plan = *made;
      if (state != nullptr) state->Insert(key, plan);
    }
    // The residual Add (a sum post-op) accumulates into the output: the
    // residual becomes the output when no other value shares its buffer
    // (the executor hands a value's last use over), else it is copied
    // there. Without one the primitive writes every element. An 8-bit
    // output takes an 8-bit residual (ops/quantized_ops.h), perhaps of the
    // other signedness: the same bytes, read as the sum's type.
    const Tensor* residual = nullptr;
    for (const PostOp& op : ops->ops) {
      if (op.kind != PostOp::kAdd) continue;
      residual = &ctx.input(op.arg < 0 ? 0 : op.arg);
      const DataType want = quant ? quant->residual_dtype() : out_dtype;
      if (quant && quant->output && !quant->residual) {
        return absl::InvalidArgumentError(
            "an 8-bit output takes its residual sum in 8 bits (residual_scale)");
      }
      if (residual->dtype() != want || residual->shape() != plan->out_shape) {
        return absl::InvalidArgumentError(
            absl::StrCat("the residual input must be ", DataTypeShortName(want), " ",
                         ShapeToString(plan->out_shape), ", got ", residual->DebugString()));
      }
    }
    Tensor* out = nullptr;
    if (residual != nullptr && residual->sole_owner() && residual->dtype() == out_dtype) {
      ctx.set_output(0, *residual);
      out = &ctx.output(0);
    } else {
      absl::StatusOr<Tensor*> made =
          ctx.allocate_output_for_overwrite(0, out_dtype, plan->out_shape);
      if (!made.ok()) return made.status();
      out = *made;
      if (residual != nullptr)
        std::memcpy(out->raw_data(), residual->raw_data(), residual->byte_size());
    }
    std::unordered_map<int, dnnl::memory> args;
    if (plan->quant && !plan->quant->input_quantized) {
      args.insert({DNNL_ARG_SRC,
                   dnnl::memory(plan->pd.src_desc(), Engine(), plan->quantizer.Run(ctx.input(0)))});
    } else {  // float32, or already 8-bit
      args.insert({DNNL_ARG_SRC, dnnl::memory(plan->pd.src_desc(), Engine(),
                                              const_cast<void*>(ctx.input(0).raw_data()))});
    }
    dnnl::memory weights = plan->weights;
    if (!plan->quant && (!ops->weights_constant || state == nullptr)) {
      dnnl::memory user(plan->user_weights, Engine(), const_cast<void*>(ctx.input(1).raw_data()));
      weights = dnnl::memory(plan->pd.weights_desc(), Engine());
      dnnl::stream& s = onednn::ThreadStream();
      dnnl::reorder(user, weights).execute(s, user, weights);
      s.wait();
    }
    args.insert({DNNL_ARG_WEIGHTS, weights});
    std::vector<float> scaled_bias;
    for (const PostOp& op : ops->ops) {
      if (op.kind != PostOp::kBiasAdd) continue;
      const Tensor& arg = ctx.input(op.arg < 0 ? 0 : op.arg);
      if (arg.dtype() != float_type || arg.rank() != 1 || arg.dim(0) != plan->out_shape[3]) {
        return absl::InvalidArgumentError(
            absl::StrCat("bias must be a ", DataTypeShortName(float_type), " vector of ",
                         plan->out_shape[3], " values, got ", arg.DebugString()));
      }
      const void* bias = arg.raw_data();
      if (plan->quant) {
        scaled_bias = onednn::BiasBeforeOutputScales(arg.data<float>(), plan->out_scales);
        bias = scaled_bias.data();
      }
      args.insert(
          {DNNL_ARG_BIAS, dnnl::memory(plan->pd.bias_desc(), Engine(), const_cast<void*>(bias))});
    }
    args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), out->raw_data())});
    onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
    return absl::OkStatus();
  });
}

bool Supports(const AttrMap& attrs) {
  if (!onednn::TypeRunsHere(attrs)) return false;
  if (attrs.GetOr<std::string>("data_format", "NHWC").value_or("") != "NHWC") return false;
  absl::StatusOr<std::vector<std::string>> names =
      attrs.GetOr<std::vector<std::string>>("fused_ops", {});
  if (!names.ok()) return false;
  int args = 0;
  for (const std::string& n : *names) args += n == "BiasAdd" || n == "Add";
  absl::StatusOr<FusedOps> ops = ParseFusedOps(attrs, 2 + args);
  return ops.ok() && onednn::PostOpsFit(*ops);
}

}  // namespace

void RegisterOneDnnFusedConv(KernelRegistry& r) {
  KernelSpec k{kFusedConv2D, kCpu, "T", onednn::FloatTypes(),
               [](KernelContext& ctx) { return Compute(ctx, /*quantized=*/false); }};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.supports = Supports;
  k.make_state = [] { return std::make_unique<ConvState>(); };
  r.AddKernel(std::move(k));
  KernelSpec q{ops::kQuantizedFusedConv2D, kCpu, "T", {DataType::kFloat}, [](KernelContext& ctx) {
                 return Compute(ctx, /*quantized=*/true);
               }};
  q.priority = kOneDnnPriority;
  q.backend = kOneDnnBackend;
  q.supports = [](const AttrMap& attrs) {
    return Supports(attrs) && ops::ReadInputQuantization(attrs).ok();
  };
  q.make_state = [] { return std::make_unique<ConvState>(); };
  r.AddKernel(std::move(q));
}

}  // namespace smrt::kernels
