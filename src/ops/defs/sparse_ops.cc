// Sparse tensors (tf.sparse, tf.io.VarLenFeature, tf.nn.embedding_lookup_sparse
// and safe_embedding_lookup_sparse): SparseFillEmptyRows, SparseReshape, SparseReorder,
// SparseConcat, SparseSlice, SparseAdd, SparseTensorDenseAdd, SparseReduceSum,
// SparseSegmentSum/Mean/SqrtN (and their WithNumSegments forms), SparseToDense and
// SparseTensorDenseMatMul; and DynamicPartition, DynamicStitch and ParallelDynamicStitch, which
// lookups in partitioned embeddings emit. The shape checks both these definitions and the kernels
// make are here (ops/sparse_shapes.h).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/segment_shapes.h"
#include "ops/shape_fns.h"
#include "ops/sparse_shapes.h"

namespace smrt::ops {
namespace {

bool RankIs(const PartialShape& s, int rank) { return !s.known_rank || s.rank() == rank; }

// The dim, or -1 when the rank or the dim is unknown.
int64_t Dim(const PartialShape& s, int d) { return s.known_rank && d < s.rank() ? s.dims[d] : -1; }

}  // namespace

absl::Status CheckSparseFillEmptyRowsShapes(const PartialShape& indices, const PartialShape& values,
                                            const PartialShape& dense_shape,
                                            const PartialShape& default_value) {
  if (!RankIs(dense_shape, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("dense_shape must be a vector, saw: ", TfShapeString(dense_shape)));
  }
  if (!RankIs(indices, 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices must be a matrix, saw: ", TfShapeString(indices)));
  }
  if (!RankIs(values, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("values must be a vector, saw: ", TfShapeString(values)));
  }
  const int64_t n = Dim(indices, 0);
  const int64_t nv = Dim(values, 0);
  if (n >= 0 && nv >= 0 && n != nv) {
    return absl::InvalidArgumentError(absl::StrCat("The length of `values` (", nv,
                                                   ") must match the first dimension of "
                                                   "`indices` (",
                                                   n, ")."));
  }
  if (!RankIs(default_value, 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("default_value must be a scalar, saw: ", TfShapeString(default_value)));
  }
  if (Dim(dense_shape, 0) == 0) return absl::InvalidArgumentError("Dense shape cannot be empty.");
  return absl::OkStatus();
}

absl::Status CheckSparseReshapeShapes(const PartialShape& indices, const PartialShape& input_shape,
                                      const PartialShape& new_shape) {
  if (!RankIs(indices, 2)) return absl::InvalidArgumentError("Input must be a matrix.");
  if (!RankIs(input_shape, 1)) return absl::InvalidArgumentError("Input shape must be a vector.");
  const int64_t rank = Dim(indices, 1);
  const int64_t shape_len = Dim(input_shape, 0);
  if (rank >= 0 && shape_len >= 0 && rank != shape_len) {
    return absl::InvalidArgumentError("Input tensor rank must match input shape length.");
  }
  if (!RankIs(new_shape, 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Target shape should be a vector but received shape ", TfShapeString(new_shape)));
  }
  return absl::OkStatus();
}

absl::Status CheckSparseSegmentShapes(const PartialShape& data, const PartialShape& indices,
                                      const PartialShape& segment_ids,
                                      const PartialShape* num_segments) {
  if (num_segments != nullptr && !RankIs(*num_segments, 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_segments should be a scalar, not shape ", TfShapeString(*num_segments)));
  }
  if (!RankIs(indices, 1)) return absl::InvalidArgumentError("indices should be a vector.");
  if (!RankIs(segment_ids, 1)) {
    return absl::InvalidArgumentError("segment_ids should be a vector.");
  }
  const int64_t n = Dim(indices, 0);
  const int64_t ns = Dim(segment_ids, 0);
  if (n >= 0 && ns >= 0 && n != ns) {
    return absl::InvalidArgumentError("segment_ids and indices should have same size.");
  }
  if (data.known_rank && data.rank() < 1) {
    return absl::InvalidArgumentError("Shape must be at least rank 1");
  }
  return absl::OkStatus();
}

absl::Status CheckSparseTensorShapes(const PartialShape& indices, const PartialShape& values,
                                     const PartialShape& shape) {
  if (!RankIs(indices, 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sparse indices must be rank 2 but is rank ", indices.rank()));
  }
  if (!RankIs(values, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sparse values must be rank 1 but is rank ", values.rank()));
  }
  if (!RankIs(shape, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sparse shape must be rank 1 but is rank ", shape.rank()));
  }
  const int64_t n = Dim(indices, 0);
  const int64_t nv = Dim(values, 0);
  if (n >= 0 && nv >= 0 && n != nv) {
    return absl::InvalidArgumentError(
        absl::StrCat("Number of elements in indices (", n, ") and values (", nv, ") do not match"));
  }
  const int64_t rank = Dim(indices, 1);
  const int64_t shape_rank = Dim(shape, 0);
  if (rank >= 0 && shape_rank >= 0 && rank != shape_rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Index rank (", rank, ") and shape rank (", shape_rank, ") do not match"));
  }
  return absl::OkStatus();
}

absl::Status CheckSparseConcatShapes(const std::vector<PartialShape>& indices,
                                     const std::vector<PartialShape>& values,
                                     const std::vector<PartialShape>& shapes) {
  const struct {
    const std::vector<PartialShape>& list;
    const char* what;
    int rank;
  } lists[] = {{indices, "indices should be a matrix", 2},
               {values, "values should be a vector", 1},
               {shapes, "shapes should be a vector", 1}};
  for (const auto& l : lists) {
    for (size_t i = 0; i < l.list.size(); ++i) {
      if (!RankIs(l.list[i], l.rank)) {
        return absl::InvalidArgumentError(absl::StrCat("Input ", l.what, " but received shape ",
                                                       TfShapeString(l.list[i]), " at position ",
                                                       i));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSparseToDenseShapes(const PartialShape& indices, const PartialShape& output_shape,
                                      const PartialShape& values,
                                      const PartialShape& default_value) {
  if (indices.known_rank && indices.rank() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("sparse_indices should be a scalar, vector, or matrix, got shape ",
                     TfShapeString(indices)));
  }
  // A scalar index is one element of a vector; a vector of indices, one
  // index per element of a vector.
  const int64_t num_elems = !indices.known_rank ? -1 : indices.rank() > 0 ? indices.dims[0] : 1;
  const int64_t num_dims = !indices.known_rank ? -1 : indices.rank() > 1 ? indices.dims[1] : 1;
  if (!RankIs(output_shape, 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("output_shape must be rank 1, got shape ", TfShapeString(output_shape)));
  }
  const int64_t out_rank = Dim(output_shape, 0);
  if (out_rank >= 0 && num_dims >= 0 && out_rank != num_dims) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output_shape has incorrect number of elements: ", out_rank, " should be: ", num_dims));
  }
  if (values.known_rank && values.rank() != 0) {
    const int64_t nv = Dim(values, 0);
    if (values.rank() != 1 || (nv >= 0 && num_elems >= 0 && nv != num_elems)) {
      return absl::InvalidArgumentError(absl::StrCat("sparse_values has incorrect shape ",
                                                     TfShapeString(values), ", should be [] or [",
                                                     num_elems, "]"));
    }
  }
  if (!RankIs(default_value, 0)) {
    return absl::InvalidArgumentError("default_value should be a scalar.");
  }
  return absl::OkStatus();
}

absl::Status CheckSparseDenseMatMulShapes(const PartialShape& a_indices,
                                          const PartialShape& a_values, const PartialShape& a_shape,
                                          const PartialShape& b) {
  if (!RankIs(b, 2)) return absl::InvalidArgumentError("Tensor 'b' is not a matrix");
  if (!RankIs(a_shape, 1)) return absl::InvalidArgumentError("Tensor 'a_shape' is not a vector");
  const int64_t rank = Dim(a_shape, 0);
  if (rank >= 0 && rank != 2) {
    return absl::InvalidArgumentError("Tensor 'a_shape' must have 2 elements");
  }
  if (!RankIs(a_values, 1)) return absl::InvalidArgumentError("Tensor 'a_values' is not a vector");
  if (!RankIs(a_indices, 2)) {
    return absl::InvalidArgumentError("Tensor 'a_indices' is not a matrix");
  }
  const int64_t nnz = Dim(a_indices, 0);
  const int64_t nv = Dim(a_values, 0);
  if (nnz >= 0 && nv >= 0 && nnz != nv) {
    return absl::InvalidArgumentError(
        "Number of rows of a_indices does not match number of entries in a_values");
  }
  const int64_t cols = Dim(a_indices, 1);
  if (cols >= 0 && rank >= 0 && cols != rank) {
    return absl::InvalidArgumentError(
        "Number of columns of a_indices does not match number of entries in a_shape");
  }
  return absl::OkStatus();
}

namespace {

NumOutputsFn Fixed(int n) {
  return [n](const AttrMap&, int) -> absl::StatusOr<int> { return n; };
}

// output_indices [?, rank], output_values [?], empty_row_indicator
// [dense_shape[0]], reverse_index_map [N].
absl::Status InferFillEmptyRows(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  const PartialShape& indices = ctx.input(0).shape;
  if (absl::Status s = CheckSparseFillEmptyRowsShapes(indices, ctx.input(1).shape,
                                                      ctx.input(2).shape, ctx.input(3).shape);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  int64_t rows = -1;
  if (std::optional<std::vector<int64_t>> shape = ConstInts(ctx, 2);
      shape.has_value() && !shape->empty()) {
    rows = (*shape)[0] >= 0 ? (*shape)[0] : -1;
  }
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({-1, Dim(indices, 1)})});
  ctx.set_output(1, ValueInfo{*t, PartialShape::Known({-1})});
  ctx.set_output(2, ValueInfo{DataType::kBool, PartialShape::Known({rows})});
  ctx.set_output(3, ValueInfo{DataType::kInt64, PartialShape::Known({Dim(indices, 0)})});
  return absl::OkStatus();
}

// output_indices [N, len(new_shape)], output_shape [len(new_shape)].
absl::Status InferSparseReshape(InferenceContext& ctx) {
  const PartialShape& indices = ctx.input(0).shape;
  const PartialShape& new_shape = ctx.input(2).shape;
  if (absl::Status s = CheckSparseReshapeShapes(indices, ctx.input(1).shape, new_shape); !s.ok()) {
    return AtNode(ctx, s);
  }
  const int64_t rank = Dim(new_shape, 0);
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({Dim(indices, 0), rank})});
  ctx.set_output(1, ValueInfo{DataType::kInt64, PartialShape::Known({rank})});
  return absl::OkStatus();
}

// output_indices like input_indices, output_values like input_values.
absl::Status InferSparseReorder(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  const PartialShape& indices = ctx.input(0).shape;
  if (absl::Status s = CheckSparseTensorShapes(indices, ctx.input(1).shape, ctx.input(2).shape);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  ctx.set_output(
      0, ValueInfo{DataType::kInt64, PartialShape::Known({Dim(indices, 0), Dim(indices, 1)})});
  ctx.set_output(1, ValueInfo{*t, PartialShape::Known({Dim(indices, 0)})});
  return absl::OkStatus();
}

// SparseSlice: output_indices [?, rank], output_values [?], output_shape
// [rank].
absl::Status InferSparseSlice(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  const PartialShape& indices = ctx.input(0).shape;
  const PartialShape& shape = ctx.input(2).shape;
  if (absl::Status s = CheckSparseTensorShapes(indices, ctx.input(1).shape, shape); !s.ok()) {
    return AtNode(ctx, s);
  }
  int64_t rank = Dim(indices, 1);
  if (rank < 0) rank = Dim(shape, 0);
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({-1, rank})});
  ctx.set_output(1, ValueInfo{*t, PartialShape::Known({-1})});
  ctx.set_output(2, ValueInfo{DataType::kInt64, PartialShape::Known({rank})});
  return absl::OkStatus();
}

// SparseAdd: sum_indices [?, rank], sum_values [?], sum_shape like a_shape.
absl::Status InferSparseAdd(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  int64_t rank = Dim(ctx.input(0).shape, 1);
  if (rank < 0) rank = Dim(ctx.input(2).shape, 0);
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({-1, rank})});
  ctx.set_output(1, ValueInfo{*t, PartialShape::Known({-1})});
  ctx.set_output(2, ValueInfo{DataType::kInt64, PartialShape::Known({rank})});
  return absl::OkStatus();
}

// SparseTensorDenseAdd: like b.
absl::Status InferSparseDenseAdd(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  ctx.set_output(0, ValueInfo{*t, ctx.input(3).shape});
  return absl::OkStatus();
}

// SparseReduceSum: input_shape without the reduced dims (kept as 1 with
// keep_dims), when input_shape and reduction_axes are known.
absl::Status InferSparseReduceSum(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  absl::StatusOr<bool> keep_dims = ctx.attrs().GetOr<bool>("keep_dims", false);
  if (!keep_dims.ok()) return AtNode(ctx, keep_dims.status());
  std::optional<std::vector<int64_t>> shape = ConstInts(ctx, 2);
  std::optional<std::vector<int64_t>> axes = ConstInts(ctx, 3);
  const int64_t rank =
      shape.has_value() ? static_cast<int64_t>(shape->size()) : Dim(ctx.input(2).shape, 0);
  if (!axes.has_value() || rank < 0) {
    ctx.set_output(0, ValueInfo{*t, *keep_dims && rank >= 0 ? PartialShape::Known(Shape(rank, -1))
                                                            : PartialShape::Unknown()});
    return absl::OkStatus();
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank) {
      return AtNode(
          ctx, absl::InvalidArgumentError(absl::StrCat("Invalid reduction dimension ", a,
                                                       ", for input with ", rank, " dimensions.")));
    }
    reduced[a < 0 ? a + rank : a] = true;
  }
  Shape dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      dims.push_back(shape.has_value() ? (*shape)[d] : -1);
    } else if (*keep_dims) {
      dims.push_back(1);
    }
  }
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

// DynamicPartition: num_partitions outputs, each [?, data.dims[rank(partitions):]...].
absl::Status InferDynamicPartition(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  const PartialShape& data = ctx.input(0).shape;
  const PartialShape& partitions = ctx.input(1).shape;
  PartialShape out = PartialShape::Unknown();
  if (data.known_rank && partitions.known_rank) {
    bool prefix = partitions.rank() <= data.rank();
    for (int d = 0; prefix && d < partitions.rank(); ++d) {
      prefix = data.dims[d] < 0 || partitions.dims[d] < 0 || data.dims[d] == partitions.dims[d];
    }
    if (!prefix) {
      return AtNode(ctx,
                    absl::InvalidArgumentError(absl::StrCat(
                        "data.shape must start with partitions.shape, got data.shape = ",
                        TfShapeString(data), ", partitions.shape = ", TfShapeString(partitions))));
    }
    Shape dims = {-1};
    dims.insert(dims.end(), data.dims.begin() + partitions.rank(), data.dims.end());
    out = PartialShape::Known(std::move(dims));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ValueInfo{*t, out});
  return absl::OkStatus();
}

// DynamicStitch and ParallelDynamicStitch: [max index + 1, data[0].dims[rank(indices[0]):]...].
absl::Status InferDynamicStitch(InferenceContext& ctx) {
  const int n = ctx.num_inputs() / 2;
  if (n < 1 || ctx.num_inputs() != 2 * n) {
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat(
                 ctx.op(), " takes N >= 1 indices and data, got ", ctx.num_inputs(), " inputs")));
  }
  absl::StatusOr<DataType> t = InferredType(ctx, "T", n);
  if (!t.ok()) return t.status();
  const PartialShape& indices = ctx.input(0).shape;
  const PartialShape& data = ctx.input(n).shape;
  if (!indices.known_rank || !data.known_rank || data.rank() < indices.rank()) {
    ctx.set_output(0, ValueInfo{*t, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  Shape dims = {-1};
  dims.insert(dims.end(), data.dims.begin() + indices.rank(), data.dims.end());
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

// SparseConcat: output_indices [total entries, rank], output_values [total
// entries], output_shape [rank].
absl::Status InferSparseConcat(InferenceContext& ctx) {
  const int n = ctx.num_inputs() / 3;
  if (n < 2 || ctx.num_inputs() != 3 * n) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "SparseConcat takes N >= 2 indices, values and shapes, got ",
                           ctx.num_inputs(), " inputs")));
  }
  std::vector<PartialShape> lists[3];
  for (int i = 0; i < 3 * n; ++i) lists[i / n].push_back(ctx.input(i).shape);
  absl::StatusOr<DataType> t = InferredType(ctx, "T", n);
  if (!t.ok()) return t.status();
  if (absl::Status s = CheckSparseConcatShapes(lists[0], lists[1], lists[2]); !s.ok()) {
    return AtNode(ctx, s);
  }
  int64_t total = 0;
  int64_t rank = -1;
  for (int i = 0; i < n; ++i) {
    const int64_t rows = Dim(lists[0][i], 0);
    total = total < 0 || rows < 0 ? -1 : total + rows;
    if (rank < 0) rank = Dim(lists[0][i], 1);
    if (rank < 0) rank = Dim(lists[2][i], 0);
  }
  ctx.set_output(0, ValueInfo{DataType::kInt64, PartialShape::Known({total, rank})});
  ctx.set_output(1, ValueInfo{*t, PartialShape::Known({total})});
  ctx.set_output(2, ValueInfo{DataType::kInt64, PartialShape::Known({rank})});
  return absl::OkStatus();
}

