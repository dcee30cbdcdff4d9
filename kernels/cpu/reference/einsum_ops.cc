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
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/shared/kernel_util.h"
#include "ops/einsum_shapes.h"

namespace smrt::kernels {
namespace {

using misc::Tag;
using ops::einsum::BindEinsum;
using ops::einsum::EinsumBinding;
using ops::einsum::EinsumEquation;
using ops::einsum::kEllipsis;
using ops::einsum::ParseEquation;

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
  r.AddKernel({"Einsum", kCpu, "T",
               {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64},
               ComputeEinsum});
}

}  // namespace smrt::kernels
