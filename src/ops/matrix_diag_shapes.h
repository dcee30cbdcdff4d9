// What the MatrixDiag family's definitions (ops/defs/matrix_diag_ops.cc) and
// kernels check alike: the band of diagonals k, the align attr, and the
// shapes of MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3} and
// MatrixSetDiag{,V2,V3}, with the messages and in the order of TensorFlow's
// CPU kernels (matrix_diag_op.cc, matrix_set_diag_op.cc). Header-only.
#ifndef SMRT_OPS_MATRIX_DIAG_SHAPES_H_
#define SMRT_OPS_MATRIX_DIAG_SHAPES_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "ops/shape_fns.h"
#include "ops/shape_text.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// Diagonals lower..upper (0 is the main one, > 0 above it).
struct DiagBand {
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t count() const { return upper - lower + 1; }
};

// Which side a diagonal shorter than the longest is packed against, for
// superdiagonals and subdiagonals (align "RIGHT_LEFT": superdiagonals to the
// right, subdiagonals to the left). V1 and V2 ops pack both to the left.
struct DiagAlign {
  bool left_super = true;
  bool left_sub = true;
};

// k as a scalar or a vector of one or two elements. MatrixSetDiag also
// refuses an empty k (`require_element`) with its own message.
inline absl::StatusOr<DiagBand> ReadDiagBand(const Tensor& k, bool require_element) {
  if (k.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index must be a scalar or vector, received shape: ", TfShapeText(k.shape())));
  }
  if (require_element && k.num_elements() == 0) {
    return absl::InvalidArgumentError("diag_index must have at least one element");
  }
  if (k.rank() == 1 && (k.dim(0) < 1 || k.dim(0) > 2)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index must have only one or two elements, received ", k.dim(0), " elements."));
  }
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(k);
  if (!v.ok()) return v.status();
  DiagBand band;
  band.lower = band.upper = (*v)[0];
  if (v->size() > 1) band.upper = (*v)[1];
  return band;
}

// The align attr of the V3 ops (TensorFlow's default "RIGHT_LEFT").
inline absl::StatusOr<DiagAlign> ReadDiagAlign(const AttrMap& attrs) {
  absl::StatusOr<std::string> align = attrs.GetOr<std::string>("align", "RIGHT_LEFT");
  if (!align.ok()) return align.status();
  if (*align != "LEFT_RIGHT" && *align != "RIGHT_LEFT" && *align != "LEFT_LEFT" &&
      *align != "RIGHT_RIGHT") {
    return absl::InvalidArgumentError(absl::StrCat(
        "align must be one of LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT, RIGHT_RIGHT; got ", *align));
  }
  return DiagAlign{*align == "LEFT_LEFT" || *align == "LEFT_RIGHT",
                   *align == "LEFT_LEFT" || *align == "RIGHT_LEFT"};
}

// MatrixDiag's output shape for `diag` and the band, num_rows and num_cols
// (-1: the least that holds the band, square when both are -1).
inline absl::StatusOr<Shape> MatrixDiagShape(const Shape& diag, const DiagBand& band,
                                             int64_t num_rows, int64_t num_cols) {
  const int rank = static_cast<int>(diag.size());
  if (rank < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("diagonal must be at least 1-dim, received shape: ", TfShapeText(diag)));
  }
  if (band.lower > band.upper) {
    return absl::InvalidArgumentError(
        absl::StrCat("lower_diag_index must not be larger than upper_diag_index: ", band.lower,
                     " > ", band.upper));
  }
  if (band.lower != band.upper && (rank < 2 || diag[rank - 2] != band.count())) {
    return absl::InvalidArgumentError(
        "The number of diagonals provided in the input does not match the lower_diag_index and "
        "upper_diag_index range.");
  }
  const int64_t max_diag_len = diag[rank - 1];
  const int64_t min_rows = max_diag_len - std::min<int64_t>(band.upper, 0);
  const int64_t min_cols = max_diag_len + std::max<int64_t>(band.lower, 0);
  if (num_rows != -1 && num_rows < min_rows) {
    return absl::InvalidArgumentError("The number of rows is too small.");
  }
  if (num_cols != -1 && num_cols < min_cols) {
    return absl::InvalidArgumentError("The number of columns is too small.");
  }
  if (num_rows == -1 && num_cols == -1) {
    num_rows = num_cols = std::max(min_rows, min_cols);
  } else if (num_rows == -1) {
    num_rows = min_rows;
  } else if (num_cols == -1) {
    num_cols = min_cols;
  }
  if (num_rows != min_rows && num_cols != min_cols) {
    return absl::InvalidArgumentError(
        "The number of rows or columns is not consistent with the specified d_lower, d_upper, "
        "and diagonal.");
  }
  Shape out = diag;
  if (band.count() == 1) {
    out[rank - 1] = num_rows;
    out.push_back(num_cols);
  } else {
    out[rank - 2] = num_rows;
    out[rank - 1] = num_cols;
  }
  return out;
}

