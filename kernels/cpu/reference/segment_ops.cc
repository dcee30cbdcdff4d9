// Segment reductions, as TensorFlow's CPU kernels compute them.
//
// SegmentSum/Mean/Max/Min/Prod: sorted ids, one output row per id up to the
// last; rows no id names are 0 (1 for Prod; 0 for Max and Min too, as
// TensorFlow does today). Errors come in TensorFlow's order: a decreasing id
// where its segment ends, then an id out of [0, last + 1).
//
// UnsortedSegmentSum/Max/Min/Prod: ids of any shape that data's shape
// starts with, num_segments output rows; negative ids are dropped, rows no
// id names keep the initial value (0, lowest, highest, 1).
//
// Arithmetic is in T, in data order: integers wrap, float16/bfloat16 round
// after every step (Eigen's half types do). Mean divides the sum by the
// count converted to T, as Eigen's MeanReducer does. Max keeps the new value
// unless it is below the running one, Min unless it is above: std::max and
// std::min as TensorFlow's unsorted kernels call them, so a NaN stays until
// a later value replaces it.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/index_text.h"
#include "ops/segment_shapes.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::RealTypes;
using elementwise::WrapAdd;
using elementwise::WrapMul;

enum class Reduce { kSum, kMean, kMax, kMin, kProd };

template <typename T>
T Step(Reduce kind, T acc, T v) {
  switch (kind) {
    case Reduce::kSum:
    case Reduce::kMean:
      return WrapAdd(acc, v);
    case Reduce::kProd:
      return WrapMul(acc, v);
    case Reduce::kMax:
      return v < acc ? acc : v;
    case Reduce::kMin:
      return acc < v ? acc : v;
  }
  return acc;
}

// Where an unsorted reduction starts.
template <typename T>
T Initial(Reduce kind) {
  switch (kind) {
    case Reduce::kProd:
      return T(1);
    case Reduce::kMax:
      return std::numeric_limits<T>::lowest();
    case Reduce::kMin:
      return std::numeric_limits<T>::max();
    default:
      return T(0);
  }
}

// ---------------------------------------------------------------------------
// Sorted.

template <typename T>
absl::Status SortedTyped(KernelContext& ctx, Reduce kind, const std::vector<int64_t>& ids) {
  const Tensor& data = ctx.input(0);
  const int64_t n = static_cast<int64_t>(ids.size());
  const int64_t rows = n > 0 ? ids.back() + 1 : 0;
  if (rows < 0) return absl::InvalidArgumentError("segment ids must be >= 0");
  Shape shape = data.shape();
  shape[0] = rows;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, data.dtype(), shape);
  if (!out.ok()) return out.status();
  if (n == 0) return absl::OkStatus();
  if (rows == 0) return absl::InvalidArgumentError("segment ids must be >= 0");
  const int64_t cols = n > 0 ? data.num_elements() / n : 0;
  const T* in = data.data<T>();
  T* o = (*out)->template data<T>();
  const T gap = kind == Reduce::kProd ? T(1) : T(0);
  int64_t filled = 0;  // rows before this are written
  int64_t start = 0;
  while (start < n) {
    int64_t end = start + 1;
    while (end < n && ids[end] == ids[start]) ++end;
    if (end < n && ids[start] > ids[end]) {
      return absl::InvalidArgumentError("segment ids are not increasing");
    }
    const int64_t id = ids[start];
    if (id < 0 || id >= rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("Segment id ", id, " out of range [0, ", rows,
                       "), possibly because 'segment_ids' input is not sorted."));
    }
    for (int64_t i = filled * cols; i < id * cols; ++i) o[i] = gap;
    T* row = o + id * cols;
    for (int64_t c = 0; c < cols; ++c) row[c] = in[start * cols + c];
    for (int64_t r = start + 1; r < end; ++r) {
      for (int64_t c = 0; c < cols; ++c) row[c] = Step(kind, row[c], in[r * cols + c]);
    }
    if (kind == Reduce::kMean && end - start > 1) {
      const T count = static_cast<T>(end - start);
      if (count == T(0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a segment of ", end - start, " rows overflows ", DataTypeName(data.dtype())));
      }
      for (int64_t c = 0; c < cols; ++c) row[c] = row[c] / count;
    }
    filled = id + 1;
    start = end;
  }
  return absl::OkStatus();
}

