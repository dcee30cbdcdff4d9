#include "kernels/fused_ops.h"

#include <cmath>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels {

namespace {

struct ActivationEntry {
  Activation a;
  const char* name;
  const char* op;  // the single op that computes it
};

constexpr ActivationEntry kActivations[] = {
    {Activation::kRelu, "Relu", "Relu"},
    {Activation::kRelu6, "Relu6", "Relu6"},
    {Activation::kElu, "Elu", "Elu"},
    {Activation::kLeakyRelu, "LeakyRelu", "LeakyRelu"},
    {Activation::kSigmoid, "Sigmoid", "Sigmoid"},
    {Activation::kTanh, "Tanh", "Tanh"},
    {Activation::kSwish, "Swish", "_SmrtSwish"},
    {Activation::kHardSwish, "HardSwish", "_SmrtHardSwish"},
    {Activation::kGeluErf, "GeluErf", "_SmrtGeluErf"},
    {Activation::kGeluTanh, "GeluTanh", "_SmrtGeluTanh"},
};

// TensorFlow's float sigmoid (Eigen's e / (1 + e), 1 where e overflows).
float Sigmoid(float x) {
  const float e = std::exp(x);
  if (std::isinf(e)) return 1.0f;
  return e / (1.0f + e);
}

}  // namespace

std::optional<Activation> ActivationOfOp(absl::string_view op) {
  for (const ActivationEntry& e : kActivations) {
    if (op == e.op) return e.a;
  }
  return std::nullopt;
}

const char* ActivationName(Activation a) {
  for (const ActivationEntry& e : kActivations) {
    if (e.a == a) return e.name;
  }
  return "?";
}

std::optional<Activation> ActivationFromName(absl::string_view name) {
  for (const ActivationEntry& e : kActivations) {
    if (name == e.name) return e.a;
  }
  return std::nullopt;
}

float ApplyActivation(Activation a, float alpha, float x) {
  switch (a) {
    case Activation::kRelu: return x < 0.0f ? 0.0f : x;
    case Activation::kRelu6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case Activation::kElu: return x < 0.0f ? std::exp(x) - 1.0f : x;
    case Activation::kLeakyRelu: return x > 0.0f ? x : x * alpha;
    case Activation::kSigmoid: return Sigmoid(x);
    case Activation::kTanh: return std::tanh(x);
    case Activation::kSwish: return x * Sigmoid(x);
    case Activation::kHardSwish: {
      float r = x + 3.0f;
      r = r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r);
      return x * r / 6.0f;
    }
    case Activation::kGeluErf:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Activation::kGeluTanh:
      return 0.5f * x *
             (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

void ApplyActivation(Activation a, float alpha, float* data, int64_t n) {
  // The transcendental ones as Eigen array expressions: vectorised, and the
  // erf/tanh TensorFlow's own kernels use (scalar std::erf costs ~10x more).
  Eigen::Map<Eigen::ArrayXf> x(data, n);
  switch (a) {
    case Activation::kGeluErf:
      x = 0.5f * x * (1.0f + (x * 0.70710678118654752f).erf());
      return;
    case Activation::kGeluTanh:
      x = 0.5f * x * (1.0f + (0.79788456080286536f * (x + 0.044715f * x * x * x)).tanh());
      return;
    case Activation::kTanh:
      x = x.tanh();
      return;
    default:
      for (int64_t i = 0; i < n; ++i) data[i] = ApplyActivation(a, alpha, data[i]);
  }
}

absl::StatusOr<FusedOps> ParseFusedOps(const AttrMap& attrs, int num_inputs) {
  FusedOps f;
  absl::StatusOr<std::vector<std::string>> names =
      attrs.GetOr<std::vector<std::string>>("fused_ops", {});
  if (!names.ok()) return names.status();
  absl::StatusOr<float> alpha = attrs.GetOr<float>("leakyrelu_alpha", 0.2f);
  if (!alpha.ok()) return alpha.status();
  f.leakyrelu_alpha = *alpha;
  absl::StatusOr<bool> constant = attrs.GetOr<bool>("weights_constant", false);
  if (!constant.ok()) return constant.status();
  f.weights_constant = *constant;
  int next_arg = 2;
  for (const std::string& name : *names) {
    PostOp op{PostOp::kActivation};
    if (name == "BiasAdd" || name == "Add") {
      op.kind = name == "BiasAdd" ? PostOp::kBiasAdd : PostOp::kAdd;
      op.arg = next_arg++;
    } else if (std::optional<Activation> a = ActivationFromName(name)) {
      op.activation = *a;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown fused op '", name, "'"));
    }
    f.ops.push_back(op);
  }
  if (next_arg != num_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("fused_ops take ", next_arg - 2,
                                                   " extra inputs, the node has ",
                                                   num_inputs - 2));
  }
  return f;
}

absl::Status ApplyPostOps(const FusedOps& ops, const std::vector<const Tensor*>& inputs,
                          Tensor& out) {
  if (out.dtype() != DataType::kFloat) {
    return absl::UnimplementedError("fused ops compute float32 only");
  }
  float* y = out.data<float>();
  const int64_t n = out.num_elements();
  const int64_t channels = out.rank() == 0 ? 1 : out.dim(out.rank() - 1);
  for (const PostOp& op : ops.ops) {
    if (op.kind == PostOp::kActivation) {
      ApplyActivation(op.activation, ops.leakyrelu_alpha, y, n);
      continue;
    }
    const Tensor& arg = *inputs[op.arg];
    if (arg.dtype() != DataType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat("fused input ", op.arg, " must be float32, got ", DataTypeName(arg.dtype())));
    }
    const float* a = arg.data<float>();
    if (op.kind == PostOp::kBiasAdd) {
      if (arg.rank() != 1 || arg.dim(0) != channels) {
        return absl::InvalidArgumentError(absl::StrCat(
            "bias must be a vector of ", channels, " values, got shape ",
            ShapeToString(arg.shape())));
      }
      for (int64_t i = 0; i < n; i += channels) {
        for (int64_t c = 0; c < channels; ++c) y[i + c] += a[c];
      }
    } else {
      if (arg.shape() != out.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fused Add input must have the output's shape ", ShapeToString(out.shape()), ", got ",
            ShapeToString(arg.shape())));
      }
      for (int64_t i = 0; i < n; ++i) y[i] += a[i];
    }
  }
  return absl::OkStatus();
}

}  // namespace smrt::kernels
