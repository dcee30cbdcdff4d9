// Array and index ops of older and rarer graphs, as TensorFlow's CPU kernels
// compute them, with their checks and messages: Reverse (V1: a bool per dim),
// Roll, LinSpace, InTopK{,V2}, Diag, DiagPart, InvertPermutation,
// UnravelIndex, LowerBound, UpperBound, NthElement, Cross, Empty,
// GuaranteeConst and BiasAddV1. Arithmetic happens in the element type (each
// float16 operation rounds to float16, integers wrap), as in TensorFlow's
// Eigen expressions, so that results are bit-equal.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"

namespace smrt::kernels {
namespace {

using misc::Tag;

// The real types and complex64 / complex128.
template <typename Fn>
absl::Status VisitNumberType(DataType dtype, absl::string_view op, Fn&& fn) {
  if (dtype == DataType::kComplex64) return fn(Tag<std::complex<float>>{});
  if (dtype == DataType::kComplex128) return fn(Tag<std::complex<double>>{});
  return misc::VisitRealType(dtype, op, fn);
}

std::vector<DataType> NumberTypes() {
  std::vector<DataType> types = misc::RealTypes();
  types.push_back(DataType::kComplex64);
  types.push_back(DataType::kComplex128);
  return types;
}

// Copies `in` into a new output 0 with the dims where flip[d] is true
// reversed.
absl::Status ReverseInto(KernelContext& ctx, const Tensor& in, const std::vector<bool>& flip) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  const Shape strides = RowMajorStrides(in.shape());
  std::vector<std::vector<int64_t>> tables(static_cast<size_t>(in.rank()));
  for (int d = 0; d < in.rank(); ++d) {
    for (int64_t i = 0; i < in.dim(d); ++i) {
      tables[d].push_back((flip[d] ? in.dim(d) - 1 - i : i) * strides[d]);
    }
  }
  if (in.num_elements() == 0) return absl::OkStatus();
  Tensor* result = *out;
  return VisitElementType(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(in.data<T>(), tables, T(), result->data<T>());
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// Reverse (V1): dims is a bool per input dim.

absl::Status ComputeReverse(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const Tensor& dims = ctx.input(1);
  if (dims.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("'dims' must be 1-dimension, not ", dims.rank()));
  }
  if (dims.dtype() != DataType::kBool) {
    return absl::InvalidArgumentError(
        absl::StrCat("'dims' must be bool, got ", DataTypeName(dims.dtype())));
  }
  if (dims.dim(0) != in.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'dims' must have the same number of values as 'input' has dimensions. 'input' has ",
        in.rank(), "'dims' has ", dims.dim(0), " values"));
  }
  if (in.rank() > 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("reverse is not implemented for tensors of rank > 8."));
  }
  std::vector<bool> flip(static_cast<size_t>(in.rank()));
  for (int d = 0; d < in.rank(); ++d) flip[d] = dims.data<bool>()[d];
  return ReverseInto(ctx, in, flip);
}

// ---------------------------------------------------------------------------
// Roll: output[(i + shift) mod n] = input[i] along each axis; shifts of one
// axis add up.

absl::Status ComputeRoll(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const Tensor& shift = ctx.input(1);
  const Tensor& axis = ctx.input(2);
  if (in.rank() < 1) return absl::InvalidArgumentError("input must be 1-D or higher");
  if (shift.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shift must be a scalar or a 1-D vector. Found: ", Brackets(shift.shape())));
  }
  if (axis.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis must be a scalar or a 1-D vector. Found: ", Brackets(axis.shape())));
  }
  if (shift.num_elements() != axis.num_elements()) {
    return absl::InvalidArgumentError("shift and axis must have the same size");
  }
  absl::StatusOr<std::vector<int64_t>> shifts = IntValues(shift, "shift");
  if (!shifts.ok()) return shifts.status();
  absl::StatusOr<std::vector<int64_t>> axes = IntValues(axis, "axis");
  if (!axes.ok()) return axes.status();
  const int rank = in.rank();
  std::vector<int64_t> total(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t a = (*axes)[i];
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is out of range"));
    }
    total[a] += (*shifts)[i];
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  if (in.num_elements() == 0) return absl::OkStatus();
  const Shape strides = RowMajorStrides(in.shape());
  std::vector<std::vector<int64_t>> tables(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int64_t n = in.dim(d);
    const int64_t s = ((total[d] % n) + n) % n;
    for (int64_t i = 0; i < n; ++i) tables[d].push_back(((i - s + n) % n) * strides[d]);
  }
  Tensor* result = *out;
  return VisitElementType(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(in.data<T>(), tables, T(), result->data<T>());
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// LinSpace: start + step * i, the last value exactly stop.

template <typename T>
absl::Status LinSpaceTyped(KernelContext& ctx, int64_t num) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, ctx.input(0).dtype(), {num});
  if (!out.ok()) return out.status();
  const T start = ctx.input(0).data<T>()[0];
  const T stop = ctx.input(1).data<T>()[0];
  T* o = (*out)->data<T>();
  if (num == 1) {
    o[0] = start;
    return absl::OkStatus();
  }
  const T step = (stop - start) / static_cast<T>(num - 1);
  for (int64_t i = 0; i < num - 1; ++i) o[i] = start + step * static_cast<T>(i);
  o[num - 1] = stop;
  return absl::OkStatus();
}

