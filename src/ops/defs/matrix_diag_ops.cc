// The MatrixDiag family (tf.linalg.diag, diag_part, set_diag, tf.eye's
// graphs): MatrixDiag{,V2,V3} builds matrices from a band of diagonals,
// MatrixDiagPart{,V2,V3} reads the band, MatrixSetDiag{,V2,V3} writes it. V1
// ops take the main diagonal; V2 and V3 a band k, V3 an align attr. Shapes
// are checked as the kernels check them (ops/matrix_diag_shapes.h) when the
// inputs they need are known before running.
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/matrix_diag_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

// k's band when its value is known before running; nullopt otherwise.
absl::StatusOr<std::optional<DiagBand>> KnownBand(const InferenceContext &ctx, int i,
                                                  bool require_element) {
  const Tensor *k = ctx.input_value(i);
  if (k == nullptr) return std::optional<DiagBand>();
  absl::StatusOr<DiagBand> band = ReadDiagBand(*k, require_element);
  if (!band.ok()) return band.status();
  return std::optional<DiagBand>(*band);
}

// The scalar value of input i when known before running.
std::optional<int64_t> KnownScalar(const InferenceContext &ctx, int i) {
  std::optional<std::vector<int64_t>> v = ConstInts(ctx, i);
  if (!v.has_value() || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

// Batch dims of `s` without its last `drop` dims, then `tail`.
PartialShape Batch(const PartialShape &s, size_t drop, const Shape &tail) {
  Shape dims(s.dims.begin(), s.dims.end() - static_cast<std::ptrdiff_t>(drop));
  dims.insert(dims.end(), tail.begin(), tail.end());
  return PartialShape::Known(dims);
}

// MatrixDiag (`v2` false: the main diagonal, square) or MatrixDiagV2/V3.
absl::Status InferDiag(InferenceContext &ctx, bool v2) {
  const ValueInfo &diag = ctx.input(0);
  DiagBand band;
  int64_t rows = -1, cols = -1;
  if (v2) {
    absl::StatusOr<std::optional<DiagBand>> k = KnownBand(ctx, 1, /*require_element=*/false);
    if (!k.ok()) return AtNode(ctx, k.status());
    std::optional<int64_t> r = KnownScalar(ctx, 2), c = KnownScalar(ctx, 3);
    if (!k->has_value() || !r.has_value() || !c.has_value()) {
      ctx.set_output(0, ValueInfo{diag.dtype, PartialShape::Unknown()});
      return absl::OkStatus();
    }
    band = **k;
    rows = *r;
    cols = *c;
  }
  if (!diag.shape.known_rank) {
    ctx.set_output(0, ValueInfo{diag.dtype, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  if (diag.shape.IsFullyKnown()) {
    absl::StatusOr<Shape> out = MatrixDiagShape(diag.shape.dims, band, rows, cols);
    if (!out.ok()) return AtNode(ctx, out.status());
    ctx.set_output(0, ValueInfo{diag.dtype, PartialShape::Known(*out)});
    return absl::OkStatus();
  }
  if (diag.shape.rank() < 1 || (band.count() > 1 && diag.shape.rank() < 2)) {
    ctx.set_output(0, ValueInfo{diag.dtype, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  ctx.set_output(0, ValueInfo{diag.dtype, Batch(diag.shape, band.count() > 1 ? 2 : 1, {-1, -1})});
  return absl::OkStatus();
}

// MatrixDiagPart (the main diagonal) or MatrixDiagPartV2/V3.
absl::Status InferDiagPart(InferenceContext &ctx, bool v2) {
  const ValueInfo &in = ctx.input(0);
  DiagBand band;
  if (v2) {
    absl::StatusOr<std::optional<DiagBand>> k = KnownBand(ctx, 1, /*require_element=*/false);
    if (!k.ok()) return AtNode(ctx, k.status());
    if (!k->has_value()) {
      ctx.set_output(0, ValueInfo{in.dtype, PartialShape::Unknown()});
      return absl::OkStatus();
    }
    band = **k;
  }
  if (!in.shape.known_rank) {
    ctx.set_output(0, ValueInfo{in.dtype, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  if (in.shape.IsFullyKnown() || in.shape.rank() < 2) {
    absl::StatusOr<Shape> out = MatrixDiagPartShape(in.shape.dims, band);
    if (!out.ok()) return AtNode(ctx, out.status());
    ctx.set_output(0, ValueInfo{in.dtype, PartialShape::Known(*out)});
    return absl::OkStatus();
  }
  Shape tail;
  if (band.count() > 1) tail.push_back(band.count());
  tail.push_back(-1);
  ctx.set_output(0, ValueInfo{in.dtype, Batch(in.shape, 2, tail)});
  return absl::OkStatus();
}

// MatrixSetDiag{,V2,V3}: the input's shape.
absl::Status InferSetDiag(InferenceContext &ctx, bool v2) {
  const ValueInfo &in = ctx.input(0), &diag = ctx.input(1);
  DiagBand band;
  bool band_known = true;
  if (v2) {
    absl::StatusOr<std::optional<DiagBand>> k = KnownBand(ctx, 2, /*require_element=*/true);
    if (!k.ok()) return AtNode(ctx, k.status());
    band_known = k->has_value();
    if (band_known) band = **k;
  }
  if (band_known && in.shape.IsFullyKnown() && diag.shape.IsFullyKnown()) {
    if (absl::Status s = CheckSetDiagShapes(in.shape.dims, diag.shape.dims, band); !s.ok()) {
      return AtNode(ctx, s);
    }
  }
  ctx.set_output(0, in);
  return absl::OkStatus();
}

absl::Status CheckAlign(InferenceContext &ctx) {
  absl::StatusOr<DiagAlign> align = ReadDiagAlign(ctx.attrs());
  return align.ok() ? absl::OkStatus() : AtNode(ctx, align.status());
}

}  // namespace

void RegisterMatrixDiagOps(OpRegistry &r) {
  r.AddOp(ArrayOp("MatrixDiag", {}, [](InferenceContext &ctx) { return InferDiag(ctx, false); }));
  // The deprecated names (TensorFlow 2.21 still runs them): the V1 ops.
  r.AddOp(
      ArrayOp("BatchMatrixDiag", {}, [](InferenceContext &ctx) { return InferDiag(ctx, false); }));
  r.AddOp(ArrayOp("BatchMatrixDiagPart", {},
                  [](InferenceContext &ctx) { return InferDiagPart(ctx, false); }));
  r.AddOp(ArrayOp("BatchMatrixSetDiag", {},
                  [](InferenceContext &ctx) { return InferSetDiag(ctx, false); }));
  r.AddOp(ArrayOp("MatrixDiagV2", {}, [](InferenceContext &ctx) { return InferDiag(ctx, true); }));
  r.AddOp(
      ArrayOp("MatrixDiagV3", {{"align", std::string("RIGHT_LEFT")}}, [](InferenceContext &ctx) {
        if (absl::Status s = CheckAlign(ctx); !s.ok()) return s;
        return InferDiag(ctx, true);
      }));
  r.AddOp(ArrayOp("MatrixDiagPart", {},
                  [](InferenceContext &ctx) { return InferDiagPart(ctx, false); }));
  r.AddOp(ArrayOp("MatrixDiagPartV2", {},
                  [](InferenceContext &ctx) { return InferDiagPart(ctx, true); }));
  r.AddOp(ArrayOp("MatrixDiagPartV3", {{"align", std::string("RIGHT_LEFT")}},
                  [](InferenceContext &ctx) {
                    if (absl::Status s = CheckAlign(ctx); !s.ok()) return s;
                    return InferDiagPart(ctx, true);
                  }));
  r.AddOp(
      ArrayOp("MatrixSetDiag", {}, [](InferenceContext &ctx) { return InferSetDiag(ctx, false); }));
  r.AddOp(ArrayOp("MatrixSetDiagV2", {},
                  [](InferenceContext &ctx) { return InferSetDiag(ctx, true); }));
  r.AddOp(
      ArrayOp("MatrixSetDiagV3", {{"align", std::string("RIGHT_LEFT")}}, [](InferenceContext &ctx) {
        if (absl::Status s = CheckAlign(ctx); !s.ok()) return s;
        return InferSetDiag(ctx, true);
      }));
}

}  // namespace smrt::ops
