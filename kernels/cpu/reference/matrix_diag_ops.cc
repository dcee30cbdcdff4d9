// MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3} and MatrixSetDiag{,V2,V3} on
// the CPU, for every fixed-size dtype (TensorFlow's POD types): copies of
// elements, written once per element size. A band of diagonals k = [lower,
// upper] is stored upper first; a diagonal shorter than the longest is packed
// left or right as the align attr says (V1 and V2: left).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "ops/matrix_diag_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::kernels {
namespace {

using ops::DiagAlign;
using ops::DiagBand;

// Length of diagonal d in a rows x cols matrix, and where its first element
// sits in a row of max_len (TensorFlow's ComputeDiagLenAndContentOffset).
struct DiagPlace {
  int64_t len;
  int64_t offset;
};

DiagPlace Place(int64_t d, int64_t max_len, int64_t rows, int64_t cols, const DiagAlign &align) {
  const bool left = (d >= 0 && align.left_super) || (d <= 0 && align.left_sub);
  const int64_t len = std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
  return {len, left ? 0 : max_len - len};
}

// The band (k at input `k_input`, or the main diagonal when the op has no k)
// and the alignment (V3's attr; left for V1 and V2).
absl::Status ReadBandAndAlign(KernelContext &ctx, int k_input, bool require_element, DiagBand *band,
                              DiagAlign *align) {
  if (ctx.num_inputs() > k_input) {
    absl::StatusOr<DiagBand> b = ops::ReadDiagBand(ctx.input(k_input), require_element);
    if (!b.ok()) return b.status();
    *band = *b;
  }
  if (ctx.attrs().Has("align")) {
    absl::StatusOr<DiagAlign> a = ops::ReadDiagAlign(ctx.attrs());
    if (!a.ok()) return a.status();
    *align = *a;
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ScalarInput(const Tensor &t, const char *what) {
  absl::StatusOr<std::vector<int64_t>> v = ops::ToInt64s(t);
  if (!v.ok()) return v.status();
  if (v->empty()) return absl::InvalidArgumentError(absl::StrCat(what, " must be a scalar"));
  return (*v)[0];
}

// A padding value input of the op's dtype, as E (its bytes); zero when the op
// has none.
template <typename E>
absl::StatusOr<E> Padding(KernelContext &ctx, int i, DataType dtype) {
  E pad{};
  if (ctx.num_inputs() <= i) return pad;
  const Tensor &p = ctx.input(i);
  if (p.dtype() != dtype || p.num_elements() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("padding_value must be a scalar of ", DataTypeName(dtype), ", got ",
                     DataTypeName(p.dtype()), " ", ops::TfShapeText(p.shape())));
  }
  std::memcpy(&pad, p.raw_data(), sizeof(E));
  return pad;
}

absl::Status ComputeDiag(KernelContext &ctx) {
  const Tensor &diag = ctx.input(0);
  DiagBand band;
  DiagAlign align;
  if (absl::Status s = ReadBandAndAlign(ctx, 1, false, &band, &align); !s.ok()) return s;
  int64_t rows = -1, cols = -1;
  if (ctx.num_inputs() > 1) {
    absl::StatusOr<int64_t> r = ScalarInput(ctx.input(2), "num_rows");
    if (!r.ok()) return r.status();
    absl::StatusOr<int64_t> c = ScalarInput(ctx.input(3), "num_cols");
    if (!c.ok()) return c.status();
    rows = *r;
    cols = *c;
  }
  absl::StatusOr<Shape> shape = ops::MatrixDiagShape(diag.shape(), band, rows, cols);
  if (!shape.ok()) return shape.status();
  rows = (*shape)[shape->size() - 2];
  cols = (*shape)[shape->size() - 1];
  const int64_t max_len = diag.dim(diag.rank() - 1);
  return VisitElementType(diag.dtype(), [&](auto tag) -> absl::Status {
    using E = typename decltype(tag)::type;
    if constexpr (std::is_same_v<E, std::string>) {
      return absl::UnimplementedError("the MatrixDiag ops take no strings, as in TensorFlow");
    } else {
      absl::StatusOr<E> pad = Padding<E>(ctx, 4, diag.dtype());
      if (!pad.ok()) return pad.status();
      absl::StatusOr<Tensor *> out = ctx.allocate_output_for_overwrite(0, diag.dtype(), *shape);
      if (!out.ok()) return out.status();
      if ((*out)->num_elements() == 0) return absl::OkStatus();
      const int64_t batches = (*out)->num_elements() / (rows * cols);
      const int64_t per_batch = band.count() * max_len;
      const E *in = static_cast<const E *>(diag.raw_data());
      E *y = static_cast<E *>((*out)->raw_data());
      ParallelFor(batches, std::max<int64_t>(1, 4096 / (rows * cols)), 1,
                  [&](int64_t begin, int64_t end) {
                    for (int64_t b = begin; b < end; ++b) {
                      for (int64_t i = 0; i < rows; ++i) {
                        E *row = y + (b * rows + i) * cols;
                        for (int64_t j = 0; j < cols; ++j) {
                          const int64_t d = j - i;
                          if (d < band.lower || d > band.upper) {
                            row[j] = *pad;
                            continue;
                          }
                          const DiagPlace p = Place(d, max_len, rows, cols, align);
                          row[j] = in[b * per_batch + (band.upper - d) * max_len + j -
                                      std::max<int64_t>(d, 0) + p.offset];
                        }
                      }
                    }
                  });
      return absl::OkStatus();
    }
  });
}

absl::Status ComputeDiagPart(KernelContext &ctx) {
  const Tensor &in = ctx.input(0);
  DiagBand band;
  DiagAlign align;
  if (absl::Status s = ReadBandAndAlign(ctx, 1, false, &band, &align); !s.ok()) return s;
  return VisitElementType(in.dtype(), [&](auto tag) -> absl::Status {
    using E = typename decltype(tag)::type;
    if constexpr (std::is_same_v<E, std::string>) {
      return absl::UnimplementedError("the MatrixDiag ops take no strings, as in TensorFlow");
    } else {
      absl::StatusOr<E> pad = Padding<E>(ctx, 2, in.dtype());
      if (!pad.ok()) return pad.status();
      absl::StatusOr<Shape> shape = ops::MatrixDiagPartShape(in.shape(), band);
      if (!shape.ok()) return shape.status();
      absl::StatusOr<Tensor *> out = ctx.allocate_output_for_overwrite(0, in.dtype(), *shape);
      if (!out.ok()) return out.status();
      const int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
      const int64_t max_len = shape->back();
      if ((*out)->num_elements() == 0) return absl::OkStatus();
      const int64_t batches = (*out)->num_elements() / (band.count() * max_len);
      const E *x = static_cast<const E *>(in.raw_data());
      E *y = static_cast<E *>((*out)->raw_data());
      ParallelFor(batches, std::max<int64_t>(1, 4096 / (band.count() * max_len)), 1,
                  [&](int64_t begin, int64_t end) {
                    for (int64_t b = begin; b < end; ++b) {
                      const E *m = x + b * rows * cols;
                      for (int64_t k = 0; k < band.count(); ++k) {
                        const int64_t d = band.upper - k;
                        E *row = y + (b * band.count() + k) * max_len;
                        const DiagPlace p = Place(d, max_len, rows, cols, align);
                        const int64_t r0 = std::max<int64_t>(0, -d), c0 = std::max<int64_t>(0, d);
                        std::fill(row, row + max_len, *pad);
                        for (int64_t n = 0; n < p.len; ++n) {
                          row[p.offset + n] = m[(n + r0) * cols + n + c0];
                        }
                      }
                    }
                  });
      return absl::OkStatus();
    }
  });
}

absl::Status ComputeSetDiag(KernelContext &ctx) {
  const Tensor &in = ctx.input(0), &diag = ctx.input(1);
  DiagBand band;
  DiagAlign align;
  if (absl::Status s = ReadBandAndAlign(ctx, 2, true, &band, &align); !s.ok()) return s;
  if (diag.dtype() != in.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("diagonal must be ", DataTypeName(in.dtype()),
                                                   ", got ", DataTypeName(diag.dtype())));
  }
  if (absl::Status s = ops::CheckSetDiagShapes(in.shape(), diag.shape(), band); !s.ok()) {
    return s;
  }
  return VisitElementType(in.dtype(), [&](auto tag) -> absl::Status {
    using E = typename decltype(tag)::type;
    if constexpr (std::is_same_v<E, std::string>) {
      return absl::UnimplementedError("the MatrixDiag ops take no strings, as in TensorFlow");
    } else {
      absl::StatusOr<Tensor *> out = ctx.allocate_output_for_overwrite(0, in.dtype(), in.shape());
      if (!out.ok()) return out.status();
      if (in.num_elements() == 0) return absl::OkStatus();
      const int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
      const int64_t max_len = diag.dim(diag.rank() - 1);
      const int64_t batches = in.num_elements() / (rows * cols);
      const E *x = static_cast<const E *>(in.raw_data());
      const E *dv = static_cast<const E *>(diag.raw_data());
      E *y = static_cast<E *>((*out)->raw_data());
      std::memcpy(y, x, in.num_elements() * sizeof(E));
      for (int64_t b = 0; b < batches; ++b) {
        E *m = y + b * rows * cols;
        for (int64_t k = 0; k < band.count(); ++k) {
          const int64_t d = band.upper - k;
          const E *src = dv + (b * band.count() + k) * max_len;
          const DiagPlace p = Place(d, max_len, rows, cols, align);
          const int64_t r0 = std::max<int64_t>(0, -d), c0 = std::max<int64_t>(0, d);
          for (int64_t n = 0; n < p.len; ++n) m[(n + r0) * cols + n + c0] = src[n + p.offset];
        }
      }
      return absl::OkStatus();
    }
  });
}

// TensorFlow's POD types: every fixed-size dtype smrt has.
std::vector<DataType> PodTypes() {
  std::vector<DataType> types;
  for (DataType t : ArrayTypes()) {
    if (t != DataType::kString) types.push_back(t);
  }
  return types;
}

}  // namespace

void RegisterMatrixDiagOps(KernelRegistry &r) {
  for (const char *op : {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3", "BatchMatrixDiag"}) {
    r.AddKernel({op, kCpu, "T", PodTypes(), ComputeDiag});
  }
  for (const char *op :
       {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3", "BatchMatrixDiagPart"}) {
    r.AddKernel({op, kCpu, "T", PodTypes(), ComputeDiagPart});
  }
  for (const char *op :
       {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3", "BatchMatrixSetDiag"}) {
    r.AddKernel({op, kCpu, "T", PodTypes(), ComputeSetDiag});
  }
}

}  // namespace smrt::kernels
