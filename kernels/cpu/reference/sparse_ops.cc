// Sparse tensors, as TensorFlow's CPU kernels compute them: what
// tf.io.VarLenFeature, tf.sparse.to_dense and tf.nn.(safe_)embedding_lookup_sparse
// put in inference graphs.
//
// SparseFillEmptyRows: one default entry (index [row, 0, ...]) for each row
// no index names; entries keep their order within a row, rows come in
// order. When every row has an entry and the rows are in order, indices and
// values pass through unchanged.
// SparseReshape: indices re-addressed through row-major strides; one -1 in
// the new shape is inferred; the same shape passes through.
// SparseSegmentSum/Mean/SqrtN (and WithNumSegments): rows of data picked by
// indices and summed per sorted segment id, in TensorFlow's order (the first
// n % 8 rows, or 8 or 9, times the scale; then eight rows at a time), scaled
// as TensorFlow does: times 1/n (1/sqrt(n)) below ten rows, divided by n
// (sqrt(n)) from ten. float16 and bfloat16 are summed in float. Rows no
// segment names are 0.
// SparseReorder: entries sorted by index (row-major), passed through when
// already sorted, unique and in bounds.
// SparseConcat: entries of every input, moved along concat_dim past the
// inputs before, sorted by index.
// SparseSlice: the entries inside [start, start + size), in input order,
// moved by -start; the shape is the slice's overlap with the input.
// SparseToDense: default_value everywhere else; with validate_indices, the
// indices must be in bounds, sorted and unique; without it, a repeated index
// keeps its last value.
// SparseAdd: TensorFlow's merge of two sorted operands; entries at one index
// are summed and kept when |sum| >= thresh. SparseTensorDenseAdd: b plus
// each entry, in order.
// SparseReduceSum: entries grouped by the kept dims, each group summed in
// the order of its reduced dims (as TensorFlow orders them; Eigen sums a
// group of 8 or more float values in packets, so there only within float
// rounding); empty groups are 0.
// DynamicPartition, DynamicStitch, ParallelDynamicStitch (what lookups in
// partitioned embeddings emit): rows split by partition in order; rows
// merged by index, a later index overwriting an earlier one (TensorFlow's
// ParallelDynamicStitch leaves that order unspecified).
// SparseTensorDenseMatMul: A (sparse, optionally adjoint) times B
// (optionally adjoint), accumulated in A's index order (float16 in float).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/index_text.h"
#include "ops/sparse_shapes.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::FloatTypes;
using elementwise::RealTypes;
using elementwise::TypeList;
using elementwise::WrapAdd;
using elementwise::WrapMul;

PartialShape Known(const Tensor& t) { return PartialShape::Known(t.shape()); }

// "[2,3]", as TensorFlow's TensorShape::DebugString.
std::string ShapeString(const Shape& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

// A shape from dims that must all be >= 0, with the message of
// TensorShapeUtils::MakeShape (SparseToDense's output shape) or, for a
// SparseTensor's dense_shape, of TensorShape::BuildTensorShape.
absl::StatusOr<Shape> NonNegativeShape(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0"));
  }
  return Shape(dims.begin(), dims.end());
}

absl::StatusOr<Shape> DenseShape(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected shape dimensions to be non-negative, got ", d));
    }
  }
  return Shape(dims.begin(), dims.end());
}

// ---------------------------------------------------------------------------
// SparseFillEmptyRows.

