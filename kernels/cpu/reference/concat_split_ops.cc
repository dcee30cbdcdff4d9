// Joining and splitting along one axis: ConcatV2, Concat (legacy, axis
// first), Pack, Unpack, Split, SplitV. Every kernel views its tensors as
// [outer, axis * inner] rows and copies whole row pieces.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/split_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------- Concat

absl::Status ComputeConcat(KernelContext& ctx, absl::string_view op, int first, int n,
                           int axis_input) {
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat(op, ": no inputs to concatenate"));
  if (absl::Status s = CheckN(op, ctx.attrs(), n); !s.ok()) return s;
  absl::StatusOr<int64_t> axis_value = IntScalar(ctx.input(axis_input), "concat axis");
  if (!axis_value.ok()) return axis_value.status();
  const Tensor& in0 = ctx.input(first);
  const int rank = in0.rank();
  if (rank == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": can't concatenate scalars (use tf.stack instead)"));
  }
  absl::StatusOr<int> axis = CheckedAxis(op, *axis_value, rank, ShapeToString(in0.shape()));
  if (!axis.ok()) return axis.status();

  Shape out_dims = in0.shape();
  out_dims[*axis] = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(first + i);
    if (t.dtype() != in0.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": input ", i, " has dtype ",
                                                     DataTypeName(t.dtype()), " but input 0 has ",
                                                     DataTypeName(in0.dtype())));
    }
    if (t.rank() != rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": ranks of all inputs should match: shape[0] = ", ShapeToString(in0.shape()),
          " vs. shape[", i, "] = ", ShapeToString(t.shape())));
    }
    for (int d = 0; d < rank; ++d) {
      if (d != *axis && t.dim(d) != in0.dim(d)) {
        return absl::InvalidArgumentError(absl::StrCat(
            op, ": dimension ", d, " in both shapes must be equal: shape[0] = ",
            ShapeToString(in0.shape()), " vs. shape[", i, "] = ", ShapeToString(t.shape())));
      }
    }
    if (__builtin_add_overflow(out_dims[*axis], t.dim(*axis), &out_dims[*axis])) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": output dimension ", *axis, " overflows int64"));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in0.dtype(), out_dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();

  const int64_t outer = DimProduct(out_dims, 0, *axis);
  const int64_t inner = DimProduct(out_dims, *axis + 1, rank);
  return VisitElementType(in0.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = result->data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < n; ++i) {
        const Tensor& t = ctx.input(first + i);
        const int64_t row = t.dim(*axis) * inner;
        std::copy_n(t.data<T>() + o * row, row, dst);
        dst += row;
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- Pack, Unpack

absl::Status ComputePack(KernelContext& ctx) {
  const int n = ctx.num_inputs();
  absl::StatusOr<int> axis = PackedAxis(ctx);
  if (!axis.ok()) return axis.status();
  const Tensor& in0 = ctx.input(0);
  Shape out_dims = in0.shape();
  out_dims.insert(out_dims.begin() + *axis, n);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in0.dtype(), out_dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();

  const int64_t outer = DimProduct(in0.shape(), 0, *axis);
  const int64_t inner = DimProduct(in0.shape(), *axis, in0.rank());
  return VisitElementType(in0.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = result->data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < n; ++i) {
        std::copy_n(ctx.input(i).data<T>() + o * inner, inner, dst);
        dst += inner;
      }
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<int> UnpackAxis(int64_t axis, int rank, const std::string& shape_text) {
  return CheckedAxis("Unpack", axis, rank, shape_text);
}

absl::Status ComputeUnpack(KernelContext& ctx) {
  absl::StatusOr<int64_t> axis_attr = ctx.attrs().GetOr<int64_t>("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  const Tensor& input = ctx.input(0);
  const int num = ctx.num_outputs();
  absl::StatusOr<int> axis = UnpackAxis(*axis_attr, input.rank(), ShapeToString(input.shape()));
  if (!axis.ok()) return axis.status();
  if (input.dim(*axis) != num) {
    return absl::InvalidArgumentError(absl::StrCat("Unpack: input dimension ", *axis,
                                                   " must equal num = ", num, ", got shape ",
                                                   ShapeToString(input.shape())));
  }
  Shape dims = input.shape();
  dims.erase(dims.begin() + *axis);
  std::vector<Tensor*> outs(num);
  for (int k = 0; k < num; ++k) {
    absl::StatusOr<Tensor*> out = ctx.allocate_output(k, input.dtype(), dims);
    if (!out.ok()) return out.status();
    outs[k] = *out;
  }
  if (input.num_elements() == 0) return absl::OkStatus();
  const int64_t outer = DimProduct(input.shape(), 0, *axis);
  const int64_t inner = DimProduct(input.shape(), *axis + 1, input.rank());
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = input.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int k = 0; k < num; ++k) {
        std::copy_n(src + (o * num + k) * inner, inner, outs[k]->data<T>() + o * inner);
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- Split, SplitV

// Splits `input` along `axis` into pieces of `sizes` (which sum to the dim).
absl::Status SplitAlong(KernelContext& ctx, const Tensor& input, int axis,
                        const std::vector<int64_t>& sizes) {
  const int num = static_cast<int>(sizes.size());
  std::vector<Tensor*> outs(num);
  for (int k = 0; k < num; ++k) {
    Shape dims = input.shape();
    dims[axis] = sizes[k];
    absl::StatusOr<Tensor*> out = ctx.allocate_output(k, input.dtype(), dims);
    if (!out.ok()) return out.status();
    outs[k] = *out;
  }
  if (input.num_elements() == 0) return absl::OkStatus();
  const int64_t outer = DimProduct(input.shape(), 0, axis);
  const int64_t inner = DimProduct(input.shape(), axis + 1, input.rank());
  const int64_t row = input.dim(axis) * inner;
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = input.data<T>();
    int64_t offset = 0;
    for (int k = 0; k < num; ++k) {
      const int64_t piece = sizes[k] * inner;
      T* dst = outs[k]->data<T>();
      for (int64_t o = 0; o < outer && piece > 0; ++o) {
        std::copy_n(src + o * row + offset, piece, dst + o * piece);
      }
      offset += piece;
    }
    return absl::OkStatus();
  });
}

absl::Status ComputeSplit(KernelContext& ctx) {
  absl::StatusOr<SplitPieces> pieces = PlanSplit(ctx);
  if (!pieces.ok()) return pieces.status();
  return SplitAlong(ctx, ctx.input(1), pieces->axis, pieces->sizes);
}

absl::Status ComputeSplitV(KernelContext& ctx) {
  absl::StatusOr<SplitPieces> pieces = PlanSplit(ctx);
  if (!pieces.ok()) return pieces.status();
  return SplitAlong(ctx, ctx.input(0), pieces->axis, pieces->sizes);
}

}  // namespace

void RegisterConcatSplitOps(KernelRegistry& r) {
  AddArrayKernel(r, "ConcatV2", "T", [](KernelContext& ctx) {
    const int n = ctx.num_inputs() - 1;
    return ComputeConcat(ctx, "ConcatV2", 0, n, n);
  });
  AddArrayKernel(r, "Concat", "T", [](KernelContext& ctx) {
    return ComputeConcat(ctx, "Concat", 1, ctx.num_inputs() - 1, 0);
  });
  AddArrayKernel(r, "Pack", "T", ComputePack);
  AddArrayKernel(r, "Unpack", "T", ComputeUnpack);
  AddArrayKernel(r, "Split", "T", ComputeSplit);
  AddArrayKernel(r, "SplitV", "T", ComputeSplitV);
}

}  // namespace smrt::kernels
