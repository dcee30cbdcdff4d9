// Conv3D, Conv3DBackpropInputV2, MaxPool3D and AvgPool3D on NDHWC volumes
// (filters DHWIO).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/conv_shapes.h"
#include "ops/op_registry.h"
#include "ops/volume_shapes.h"

namespace smrt::ops {
namespace {

// Inference: input NDHWC; `k` the window (filter dims or ksize), `out_c` the
// output depth (-1 unknown).
absl::Status InferVolume(InferenceContext& ctx, const VolumeAttrs& a,
                         const std::array<int64_t, 3>& k, int64_t out_c) {
  const ValueInfo& in = ctx.input(0);
  if (in.shape.known_rank && in.shape.rank() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " input must be 5-dimensional, got ", in.shape.ToString()));
  }
  Shape out(5, -1);
  out[4] = out_c;
  if (in.shape.known_rank) {
    out[0] = in.shape.dims[0];
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<int64_t> o = InferWindowedOutputSize(
          in.shape.dims[1 + i], k[i], a.dilations[1 + i], a.strides[1 + i], a.padding);
      if (!o.ok()) return o.status();
      out[1 + i] = *o;
    }
  }
  ctx.set_output(0, ValueInfo{in.dtype, PartialShape::Known(std::move(out))});
  return absl::OkStatus();
}

absl::Status InferConv3D(InferenceContext& ctx) {
  absl::StatusOr<VolumeAttrs> a = ReadVolumeAttrs(ctx.attrs(), ctx.op(), /*pool=*/false);
  if (!a.ok()) return a.status();
  const ValueInfo& filter = ctx.input(1);
  if (filter.shape.known_rank && filter.shape.rank() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv3D filter must be 5-dimensional, got ", filter.shape.ToString()));
  }
  std::array<int64_t, 3> k{-1, -1, -1};
  int64_t out_c = -1;
  if (filter.shape.known_rank) {
    k = {filter.shape.dims[0], filter.shape.dims[1], filter.shape.dims[2]};
    out_c = filter.shape.dims[4];
    const ValueInfo& in = ctx.input(0);
    if (in.shape.known_rank && in.shape.rank() == 5 && in.shape.dims[4] >= 0 &&
        filter.shape.dims[3] >= 0 && in.shape.dims[4] != filter.shape.dims[3]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Conv3D: input depth ", in.shape.dims[4],
                       " must equal the filter's input depth ", filter.shape.dims[3], " (input ",
                       in.shape.ToString(), ", filter ", filter.shape.ToString(), ")"));
    }
  }
  return InferVolume(ctx, *a, k, out_c);
}

absl::Status InferPool3D(InferenceContext& ctx) {
  absl::StatusOr<VolumeAttrs> a = ReadVolumeAttrs(ctx.attrs(), ctx.op(), /*pool=*/true);
  if (!a.ok()) return a.status();
  const ValueInfo& in = ctx.input(0);
  const int64_t c = in.shape.known_rank && in.shape.rank() == 5 ? in.shape.dims[4] : -1;
  return InferVolume(ctx, *a, {a->window[1], a->window[2], a->window[3]}, c);
}

// Conv3DBackpropInputV2: shaped by input_sizes (when it is known), of the
// filter's type.
absl::Status InferConv3DBackpropInput(InferenceContext& ctx) {
  absl::StatusOr<VolumeAttrs> a = ReadVolumeAttrs(ctx.attrs(), ctx.op(), /*pool=*/false);
  if (!a.ok()) return a.status();
  for (int i : {1, 2}) {
    const PartialShape& s = ctx.input(i).shape;
    if (s.known_rank && s.rank() != 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Conv3DBackpropInputV2: filter and out_backprop must be 5-dimensional, got ",
          ctx.input(1).shape.ToString(), " and ", ctx.input(2).shape.ToString()));
    }
  }
  Shape out(5, -1);
  if (std::optional<std::vector<int64_t>> v = KnownInts(ctx, 0); v.has_value()) {
    if (v->size() != 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Conv3DBackpropInputV2: input_sizes must hold 5 values (NDHWC), got ", v->size()));
    }
    out.assign(v->begin(), v->end());
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 1, "T"), PartialShape::Known(std::move(out))});
  return absl::OkStatus();
}

}  // namespace

void RegisterVolumeOps(OpRegistry& r) {
  r.AddOp(ArrayOp(
      "Conv3D",
      {{"data_format", std::string("NDHWC")}, {"dilations", std::vector<int64_t>{1, 1, 1, 1, 1}}},
      InferConv3D));
  r.AddOp(ArrayOp(
      "Conv3DBackpropInputV2",
      {{"data_format", std::string("NDHWC")},
       {"dilations", std::vector<int64_t>{1, 1, 1, 1, 1}},
       {"Tshape", DataType::kInt32}},
      InferConv3DBackpropInput));
  r.AddOp(ArrayOp("MaxPool3D", {{"data_format", std::string("NDHWC")}}, InferPool3D));
  r.AddOp(ArrayOp("AvgPool3D", {{"data_format", std::string("NDHWC")}}, InferPool3D));
}

}  // namespace smrt::ops