absl::Status ComputeFillEmptyRows(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& dense_shape = ctx.input(2);
  const Tensor& default_value = ctx.input(3);
  if (absl::Status s = ops::CheckSparseFillEmptyRowsShapes(
          Known(indices), Known(values), Known(dense_shape), Known(default_value));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(indices, "indices");
  if (!ind.ok()) return ind.status();
  absl::StatusOr<std::vector<int64_t>> shape = IntValues(dense_shape, "dense_shape");
  if (!shape.ok()) return shape.status();
  const int64_t n = indices.shape()[0];
  const int64_t rank = indices.shape()[1];
  const int64_t rows = (*shape)[0];
  if (absl::StatusOr<Shape> s = DenseShape(*shape); !s.ok()) return s.status();
  if (n > 0 && rank == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices must have a column for the row of each of its ", n, " entries, saw: [", n, ",0]"));
  }
  absl::StatusOr<Tensor*> empty = ctx.allocate_output(2, DataType::kBool, {rows});
  if (!empty.ok()) return empty.status();
  absl::StatusOr<Tensor*> reverse = ctx.allocate_output(3, DataType::kInt64, {n});
  if (!reverse.ok()) return reverse.status();
  int64_t* reverse_map = (*reverse)->data<int64_t>();
  if (rows == 0) {
    if (n != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = ", n));
    }
    if (absl::StatusOr<Tensor*> o = ctx.allocate_output(0, DataType::kInt64, {0, rank}); !o.ok()) {
      return o.status();
    }
    return ctx.allocate_output(1, values.dtype(), {0}).status();
  }
  // Entries per row, then (in place) the end of each row in the output.
  std::vector<int64_t> offset(static_cast<size_t>(rows), 0);
  bool ordered = true;
  int64_t last_row = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = (*ind)[i * rank];
    if (row < 0 || row >= rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices(", i, ", 0) is invalid: ", row, " >= ", rows));
    }
    ++offset[row];
    ordered = ordered && row >= last_row;
    last_row = row;
  }
  bool full = true;
  bool* empty_row = (*empty)->data<bool>();
  for (int64_t row = 0; row < rows; ++row) {
    empty_row[row] = offset[row] == 0;
    full = full && offset[row] != 0;
    offset[row] = std::max<int64_t>(offset[row], 1) + (row > 0 ? offset[row - 1] : 0);
  }
  if (full && ordered) {
    ctx.set_output(0, indices);
    ctx.set_output(1, values);
    for (int64_t i = 0; i < n; ++i) reverse_map[i] = i;
    return absl::OkStatus();
  }
  const int64_t total = offset[rows - 1];
  absl::StatusOr<Tensor*> out_indices = ctx.allocate_output(0, DataType::kInt64, {total, rank});
  if (!out_indices.ok()) return out_indices.status();
  absl::StatusOr<Tensor*> out_values = ctx.allocate_output(1, values.dtype(), {total});
  if (!out_values.ok()) return out_values.status();
  int64_t* oi = (*out_indices)->data<int64_t>();
  std::vector<int64_t> filled(static_cast<size_t>(rows), 0);
  std::vector<int64_t> where(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = (*ind)[i * rank];
    const int64_t o = (row == 0 ? 0 : offset[row - 1]) + filled[row]++;
    for (int64_t d = 0; d < rank; ++d) oi[o * rank + d] = (*ind)[i * rank + d];
    where[i] = o;
    reverse_map[i] = o;
  }
  std::vector<int64_t> defaults;  // output positions of the rows' default entries
  for (int64_t row = 0; row < rows; ++row) {
    if (filled[row] != 0) continue;
    const int64_t o = row == 0 ? 0 : offset[row - 1];
    oi[o * rank] = row;
    for (int64_t d = 1; d < rank; ++d) oi[o * rank + d] = 0;
    defaults.push_back(o);
  }
  return VisitElementType(values.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* in = values.data<E>();
    E* out = (*out_values)->template data<E>();
    for (int64_t i = 0; i < n; ++i) out[where[i]] = in[i];
    for (int64_t o : defaults) out[o] = default_value.data<E>()[0];
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseReshape.

absl::Status ComputeSparseReshape(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& input_shape_t = ctx.input(1);
  const Tensor& new_shape_t = ctx.input(2);
  if (absl::Status s =
          ops::CheckSparseReshapeShapes(Known(indices), Known(input_shape_t), Known(new_shape_t));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<int64_t>> in_dims = IntValues(input_shape_t, "input_shape");
  if (!in_dims.ok()) return in_dims.status();
  absl::StatusOr<std::vector<int64_t>> target = IntValues(new_shape_t, "new_shape");
  if (!target.ok()) return target.status();
  absl::StatusOr<Shape> input_shape = DenseShape(*in_dims);
  if (!input_shape.ok()) return input_shape.status();
  int64_t dense_size = 1;
  for (int64_t d : *input_shape) dense_size *= d;
  const int64_t nnz = indices.shape()[0];
  const int64_t in_rank = static_cast<int64_t>(input_shape->size());
  const int64_t out_rank = static_cast<int64_t>(target->size());

  Shape output_shape;
  int64_t product = 1;
  int64_t unknown = -1;
  for (int64_t d = 0; d < out_rank; ++d) {
    const int64_t size = (*target)[d];
    if (size == -1) {
      if (unknown != -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("only one output dimension may be -1, not both ", unknown, " and ", d));
      }
      unknown = d;
      output_shape.push_back(1);
    } else {
      if (size < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("size ", d, " must be non-negative, not ", size));
      }
      product *= size;
      output_shape.push_back(size);
    }
  }
  if (unknown != -1) {
    if (product <= 0) {
      return absl::InvalidArgumentError(
          "reshape cannot infer the missing input size for an empty tensor unless all specified "
          "input sizes are non-zero");
    }
    const int64_t missing = dense_size / product;
    if (product * missing != dense_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input to reshape is a SparseTensor with ", dense_size,
                       " dense values, but the requested shape requires a multiple of ", product,
                       ". input_shape=", ShapeString(*input_shape),
                       " output_shape=", ShapeString(output_shape)));
    }
    output_shape[unknown] = missing;
  }
  int64_t out_size = 1;
  for (int64_t d : output_shape) out_size *= d;
  if (out_size != dense_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input to reshape is a tensor with ", dense_size,
        " dense values, but the requested shape has ", out_size,
        ". input_shape=", ShapeString(*input_shape), " output_shape=", ShapeString(output_shape)));
  }
  if (*input_shape == output_shape) {
    ctx.set_output(0, indices);
    ctx.set_output(1, input_shape_t);
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor*> shape_out =
      ctx.allocate_output_for_overwrite(1, DataType::kInt64, {out_rank});
  if (!shape_out.ok()) return shape_out.status();
  for (int64_t d = 0; d < out_rank; ++d) (*shape_out)->data<int64_t>()[d] = output_shape[d];
  absl::StatusOr<Tensor*> ind_out = ctx.allocate_output(0, DataType::kInt64, {nnz, out_rank});
  if (!ind_out.ok()) return ind_out.status();
  if (nnz == 0) return absl::OkStatus();
  if (dense_size <= 0 || product <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor has ", nnz, " non zero elements but input shape (", ShapeString(*input_shape),
        ") or output shape (", ShapeString(output_shape), ") is empty"));
  }
  absl::StatusOr<std::vector<int64_t>> in = IntValues(indices, "input_indices");
  if (!in.ok()) return in.status();
  const Shape in_strides = RowMajorStrides(*input_shape);
  const Shape out_strides = RowMajorStrides(output_shape);
  int64_t* out = (*ind_out)->data<int64_t>();
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t id = 0;
    for (int64_t d = 0; d < in_rank; ++d) id += (*in)[i * in_rank + d] * in_strides[d];
    for (int64_t d = 0; d < out_rank; ++d) {
      out[i * out_rank + d] = id / out_strides[d];
      id %= out_strides[d];
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// SparseSegmentSum/Mean/SqrtN.

enum class Scale { kNone, kMean, kSqrtN };

// The type a segment is summed in: float for float16 and bfloat16, as
// TensorFlow's temp buffer; T otherwise.
template <typename T>
using SumType = elementwise::ComputeType<T>;

template <typename A>
A ScaleFactor(Scale scale, int64_t num) {
  A m(1);
  if (scale == Scale::kMean && num < 10) m = static_cast<A>(num);
  if (scale == Scale::kSqrtN && num < 10) m = static_cast<A>(std::sqrt(static_cast<double>(num)));
  return A(1) / m;
}

// Reduces the data rows indices[start, start + num) into `out` (cols
// values); returns the offset of the first index out of [0, rows), or -1.
template <typename T>
int64_t ReduceSegment(const T* data, int64_t rows, int64_t cols, const std::vector<int64_t>& idx,
                      int64_t start, int64_t num, Scale scale, T* out) {
  using A = SumType<T>;
  for (int64_t i = 0; i < num; ++i) {
    if (idx[start + i] < 0 || idx[start + i] >= rows) return i;
  }
  auto row = [&](int64_t i) { return data + idx[start + i] * cols; };
  if (num == 1) {
    const T* r = row(0);
    for (int64_t c = 0; c < cols; ++c) out[c] = r[c];
    return -1;
  }
  int64_t head = num & 7;
  if (head == 0) head = 8;
  if (head == 1) head = 9;
  const A factor = ScaleFactor<A>(scale, num);
  for (int64_t c = 0; c < cols; ++c) {
    A acc = static_cast<A>(row(0)[c]);
    for (int64_t i = 1; i < head; ++i) acc = WrapAdd(acc, static_cast<A>(row(i)[c]));
    if (scale != Scale::kNone) acc = acc * factor;
    for (int64_t r = head; r < num; r += 8) {
      A group = static_cast<A>(row(r)[c]);
      for (int64_t i = 1; i < 8; ++i) group = WrapAdd(group, static_cast<A>(row(r + i)[c]));
      acc = WrapAdd(acc, group);
    }
    if (scale == Scale::kMean && num >= 10) acc = acc / static_cast<A>(num);
    if (scale == Scale::kSqrtN && num >= 10) {
      acc = acc / static_cast<A>(std::sqrt(static_cast<double>(num)));
    }
    out[c] = static_cast<T>(acc);
  }
  return -1;
}

template <typename T>
absl::Status SparseSegmentTyped(KernelContext& ctx, Scale scale, const std::vector<int64_t>& idx,
                                const std::vector<int64_t>& seg, int64_t output_rows) {
  const Tensor& data = ctx.input(0);
  const int64_t n = static_cast<int64_t>(idx.size());
  Shape shape = data.shape();
  shape[0] = output_rows;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, data.dtype(), shape);  // gaps are 0
  if (!out.ok()) return out.status();
  if (n == 0) return absl::OkStatus();
  if (output_rows <= 0) return absl::InvalidArgumentError("segment ids must be >= 0");
  const int64_t rows = data.shape()[0];
  const int64_t cols =
      rows > 0 ? data.num_elements() / rows : DimProduct(data.shape(), 1, data.rank());
  const T* in = data.data<T>();
  T* o = (*out)->template data<T>();
  int64_t start = 0;
  int64_t end = 1;
  int64_t out_index = seg[0];
  while (true) {
    int64_t next_index = 0;
    if (end < n) {
      next_index = seg[end];
      if (out_index == next_index) {
        ++end;
        continue;
      }
      if (out_index > next_index) {
        return absl::InvalidArgumentError("segment ids are not increasing");
      }
    }
    if (out_index < 0 || out_index >= output_rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("Segment id ", out_index, " out of range [0, ", output_rows,
                       "), possibly because 'segment_ids' input is not sorted."));
    }
    const int64_t bad =
        ReduceSegment<T>(in, rows, cols, idx, start, end - start, scale, o + out_index * cols);
    if (bad >= 0) {
      return absl::InvalidArgumentError(absl::StrCat("Bad: indices[", start + bad,
                                                     "] == ", idx[start + bad],
                                                     " out of range [0, ", rows, ")"));
    }
    start = end;
    ++end;
    out_index = next_index;
    if (end > n) break;
  }
  return absl::OkStatus();
}

