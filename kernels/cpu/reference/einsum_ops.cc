// Einsum: TensorFlow's equation syntax (ellipses, repeated labels, sums
// over labels absent from the output), computed with the CPU GEMM.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {
namespace {

using misc::Tag;

// ---------------------------------------------------------------------------
// Einsum
//
// Each operand's labels are classified by where they appear: in both operands
// and the output (batch), both operands only (contracted), one operand and the
// output (free), one operand only (summed away first). Operands are gathered
// into [batch, free, contract] and [batch, contract, free] order (which also
// takes diagonals of repeated labels), multiplied as a batched GEMM, and the
// result is gathered into the output order (writing zeros off the diagonal for
// labels the output repeats). Ellipsis dims broadcast like NumPy's: a dim of 1
// in one operand is dropped from it, making the label free in the other.

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // label ids; kEllipsis marks "..."
  std::vector<int> output;
  std::vector<char> names;  // names[label] for named labels
};

constexpr int kEllipsis = -1;

absl::Status EquationError(const std::string& equation, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("Einsum equation '", equation, "': ", why));
}

absl::StatusOr<std::vector<int>> ParseSubscript(const std::string& equation, absl::string_view sub,
                                                std::vector<char>& names) {
  std::vector<int> labels;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < sub.size(); ++i) {
    const char c = sub[i];
    if (c == '.') {
      if (sub.substr(i, 3) != "...") return EquationError(equation, "'.' outside an ellipsis");
      if (seen_ellipsis) return EquationError(equation, "more than one ellipsis in a subscript");
      seen_ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return EquationError(equation, absl::StrCat("invalid label character '", std::string(1, c),
                                                  "' (labels are letters a-z, A-Z)"));
    }
    auto it = std::find(names.begin(), names.end(), c);
    if (it == names.end()) {
      names.push_back(c);
      it = names.end() - 1;
    }
    labels.push_back(static_cast<int>(it - names.begin()));
  }
  return labels;
}

absl::StatusOr<EinsumEquation> ParseEquation(const std::string& equation, int num_inputs) {
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos || equation.find("->", arrow + 2) != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  std::vector<absl::string_view> subs =
      absl::StrSplit(absl::string_view(equation).substr(0, arrow), ',');
  if (subs.size() != 1 && subs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting 1 or 2 input subscripts in equation '", equation, "' but got: ", subs.size()));
  }
  if (static_cast<int>(subs.size()) != num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum equation '", equation, "' has ", subs.size(),
                     " input subscripts but the node has ", num_inputs, " inputs"));
  }
  EinsumEquation eq;
  for (absl::string_view s : subs) {
    absl::StatusOr<std::vector<int>> labels = ParseSubscript(equation, s, eq.names);
    if (!labels.ok()) return labels.status();
    eq.inputs.push_back(*std::move(labels));
  }
  const size_t num_input_labels = eq.names.size();
  absl::StatusOr<std::vector<int>> out =
      ParseSubscript(equation, absl::string_view(equation).substr(arrow + 2), eq.names);
  if (!out.ok()) return out.status();
  eq.output = *std::move(out);
  if (eq.names.size() != num_input_labels) {
    return EquationError(equation,
                         absl::StrCat("output label '", std::string(1, eq.names[num_input_labels]),
                                      "' does not appear in any input"));
  }
  return eq;
}

// An equation bound to operand shapes: ellipses expanded into broadcast
// labels (ids from names.size() on, aligned to the right), and every label's
// size (-1 when unknown, during inference).
struct EinsumBinding {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::vector<int64_t> label_dims;
};

// Sizes of two occurrences of a broadcast label: equal, or one of them 1.
int64_t BroadcastDim(int64_t a, int64_t b, bool* ok) {
  if (a == 1) return b;
  if (b == 1) return a;
  if (a < 0) return b;
  if (b < 0) return a;
  if (a != b) *ok = false;
  return a;
}

