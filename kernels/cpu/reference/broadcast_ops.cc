// BroadcastTo and BroadcastArgs.
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
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------------------
// BroadcastTo, BroadcastArgs

absl::Status InferBroadcastTo(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> shape = KnownInts(ctx, 1);
  const PartialShape& shape_shape = ctx.input(1).shape;
  if (shape.has_value()) {
    if (in.IsFullyKnown()) {
      if (absl::Status s = CheckBroadcastTo(in.dims, *shape); !s.ok()) return s;
    }
    for (int64_t d : *shape) {
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0"));
    }
    out.shape = PartialShape::Known(*shape);
  } else if (shape_shape.known_rank && shape_shape.rank() == 1 && shape_shape.dims[0] >= 0) {
    const int64_t rank = shape_shape.dims[0];
    Shape dims(static_cast<size_t>(rank), -1);
    if (in.known_rank) {
      if (in.rank() > rank) {
        return absl::InvalidArgumentError(absl::StrCat("Rank of input (", in.rank(),
                                                       ") must be no greater than rank of "
                                                       "output shape (",
                                                       rank, ")."));
      }
      // A known input dim other than 1 fixes the output dim.
      for (int i = 0; i < in.rank(); ++i) {
        if (in.dims[i] >= 0 && in.dims[i] != 1) dims[rank - in.rank() + i] = in.dims[i];
      }
    }
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeBroadcastTo(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("BroadcastTo: shape must be a vector, got ",
                                                   ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> target = IntValues(ctx.input(1), "shape");
  if (!target.ok()) return target.status();
  if (absl::Status s = CheckBroadcastTo(input.shape(), *target); !s.ok()) return s;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *target);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  const int rank = static_cast<int>(target->size());
  const int lead = rank - input.rank();
  const Shape in_strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const bool stretched = d < lead || input.dim(d - lead) == 1;
    const int64_t stride = stretched ? 0 : in_strides[d - lead];
    tables[d].resize(static_cast<size_t>((*target)[d]));
    for (int64_t i = 0; i < (*target)[d]; ++i) tables[d][i] = i * stride;
  }
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(input.data<T>(), tables, T(), result->data<T>());
    return absl::OkStatus();
  });
}

absl::StatusOr<Shape> BroadcastArgShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x < 0 || y < 0 || (x != y && x != 1 && y != 1)) return IncompatibleShapes(a, b);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

absl::Status InferBroadcastArgs(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  for (int i : {0, 1}) {
    const PartialShape& s = ctx.input(i).shape;
    if (s.known_rank && s.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[", i, "] must be a vector, got shape ", s.ToString()));
    }
  }
  std::optional<std::vector<int64_t>> a = KnownInts(ctx, 0);
  std::optional<std::vector<int64_t>> b = KnownInts(ctx, 1);
  if (a.has_value() && b.has_value()) {
    absl::StatusOr<Shape> r = BroadcastArgShapes(*a, *b);
    if (!r.ok()) return r.status();
    out.shape = PartialShape::Known({static_cast<int64_t>(r->size())});
  } else {
    const int64_t la = KnownVectorLength(ctx, 0);
    const int64_t lb = KnownVectorLength(ctx, 1);
    out.shape = PartialShape::Known({la >= 0 && lb >= 0 ? std::max(la, lb) : -1});
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeBroadcastArgs(KernelContext& ctx) {
  for (int i : {0, 1}) {
    if (ctx.input(i).rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("In[", i, "] must be a vector, got shape ",
                                                     ShapeToString(ctx.input(i).shape())));
    }
  }
  absl::StatusOr<std::vector<int64_t>> a = IntValues(ctx.input(0), "s0");
  if (!a.ok()) return a.status();
  absl::StatusOr<std::vector<int64_t>> b = IntValues(ctx.input(1), "s1");
  if (!b.ok()) return b.status();
  absl::StatusOr<Shape> r = BroadcastArgShapes(*a, *b);
  if (!r.ok()) return r.status();
  const DataType dtype = ctx.input(0).dtype();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, dtype, {static_cast<int64_t>(r->size())});
  if (!out.ok()) return out.status();
  for (size_t i = 0; i < r->size(); ++i) {
    if (dtype == DataType::kInt32) {
      if ((*r)[i] > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(
            absl::StrCat("BroadcastArgs: dimension ", (*r)[i], " does not fit in int32"));
      }
      (*out)->data<int32_t>()[i] = static_cast<int32_t>((*r)[i]);
    } else {
      (*out)->data<int64_t>()[i] = (*r)[i];
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterBroadcastOps(KernelRegistry& r) {
  r.AddOp(ArrayOp("BroadcastTo", {{"Tidx", DataType::kInt32}}, InferBroadcastTo));
  AddArrayKernel(r, "BroadcastTo", "T", ComputeBroadcastTo);

  r.AddOp(ArrayOp("BroadcastArgs", {{"T", DataType::kInt32}}, InferBroadcastArgs));
  r.AddKernel({"BroadcastArgs", kCpu, "T", {DataType::kInt32, DataType::kInt64},
               ComputeBroadcastArgs});
}

}  // namespace smrt::kernels
