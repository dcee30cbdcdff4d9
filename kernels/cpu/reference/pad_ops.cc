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
#include "kernels/shared/array_util.h"
#include "kernels/shared/pad_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status ComputePad(KernelContext& ctx, absl::string_view op, PadMode mode) {
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  absl::StatusOr<std::vector<Padding>> pads = ReadPaddings(op, ctx.input(1), rank);
  if (!pads.ok()) return pads.status();
  const Tensor* constant = nullptr;
  if (op == "PadV2") {
    constant = &ctx.input(2);
    if (absl::Status s = CheckConstantValues(input, *constant); !s.ok()) return s;
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