// The bounds check MatrixDiagPart and MatrixSetDiag share (their messages
// differ by a period).
inline absl::Status CheckDiagBounds(const Shape& in, const DiagBand& band, bool part) {
  const int64_t rows = in[in.size() - 2], cols = in[in.size() - 1];
  if (!((-rows < band.lower && band.lower < cols) || band.lower == 0)) {
    return absl::InvalidArgumentError(absl::StrCat("lower_diag_index is out of bound: ", band.lower,
                                                   part ? ". " : " ", "It must be between ", -rows,
                                                   " and ", cols));
  }
  if (!((-rows < band.upper && band.upper < cols) || band.upper == 0)) {
    return absl::InvalidArgumentError(absl::StrCat("upper_diag_index is out of bound: ", band.upper,
                                                   " It must be between ", -rows, " and ", cols));
  }
  if (band.lower > band.upper) {
    return absl::InvalidArgumentError(
        absl::StrCat("lower_diag_index must not be larger than upper_diag_index: ", band.lower,
                     " > ", band.upper));
  }
  return absl::OkStatus();
}

// The length of the longest diagonal of the band in a rows x cols matrix.
inline int64_t MaxDiagLen(int64_t rows, int64_t cols, const DiagBand& band) {
  return std::min(rows + std::min<int64_t>(band.upper, 0), cols - std::max<int64_t>(band.lower, 0));
}

// MatrixDiagPart's output shape: [..., num_diags (when > 1), max_diag_len].
inline absl::StatusOr<Shape> MatrixDiagPartShape(const Shape& in, const DiagBand& band) {
  if (in.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be at least 2-dim, received shape: ", TfShapeText(in)));
  }
  if (absl::Status s = CheckDiagBounds(in, band, /*part=*/true); !s.ok()) return s;
  Shape out(in.begin(), in.end() - 2);
  if (band.count() > 1) out.push_back(band.count());
  out.push_back(MaxDiagLen(in[in.size() - 2], in[in.size() - 1], band));
  return out;
}

// MatrixSetDiag: `diag` must be what MatrixDiagPart of `in` would give.
inline absl::Status CheckSetDiagShapes(const Shape& in, const Shape& diag, const DiagBand& band) {
  if (in.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be at least 2-dim, received shape: ", TfShapeText(in)));
  }
  if (diag.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("diagonal must be at least 1-dim, received shape: ", TfShapeText(diag)));
  }
  if (absl::Status s = CheckDiagBounds(in, band, /*part=*/false); !s.ok()) return s;
  const size_t r = in.size() - 2;
  if (band.lower != band.upper && (diag.size() <= r || diag[r] != band.count())) {
    return absl::InvalidArgumentError(
        "The number of diagonals provided in `diag` is not consistent with `lower_diag_index` "
        "and `upper_diag_index`");
  }
  Shape expected(in.begin(), in.end() - 2);
  if (band.count() > 1) expected.push_back(band.count());
  expected.push_back(MaxDiagLen(in[r], in[r + 1], band));
  if (expected != diag) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] "
        "is not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].\n"
        "Input shape: ",
        TfShapeText(in), "\nDiagonal shape: ", TfShapeText(diag),
        "\nExpected diagonal shape: ", TfShapeText(expected)));
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_MATRIX_DIAG_SHAPES_H_