absl::Status ComputeSorted(KernelContext& ctx, Reduce kind) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  if (absl::Status s = ops::CheckSortedSegmentShapes(PartialShape::Known(data.shape()),
                                                     PartialShape::Known(ids.shape()));
      !s.ok()) {
    return AtNode(ctx, s);
  }
  absl::StatusOr<std::vector<int64_t>> values = IntValues(ids, "segment_ids");
  if (!values.ok()) return AtNode(ctx, values.status());
  return AtNode(ctx, Dispatch(RealTypes{}, data.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return SortedTyped<T>(ctx, kind, *values);
                }));
}

// ---------------------------------------------------------------------------
// Unsorted.

template <typename T>
absl::Status UnsortedTyped(KernelContext& ctx, Reduce kind, const std::vector<int64_t>& ids,
                           int64_t rows) {
  const Tensor& data = ctx.input(0);
  const Tensor& id_tensor = ctx.input(1);
  Shape shape = {rows};
  shape.insert(shape.end(), data.shape().begin() + id_tensor.rank(), data.shape().end());
  const int64_t n = static_cast<int64_t>(ids.size());
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] >= rows) {
      return absl::InvalidArgumentError(absl::StrCat("segment_ids",
                                                     IndexString(id_tensor.shape(), i), " = ",
                                                     ids[i], " is out of range [0, ", rows, ")"));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, data.dtype(), shape);
  if (!out.ok()) return out.status();
  T* o = (*out)->template data<T>();
  const int64_t out_size = (*out)->num_elements();
  const T initial = Initial<T>(kind);
  for (int64_t i = 0; i < out_size; ++i) o[i] = initial;
  const int64_t cols = n > 0 ? data.num_elements() / n : 0;
  const T* in = data.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] < 0) continue;
    T* row = o + ids[i] * cols;
    const T* src = in + i * cols;
    for (int64_t c = 0; c < cols; ++c) row[c] = Step(kind, row[c], src[c]);
  }
  return absl::OkStatus();
}

absl::Status ComputeUnsorted(KernelContext& ctx, Reduce kind) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  const Tensor& num_segments = ctx.input(2);
  if (absl::Status s = ops::CheckUnsortedSegmentShapes(PartialShape::Known(data.shape()),
                                                       PartialShape::Known(ids.shape()),
                                                       PartialShape::Known(num_segments.shape()));
      !s.ok()) {
    return AtNode(ctx, s);
  }
  absl::StatusOr<int64_t> rows = IntScalar(num_segments, "num_segments");
  if (!rows.ok()) return AtNode(ctx, rows.status());
  if (absl::Status s = ops::CheckNumSegments(*rows); !s.ok()) return AtNode(ctx, s);
  absl::StatusOr<std::vector<int64_t>> values = IntValues(ids, "segment_ids");
  if (!values.ok()) return AtNode(ctx, values.status());
  return AtNode(ctx, Dispatch(RealTypes{}, data.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return UnsortedTyped<T>(ctx, kind, *values, *rows);
                }));
}

}  // namespace

void RegisterSegmentOps(KernelRegistry& r) {
  const std::vector<DataType> types = DataTypes(RealTypes{});
  const struct {
    const char* op;
    Reduce kind;
  } sorted[] = {{"SegmentSum", Reduce::kSum},
                {"SegmentMean", Reduce::kMean},
                {"SegmentMax", Reduce::kMax},
                {"SegmentMin", Reduce::kMin},
                {"SegmentProd", Reduce::kProd}};
  for (const auto& s : sorted) {
    r.AddKernel({s.op, kCpu, "T", types,
                 [kind = s.kind](KernelContext& ctx) { return ComputeSorted(ctx, kind); }});
  }
  const struct {
    const char* op;
    Reduce kind;
  } unsorted[] = {{"UnsortedSegmentSum", Reduce::kSum},
                  {"UnsortedSegmentMax", Reduce::kMax},
                  {"UnsortedSegmentMin", Reduce::kMin},
                  {"UnsortedSegmentProd", Reduce::kProd}};
  for (const auto& s : unsorted) {
    r.AddKernel({s.op, kCpu, "T", types,
                 [kind = s.kind](KernelContext& ctx) { return ComputeUnsorted(ctx, kind); }});
  }
}

}  // namespace smrt::kernels
