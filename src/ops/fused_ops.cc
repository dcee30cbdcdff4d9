#include "ops/fused_ops.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {

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

}  // namespace smrt::ops