template <typename Types>
absl::Status ComputeSparseSegment(KernelContext& ctx, Scale scale, bool has_num_segments) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& segment_ids = ctx.input(2);
  PartialShape num_shape;
  if (has_num_segments) num_shape = Known(ctx.input(3));
  if (absl::Status s = ops::CheckSparseSegmentShapes(
          Known(data), Known(indices), Known(segment_ids), has_num_segments ? &num_shape : nullptr);
      !s.ok()) {
    return s;
  }
  int64_t output_rows = -1;
  if (has_num_segments) {
    absl::StatusOr<int64_t> num = IntScalar(ctx.input(3), "num_segments");
    if (!num.ok()) return num.status();
    if (*num < 0) return absl::InvalidArgumentError("segment ids must be >= 0");
    output_rows = *num;
  }
  absl::StatusOr<std::vector<int64_t>> idx = IntValues(indices, "indices");
  if (!idx.ok()) return idx.status();
  absl::StatusOr<std::vector<int64_t>> seg = IntValues(segment_ids, "segment_ids");
  if (!seg.ok()) return seg.status();
  const int64_t last = seg->empty() ? 0 : seg->back();
  const int64_t limit = indices.dtype() == DataType::kInt32 ? std::numeric_limits<int32_t>::max()
                                                            : std::numeric_limits<int64_t>::max();
  if (last >= limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("Last segment id must be < kintmax, got ", last, " limit ", limit));
  }
  const int64_t last_plus_one = seg->empty() ? 0 : last + 1;
  if (has_num_segments) {
    if (output_rows < last_plus_one) {
      return absl::InvalidArgumentError("segment ids must be < num_segments");
    }
  } else {
    output_rows = last_plus_one;
  }
  if (output_rows < 0) return absl::InvalidArgumentError("segment ids must be >= 0");
  return Dispatch(Types{}, data.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return SparseSegmentTyped<T>(ctx, scale, *idx, *seg, output_rows);
  });
}

// ---------------------------------------------------------------------------
// SparseToDense.

// TensorFlow's SparseTensor::IndicesValid for indices [n, dims] in `shape`:
// each index in bounds, each after the one before it.
absl::Status CheckIndicesValid(const std::vector<int64_t>& ind, int64_t n, int64_t dims,
                               const Shape& shape) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* ix = ind.data() + i * dims;
    bool valid = true;
    bool increasing = true;
    bool different = i == 0;
    for (int64_t d = 0; d < dims; ++d) {
      if (ix[d] < 0 || ix[d] >= shape[d]) valid = false;
      if (i == 0) continue;
      const int64_t diff = ix[d] - ix[d - dims];
      if (diff > 0) different = true;
      if (!different && diff < 0) increasing = false;
    }
    if (valid && increasing && different) continue;
    const std::string index =
        absl::StrCat("indices[", i, "] = [", absl::StrJoin(ix, ix + dims, ","), "]");
    if (!valid) {
      return absl::InvalidArgumentError(
          absl::StrCat(index, " is out of bounds: need 0 <= index < ", ShapeString(shape)));
    }
    if (!increasing) {
      return absl::InvalidArgumentError(
          absl::StrCat(index,
                       " is out of order. Many sparse ops require sorted indices.\n"
                       "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"));
    }
    return absl::InvalidArgumentError(absl::StrCat(index, " is repeated"));
  }
  return absl::OkStatus();
}

