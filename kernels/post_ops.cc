#include "kernels/post_ops.h"

#include <cmath>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels {
namespace {

// TensorFlow's float sigmoid (Eigen's e / (1 + e), 1 where e overflows).
float Sigmoid(float x) {
  const float e = std::exp(x);
  if (std::isinf(e)) return 1.0f;
  return e / (1.0f + e);
}

}  // namespace

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