absl::Status ComputeLinSpace(KernelContext& ctx) {
  const char* names[] = {"start", "stop", "num"};
  for (int i = 0; i < 3; ++i) {
    if (ctx.input(i).rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(names[i], " must be a scalar, not shape ", Brackets(ctx.input(i).shape())));
    }
  }
  absl::StatusOr<int64_t> num = IntScalar(ctx.input(2), "num");
  if (!num.ok()) return num.status();
  if (*num <= 0) return absl::InvalidArgumentError(absl::StrCat("Requires num > 0: ", *num));
  if (ctx.input(1).dtype() != ctx.input(0).dtype()) {
    return absl::InvalidArgumentError("start and stop must have the same dtype");
  }
  switch (ctx.input(0).dtype()) {
    case DataType::kFloat:
      return LinSpaceTyped<float>(ctx, *num);
    case DataType::kDouble:
      return LinSpaceTyped<double>(ctx, *num);
    default:
      break;
  }
  return absl::UnimplementedError(absl::StrCat("LinSpace does not support tensors of type ",
                                               DataTypeName(ctx.input(0).dtype())));
}

// ---------------------------------------------------------------------------
// InTopK / InTopKV2: whether each target's prediction is among the k
// largest of its row (fewer than k strictly larger); false for an
// out-of-range target or a row with a non-finite value.

absl::Status ComputeInTopK(KernelContext& ctx) {
  const Tensor& predictions = ctx.input(0);
  const Tensor& targets = ctx.input(1);
  int64_t k = 0;
  if (ctx.op() == "InTopKV2") {
    if (ctx.input(2).rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("k must be 0-D, got shape ", Brackets(ctx.input(2).shape())));
    }
    absl::StatusOr<int64_t> kv = IntScalar(ctx.input(2), "k");
    if (!kv.ok()) return kv.status();
    k = *kv;
  } else {
    absl::StatusOr<int64_t> kv = ctx.attrs().Get<int64_t>("k");
    if (!kv.ok()) return kv.status();
    k = *kv;
  }
  if (predictions.rank() != 2) {
    return absl::InvalidArgumentError("predictions must be 2-dimensional");
  }
  if (targets.rank() != 1) return absl::InvalidArgumentError("targets must be 1-dimensional");
  if (predictions.dim(0) != targets.dim(0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("First dimension of predictions ", predictions.dim(0),
                     " must match length of targets ", targets.dim(0)));
  }
  if (predictions.dtype() != DataType::kFloat) {
    return absl::UnimplementedError(absl::StrCat(ctx.op(), " takes float32 predictions, got ",
                                                 DataTypeName(predictions.dtype())));
  }
  absl::StatusOr<std::vector<int64_t>> target = IntValues(targets, "targets");
  if (!target.ok()) return target.status();
  const int64_t rows = predictions.dim(0), classes = predictions.dim(1);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kBool, {rows});
  if (!out.ok()) return out.status();
  for (int64_t b = 0; b < rows; ++b) {
    const float* row = predictions.data<float>() + b * classes;
    const int64_t t = (*target)[b];
    bool cannot_say = t < 0 || t >= classes || !std::isfinite(row[t]);
    int64_t more_probable = 0;
    if (!cannot_say) {
      for (int64_t i = 0; i < classes; ++i) {
        if (!std::isfinite(row[i])) {
          cannot_say = true;
          break;
        }
        if (row[i] > row[t] && ++more_probable > k) break;
      }
    }
    (*out)->data<bool>()[b] = !cannot_say && more_probable < k;
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Diag / DiagPart: a tensor of rank k and the rank-2k tensor with it on its
// diagonal.

absl::Status ComputeDiag(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input must be at least rank 1, got ", in.rank()));
  }
  Shape dims = in.shape();
  dims.insert(dims.end(), in.shape().begin(), in.shape().end());
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), dims);
  if (!out.ok()) return out.status();
  const int64_t n = in.num_elements();
  Tensor* result = *out;
  return VisitElementType(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) result->data<T>()[i * (n + 1)] = in.data<T>()[i];
    return absl::OkStatus();
  });
}

