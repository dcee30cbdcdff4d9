// Cast, Select and SelectV2.
#include <optional>
#include <utility>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/broadcast_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferCast(InferenceContext& ctx) {
  absl::StatusOr<DataType> dst = ctx.attrs().Get<DataType>("DstT");
  if (!dst.ok()) return AtNode(ctx, dst.status());
  absl::StatusOr<DataType> src = InferredType(ctx, "SrcT", 0);
  if (!src.ok()) return src.status();
  ctx.set_output(0, ValueInfo{*dst, ctx.input(0).shape});
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Select / SelectV2

absl::Status CheckSelectInfos(const InferenceContext& ctx) {
  const DataType c = ctx.input(0).dtype;
  if (c != DataType::kInvalid && c != DataType::kBool) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("condition must be bool, got ", DataTypeName(c))));
  }
  const DataType t = ctx.input(1).dtype;
  const DataType e = ctx.input(2).dtype;
  if (t != DataType::kInvalid && e != DataType::kInvalid && t != e) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "'then' is ", DataTypeName(t), " but 'else' is ", DataTypeName(e))));
  }
  return absl::OkStatus();
}

DataType SelectOutputType(const InferenceContext& ctx) {
  const AttrValue* v = ctx.attrs().Find("T");
  if (v != nullptr && std::holds_alternative<DataType>(*v)) return std::get<DataType>(*v);
  return ctx.input(1).dtype != DataType::kInvalid ? ctx.input(1).dtype : ctx.input(2).dtype;
}

// Merges two partial shapes that must be equal; nullopt when they conflict.
std::optional<PartialShape> Merge(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank) return b;
  if (!b.known_rank) return a;
  if (a.rank() != b.rank()) return std::nullopt;
  PartialShape out = a;
  for (int d = 0; d < a.rank(); ++d) {
    if (out.dims[d] < 0) {
      out.dims[d] = b.dims[d];
    } else if (b.dims[d] >= 0 && b.dims[d] != out.dims[d]) {
      return std::nullopt;
    }
  }
  return out;
}

absl::Status InferSelect(InferenceContext& ctx) {
  if (absl::Status s = CheckSelectInfos(ctx); !s.ok()) return s;
  const PartialShape& cond = ctx.input(0).shape;
  std::optional<PartialShape> out = Merge(ctx.input(1).shape, ctx.input(2).shape);
  if (!out) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "'then' and 'else' must have the same shape: ",
                           ctx.input(1).shape.ToString(), " vs ", ctx.input(2).shape.ToString())));
  }
  if (cond.known_rank && out->known_rank && cond.rank() > 0) {
    bool ok;
    if (cond.rank() == 1 && out->rank() != 1) {
      if (out->rank() > 0 && cond.dims[0] >= 0 && out->dims[0] >= 0 &&
          cond.dims[0] != out->dims[0]) {
        return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                               "Number of batches of 'then' must match size of 'cond', but "
                               "saw: ",
                               out->dims[0], " vs. ", cond.dims[0])));
      }
      ok = out->rank() > 0;
    } else {
      std::optional<PartialShape> merged = Merge(cond, *out);
      ok = merged.has_value();
      if (ok) out = merged;
    }
    if (!ok) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("condition ", cond.ToString(),
                                          " must be a scalar, a vector "
                                          "matching dim 0 of 'then', or have the shape of 'then' ",
                                          out->ToString())));
    }
  }
  ctx.set_output(0, ValueInfo{SelectOutputType(ctx), *std::move(out)});
  return absl::OkStatus();
}

absl::Status InferSelectV2(InferenceContext& ctx) {
  if (absl::Status s = CheckSelectInfos(ctx); !s.ok()) return s;
  absl::StatusOr<PartialShape> shape =
      BroadcastPartialShapes({ctx.input(0).shape, ctx.input(1).shape, ctx.input(2).shape});
  if (!shape.ok()) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("condition ", ctx.input(0).shape.ToString(), ", then ",
                                        ctx.input(1).shape.ToString(), ", and else ",
                                        ctx.input(2).shape.ToString(), " must be broadcastable")));
  }
  ctx.set_output(0, ValueInfo{SelectOutputType(ctx), *std::move(shape)});
  return absl::OkStatus();
}

}  // namespace

void RegisterCastSelectOps(OpRegistry& r) {
  r.AddOp({"Cast", {{"Truncate", AttrValue(false)}}, InferCast});
  r.AddOp({"Select", {}, InferSelect});
  r.AddOp({"SelectV2", {}, InferSelectV2});
}

}  // namespace smrt::ops