absl::Status ComputeSparseToDense(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& output_shape = ctx.input(1);
  const Tensor& values = ctx.input(2);
  const Tensor& default_value = ctx.input(3);
  if (absl::Status s = ops::CheckSparseToDenseShapes(Known(indices), Known(output_shape),
                                                     Known(values), Known(default_value));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<bool> validate = ctx.attrs().GetOr<bool>("validate_indices", true);
  if (!validate.ok()) return validate.status();
  const int64_t n = indices.rank() > 0 ? indices.shape()[0] : 1;
  const int64_t dims = indices.rank() > 1 ? indices.shape()[1] : 1;
  absl::StatusOr<std::vector<int64_t>> dim_values = IntValues(output_shape, "output_shape");
  if (!dim_values.ok()) return dim_values.status();
  absl::StatusOr<Shape> shape = NonNegativeShape(*dim_values);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, values.dtype(), *shape);
  if (!out.ok()) return out.status();
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(indices, "sparse_indices");
  if (!ind.ok()) return ind.status();
  if (*validate) {
    if (absl::Status s = CheckIndicesValid(*ind, n, dims, *shape); !s.ok()) return s;
  }
  // Where each value goes, or an error for an index out of bounds.
  const Shape strides = RowMajorStrides(*shape);
  std::vector<int64_t> offsets(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < dims; ++d) {
      const int64_t ix = (*ind)[i * dims + d];
      if (ix < 0 || ix >= (*shape)[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("Indices are not valid (out of bounds).  Shape: ", ShapeString(*shape)));
      }
      offset += ix * strides[d];
    }
    offsets[i] = offset;
  }
  const bool one_value = values.rank() == 0;
  return VisitElementType(values.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    E* o = (*out)->template data<E>();
    const int64_t size = (*out)->num_elements();
    const E fill = default_value.data<E>()[0];
    for (int64_t i = 0; i < size; ++i) o[i] = fill;
    const E* v = values.data<E>();
    for (int64_t i = 0; i < n; ++i) o[offsets[i]] = v[one_value ? 0 : i];
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseReorder.

absl::Status ComputeSparseReorder(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& shape_t = ctx.input(2);
  if (absl::Status s = ops::CheckSparseTensorShapes(Known(indices), Known(values), Known(shape_t));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(indices, "input_indices");
  if (!ind.ok()) return ind.status();
  absl::StatusOr<std::vector<int64_t>> dims = IntValues(shape_t, "input_shape");
  if (!dims.ok()) return dims.status();
  const int64_t n = indices.shape()[0];
  const int64_t rank = indices.shape()[1];
  if (CheckIndicesValid(*ind, n, rank, Shape(dims->begin(), dims->end())).ok()) {
    ctx.set_output(0, indices);
    ctx.set_output(1, values);
    return absl::OkStatus();
  }
  // TensorFlow sorts with std::sort, which leaves repeated indices in an
  // unspecified order; a stable sort keeps them in input order.
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  const int64_t* ix = ind->data();
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(ix + a * rank, ix + (a + 1) * rank, ix + b * rank,
                                        ix + (b + 1) * rank);
  });
  absl::StatusOr<Tensor*> out_ind =
      ctx.allocate_output_for_overwrite(0, DataType::kInt64, indices.shape());
  if (!out_ind.ok()) return out_ind.status();
  absl::StatusOr<Tensor*> out_val =
      ctx.allocate_output_for_overwrite(1, values.dtype(), values.shape());
  if (!out_val.ok()) return out_val.status();
  int64_t* oi = (*out_ind)->data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    std::copy(ix + order[i] * rank, ix + (order[i] + 1) * rank, oi + i * rank);
  }
  return VisitElementType(values.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* in = values.data<E>();
    E* out = (*out_val)->template data<E>();
    for (int64_t i = 0; i < n; ++i) out[i] = in[order[i]];
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseConcat.

absl::Status ComputeSparseConcat(KernelContext& ctx) {
  const int n = ctx.num_inputs() / 3;
  std::vector<PartialShape> lists[3];
  for (int i = 0; i < 3 * n; ++i) lists[i / n].push_back(Known(ctx.input(i)));
  if (absl::Status s = ops::CheckSparseConcatShapes(lists[0], lists[1], lists[2]); !s.ok()) {
    return s;
  }
  if (n < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Value for attr 'N' of ", n, " must be at least minimum 2"));
  }
  absl::StatusOr<int64_t> concat_attr = ctx.attrs().Get<int64_t>("concat_dim");
  if (!concat_attr.ok()) return concat_attr.status();
  std::vector<std::vector<int64_t>> shapes(n);
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<std::vector<int64_t>> s = IntValues(ctx.input(2 * n + i), "shapes");
    if (!s.ok()) return s.status();
    shapes[i] = *std::move(s);
  }
  const int64_t rank = static_cast<int64_t>(shapes[0].size());
  const int64_t dim = *concat_attr < 0 ? rank + *concat_attr : *concat_attr;
  if (dim < 0 || dim >= rank) {
    return absl::InvalidArgumentError(absl::StrCat("Concat dimension must be in range [", -rank,
                                                   ", ", rank, "), got ", *concat_attr));
  }
  for (int i = 1; i < n; ++i) {
    if (static_cast<int64_t>(shapes[i].size()) != rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("Ranks of all input tensors must match: expected ", rank, " but got ",
                       shapes[i].size(), " at position ", i));
    }
    for (int64_t j = 0; j < rank; ++j) {
      if (j != dim && shapes[i][j] != shapes[0][j]) {
        return absl::InvalidArgumentError(
            absl::StrCat("Input shapes must match: expected ", shapes[0][j], " for dimension ", j,
                         " but got ", shapes[i][j], " at position ", i));
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int64_t d : shapes[i]) {
      if (d < 0) return absl::InternalError("Encountered overflow from large input shape.");
    }
  }
  // Every entry, input by input, with its index along concat_dim moved past
  // the inputs before it.
  std::vector<int64_t> ind;
  std::vector<std::pair<int, int64_t>> source;  // (input, entry)
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& indices = ctx.input(i);
    const int64_t rows = indices.shape()[0];
    if (rows != ctx.input(n + i).shape()[0]) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices and values rows (indexing dimension) must match. (indices = ", rows,
                       ", values = ", ctx.input(n + i).shape()[0], ")"));
    }
    if (indices.shape()[1] != rank) {
      return absl::InvalidArgumentError("Order length must be SparseTensor rank.");
    }
    absl::StatusOr<std::vector<int64_t>> v = IntValues(indices, "indices");
    if (!v.ok()) return v.status();
    for (int64_t r = 0; r < rows; ++r) {
      (*v)[r * rank + dim] += offset;
      source.push_back({i, r});
    }
    ind.insert(ind.end(), v->begin(), v->end());
    offset += shapes[i][dim];
  }
  const int64_t total = static_cast<int64_t>(source.size());
  // Sorted by index (TensorFlow's std::sort leaves repeated indices in an
  // unspecified order; they keep the input order here).
  std::vector<int64_t> order(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) order[i] = i;
  const int64_t* ix = ind.data();
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(ix + a * rank, ix + (a + 1) * rank, ix + b * rank,
                                        ix + (b + 1) * rank);
  });
  absl::StatusOr<Tensor*> out_ind =
      ctx.allocate_output_for_overwrite(0, DataType::kInt64, {total, rank});
  if (!out_ind.ok()) return out_ind.status();
  const DataType dtype = ctx.input(n).dtype();
  absl::StatusOr<Tensor*> out_val = ctx.allocate_output_for_overwrite(1, dtype, {total});
  if (!out_val.ok()) return out_val.status();
  absl::StatusOr<Tensor*> out_shape =
      ctx.allocate_output_for_overwrite(2, DataType::kInt64, {rank});
  if (!out_shape.ok()) return out_shape.status();
  for (int64_t j = 0; j < rank; ++j) {
    (*out_shape)->data<int64_t>()[j] = j == dim ? offset : shapes[0][j];
  }
  int64_t* oi = (*out_ind)->data<int64_t>();
  for (int64_t e = 0; e < total; ++e) {
    std::copy(ind.begin() + order[e] * rank, ind.begin() + (order[e] + 1) * rank, oi + e * rank);
  }
  return VisitElementType(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    E* out = (*out_val)->template data<E>();
    for (int64_t e = 0; e < total; ++e) {
      const auto& [input, entry] = source[order[e]];
      out[e] = ctx.input(n + input).template data<E>()[entry];
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseSlice.

absl::Status ComputeSparseSlice(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& shape_t = ctx.input(2);
  const Tensor& start_t = ctx.input(3);
  const Tensor& size_in = ctx.input(4);
  if (absl::Status s = ops::CheckSparseTensorShapes(Known(indices), Known(values), Known(shape_t));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<int64_t>> shape = IntValues(shape_t, "shape");
  if (!shape.ok()) return shape.status();
  for (int64_t d : *shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected shape dimensions to be non-negative, got ", d));
    }
  }
  for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&start_t, "start"},
                                std::pair<const Tensor*, const char*>{&size_in, "size"}}) {
    if (t->rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input ", what, " should be a vector but received shape ", ShapeString(t->shape())));
    }
  }
  const int64_t rank = static_cast<int64_t>(shape->size());
  for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&start_t, "start"},
                                std::pair<const Tensor*, const char*>{&size_in, "size"}}) {
    if (t->num_elements() != rank) {
      return absl::InvalidArgumentError(absl::StrCat("Expected ", what,
                                                     " to be a vector of length ", rank,
                                                     " but got length ", t->num_elements()));
    }
  }
  absl::StatusOr<std::vector<int64_t>> start = IntValues(start_t, "start");
  if (!start.ok()) return start.status();
  absl::StatusOr<std::vector<int64_t>> size = IntValues(size_in, "size");
  if (!size.ok()) return size.status();
  // The overlap of the slice with the input along each dim.
  Shape out_shape(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t in = (*shape)[d];
    const int64_t begin = (*start)[d];
    const int64_t len = (*size)[d];
    out_shape[d] = begin < in - len ? len : begin < in ? in - begin : 0;
    if (out_shape[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected a non-negative size, got ", out_shape[d]));
    }
  }
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(indices, "indices");
  if (!ind.ok()) return ind.status();
  const int64_t n = indices.shape()[0];
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < n; ++i) {
    bool hit = true;
    for (int64_t d = 0; d < rank && hit; ++d) {
      const int64_t ix = (*ind)[i * rank + d];
      hit = (*start)[d] <= ix && ix < (*start)[d] + (*size)[d];
    }
    if (hit) hits.push_back(i);
  }
  const int64_t count = static_cast<int64_t>(hits.size());
  absl::StatusOr<Tensor*> out_ind =
      ctx.allocate_output_for_overwrite(0, DataType::kInt64, {count, rank});
  if (!out_ind.ok()) return out_ind.status();
  absl::StatusOr<Tensor*> out_val = ctx.allocate_output_for_overwrite(1, values.dtype(), {count});
  if (!out_val.ok()) return out_val.status();
  absl::StatusOr<Tensor*> out_shape_t =
      ctx.allocate_output_for_overwrite(2, DataType::kInt64, {rank});
  if (!out_shape_t.ok()) return out_shape_t.status();
  for (int64_t d = 0; d < rank; ++d) (*out_shape_t)->data<int64_t>()[d] = out_shape[d];
  int64_t* oi = (*out_ind)->data<int64_t>();
  for (int64_t e = 0; e < count; ++e) {
    for (int64_t d = 0; d < rank; ++d) {
      oi[e * rank + d] = (*ind)[hits[e] * rank + d] - (*start)[d];
    }
  }
  return VisitElementType(values.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* in = values.data<E>();
    E* out = (*out_val)->template data<E>();
    for (int64_t e = 0; e < count; ++e) out[e] = in[hits[e]];
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseAdd, SparseTensorDenseAdd.

// -1, 0 or 1 as row a of `x` is before, at or after row b of `y` (rank
// columns each).
int CompareRows(const int64_t* x, int64_t a, const int64_t* y, int64_t b, int64_t rank) {
  for (int64_t d = 0; d < rank; ++d) {
    if (x[a * rank + d] < y[b * rank + d]) return -1;
    if (x[a * rank + d] > y[b * rank + d]) return 1;
  }
  return 0;
}

absl::Status ComputeSparseAdd(KernelContext& ctx) {
  const Tensor& a_ind = ctx.input(0);
  const Tensor& a_val = ctx.input(1);
  const Tensor& a_shape = ctx.input(2);
  const Tensor& b_ind = ctx.input(3);
  const Tensor& b_val = ctx.input(4);
  const Tensor& b_shape = ctx.input(5);
  const Tensor& thresh_t = ctx.input(6);
  if (a_ind.rank() != 2 || b_ind.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input indices should be matrices but received shapes: ", ShapeString(a_ind.shape()),
        " and ", ShapeString(b_ind.shape())));
  }
  const int64_t a_nnz = a_ind.shape()[0];
  const int64_t b_nnz = b_ind.shape()[0];
  const int64_t rank = a_ind.shape()[1];
  if (b_ind.shape()[1] != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input indices must have the same dimension, got ", rank, " and ", b_ind.shape()[1]));
  }
  if (a_val.rank() != 1 || b_val.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input values should be vectors but received shapes: ", ShapeString(a_val.shape()), " and ",
        ShapeString(b_val.shape())));
  }
  if (a_val.num_elements() != a_nnz || b_val.num_elements() != b_nnz) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected ", a_nnz, " and ", b_nnz, " non-empty input values, got ",
                     a_val.num_elements(), " and ", b_val.num_elements()));
  }
  if (a_shape.rank() != 1 || b_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input shapes should be a vector but received shapes ",
                     ShapeString(a_shape.shape()), " and ", ShapeString(b_shape.shape())));
  }
  if (a_shape.num_elements() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Second dimension of a_indices and length of a_shape must match, got ", rank,
                     " and ", a_shape.num_elements()));
  }
  if (rank == 0) return absl::InvalidArgumentError("Tesors must not be empty");
  if (b_shape.num_elements() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Operands do not have the same ranks; got shapes: ", ShapeString(a_shape.shape()), " and ",
        ShapeString(b_shape.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> as = IntValues(a_shape, "a_shape");
  if (!as.ok()) return as.status();
  absl::StatusOr<std::vector<int64_t>> bs = IntValues(b_shape, "b_shape");
  if (!bs.ok()) return bs.status();
  for (int64_t d = 0; d < rank; ++d) {
    if ((*as)[d] != (*bs)[d]) {
      return absl::InvalidArgumentError(absl::StrCat("Operands' shapes do not match: got ",
                                                     (*as)[d], " and ", (*bs)[d], " for dimension ",
                                                     d));
    }
  }
  if (thresh_t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The magnitude threshold must be a scalar: got shape ", ShapeString(thresh_t.shape())));
  }
  double thresh = 0;
  if (absl::Status s =
          Dispatch(RealTypes{}, thresh_t.dtype(), "SparseAdd thresh",
                   [&](auto tag) {
                     using R = typename decltype(tag)::type;
                     thresh = static_cast<double>(static_cast<SumType<R>>(thresh_t.data<R>()[0]));
                     return absl::OkStatus();
                   });
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<int64_t>> ai = IntValues(a_ind, "a_indices");
  if (!ai.ok()) return ai.status();
  absl::StatusOr<std::vector<int64_t>> bi = IntValues(b_ind, "b_indices");
  if (!bi.ok()) return bi.status();
  return Dispatch(RealTypes{}, a_val.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    const T* av = a_val.data<T>();
    const T* bv = b_val.data<T>();
    // TensorFlow's merge of two sorted lists: entries at the same index are
    // summed and kept when |sum| >= thresh; the others are copied.
    std::vector<std::pair<bool, int64_t>> from;  // (from a, row)
    std::vector<T> values;
    int64_t i = 0;
    int64_t j = 0;
    while (i < a_nnz && j < b_nnz) {
      switch (CompareRows(ai->data(), i, bi->data(), j, rank)) {
        case -1:
          from.push_back({true, i});
          values.push_back(av[i++]);
          break;
        case 0: {
          const T s = WrapAdd(av[i], bv[j]);
          if (thresh <= std::abs(static_cast<double>(static_cast<SumType<T>>(s)))) {
            from.push_back({true, i});
            values.push_back(s);
          }
          ++i;
          ++j;
          break;
        }
        default:
          from.push_back({false, j});
          values.push_back(bv[j++]);
          break;
      }
    }
    for (; i < a_nnz; ++i) {
      from.push_back({true, i});
      values.push_back(av[i]);
    }
    for (; j < b_nnz; ++j) {
      from.push_back({false, j});
      values.push_back(bv[j]);
    }
    const int64_t n = static_cast<int64_t>(values.size());
    absl::StatusOr<Tensor*> out_ind =
        ctx.allocate_output_for_overwrite(0, DataType::kInt64, {n, rank});
    if (!out_ind.ok()) return out_ind.status();
    absl::StatusOr<Tensor*> out_val = ctx.allocate_output_for_overwrite(1, a_val.dtype(), {n});
    if (!out_val.ok()) return out_val.status();
    int64_t* oi = (*out_ind)->data<int64_t>();
    for (int64_t e = 0; e < n; ++e) {
      const int64_t* src = (from[e].first ? ai->data() : bi->data()) + from[e].second * rank;
      std::copy(src, src + rank, oi + e * rank);
      (*out_val)->template data<T>()[e] = values[e];
    }
    ctx.set_output(2, a_shape);
    return absl::OkStatus();
  });
}

absl::Status ComputeSparseDenseAdd(KernelContext& ctx) {
  const Tensor& a_ind = ctx.input(0);
  const Tensor& a_val = ctx.input(1);
  const Tensor& a_shape = ctx.input(2);
  const Tensor& b = ctx.input(3);
  if (a_ind.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input a_indices should be a matrix but received shape: ", ShapeString(a_ind.shape())));
  }
  if (a_val.rank() != 1 || a_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Inputs a_values and a_shape should be vectors but received shapes: ",
                     ShapeString(a_val.shape()), " and ", ShapeString(a_shape.shape())));
  }
  if (a_shape.num_elements() != b.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("Two operands have different ranks; received: ",
                                                   a_shape.num_elements(), " and ", b.rank()));
  }
  absl::StatusOr<std::vector<int64_t>> shape = IntValues(a_shape, "a_shape");
  if (!shape.ok()) return shape.status();
  for (int d = 0; d < b.rank(); ++d) {
    if ((*shape)[d] != b.shape()[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Dimension ", d, " does not equal (no broadcasting is supported): ", "sparse side ",
          (*shape)[d], " vs dense side ", b.shape()[d]));
    }
  }
  const int64_t nnz = a_ind.shape()[0];
  const int64_t rank = a_ind.shape()[1];
  if (a_val.num_elements() != nnz) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dimensions ", nnz, " and ", a_val.num_elements(), " are not compatible"));
  }
  if (rank != b.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dimensions ", rank, " and ", b.rank(), " are not compatible"));
  }
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(a_ind, "a_indices");
  if (!ind.ok()) return ind.status();
  const Shape strides = RowMajorStrides(b.shape());
  std::vector<int64_t> offsets(static_cast<size_t>(nnz));
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t ix = (*ind)[i * rank + d];
      if (ix < 0 || ix >= b.shape()[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Sparse tensor has an invalid index on dimension ", d, ": a_indices(", i, ",", d,
            ") = ", ix, ", dense tensor shape: ", absl::StrJoin(b.shape(), " ")));
      }
      offset += ix * strides[d];
    }
    offsets[i] = offset;
  }
  return Dispatch(RealTypes{}, b.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, b.dtype(), b.shape());
    if (!out.ok()) return out.status();
    T* o = (*out)->template data<T>();
    std::copy(b.data<T>(), b.data<T>() + b.num_elements(), o);
    const T* v = a_val.data<T>();
    for (int64_t i = 0; i < nnz; ++i) o[offsets[i]] = WrapAdd(o[offsets[i]], v[i]);
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseReduceSum.