absl::Status ComputeDiagPart(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const int rank = in.rank();
  if (rank == 0 || rank % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The rank of the tensor should be                                          even and "
        "positive, got shape ",
        Brackets(in.shape())));
  }
  const int half = rank / 2;
  for (int d = 0; d < half; ++d) {
    if (in.dim(d) != in.dim(d + half)) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid shape ", Brackets(in.shape()),
                                                     ": dimensions ", d, " and ", d + half,
                                                     " do not match."));
    }
  }
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, in.dtype(), Shape(in.shape().begin(), in.shape().begin() + half));
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  Tensor* result = *out;
  return VisitElementType(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) result->data<T>()[i] = in.data<T>()[i * (n + 1)];
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// InvertPermutation

template <typename T>
absl::Status InvertTyped(const Tensor& x, Tensor* y) {
  const int64_t n = x.num_elements();
  T* out = y->data<T>();
  std::fill_n(out, n, T{-1});
  for (int64_t i = 0; i < n; ++i) {
    const T d = x.data<T>()[i];
    if (d < 0 || d >= n) {
      return absl::InvalidArgumentError(absl::StrCat(d, " is not between 0 and ", n));
    }
    if (out[d] != -1) {
      return absl::InvalidArgumentError(absl::StrCat(d, " is duplicated in the input."));
    }
    out[d] = static_cast<T>(i);
  }
  return absl::OkStatus();
}

absl::Status ComputeInvertPermutation(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 1) return absl::InvalidArgumentError("invert_permutation expects a 1D vector.");
  if (x.dtype() == DataType::kInt32 && x.num_elements() > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        "permutation of nonnegative int32s must have <= int32 max elements");
  }
  absl::StatusOr<Tensor*> y = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!y.ok()) return y.status();
  if (x.dtype() == DataType::kInt32) return InvertTyped<int32_t>(x, *y);
  if (x.dtype() == DataType::kInt64) return InvertTyped<int64_t>(x, *y);
  return absl::UnimplementedError(
      absl::StrCat("InvertPermutation does not support tensors of type ", DataTypeName(x.dtype())));
}

// ---------------------------------------------------------------------------
// UnravelIndex: flat indices into coordinates of `dims` (row-major). As in
// TensorFlow, indices are only checked against the product of dims: a
// negative index gives C++'s truncated quotients and remainders.

template <typename T>
absl::Status UnravelTyped(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& dims_t = ctx.input(1);
  const int64_t nd = dims_t.num_elements();
  const T* dims = dims_t.data<T>();
  for (int64_t i = 0; i < nd; ++i) {
    if (dims[i] == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input dims cannot contain a dim of zero, but dims contains zero at index ", i));
    }
  }
  T prod = 1;
  for (int64_t i = 0; i < nd; ++i) prod = misc::WrapMul(prod, dims[i]);
  const T* idx = indices.data<T>();
  const int64_t n = indices.num_elements();
  if (!std::all_of(idx, idx + n, [&](T v) { return v < prod; })) {
    return absl::InvalidArgumentError("index is out of bound as with dims");
  }
  if (indices.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The indices can only be scalar or vector, got \"", Brackets(indices.shape()), "\""));
  }
  std::vector<T> strides(static_cast<size_t>(nd), T{1});
  for (int64_t i = nd - 2; i >= 0; --i) strides[i] = misc::WrapMul(strides[i + 1], dims[i + 1]);
  Shape out_dims = {nd};
  if (indices.rank() == 1) out_dims.push_back(n);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, indices.dtype(), out_dims);
  if (!out.ok()) return out.status();
  T* o = (*out)->data<T>();
  for (int64_t i = 0; i < nd; ++i) {
    for (int64_t j = 0; j < n; ++j) o[i * n + j] = static_cast<T>(idx[j] / strides[i] % dims[i]);
  }
  return absl::OkStatus();
}

