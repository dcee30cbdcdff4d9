// Ops that change only a tensor's shape (Reshape, Squeeze, ExpandDims; the
// output shares the input's storage) or report it (Shape, ShapeN, Size, Rank).
// None of them reads elements, so their kernels serve every dtype.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "ops/reshape_shapes.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using ops::CheckShapeInputRank;
using ops::DropDims;
using ops::ExpandAxis;
using ops::ReshapeTarget;
using ops::ShapeOutType;
using ops::SqueezedDims;

// ---------------------------------------------------------------- Reshape

absl::Status ComputeReshape(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (absl::Status s = CheckShapeInputRank(ctx.input(1)); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> sizes = IntValues(ctx.input(1), "Reshape shape");
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<Shape> target = ReshapeTarget(PartialShape::Known(input.shape()), *sizes);
  if (!target.ok()) return target.status();
  absl::StatusOr<Tensor> out = input.Reshaped(*std::move(target));
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Squeeze

absl::Status ComputeSqueeze(KernelContext& ctx) {
  absl::StatusOr<std::vector<int64_t>> axes =
      ctx.attrs().GetOr<std::vector<int64_t>>("squeeze_dims", {});
  if (!axes.ok()) return axes.status();
  const Tensor& input = ctx.input(0);
  absl::StatusOr<std::optional<std::vector<bool>>> drop = SqueezedDims(input.shape(), *axes);
  if (!drop.ok()) return drop.status();
  absl::StatusOr<Tensor> out = input.Reshaped(DropDims(input.shape(), **drop));
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- ExpandDims

absl::Status ComputeExpandDims(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<int64_t> axis = IntScalar(ctx.input(1), "ExpandDims 'dim'");
  if (!axis.ok()) return axis.status();
  absl::StatusOr<int> a = ExpandAxis(*axis, input.rank());
  if (!a.ok()) return a.status();
  Shape dims = input.shape();
  dims.insert(dims.begin() + *a, 1);
  absl::StatusOr<Tensor> out = input.Reshaped(std::move(dims));
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Shape, ShapeN, Size, Rank

// Writes `shape` into output `i` as a vector of `dtype`.
absl::Status WriteShape(KernelContext& ctx, int i, DataType dtype, const Shape& shape) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(i, dtype, {static_cast<int64_t>(shape.size())});
  if (!out.ok()) return out.status();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (dtype == DataType::kInt32) {
      if (shape[d] > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(absl::StrCat("Shape output type is int32 but dim ", d,
                                                       " of ", ShapeToString(shape), " is ",
                                                       shape[d], "; use out_type=int64"));
      }
      (*out)->data<int32_t>()[d] = static_cast<int32_t>(shape[d]);
    } else {
      (*out)->data<int64_t>()[d] = shape[d];
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeShape(KernelContext& ctx) {
  absl::StatusOr<DataType> t = ShapeOutType(ctx.attrs());
  if (!t.ok()) return t.status();
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    if (absl::Status s = WriteShape(ctx, i, *t, ctx.input(i).shape()); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ComputeSize(KernelContext& ctx) {
  absl::StatusOr<DataType> t = ShapeOutType(ctx.attrs());
  if (!t.ok()) return t.status();
  int64_t n = ctx.input(0).num_elements();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *t, {});
  if (!out.ok()) return out.status();
  if (*t == DataType::kInt32) {
    if (n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Size: ", n, " elements (shape ", ShapeToString(ctx.input(0).shape()),
                       ") do not fit the int32 output type; use out_type=int64"));
    }
    (*out)->data<int32_t>()[0] = static_cast<int32_t>(n);
  } else {
    (*out)->data<int64_t>()[0] = n;
  }
  return absl::OkStatus();
}

absl::Status ComputeRank(KernelContext& ctx) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt32, {});
  if (!out.ok()) return out.status();
  (*out)->data<int32_t>()[0] = ctx.input(0).rank();
  return absl::OkStatus();
}

}  // namespace

void RegisterShapeOps(KernelRegistry& r) {
  // These kernels never read elements: one kernel serves every dtype.
  r.AddKernel({"Reshape", kCpu, "", {}, ComputeReshape});
  r.AddKernel({"Squeeze", kCpu, "", {}, ComputeSqueeze});
  r.AddKernel({"ExpandDims", kCpu, "", {}, ComputeExpandDims});
  for (auto [op, compute] : {std::pair{"Shape", &ComputeShape}, std::pair{"ShapeN", &ComputeShape},
                             std::pair{"Size", &ComputeSize}, std::pair{"Rank", &ComputeRank}}) {
    KernelSpec k{op, kCpu, "", {}, compute};
    k.reads_only_shapes = true;
    r.AddKernel(std::move(k));
  }
}

}  // namespace smrt::kernels
