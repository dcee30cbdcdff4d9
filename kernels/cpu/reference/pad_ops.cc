// Pad (zeros), PadV2 (a given constant) and MirrorPad (REFLECT excludes the
// edge element, SYMMETRIC repeats it). paddings is an int (rank, 2) matrix of
// (before, after) counts.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/array_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

enum class PadMode { kConstant, kReflect, kSymmetric };

struct Padding {
  int64_t before;
  int64_t after;
};

absl::StatusOr<PadMode> MirrorMode(const AttrMap& attrs) {
  absl::StatusOr<std::string> mode = attrs.Get<std::string>("mode");
  if (!mode.ok()) return mode.status();
  if (*mode == "REFLECT") return PadMode::kReflect;
  if (*mode == "SYMMETRIC") return PadMode::kSymmetric;
  return absl::InvalidArgumentError(
      absl::StrCat("MirrorPad: mode must be REFLECT or SYMMETRIC, got \"", *mode, "\""));
}

// Reads and checks a paddings tensor for an input of `rank`.
absl::StatusOr<std::vector<Padding>> ReadPaddings(absl::string_view op, const Tensor& paddings,
                                                  int rank) {
  if (paddings.rank() != 2 || paddings.dim(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": paddings must be a matrix with 2 columns, got shape ",
                     ShapeToString(paddings.shape())));
  }
  if (paddings.dim(0) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the first dimension of paddings ",
                                                   ShapeToString(paddings.shape()),
                                                   " must be the rank of the input (", rank, ")"));
  }
  absl::StatusOr<std::vector<int64_t>> v = IntValues(paddings, "paddings");
  if (!v.ok()) return v.status();
  std::vector<Padding> out(rank);
  for (int d = 0; d < rank; ++d) {
    out[d] = {(*v)[2 * d], (*v)[2 * d + 1]};
    if (out[d].before < 0 || out[d].after < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": paddings must be non-negative, got ",
                                                     out[d].before, " ", out[d].after,
                                                     " for dimension ", d));
    }
  }
  return out;
}

// Output dims; input dims may be unknown (-1) during inference.
absl::StatusOr<Shape> PaddedDims(absl::string_view op, const Shape& dims,
                                 const std::vector<Padding>& pads, PadMode mode) {
  Shape out(dims.size(), -1);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0) continue;
    if (mode != PadMode::kConstant) {
      // REFLECT mirrors around the edge element, so at most dim - 1 fit.
      const int64_t limit = mode == PadMode::kReflect ? dims[d] - 1 : dims[d];
      if (pads[d].before > limit || pads[d].after > limit) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": paddings (", pads[d].before, ", ", pads[d].after, ") of dimension ",
                         d, " must be no greater than ", limit, " in ",
                         mode == PadMode::kReflect ? "REFLECT" : "SYMMETRIC",
                         " mode for input shape ", ShapeToString(dims)));
      }
    }
    if (__builtin_add_overflow(dims[d], pads[d].before, &out[d]) ||
        __builtin_add_overflow(out[d], pads[d].after, &out[d])) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": padded dimension ", d, " of ",
                                                     ShapeToString(dims), " overflows int64"));
    }
  }
  return out;
}

absl::Status InferPad(InferenceContext& ctx, absl::string_view op, std::optional<PadMode> mode) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const Tensor* paddings = ctx.input_value(1);
  if (!mode.has_value()) {
    absl::StatusOr<PadMode> m = MirrorMode(ctx.attrs());
    if (!m.ok()) return m.status();
    mode = *m;
  }
  if (in.known_rank && paddings != nullptr) {
    absl::StatusOr<std::vector<Padding>> pads = ReadPaddings(op, *paddings, in.rank());
    if (!pads.ok()) return pads.status();
    absl::StatusOr<Shape> dims = PaddedDims(op, in.dims, *pads, *mode);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  } else if (const PartialShape& p = ctx.input(1).shape; p.rank() == 2 && p.dims[0] >= 0) {
    out.shape = UnknownDims(static_cast<int>(p.dims[0]));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputePad(KernelContext& ctx, absl::string_view op, PadMode mode) {
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  absl::StatusOr<std::vector<Padding>> pads = ReadPaddings(op, ctx.input(1), rank);
  if (!pads.ok()) return pads.status();
  const Tensor* constant = nullptr;
  if (op == "PadV2") {
    constant = &ctx.input(2);
    if (constant->rank() != 0 || constant->dtype() != input.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PadV2: constant_values must be a scalar of the input's dtype (",
                       DataTypeName(input.dtype()), "), got ", constant->DebugString()));
    }
  }
  absl::StatusOr<Shape> dims = PaddedDims(op, input.shape(), *pads, mode);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();

  // Output index i of dim d reads input index i - before, mirrored back into
  // range for MirrorPad; -1 marks padding for Pad/PadV2.
  const Shape in_strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input.dim(d);
    tables[d].resize(static_cast<size_t>((*dims)[d]));
    for (int64_t i = 0; i < (*dims)[d]; ++i) {
      int64_t j = i - (*pads)[d].before;
      if (mode == PadMode::kReflect) {
        j = j < 0 ? -j : (j >= dim ? 2 * (dim - 1) - j : j);
      } else if (mode == PadMode::kSymmetric) {
        j = j < 0 ? -j - 1 : (j >= dim ? 2 * dim - 1 - j : j);
      }
      tables[d][i] = (j >= 0 && j < dim) ? j * in_strides[d] : -1;
    }
  }
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T fill = constant != nullptr ? constant->data<T>()[0] : T();
    ParallelGatherByTables<T>(input.data<T>(), tables, fill, result->data<T>());
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterPadOps(KernelRegistry& r) {
  r.AddOp(ArrayOp("Pad", {{"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferPad(ctx, "Pad", PadMode::kConstant); }));
  r.AddOp(ArrayOp("PadV2", {{"Tpaddings", DataType::kInt32}}, [](InferenceContext& ctx) {
    return InferPad(ctx, "PadV2", PadMode::kConstant);
  }));
  r.AddOp(ArrayOp("MirrorPad", {{"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferPad(ctx, "MirrorPad", std::nullopt); }));
  AddArrayKernel(r, "Pad", "T",
                 [](KernelContext& ctx) { return ComputePad(ctx, "Pad", PadMode::kConstant); });
  AddArrayKernel(r, "PadV2", "T",
                 [](KernelContext& ctx) { return ComputePad(ctx, "PadV2", PadMode::kConstant); });
  AddArrayKernel(r, "MirrorPad", "T", [](KernelContext& ctx) {
    absl::StatusOr<PadMode> mode = MirrorMode(ctx.attrs());
    if (!mode.ok()) return mode.status();
    return ComputePad(ctx, "MirrorPad", *mode);
  });
}

}  // namespace smrt::kernels