absl::Status ComputeUnravelIndex(KernelContext& ctx) {
  const Tensor& dims = ctx.input(1);
  if (dims.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("The indices can only be 1-D, got \"", Brackets(dims.shape()), "\""));
  }
  if (dims.dtype() != ctx.input(0).dtype()) {
    return absl::InvalidArgumentError("indices and dims must have the same dtype");
  }
  if (dims.dtype() == DataType::kInt32) return UnravelTyped<int32_t>(ctx);
  if (dims.dtype() == DataType::kInt64) return UnravelTyped<int64_t>(ctx);
  return absl::UnimplementedError(
      absl::StrCat("UnravelIndex does not support tensors of type ", DataTypeName(dims.dtype())));
}

// ---------------------------------------------------------------------------
// LowerBound / UpperBound: per row, the first index of sorted_inputs whose
// value is >= (LowerBound) or > (UpperBound) each value.

absl::Status ComputeBound(KernelContext& ctx) {
  const Tensor& sorted = ctx.input(0);
  const Tensor& values = ctx.input(1);
  if (sorted.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("Shape must be rank 2 but is rank ",
                                                   sorted.rank(), " for `sorted_inputs` argument"));
  }
  if (values.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape must be rank 2 but is rank ", values.rank(), " for `values` argument"));
  }
  if (sorted.dim(0) != values.dim(0)) {
    return absl::InvalidArgumentError("Leading dim_size of both tensors must match.");
  }
  absl::StatusOr<DataType> out_type = ctx.attrs().Get<DataType>("out_type");
  if (!out_type.ok()) return out_type.status();
  if (*out_type != DataType::kInt32 && *out_type != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("out_type must be int32 or int64, got ", DataTypeName(*out_type)));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *out_type, values.shape());
  if (!out.ok()) return out.status();
  const bool lower = ctx.op() == "LowerBound";
  const int64_t rows = values.dim(0), m = values.dim(1), n = sorted.dim(1);
  Tensor* result = *out;
  return misc::VisitRealType(sorted.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t r = 0; r < rows; ++r) {
      const T* s = sorted.data<T>() + r * n;
      for (int64_t j = 0; j < m; ++j) {
        const T v = values.data<T>()[r * m + j];
        const int64_t at =
            (lower ? std::lower_bound(s, s + n, v) : std::upper_bound(s, s + n, v)) - s;
        if (*out_type == DataType::kInt32) {
          result->data<int32_t>()[r * m + j] = static_cast<int32_t>(at);
        } else {
          result->data<int64_t>()[r * m + j] = at;
        }
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// NthElement: the n-th smallest (reverse: largest) value of each last-dim
// vector.

absl::Status ComputeNthElement(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const Tensor& n_in = ctx.input(1);
  if (n_in.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("N must be scalar but has rank ", n_in.rank()));
  }
  absl::StatusOr<int64_t> n = IntScalar(n_in, "n");
  if (!n.ok()) return n.status();
  if (*n < 0) {
    return absl::InvalidArgumentError(absl::StrCat("n must be non-negative but is ", *n));
  }
  if (in.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input must be at least rank 1 but is rank ", in.rank()));
  }
  const int64_t last = in.dim(in.rank() - 1);
  if (last <= *n) {
    return absl::InvalidArgumentError(absl::StrCat("Input must have last dimension > n = ", *n));
  }
  absl::StatusOr<bool> reverse = ctx.attrs().GetOr<bool>("reverse", false);
  if (!reverse.ok()) return reverse.status();
  const int64_t nth = *reverse ? last - *n - 1 : *n;
  Shape dims = in.shape();
  dims.pop_back();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), dims);
  if (!out.ok()) return out.status();
  const int64_t rows = (*out)->num_elements();
  Tensor* result = *out;
  return misc::VisitRealType(in.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> row(static_cast<size_t>(last));
    for (int64_t r = 0; r < rows; ++r) {
      std::copy_n(in.data<T>() + r * last, last, row.begin());
      std::nth_element(row.begin(), row.begin() + nth, row.end());
      result->data<T>()[r] = row[nth];
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// Cross: a x b over the last dim (3 elements).

absl::Status ComputeCross(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.shape() != b.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Both inputs must be of same shape: ", Brackets(a.shape()), " vs. ", Brackets(b.shape())));
  }
  if (a.rank() < 1) return absl::InvalidArgumentError("Input must be at least 1D");
  if (a.dim(a.rank() - 1) != 3) {
    return absl::FailedPreconditionError("Cross-products are only defined for 3-element vectors.");
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, a.dtype(), a.shape());
  if (!out.ok()) return out.status();
  const int64_t rows = a.num_elements() / 3;
  Tensor* result = *out;
  return misc::VisitRealType(a.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t r = 0; r < rows; ++r) {
      const T* x = a.data<T>() + 3 * r;
      const T* y = b.data<T>() + 3 * r;
      T* o = result->data<T>() + 3 * r;
      o[0] = elementwise::WrapSub(misc::WrapMul(x[1], y[2]), misc::WrapMul(x[2], y[1]));
      o[1] = elementwise::WrapSub(misc::WrapMul(x[2], y[0]), misc::WrapMul(x[0], y[2]));
      o[2] = elementwise::WrapSub(misc::WrapMul(x[0], y[1]), misc::WrapMul(x[1], y[0]));
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// Empty: a tensor of `shape`, zeros whether or not `init` asks for them.

absl::Status ComputeEmpty(KernelContext& ctx) {
  const Tensor& shape = ctx.input(0);
  if (shape.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot compute Empty as input #0(zero-based) was expected to be a int32 tensor but is a ",
        DataTypeShortName(shape.dtype()), " tensor"));
  }
  if (shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of int32, got shape ", Brackets(shape.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> dims = IntValues(shape, "shape");
  if (!dims.ok()) return dims.status();
  for (int64_t d : *dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0"));
  }
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, *dims);
  return out.ok() ? absl::OkStatus() : out.status();
}

// ---------------------------------------------------------------------------
// BiasAddV1: value + bias over the last dim.

absl::Status ComputeBiasAddV1(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  const Tensor& bias = ctx.input(1);
  if (value.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor must be at least 2D: ", Brackets(value.shape())));
  }
  if (bias.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Biases must be 1D: ", Brackets(bias.shape())));
  }
  const int64_t channels = value.dim(value.rank() - 1);
  if (bias.dim(0) != channels) {
    return absl::InvalidArgumentError(
        absl::StrCat("Must provide as many biases as the last dimension of the input tensor: ",
                     Brackets(bias.shape()), " vs. ", Brackets(value.shape())));
  }
  if (bias.dtype() != value.dtype()) {
    return absl::InvalidArgumentError("value and bias must have the same dtype");
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, value.dtype(), value.shape());
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  return VisitNumberType(value.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < value.num_elements(); ++i) {
      result->data<T>()[i] = misc::WrapAdd(value.data<T>()[i], bias.data<T>()[i % channels]);
    }
    return absl::OkStatus();
  });
}