// `shapes[i]` is null when operand i's rank is unknown (inference only).
absl::StatusOr<EinsumBinding> BindEinsum(const std::string& equation, const EinsumEquation& eq,
                                         const std::vector<const Shape*>& shapes) {
  const int num_named = static_cast<int>(eq.names.size());
  const int n = static_cast<int>(eq.inputs.size());
  std::vector<int> num_bcast(n, 0);
  int max_bcast = 0;
  for (int i = 0; i < n; ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const bool has_ellipsis = std::count(labels.begin(), labels.end(), kEllipsis) > 0;
    const int named = static_cast<int>(labels.size()) - (has_ellipsis ? 1 : 0);
    if (shapes[i] == nullptr) continue;
    const int rank = static_cast<int>(shapes[i]->size());
    if (!has_ellipsis && rank != named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank ", named, " but got: ", rank));
    }
    if (has_ellipsis && rank < named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank at least ", named, " but got: ", rank));
    }
    num_bcast[i] = rank - named;
    max_bcast = std::max(max_bcast, num_bcast[i]);
  }
  const bool out_ellipsis = std::count(eq.output.begin(), eq.output.end(), kEllipsis) > 0;
  if (max_bcast > 0 && !out_ellipsis) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Output contains ", max_bcast,
        " broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts."));
  }
  EinsumBinding b;
  b.label_dims.assign(static_cast<size_t>(num_named + max_bcast), -2);  // -2: not seen yet
  auto expand = [&](const std::vector<int>& labels, int nb) {
    std::vector<int> out;
    for (int l : labels) {
      if (l != kEllipsis) {
        out.push_back(l);
        continue;
      }
      for (int j = max_bcast - nb; j < max_bcast; ++j) out.push_back(num_named + j);
    }
    return out;
  };
  bool bcast_ok = true;
  for (int i = 0; i < n; ++i) {
    b.inputs.push_back(expand(eq.inputs[i], num_bcast[i]));
    if (shapes[i] == nullptr) continue;
    const std::vector<int>& labels = b.inputs[i];
    for (size_t axis = 0; axis < labels.size(); ++axis) {
      const int l = labels[axis];
      const int64_t dim = (*shapes[i])[axis];
      int64_t& known = b.label_dims[l];
      if (known == -2) {
        known = dim;
      } else if (l >= num_named) {
        known = BroadcastDim(known, dim, &bcast_ok);
      } else if (known >= 0 && dim >= 0 && known != dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expected dimension ", known, " at axis ", axis, " of the input shaped ",
                         Brackets(*shapes[i]), " but got dimension ", dim));
      } else if (known < 0) {
        known = dim;
      }
    }
  }
  if (!bcast_ok) {
    std::vector<std::string> parts;
    for (const Shape* s : shapes) parts.push_back(s == nullptr ? "unknown" : Brackets(*s));
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum '", equation, "': the ellipsis dimensions of input shapes ",
                     absl::StrJoin(parts, " and "), " do not broadcast"));
  }
  for (int64_t& d : b.label_dims) {
    if (d == -2) d = -1;
  }
  b.output = expand(eq.output, max_bcast);
  return b;
}

absl::Status InferEinsum(InferenceContext& ctx) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  absl::StatusOr<EinsumEquation> eq = ParseEquation(*equation, ctx.num_inputs());
  if (!eq.ok()) return eq.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  std::vector<Shape> storage(static_cast<size_t>(ctx.num_inputs()));
  std::vector<const Shape*> shapes(static_cast<size_t>(ctx.num_inputs()), nullptr);
  bool unknown_bcast = false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const PartialShape& s = ctx.input(i).shape;
    const std::vector<int>& labels = eq->inputs[i];
    const bool has_ellipsis = std::count(labels.begin(), labels.end(), kEllipsis) > 0;
    if (s.known_rank) {
      storage[i] = s.dims;
      shapes[i] = &storage[i];
    } else if (!has_ellipsis) {
      storage[i] = Shape(labels.size(), -1);  // the rank is fixed by the subscript
      shapes[i] = &storage[i];
    } else {
      unknown_bcast = true;
    }
  }
  const bool out_ellipsis = std::count(eq->output.begin(), eq->output.end(), kEllipsis) > 0;
  if (unknown_bcast && out_ellipsis) {
    ctx.set_output(0, std::move(out));  // the number of ellipsis dims is unknown
    return absl::OkStatus();
  }
  absl::StatusOr<EinsumBinding> b = BindEinsum(*equation, *eq, shapes);
  if (!b.ok()) return b.status();
  Shape dims;
  for (int l : b->output) dims.push_back(b->label_dims[l]);
  out.shape = PartialShape::Known(std::move(dims));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// One operand prepared for the contraction: its distinct labels, each with
