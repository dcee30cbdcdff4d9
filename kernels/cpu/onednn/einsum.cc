// Einsum on oneDNN for the equations of a dense layer (Keras's EinsumDense:
// "abc,cd->abd", "abc,cde->abde", "abcd,cde->abe"): operand 0's leading
// labels F are kept, its trailing labels C are contracted with operand 1's
// leading ones, and the output is F then operand 1's other labels G. That is
// one matmul, [prod F, prod C] x [prod C, prod G], with no transposes.
// float32 and, where the CPU has bf16 instructions, bfloat16 (BERT's
// attention projections under precision=bfloat16). Weights marked constant
// (ops/weight_attrs.h) are reordered once; other equations stay with the
// reference kernel.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/registry.h"
#include "ops/weight_attrs.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// How many labels of operand 0 are kept (F) and contracted (C); G is the
// rest of operand 1.
struct DenseEquation {
  int kept = 0, contracted = 0, added = 0;
};

bool DistinctLetters(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (!std::isalpha(static_cast<unsigned char>(s[i]))) return false;
    if (s.find(s[i], i + 1) != std::string::npos) return false;
  }
  return true;
}

std::optional<DenseEquation> ParseDense(const std::string& equation) {
  const size_t comma = equation.find(',');
  const size_t arrow = equation.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || arrow < comma) return {};
  const std::string a = equation.substr(0, comma);
  const std::string b = equation.substr(comma + 1, arrow - comma - 1);
  const std::string out = equation.substr(arrow + 2);
  if (!DistinctLetters(a) || !DistinctLetters(b) || !DistinctLetters(out)) return {};
  // C: the labels both operands have, a suffix of a and a prefix of b.
  size_t c = std::min(a.size(), b.size());
  while (c > 0 && a.compare(a.size() - c, c, b, 0, c) != 0) --c;
  if (c == 0) return {};
  const std::string f = a.substr(0, a.size() - c), g = b.substr(c);
  if (out != f + g || !DistinctLetters(f + b)) return {};
  return DenseEquation{static_cast<int>(f.size()), static_cast<int>(c), static_cast<int>(g.size())};
}

struct EinsumPlan {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory::desc user_weights;
  dnnl::memory weights;  // reordered, when constant
  Shape out_shape;
};

using EinsumState = onednn::PlanCache<EinsumPlan>;

absl::Status Compute(KernelContext& ctx) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  const std::optional<DenseEquation> eq = ParseDense(*equation);
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const DataType type = x.dtype();
  if (!eq || ctx.num_inputs() != 2 || w.dtype() != type || x.rank() != eq->kept + eq->contracted ||
      w.rank() != eq->contracted + eq->added) {
    return absl::InvalidArgumentError(absl::StrCat("Einsum '", *equation, "' on ", x.DebugString(),
                                                   " and ", w.DebugString(),
                                                   " is not a dense layer's"));
  }
  int64_t m = 1, k = 1, n = 1;
  Shape out_shape;
  for (int i = 0; i < eq->kept; ++i) m *= x.dim(i), out_shape.push_back(x.dim(i));
  for (int i = 0; i < eq->contracted; ++i) {
    if (x.dim(eq->kept + i) != w.dim(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Einsum '", *equation, "': contracted dims differ: ", ShapeToString(x.shape()), " and ",
          ShapeToString(w.shape())));
    }
    k *= w.dim(i);
  }
  for (int i = 0; i < eq->added; ++i) {
    n *= w.dim(eq->contracted + i);
    out_shape.push_back(w.dim(eq->contracted + i));
  }
  // oneDNN divides by zero-size dims: an empty product is zeros.
  if (m == 0 || n == 0 || k == 0) {
    absl::StatusOr<Tensor*> out = ctx.allocate_output(0, type, out_shape);
    if (!out.ok()) return out.status();
    std::memset((*out)->raw_data(), 0, (*out)->byte_size());
    return absl::OkStatus();
  }
  const bool constant = ctx.attrs().GetOr<bool>(ops::kWeightsConstantAttr, false).value_or(false);
  auto* state = static_cast<EinsumState*>(ctx.kernel_state());
  return onednn::Guard("einsum", [&]() -> absl::Status {
    const Shape key = {m, k, n};
    std::shared_ptr<const EinsumPlan> plan;
    if (state != nullptr) plan = state->Find(key);
    if (plan == nullptr) {
      auto p = std::make_shared<EinsumPlan>();
      const dt d = onednn::DnnlType(type);
      p->user_weights = dnnl::memory::desc({k, n}, d, tag::ab);
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::matmul::desc desc(dnnl::memory::desc({m, k}, d, tag::ab),
                              dnnl::memory::desc({k, n}, d, tag::any),
                              dnnl::memory::desc({m, n}, d, tag::ab));
      p->pd = dnnl::matmul::primitive_desc(desc, attr, Engine());
      p->prim = dnnl::matmul(p->pd);
      p->out_shape = out_shape;
      if (constant && state != nullptr) {
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
    args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), (*out)->raw_data())});
    onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
    return absl::OkStatus();
  });
}

bool Supports(const AttrMap& attrs) {
  if (!onednn::TypeRunsHere(attrs)) return false;
  absl::StatusOr<std::string> equation = attrs.Get<std::string>("equation");
  return equation.ok() && ParseDense(*equation).has_value();
}

}  // namespace

void RegisterOneDnnEinsum(KernelRegistry& r) {
  KernelSpec k{"Einsum", kCpu, "T", onednn::FloatTypes(), Compute};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.supports = Supports;
  k.make_state = [] { return std::make_unique<EinsumState>(); };
  r.AddKernel(std::move(k));
}

}  // namespace smrt::kernels