absl::Status ComputeSparseReduceSum(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(1);
  const Tensor& shape_t = ctx.input(2);
  const Tensor& axes_t = ctx.input(3);
  if (shape_t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected input_shape to be a vector; got shape: ", ShapeString(shape_t.shape())));
  }
  if (axes_t.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected reduction_axes to be a scalar or a vector; got shape: ",
                     ShapeString(axes_t.shape())));
  }
  const int64_t rank = shape_t.num_elements();
  absl::StatusOr<std::vector<int64_t>> axes = IntValues(axes_t, "reduction_axes");
  if (!axes.ok()) return axes.status();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid reduction dimension ", a,
                                                     ", for input with ", rank, " dimensions."));
    }
    reduced[a < 0 ? a + rank : a] = true;
  }
  if (indices.rank() != 2 || values.rank() != 1) {
    return ops::CheckSparseTensorShapes(Known(indices), Known(values), Known(shape_t));
  }
  const int64_t n = indices.shape()[0];
  if (values.shape()[0] != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices and values rows (indexing dimension) must match. (indices = ", n,
                     ", values = ", values.shape()[0], ")"));
  }
  if (indices.shape()[1] != rank) {
    return absl::InvalidArgumentError("Order length must be SparseTensor rank.");
  }
  absl::StatusOr<std::vector<int64_t>> dims = IntValues(shape_t, "input_shape");
  if (!dims.ok()) return dims.status();
  if (absl::StatusOr<Shape> s = DenseShape(*dims); !s.ok()) return s.status();
  absl::StatusOr<bool> keep_dims = ctx.attrs().GetOr<bool>("keep_dims", false);
  if (!keep_dims.ok()) return keep_dims.status();
  // TensorFlow's order: entries sorted by the kept dims, then the reduced
  // ones; each run of equal kept dims summed in that order.
  std::vector<int64_t> perm;
  Shape out_shape;
  Shape kept_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      perm.push_back(d);
      out_shape.push_back((*dims)[d]);
      kept_shape.push_back((*dims)[d]);
    } else if (*keep_dims) {
      out_shape.push_back(1);
    }
  }
  const size_t kept = perm.size();
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) perm.push_back(d);
  }
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(indices, "input_indices");
  if (!ind.ok()) return ind.status();
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  const int64_t* ix = ind->data();
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (int64_t d : perm) {
      if (ix[a * rank + d] != ix[b * rank + d]) return ix[a * rank + d] < ix[b * rank + d];
    }
    return false;
  });
  const Shape strides = RowMajorStrides(kept_shape);
  auto out_index = [&](int64_t e) {
    int64_t flat = 0;
    for (size_t k = 0; k < kept; ++k) flat += ix[e * rank + perm[k]] * strides[k];
    return flat;
  };
  auto same_group = [&](int64_t a, int64_t b) {
    for (size_t k = 0; k < kept; ++k) {
      if (ix[a * rank + perm[k]] != ix[b * rank + perm[k]]) return false;
    }
    return true;
  };
  return Dispatch(RealTypes{}, values.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    absl::StatusOr<Tensor*> out = ctx.allocate_output(0, values.dtype(), out_shape);  // zeros
    if (!out.ok()) return out.status();
    T* o = (*out)->template data<T>();
    const int64_t size = (*out)->num_elements();
    const T* v = values.data<T>();
    for (int64_t start = 0; start < n;) {
      int64_t end = start + 1;
      while (end < n && same_group(order[start], order[end])) ++end;
      const int64_t at = out_index(order[start]);
      if (at < 0 || at >= size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Index ", at, " of the reduced output is out of bounds for shape ",
            ShapeString(out_shape), ": input_indices are out of bounds of input_shape"));
      }
      T sum = T(0);
      for (int64_t i = start; i < end; ++i) sum = WrapAdd(sum, v[order[i]]);
      o[at] = sum;
      start = end;
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// DynamicPartition, DynamicStitch, ParallelDynamicStitch.