// its size and its element stride in the operand (summed over repeats, which
// walks the diagonal).
struct Operand {
  std::vector<int> labels;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  bool Has(int l) const { return std::find(labels.begin(), labels.end(), l) != labels.end(); }
  size_t IndexOf(int l) const {
    return static_cast<size_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
  }
};

Operand MakeOperand(const Shape& shape, const std::vector<int>& labels,
                    const std::vector<int64_t>& label_dims) {
  Operand op;
  const Shape strides = RowMajorStrides(shape);
  for (size_t axis = 0; axis < labels.size(); ++axis) {
    const int l = labels[axis];
    // A broadcast dim of 1 against a larger one: drop it from this operand.
    if (shape[axis] == 1 && label_dims[l] != 1) continue;
    if (op.Has(l)) {
      op.strides[op.IndexOf(l)] += strides[axis];
    } else {
      op.labels.push_back(l);
      op.dims.push_back(shape[axis]);
      op.strides.push_back(strides[axis]);
    }
  }
  return op;
}

// Gathers `op` into a contiguous tensor with labels `keep` (in that order)
// followed by `reduce`, then sums over the `reduce` labels. Returns a flat
// buffer of prod(dims of keep) elements.
// Whether `op` already lies in memory as `keep`, row-major and dense (the
// usual case for a dense layer's input and weights): then no copy is needed.
bool IsLaidOutAs(const Operand& op, const std::vector<int>& keep, int64_t num_elements) {
  if (op.labels != keep) return false;
  int64_t stride = 1;
  for (size_t j = op.labels.size(); j-- > 0;) {
    if (op.dims[j] != 1 && op.strides[j] != stride) return false;
    stride *= op.dims[j];
  }
  return stride == num_elements;
}

template <typename T>
absl::StatusOr<Tensor> GatherAndReduce(const Tensor& input, const Operand& op,
                                       const std::vector<int>& keep, const std::vector<int>& reduce,
                                       DataType dtype) {
  if (reduce.empty() && IsLaidOutAs(op, keep, input.num_elements())) return input;
  const T* src = input.data<T>();
  std::vector<std::vector<int64_t>> tables;
  int64_t kept = 1, reduced = 1;
  for (const std::vector<int>* group : {&keep, &reduce}) {
    for (int l : *group) {
      const size_t j = op.IndexOf(l);
      std::vector<int64_t> table(static_cast<size_t>(op.dims[j]));
      for (int64_t i = 0; i < op.dims[j]; ++i) table[i] = i * op.strides[j];
      tables.push_back(std::move(table));
      (group == &keep ? kept : reduced) *= op.dims[j];
    }
  }
  absl::StatusOr<Tensor> gathered = Tensor::Create(dtype, {kept * reduced});
  if (!gathered.ok()) return gathered.status();
  if (kept * reduced > 0) GatherByTables<T>(src, tables, T(0), gathered->template data<T>());
  if (reduce.empty()) return gathered;
  absl::StatusOr<Tensor> sums = Tensor::Create(dtype, {kept});
  if (!sums.ok()) return sums.status();
  const T* g = gathered->template data<T>();
  T* s = sums->template data<T>();
  for (int64_t i = 0; i < kept; ++i) {
    T acc = T(0);
    for (int64_t j = 0; j < reduced; ++j) acc = misc::WrapAdd(acc, g[i * reduced + j]);
    s[i] = acc;
  }
  return sums;
}

