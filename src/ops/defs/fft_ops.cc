// Discrete Fourier transforms over the innermost 1, 2 or 3 dims (the others
// are a batch), as TensorFlow's: FFT/IFFT{,2D,3D} complex to complex of the
// same shape; RFFT{,2D,3D} real to complex, the innermost dims become
// fft_length (the last fft_length/2 + 1); IRFFT{,2D,3D} complex to real, the
// innermost dims become fft_length. The input must be at least as long as
// fft_length (at least fft_length/2 + 1 innermost for IRFFT): the kernel cuts
// it, tf.signal pads a short one with a Pad before the op.
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"
#include "ops/shape_text.h"

namespace smrt::ops {
namespace {

enum class Kind { kComplex, kForwardReal, kInverseReal };

DataType RealOf(DataType complex) {
  return complex == DataType::kComplex128 ? DataType::kDouble : DataType::kFloat;
}

InferFn InferFft(int rank, Kind kind) {
  return [rank, kind](InferenceContext& ctx) -> absl::Status {
    const PartialShape& in = ctx.input(0).shape;
    if (in.known_rank && in.rank() < rank) {
      return AtNode(
          ctx, absl::InvalidArgumentError(absl::StrCat("Input must have rank of at least ", rank,
                                                       " but got: ", TfShapeText(in.dims))));
    }
    if (kind == Kind::kComplex) {
      absl::StatusOr<DataType> t = InferredType(ctx, "Tcomplex", 0);
      if (!t.ok()) return t.status();
      ctx.set_output(0, ValueInfo{*t, in});
      return absl::OkStatus();
    }
    absl::StatusOr<DataType> tcomplex =
        ctx.attrs().GetOr<DataType>("Tcomplex", DataType::kComplex64);
    if (!tcomplex.ok()) return AtNode(ctx, tcomplex.status());
    absl::StatusOr<DataType> treal = ctx.attrs().GetOr<DataType>("Treal", RealOf(*tcomplex));
    if (!treal.ok()) return AtNode(ctx, treal.status());
    const DataType in_type = kind == Kind::kForwardReal ? *treal : *tcomplex;
    const DataType out_type = kind == Kind::kForwardReal ? *tcomplex : *treal;
    if (ctx.input(0).dtype != DataType::kInvalid && ctx.input(0).dtype != in_type) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "input is ", DataTypeName(ctx.input(0).dtype), " but attr ",
                             kind == Kind::kForwardReal ? "Treal" : "Tcomplex", " is ",
                             DataTypeName(in_type))));
    }
    const PartialShape& length_shape = ctx.input(1).shape;
    if (length_shape.known_rank &&
        (length_shape.rank() != 1 || (length_shape.dims[0] >= 0 && length_shape.dims[0] != rank))) {
      return AtNode(
          ctx, absl::InvalidArgumentError(absl::StrCat("fft_length must have shape [", rank, "]")));
    }
    if (!in.known_rank) {
      ctx.set_output(0, ValueInfo{out_type, PartialShape::Unknown()});
      return absl::OkStatus();
    }
    PartialShape out = in;
    const int first = in.rank() - rank;
    std::optional<std::vector<int64_t>> lengths = ConstInts(ctx, 1);
    for (int i = 0; i < rank; ++i) {
      if (!lengths.has_value() || static_cast<int>(lengths->size()) != rank) {
        out.dims[first + i] = -1;
        continue;
      }
      const int64_t n = (*lengths)[i];
      if (n < 0) {
        return AtNode(ctx, absl::InvalidArgumentError(
                               absl::StrCat("fft_length[", i, "] must >= 0, but got: ", n)));
      }
      const bool innermost = i == rank - 1;
      out.dims[first + i] = kind == Kind::kForwardReal && innermost && n != 0 ? n / 2 + 1 : n;
    }
    ctx.set_output(0, ValueInfo{out_type, out});
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterFftOps(OpRegistry& r) {
  const char* suffixes[] = {"", "2D", "3D"};
  for (int rank = 1; rank <= 3; ++rank) {
    const char* s = suffixes[rank - 1];
    for (const char* op : {"FFT", "IFFT"}) {
      r.AddOp({absl::StrCat(op, s),
               {{"Tcomplex", AttrValue(DataType::kComplex64)}},
               InferFft(rank, Kind::kComplex)});
    }
    r.AddOp(
        {absl::StrCat("RFFT", s),
         {{"Treal", AttrValue(DataType::kFloat)}, {"Tcomplex", AttrValue(DataType::kComplex64)}},
         InferFft(rank, Kind::kForwardReal)});
    r.AddOp(
        {absl::StrCat("IRFFT", s),
         {{"Treal", AttrValue(DataType::kFloat)}, {"Tcomplex", AttrValue(DataType::kComplex64)}},
         InferFft(rank, Kind::kInverseReal)});
  }
}

}  // namespace smrt::ops