// [num_segments (when known), data.dims[1:]...].
absl::Status InferSparseSegment(InferenceContext& ctx, bool has_num_segments) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  const PartialShape& data = ctx.input(0).shape;
  const PartialShape* num_segments = has_num_segments ? &ctx.input(3).shape : nullptr;
  if (absl::Status s =
          CheckSparseSegmentShapes(data, ctx.input(1).shape, ctx.input(2).shape, num_segments);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  if (!data.known_rank) {
    ctx.set_output(0, ValueInfo{*t, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  PartialShape out = data;
  out.dims[0] = -1;
  if (has_num_segments) {
    if (std::optional<std::vector<int64_t>> n = ConstInts(ctx, 3);
        n.has_value() && n->size() == 1 && (*n)[0] >= 0) {
      out.dims[0] = (*n)[0];
    }
  }
  ctx.set_output(0, ValueInfo{*t, std::move(out)});
  return absl::OkStatus();
}

// output_shape's values when known, else its length.
absl::Status InferSparseToDense(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 2);
  if (!t.ok()) return t.status();
  const PartialShape& output_shape = ctx.input(1).shape;
  if (absl::Status s = CheckSparseToDenseShapes(ctx.input(0).shape, output_shape,
                                                ctx.input(2).shape, ctx.input(3).shape);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  if (std::optional<std::vector<int64_t>> dims = ConstInts(ctx, 1); dims.has_value()) {
    for (int64_t d : *dims) {
      if (d < 0) {
        return AtNode(ctx,
                      absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0")));
      }
    }
    ctx.set_output(0, ValueInfo{*t, PartialShape::Known(*dims)});
    return absl::OkStatus();
  }
  const int64_t rank = Dim(output_shape, 0);
  ctx.set_output(
      0, ValueInfo{*t, rank < 0 ? PartialShape::Unknown() : PartialShape::Known(Shape(rank, -1))});
  return absl::OkStatus();
}

// [a_shape[adjoint_a ? 1 : 0], b.dims[adjoint_b ? 0 : 1]].
absl::Status InferSparseDenseMatMul(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 1);
  if (!t.ok()) return t.status();
  const PartialShape& b = ctx.input(3).shape;
  if (absl::Status s = CheckSparseDenseMatMulShapes(ctx.input(0).shape, ctx.input(1).shape,
                                                    ctx.input(2).shape, b);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  absl::StatusOr<bool> adjoint_a = ctx.attrs().GetOr<bool>("adjoint_a", false);
  if (!adjoint_a.ok()) return AtNode(ctx, adjoint_a.status());
  absl::StatusOr<bool> adjoint_b = ctx.attrs().GetOr<bool>("adjoint_b", false);
  if (!adjoint_b.ok()) return AtNode(ctx, adjoint_b.status());
  int64_t rows = -1;
  if (std::optional<std::vector<int64_t>> a_shape = ConstInts(ctx, 2);
      a_shape.has_value() && a_shape->size() == 2) {
    rows = (*a_shape)[*adjoint_a ? 1 : 0];
  }
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known({rows, Dim(b, *adjoint_b ? 0 : 1)})});
  return absl::OkStatus();
}

}  // namespace

void RegisterSparseOps(OpRegistry& r) {
  r.AddOp({"SparseFillEmptyRows", {}, InferFillEmptyRows, Fixed(4)});
  r.AddOp({"SparseReshape", {}, InferSparseReshape, Fixed(2)});
  r.AddOp({"SparseReorder", {}, InferSparseReorder, Fixed(2)});
  r.AddOp({"SparseConcat", {}, InferSparseConcat, Fixed(3)});
  r.AddOp({"SparseSlice", {}, InferSparseSlice, Fixed(3)});
  r.AddOp({"SparseAdd", {}, InferSparseAdd, Fixed(3)});
  r.AddOp({"SparseTensorDenseAdd", {}, InferSparseDenseAdd});
  r.AddOp({"SparseReduceSum", {{"keep_dims", false}}, InferSparseReduceSum});
  // What tf.nn.embedding_lookup(_sparse) emits for partitioned (sharded) params.
  r.AddOp({"DynamicPartition",
           {},
           InferDynamicPartition,
           [](const AttrMap& attrs, int) -> absl::StatusOr<int> {
             absl::StatusOr<int64_t> n = attrs.Get<int64_t>("num_partitions");
             if (!n.ok()) return n.status();
             if (*n < 1) {
               return absl::InvalidArgumentError(absl::StrCat("Value for attr 'num_partitions' of ",
                                                              *n, " must be at least minimum 1"));
             }
             return static_cast<int>(*n);
           }});
  r.AddOp({"DynamicStitch", {}, InferDynamicStitch});
  r.AddOp({"ParallelDynamicStitch", {}, InferDynamicStitch});
  const std::pair<std::string, AttrValue> tidx = {"Tidx", DataType::kInt32};
  const std::pair<std::string, AttrValue> tsegmentids = {"Tsegmentids", DataType::kInt32};
  const std::pair<std::string, AttrValue> tnumsegments = {"Tnumsegments", DataType::kInt32};
  const std::pair<std::string, AttrValue> sparse_gradient = {"sparse_gradient", false};
  for (const char* op : {"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"}) {
    r.AddOp({op, {tidx, tsegmentids, sparse_gradient}, [](InferenceContext& ctx) {
               return InferSparseSegment(ctx, false);
             }});
    r.AddOp({absl::StrCat(op, "WithNumSegments"),
             {tidx, tsegmentids, tnumsegments, sparse_gradient},
             [](InferenceContext& ctx) { return InferSparseSegment(ctx, true); }});
  }
  r.AddOp({"SparseToDense", {{"validate_indices", true}}, InferSparseToDense});
  r.AddOp({"SparseTensorDenseMatMul",
           {{"Tindices", AttrValue(DataType::kInt64)}, {"adjoint_a", false}, {"adjoint_b", false}},
           InferSparseDenseMatMul});
}

}  // namespace smrt::ops