int64_t ProductOf(const Operand& op, const std::vector<int>& labels) {
  int64_t p = 1;
  for (int l : labels) p *= op.dims[op.IndexOf(l)];
  return p;
}

template <typename T>
absl::Status RunEinsum(const std::vector<Tensor>& inputs, const EinsumBinding& b,
                       const Shape& out_shape, Tensor& out) {
  const bool binary = inputs.size() == 2;
  std::vector<Operand> ops;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ops.push_back(MakeOperand(inputs[i].shape(), b.inputs[i], b.label_dims));
  }
  auto in_output = [&](int l) { return std::count(b.output.begin(), b.output.end(), l) > 0; };
  // Labels of the contraction result, in order, and the result itself.
  std::vector<int> result_labels;
  Tensor result;
  if (!binary) {
    std::vector<int> keep, reduce;
    for (int l : ops[0].labels) (in_output(l) ? keep : reduce).push_back(l);
    absl::StatusOr<Tensor> r =
        GatherAndReduce<T>(inputs[0], ops[0], keep, reduce, inputs[0].dtype());
    if (!r.ok()) return r.status();
    result = *std::move(r);
    result_labels = keep;
  } else {
    std::vector<int> batch, contract, free0, free1, reduce0, reduce1;
    for (int l : ops[0].labels) {
      const bool other = ops[1].Has(l);
      if (other) {
        (in_output(l) ? batch : contract).push_back(l);
      } else {
        (in_output(l) ? free0 : reduce0).push_back(l);
      }
    }
    for (int l : ops[1].labels) {
      if (!ops[0].Has(l)) (in_output(l) ? free1 : reduce1).push_back(l);
    }
    std::vector<int> keep0 = batch, keep1 = batch;
    keep0.insert(keep0.end(), free0.begin(), free0.end());
    keep0.insert(keep0.end(), contract.begin(), contract.end());
    keep1.insert(keep1.end(), contract.begin(), contract.end());
    keep1.insert(keep1.end(), free1.begin(), free1.end());
    absl::StatusOr<Tensor> a =
        GatherAndReduce<T>(inputs[0], ops[0], keep0, reduce0, inputs[0].dtype());
    if (!a.ok()) return a.status();
    absl::StatusOr<Tensor> c =
        GatherAndReduce<T>(inputs[1], ops[1], keep1, reduce1, inputs[1].dtype());
    if (!c.ok()) return c.status();
    const int64_t nb = ProductOf(ops[0], batch);
    const int64_t m = ProductOf(ops[0], free0);
    const int64_t k = ProductOf(ops[0], contract);
    const int64_t n = ProductOf(ops[1], free1);
    Shape result_dims;
    for (int l : batch) result_dims.push_back(ops[0].dims[ops[0].IndexOf(l)]);
    for (int l : free0) result_dims.push_back(ops[0].dims[ops[0].IndexOf(l)]);
    for (int l : free1) result_dims.push_back(ops[1].dims[ops[1].IndexOf(l)]);
    result_labels = batch;
    result_labels.insert(result_labels.end(), free0.begin(), free0.end());
    result_labels.insert(result_labels.end(), free1.begin(), free1.end());
    // The GEMMs write every element (zeros when k == 0): straight into the
    // output when it is laid out as their result, as in Keras's EinsumDense
    // ("abc,cde->abde") and attention scores ("aecd,abcd->acbe").
    const bool direct = result_labels == b.output && out.num_elements() == nb * m * n;
    Tensor r;
    if (direct) {
      r = out;
    } else {
      absl::StatusOr<Tensor> made = Tensor::CreateUninitialized(inputs[0].dtype(), result_dims);
      if (!made.ok()) return made.status();
      r = *std::move(made);
    }
    ForEachGemm(nb, m, n, k, [&](int64_t i) {
      Gemm<T>(false, false, m, n, k, a->template data<T>() + i * m * k, k,
              c->template data<T>() + i * k * n, n, r.template data<T>() + i * m * n, n);
    });
    if (direct) return absl::OkStatus();
    result = std::move(r);
  }
  if (out.num_elements() == 0) return absl::OkStatus();
  // Stride of each result label in the contiguous result.
  std::vector<int64_t> label_stride(b.label_dims.size(), 0);
  {
    int64_t s = 1;
    for (int j = static_cast<int>(result_labels.size()) - 1; j >= 0; --j) {
      label_stride[result_labels[j]] = s;
      s *= b.label_dims[result_labels[j]];
    }
  }
  const T* src = result.data<T>();
  T* dst = out.data<T>();
  const int rank = static_cast<int>(out_shape.size());
  std::vector<int> first(b.output.size());  // first output axis of each axis' label
  bool repeated = false;
  for (int d = 0; d < rank; ++d) {
    first[d] = static_cast<int>(std::find(b.output.begin(), b.output.end(), b.output[d]) -
                                b.output.begin());
    repeated |= first[d] != d;
  }
  std::vector<std::vector<int64_t>> tables(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    tables[d].resize(static_cast<size_t>(out_shape[d]));
    const int64_t stride = first[d] == d ? label_stride[b.output[d]] : 0;
    for (int64_t i = 0; i < out_shape[d]; ++i) tables[d][i] = i * stride;
  }
  if (!repeated) {
    if (result_labels == b.output) {  // already in the output's order
      std::copy(src, src + out.num_elements(), dst);
    } else {
      GatherByTables<T>(src, tables, T(0), dst);
    }
    return absl::OkStatus();
  }
  // The output repeats a label (e.g. "i->ii"): off-diagonal elements are zero.
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (int64_t e = 0; e < out.num_elements(); ++e) {
    bool diagonal = true;
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      if (coord[d] != coord[first[d]]) diagonal = false;
      offset += tables[d][coord[d]];
    }
    dst[e] = diagonal ? src[offset] : T(0);
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < out_shape[d]) break;
      coord[d] = 0;
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeEinsum(KernelContext& ctx) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  absl::StatusOr<EinsumEquation> eq = ParseEquation(*equation, ctx.num_inputs());
  if (!eq.ok()) return eq.status();
  std::vector<Tensor> inputs;
  std::vector<const Shape*> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    inputs.push_back(ctx.input(i));
    if (inputs[i].dtype() != inputs[0].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Einsum inputs must have one type: input 0 is ", DataTypeName(inputs[0].dtype()),
          ", input ", i, " is ", DataTypeName(inputs[i].dtype())));
    }
  }
  for (const Tensor& t : inputs) shapes.push_back(&t.shape());
  absl::StatusOr<EinsumBinding> b = BindEinsum(*equation, *eq, shapes);
  if (!b.ok()) return b.status();
  Shape dims;
  for (int l : b->output) dims.push_back(b->label_dims[l]);
  const DataType dtype = inputs[0].dtype();
  // RunEinsum writes every element (a repeated output label's off-diagonal
  // ones as zeros).
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, dtype, dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return RunEinsum<T>(inputs, *b, dims, *result);
  };
  switch (dtype) {
    case DataType::kFloat: return run(Tag<float>{});
    case DataType::kDouble: return run(Tag<double>{});
    case DataType::kInt32: return run(Tag<int32_t>{});
    case DataType::kInt64: return run(Tag<int64_t>{});
    default:
      return absl::UnimplementedError(
          absl::StrCat("Einsum does not support ", DataTypeName(dtype)));
  }
}

}  // namespace

void RegisterEinsumOps(KernelRegistry& r) {
  r.AddOp(ArrayOp("Einsum", {}, InferEinsum));
  r.AddKernel({"Einsum", kCpu, "T",
               {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64},
               ComputeEinsum});
}

}  // namespace smrt::kernels
