// MatrixBandPart: keeps each inner matrix's band (num_lower diagonals below,
// num_upper above; negative keeps the whole triangle) and zeroes the rest.
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "kernels/shared/kernel_util.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

absl::StatusOr<int64_t> Bound(const Tensor &t, const char *name) {
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be scalar, got shape ", ops::TfShapeText(t.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(t);
  if (!v.ok()) return v.status();
  return (*v)[0];
}

absl::Status ComputeBandPart(KernelContext &ctx) {
  const Tensor &in = ctx.input(0);
  if (in.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("input must be at least 2-dim, received shape: ",
                                                   ops::TfShapeText(in.shape())));
  }
  const int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
  absl::StatusOr<int64_t> lower = Bound(ctx.input(1), "num_lower");
  if (!lower.ok()) return lower.status();
  if (*lower > rows) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_lower must be negative or less or equal to number of rows (", rows,
                     ") got: ", *lower));
  }
  absl::StatusOr<int64_t> upper = Bound(ctx.input(2), "num_upper");
  if (!upper.ok()) return upper.status();
  if (*upper > cols) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_upper must be negative or less or equal to number of columns (", cols,
                     ") got: ", *upper));
  }
  absl::StatusOr<Tensor *> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  if (rows == 0 || cols == 0) return absl::OkStatus();
  const int64_t matrices = in.num_elements() / (rows * cols);
  const bool strings = in.dtype() == DataType::kString;
  const size_t elem = strings ? 0 : DataTypeSize(in.dtype());
  // Row r keeps columns [r - lower, r + upper] (clipped); the output starts
  // zeroed, so only the band is copied.
  for (int64_t m = 0; m < matrices; ++m) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t first = *lower < 0 ? 0 : std::max<int64_t>(0, r - *lower);
      const int64_t last = *upper < 0 ? cols : std::min<int64_t>(cols, r + *upper + 1);
      if (first >= last) continue;
      const int64_t at = (m * rows + r) * cols + first;
      if (strings) {
        for (int64_t c = 0; c < last - first; ++c) {
          (*out)->data<std::string>()[at + c] = in.data<std::string>()[at + c];
        }
      } else {
        std::memcpy(static_cast<char *>((*out)->raw_data()) + at * elem,
                    static_cast<const char *>(in.raw_data()) + at * elem, (last - first) * elem);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterMatrixOps(KernelRegistry &r) {
  r.AddKernel({"MatrixBandPart", kCpu, "", {}, ComputeBandPart});
  r.AddKernel({"BatchMatrixBandPart", kCpu, "", {}, ComputeBandPart});  // deprecated name
}

}  // namespace smrt::kernels