absl::Status Forward(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayExtraOps(KernelRegistry& r) {
  AddArrayKernel(r, "Reverse", "T", ComputeReverse);
  AddArrayKernel(r, "Roll", "T", ComputeRoll);
  r.AddKernel({"LinSpace", kCpu, "T", {DataType::kFloat, DataType::kDouble}, ComputeLinSpace});
  for (const char* op : {"InTopK", "InTopKV2"}) {
    r.AddKernel({op, kCpu, "T", {DataType::kInt32, DataType::kInt64}, ComputeInTopK});
  }
  const std::vector<DataType> diag_types = {
      DataType::kFloat, DataType::kDouble,    DataType::kHalf,      DataType::kInt32,
      DataType::kInt64, DataType::kComplex64, DataType::kComplex128};
  r.AddKernel({"Diag", kCpu, "T", diag_types, ComputeDiag});
  r.AddKernel({"DiagPart", kCpu, "T", diag_types, ComputeDiagPart});
  r.AddKernel({"InvertPermutation",
               kCpu,
               "T",
               {DataType::kInt32, DataType::kInt64},
               ComputeInvertPermutation});
  r.AddKernel(
      {"UnravelIndex", kCpu, "Tidx", {DataType::kInt32, DataType::kInt64}, ComputeUnravelIndex});
  r.AddKernel({"LowerBound", kCpu, "T", misc::RealTypes(), ComputeBound});
  r.AddKernel({"UpperBound", kCpu, "T", misc::RealTypes(), ComputeBound});
  r.AddKernel({"NthElement", kCpu, "T", misc::RealTypes(), ComputeNthElement});
  r.AddKernel({"Cross", kCpu, "T", misc::RealTypes(), ComputeCross});
  r.AddKernel({"Empty", kCpu, "", {}, ComputeEmpty});
  r.AddKernel({"GuaranteeConst", kCpu, "", {}, Forward});
  r.AddKernel({"BiasAddV1", kCpu, "T", NumberTypes(), ComputeBiasAddV1});
}

}  // namespace smrt::kernels