absl::Status ComputeDynamicPartition(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& partitions = ctx.input(1);
  const int num = ctx.num_outputs();
  bool prefix = partitions.rank() <= data.rank();
  for (int d = 0; prefix && d < partitions.rank(); ++d) {
    prefix = data.shape()[d] == partitions.shape()[d];
  }
  if (!prefix) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data.shape must start with partitions.shape, got data.shape = ", ShapeString(data.shape()),
        ", partitions.shape = ", ShapeString(partitions.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> p = IntValues(partitions, "partitions");
  if (!p.ok()) return p.status();
  std::vector<int64_t> counts(static_cast<size_t>(num), 0);
  for (int64_t i = 0; i < static_cast<int64_t>(p->size()); ++i) {
    if ((*p)[i] < 0 || (*p)[i] >= num) {
      return absl::InvalidArgumentError(absl::StrCat("partitions",
                                                     IndexString(partitions.shape(), i), " = ",
                                                     (*p)[i], " is not in [0, ", num, ")"));
    }
    ++counts[(*p)[i]];
  }
  const int64_t cols = DimProduct(data.shape(), partitions.rank(), data.rank());
  std::vector<Tensor*> outs(static_cast<size_t>(num));
  for (int k = 0; k < num; ++k) {
    Shape shape = {counts[k]};
    shape.insert(shape.end(), data.shape().begin() + partitions.rank(), data.shape().end());
    absl::StatusOr<Tensor*> o = ctx.allocate_output_for_overwrite(k, data.dtype(), shape);
    if (!o.ok()) return o.status();
    outs[k] = *o;
  }
  return VisitElementType(data.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* in = data.data<E>();
    std::vector<int64_t> filled(static_cast<size_t>(num), 0);
    for (int64_t i = 0; i < static_cast<int64_t>(p->size()); ++i) {
      const int64_t k = (*p)[i];
      std::copy(in + i * cols, in + (i + 1) * cols,
                outs[k]->template data<E>() + filled[k]++ * cols);
    }
    return absl::OkStatus();
  });
}

// Rows of data[m] go to merged[indices[m]...], list by list: a later index
// overwrites an earlier one. Rows no index names are 0.
absl::Status ComputeDynamicStitch(KernelContext& ctx) {
  const int n = ctx.num_inputs() / 2;
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": Must have some inputs"));
  std::vector<std::vector<int64_t>> indices(static_cast<size_t>(n));
  int64_t max_index = -1;
  for (int m = 0; m < n; ++m) {
    absl::StatusOr<std::vector<int64_t>> v = IntValues(ctx.input(m), "indices");
    if (!v.ok()) return v.status();
    for (int64_t i : *v) max_index = std::max(max_index, i);
    indices[m] = *std::move(v);
  }
  const Tensor& data0 = ctx.input(n);
  const int rank0 = ctx.input(0).rank();
  for (int m = 0; m < n; ++m) {
    const Tensor& ind = ctx.input(m);
    const Tensor& data = ctx.input(n + m);
    bool prefix = ind.rank() <= data.rank();
    for (int d = 0; prefix && d < ind.rank(); ++d) prefix = ind.shape()[d] == data.shape()[d];
    if (!prefix) {
      return absl::InvalidArgumentError(
          absl::StrCat("data[", m, "].shape = ", ShapeString(data.shape()),
                       " does not start with indices[", m, "].shape = ", ShapeString(ind.shape())));
    }
    if (m > 0 && (data.rank() - ind.rank() != data0.rank() - rank0 ||
                  !std::equal(data.shape().begin() + ind.rank(), data.shape().end(),
                              data0.shape().begin() + rank0))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Need data[0].shape[", rank0, ":] = data[", m, "].shape[", ind.rank(),
          ":], got data[0].shape = ", ShapeString(data0.shape()), ", data[", m, "].shape = ",
          ShapeString(data.shape()), ", indices[0].shape = ", ShapeString(ctx.input(0).shape()),
          ", indices[", m, "].shape = ", ShapeString(ind.shape())));
    }
  }
  const int64_t rows = max_index + 1;
  Shape shape = {rows};
  shape.insert(shape.end(), data0.shape().begin() + rank0, data0.shape().end());
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, data0.dtype(), shape);
  if (!out.ok()) return out.status();
  const int64_t cols = DimProduct(data0.shape(), rank0, data0.rank());
  return VisitElementType(data0.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    E* o = (*out)->template data<E>();
    for (int m = 0; m < n; ++m) {
      const E* in = ctx.input(n + m).template data<E>();
      for (int64_t i = 0; i < static_cast<int64_t>(indices[m].size()); ++i) {
        const int64_t index = indices[m][i];
        if (index < 0 || index >= rows) {
          return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] is out of range"));
        }
        std::copy(in + i * cols, in + (i + 1) * cols, o + index * cols);
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// SparseTensorDenseMatMul.

// TensorFlow's types but complex.
using MatMulTypes = TypeList<float, double, int32_t, Eigen::half, Eigen::bfloat16>;

absl::Status ComputeSparseDenseMatMul(KernelContext& ctx) {
  const Tensor& a_indices = ctx.input(0);
  const Tensor& a_values = ctx.input(1);
  const Tensor& a_shape_t = ctx.input(2);
  const Tensor& b = ctx.input(3);
  if (absl::Status s = ops::CheckSparseDenseMatMulShapes(Known(a_indices), Known(a_values),
                                                         Known(a_shape_t), Known(b));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<bool> adjoint_a = ctx.attrs().GetOr<bool>("adjoint_a", false);
  if (!adjoint_a.ok()) return adjoint_a.status();
  absl::StatusOr<bool> adjoint_b = ctx.attrs().GetOr<bool>("adjoint_b", false);
  if (!adjoint_b.ok()) return adjoint_b.status();
  absl::StatusOr<std::vector<int64_t>> a_shape = IntValues(a_shape_t, "a_shape");
  if (!a_shape.ok()) return a_shape.status();
  const int64_t outer_left = (*a_shape)[*adjoint_a ? 1 : 0];
  const int64_t inner_left = (*a_shape)[*adjoint_a ? 0 : 1];
  const int64_t outer_right = b.shape()[*adjoint_b ? 0 : 1];
  const int64_t inner_right = b.shape()[*adjoint_b ? 1 : 0];
  if (inner_left != inner_right) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot multiply A and B because inner dimension does not match: ", inner_left, " vs. ",
        inner_right, ".  Did you forget a transpose?  Dimensions of A: [", (*a_shape)[0], ", ",
        (*a_shape)[1], ").  Dimensions of B: ", ShapeString(b.shape())));
  }
  absl::StatusOr<Shape> out_shape = DenseShape({outer_left, outer_right});
  if (!out_shape.ok()) return out_shape.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, b.dtype(), *out_shape);  // zeros
  if (!out.ok()) return out.status();
  const int64_t nnz = a_values.num_elements();
  if ((*out)->num_elements() == 0 || nnz == 0 || b.num_elements() == 0) return absl::OkStatus();
  absl::StatusOr<std::vector<int64_t>> ind = IntValues(a_indices, "a_indices");
  if (!ind.ok()) return ind.status();
  const int m_col = *adjoint_a ? 1 : 0;
  const int k_col = *adjoint_a ? 0 : 1;
  const int64_t b_cols = b.shape()[1];
  return Dispatch(MatMulTypes{}, b.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    // TensorFlow's SumType: float16 accumulates in float, rounded once at the
    // end; every other type (bfloat16 too) in itself.
    using Acc = std::conditional_t<std::is_same_v<T, Eigen::half>, float, T>;
    const T* a = a_values.data<T>();
    const T* bv = b.data<T>();
    std::vector<Acc> acc(static_cast<size_t>((*out)->num_elements()), Acc(0));
    Acc* o = acc.data();
    for (int64_t i = 0; i < nnz; ++i) {
      const int64_t m = (*ind)[i * 2 + m_col];
      const int64_t k = (*ind)[i * 2 + k_col];
      if (k < 0 || k >= inner_right) {
        return absl::InvalidArgumentError(absl::StrCat("k (", k, ") from index[", i, ",", k_col,
                                                       "] out of bounds (>=", inner_right, ")"));
      }
      if (m < 0 || m >= outer_left) {
        return absl::InvalidArgumentError(absl::StrCat("m (", m, ") from index[", i, ",", m_col,
                                                       "] out of bounds (>=", outer_left, ")"));
      }
      Acc* row = o + m * outer_right;
      const Acc ai = static_cast<Acc>(a[i]);
      for (int64_t j = 0; j < outer_right; ++j) {
        const Acc bkj = static_cast<Acc>(*adjoint_b ? bv[j * b_cols + k] : bv[k * b_cols + j]);
        row[j] = WrapAdd(row[j], WrapMul(ai, bkj));
      }
    }
    T* out_data = (*out)->template data<T>();
    for (size_t e = 0; e < acc.size(); ++e) out_data[e] = static_cast<T>(acc[e]);
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterSparseOps(KernelRegistry& r) {
  auto at_node = [](ComputeFn f) {
    return [f = std::move(f)](KernelContext& ctx) { return AtNode(ctx, f(ctx)); };
  };
  AddArrayKernel(r, "SparseFillEmptyRows", "T", at_node(ComputeFillEmptyRows));
  r.AddKernel({"SparseReshape", kCpu, "", {}, at_node(ComputeSparseReshape)});
  const struct {
    const char* op;
    Scale scale;
  } segment_ops[] = {{"SparseSegmentSum", Scale::kNone},
                     {"SparseSegmentMean", Scale::kMean},
                     {"SparseSegmentSqrtN", Scale::kSqrtN}};
  for (const auto& s : segment_ops) {
    const bool sum = s.scale == Scale::kNone;
    const std::vector<DataType> types = sum ? DataTypes(RealTypes{}) : DataTypes(FloatTypes{});
    for (bool has_num : {false, true}) {
      ComputeFn f = [scale = s.scale, has_num, sum](KernelContext& ctx) {
        return sum ? ComputeSparseSegment<RealTypes>(ctx, scale, has_num)
                   : ComputeSparseSegment<FloatTypes>(ctx, scale, has_num);
      };
      r.AddKernel({has_num ? absl::StrCat(s.op, "WithNumSegments") : std::string(s.op), kCpu, "T",
                   types, at_node(std::move(f))});
    }
  }
  AddArrayKernel(r, "SparseReorder", "T", at_node(ComputeSparseReorder));
  AddArrayKernel(r, "SparseConcat", "T", at_node(ComputeSparseConcat));
  AddArrayKernel(r, "SparseSlice", "T", at_node(ComputeSparseSlice));
  const std::vector<DataType> real_types = DataTypes(RealTypes{});
  r.AddKernel({"SparseAdd", kCpu, "T", real_types, at_node(ComputeSparseAdd)});
  r.AddKernel({"SparseTensorDenseAdd", kCpu, "T", real_types, at_node(ComputeSparseDenseAdd)});
  r.AddKernel({"SparseReduceSum", kCpu, "T", real_types, at_node(ComputeSparseReduceSum)});
  AddArrayKernel(r, "DynamicPartition", "T", at_node(ComputeDynamicPartition));
  AddArrayKernel(r, "DynamicStitch", "T", at_node(ComputeDynamicStitch));
  AddArrayKernel(r, "ParallelDynamicStitch", "T", at_node(ComputeDynamicStitch));
  AddArrayKernel(r, "SparseToDense", "T", at_node(ComputeSparseToDense));
  r.AddKernel({"SparseTensorDenseMatMul", kCpu, "T", DataTypes(MatMulTypes{}),
               at_node(ComputeSparseDenseMatMul)});
}

}  // namespace smrt::kernels
