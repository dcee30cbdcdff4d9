// FFT, IFFT, RFFT, IRFFT and their 2D and 3D forms on the CPU, with
// TensorFlow's semantics (tensorflow/core/kernels/fft_ops.cc): the transform
// runs over the innermost 1, 2 or 3 dims, the others are a batch; RFFT and
// IRFFT cut their input to fft_length (IRFFT's innermost dim to
// fft_length/2 + 1) and refuse a shorter one; inverse transforms scale by
// 1/n; IRFFT ignores the imaginary parts of the DC and (even n) Nyquist terms,
// as a real inverse of a Hermitian spectrum does.
//
// The transforms are Eigen's Tensor FFT (unsupported/Eigen/CXX11/Tensor:
// radix-2 for powers of two, Bluestein otherwise), which TensorFlow's own CPU
// kernels used before DUCC. Eigen is already a dependency; FFTW is GPL, which
// an embeddable runtime must not link, and Debian has no PocketFFT package.
// Eigen's float32 transform builds its twiddle factors by recurrence and
// drifts (a length-512 RFFT was 3e-6 of the largest term off TensorFlow's
// DUCC, a round trip 1e-5), so float32 is transformed in float64 and rounded
// once at the end: within float32 rounding of TensorFlow's.
// IRFFT follows TensorFlow's Eigen-era kernel: inverse transforms over the
// outer axes, the innermost half spectrum completed by Hermitian symmetry,
// then a complex inverse whose real part is the output.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/kernel_util.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::DataTypes;
using elementwise::TypeList;
using ops::TfShapeText;

enum class Kind { kComplex, kForwardReal, kInverseReal };

using Index = Eigen::DenseIndex;
template <int N>
using Dims = Eigen::DSizes<Index, N>;

// What one call transforms: the input seen as [batch, in_dims...], the output
// as [batch, out_dims...], and the transform lengths.
template <int Rank>
struct Plan {
  Index batch = 1;
  Dims<Rank + 1> in;  // dim 0: this shard's batch
  Dims<Rank + 1> out;
  Dims<Rank> length;  // fft_length (the input's dims for FFT/IFFT)
};

template <int Rank>
Eigen::array<int, Rank> InnerAxes() {
  Eigen::array<int, Rank> axes;
  for (int i = 0; i < Rank; ++i) axes[i] = i + 1;
  return axes;
}

// Every transform computes in double (D, Z); R and C are the stored types.
using Z = std::complex<double>;

template <typename R, int Rank>
void ComplexTransform(const std::complex<R>* x, std::complex<R>* y, Dims<Rank + 1> dims,
                      bool forward) {
  using C = std::complex<R>;
  Eigen::TensorMap<const Eigen::Tensor<C, Rank + 1, Eigen::RowMajor, Index>> in(x, dims);
  Eigen::TensorMap<Eigen::Tensor<C, Rank + 1, Eigen::RowMajor, Index>> out(y, dims);
  Eigen::Tensor<Z, Rank + 1, Eigen::RowMajor, Index> z = in.template cast<Z>();
  if (forward) {
    z = z.template fft<Eigen::BothParts, Eigen::FFT_FORWARD>(InnerAxes<Rank>());
  } else {
    z = z.template fft<Eigen::BothParts, Eigen::FFT_REVERSE>(InnerAxes<Rank>());
  }
  out = z.template cast<C>();
}

// RFFT: the input cut to the fft lengths, a full complex transform, its first
// n/2 + 1 terms along the innermost axis.
template <typename R, int Rank>
void ForwardReal(const R* x, std::complex<R>* y, const Plan<Rank>& p) {
  using C = std::complex<R>;
  Eigen::TensorMap<const Eigen::Tensor<R, Rank + 1, Eigen::RowMajor, Index>> in(x, p.in);
  Eigen::TensorMap<Eigen::Tensor<C, Rank + 1, Eigen::RowMajor, Index>> out(y, p.out);
  Dims<Rank + 1> start, full_dims;
  full_dims[0] = p.in[0];
  for (int i = 0; i < Rank; ++i) full_dims[i + 1] = p.length[i];
  // Cut, then widen: a float -> double cast of the slice expression itself
  // gave garbage values with Debian's Eigen 3.4; a cast of a tensor does not.
  const Eigen::Tensor<R, Rank + 1, Eigen::RowMajor, Index> cut = in.slice(start, full_dims);
  Eigen::Tensor<double, Rank + 1, Eigen::RowMajor, Index> real = cut.template cast<double>();
  Eigen::Tensor<Z, Rank + 1, Eigen::RowMajor, Index> full(full_dims);
  full = real.template fft<Eigen::BothParts, Eigen::FFT_FORWARD>(InnerAxes<Rank>());
  out = full.slice(start, p.out).template cast<C>();
}

// IRFFT: the input cut to [fft lengths..., n/2 + 1], inverse transforms over
// the outer axes, the innermost spectrum completed (term n - k is the
// conjugate of term k), and the real part of its inverse.
template <typename R, int Rank>
void InverseReal(const std::complex<R>* x, R* y, const Plan<Rank>& p) {
  using C = std::complex<R>;
  Eigen::TensorMap<const Eigen::Tensor<C, Rank + 1, Eigen::RowMajor, Index>> in(x, p.in);
  Eigen::TensorMap<Eigen::Tensor<R, Rank + 1, Eigen::RowMajor, Index>> out(y, p.out);
  const Index n = p.length[Rank - 1];
  const Index half = n / 2 + 1;
  Dims<Rank + 1> start, full_dims, half_dims;
  full_dims[0] = half_dims[0] = p.in[0];
  for (int i = 0; i < Rank; ++i) full_dims[i + 1] = half_dims[i + 1] = p.length[i];
  half_dims[Rank] = half;
  Eigen::Tensor<Z, Rank + 1, Eigen::RowMajor, Index> full(full_dims);
  full.slice(start, half_dims) = in.slice(start, half_dims).template cast<Z>();
  if constexpr (Rank > 1) {
    Eigen::array<int, Rank - 1> outer;
    for (int i = 0; i < Rank - 1; ++i) outer[i] = i + 1;
    full.slice(start, half_dims) =
        full.slice(start, half_dims).template fft<Eigen::BothParts, Eigen::FFT_REVERSE>(outer);
  }
  if (const Index negative = n - half; negative > 0) {
    Dims<Rank + 1> from, to, sizes = half_dims;
    from[Rank] = 1;
    to[Rank] = half;
    sizes[Rank] = negative;
    Eigen::array<bool, Rank + 1> reverse;
    for (int i = 0; i <= Rank; ++i) reverse[i] = i == Rank;
    full.slice(to, sizes) = full.slice(from, sizes).reverse(reverse).conjugate();
  }
  Eigen::Tensor<double, Rank + 1, Eigen::RowMajor, Index> real =
      full.template fft<Eigen::RealPart, Eigen::FFT_REVERSE>(Eigen::array<int, 1>{Rank});
  out = real.template cast<R>();
}

// Checks as TensorFlow's FFTBase::Compute, then the output's shape.
absl::StatusOr<Shape> OutputShape(KernelContext& ctx, int rank, Kind kind,
                                  std::vector<int64_t>* lengths) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < rank) {
    return absl::InvalidArgumentError(absl::StrCat("Input must have rank of at least ", rank,
                                                   " but got: ", TfShapeText(x.shape())));
  }
  Shape out = x.shape();
  const int first = x.rank() - rank;
  if (kind == Kind::kComplex) {
    lengths->assign(out.begin() + first, out.end());
    return out;
  }
  const Tensor& fft_length = ctx.input(1);
  if (fft_length.rank() != 1 || fft_length.dim(0) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("fft_length must have shape [", rank, "]"));
  }
  absl::StatusOr<std::vector<int64_t>> n = ToInt64s(fft_length);
  if (!n.ok()) return n.status();
  *lengths = *n;
  for (int i = 0; i < rank; ++i) {
    if ((*n)[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("fft_length[", i, "] must >= 0, but got: ", (*n)[i]));
    }
    const bool innermost = i == rank - 1;
    const int64_t least = kind == Kind::kInverseReal && innermost ? (*n)[i] / 2 + 1 : (*n)[i];
    const int64_t dim = x.dim(first + i);
    if (dim != 0 && dim < least) {
      return absl::InvalidArgumentError(absl::StrCat("Input dimension ", first + i,
                                                     " must have length of at least ", least,
                                                     " but got: ", dim));
    }
    out[first + i] =
        kind == Kind::kForwardReal && innermost && (*n)[i] != 0 ? (*n)[i] / 2 + 1 : (*n)[i];
  }
  return out;
}

// The output's dtype from the attrs, checked against the input's as
// TensorFlow's kernel does.
absl::StatusOr<DataType> OutputType(const KernelContext& ctx, Kind kind) {
  const DataType in = ctx.input(0).dtype();
  if (kind == Kind::kComplex) {
    if (in != DataType::kComplex64 && in != DataType::kComplex128) {
      return absl::InvalidArgumentError(
          absl::StrCat("Wrong types for FFT: in=", DataTypeName(in), " out=", DataTypeName(in)));
    }
    return in;
  }
  absl::StatusOr<DataType> attr = ctx.attrs().GetOr<DataType>(
      kind == Kind::kForwardReal ? "Tcomplex" : "Treal",
      kind == Kind::kForwardReal ? DataType::kComplex64 : DataType::kFloat);
  if (!attr.ok()) return attr.status();
  const bool single = in == DataType::kFloat || in == DataType::kComplex64;
  const bool ok = kind == Kind::kForwardReal
                      ? (single ? *attr == DataType::kComplex64 && in == DataType::kFloat
                                : *attr == DataType::kComplex128 && in == DataType::kDouble)
                      : (single ? *attr == DataType::kFloat && in == DataType::kComplex64
                                : *attr == DataType::kDouble && in == DataType::kComplex128);
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("Wrong types for ", kind == Kind::kForwardReal ? "forward" : "backward",
                     " real FFT: in=", DataTypeName(in), " out=", DataTypeName(*attr)));
  }
  return *attr;
}

template <typename R, int Rank>
absl::Status Transform(KernelContext& ctx, Kind kind, bool forward) {
  using C = std::complex<R>;
  absl::StatusOr<DataType> out_type = OutputType(ctx, kind);
  if (!out_type.ok()) return out_type.status();
  std::vector<int64_t> lengths;
  absl::StatusOr<Shape> out_shape = OutputShape(ctx, Rank, kind, &lengths);
  if (!out_shape.ok()) return out_shape.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *out_type, *out_shape);
  if (!out.ok()) return out.status();
  // An empty input gives zeros (TensorFlow leaves them unset), an empty
  // output nothing to compute.
  if (x.num_elements() == 0 || (*out)->num_elements() == 0) return absl::OkStatus();

  Plan<Rank> p;
  const int first = x.rank() - Rank;
  for (int d = 0; d < first; ++d) p.batch *= x.dim(d);
  Index in_inner = 1, out_inner = 1;
  for (int i = 0; i < Rank; ++i) {
    p.in[i + 1] = x.dim(first + i);
    p.out[i + 1] = (*out_shape)[first + i];
    p.length[i] = lengths[i];
    in_inner *= p.in[i + 1];
    out_inner *= p.out[i + 1];
  }
  // Batches are independent: each shard transforms a run of them.
  const int64_t work = std::max(in_inner, out_inner) * 8;  // a few passes per element
  ParallelFor(p.batch, std::max<int64_t>(1, kMinShardElements / work), 1,
              [&](int64_t begin, int64_t end) {
                Plan<Rank> shard = p;
                shard.in[0] = shard.out[0] = end - begin;
                if (kind == Kind::kComplex) {
                  ComplexTransform<R, Rank>(x.data<C>() + begin * in_inner,
                                            (*out)->template data<C>() + begin * out_inner,
                                            shard.in, forward);
                } else if (kind == Kind::kForwardReal) {
                  ForwardReal<R, Rank>(x.data<R>() + begin * in_inner,
                                       (*out)->template data<C>() + begin * out_inner, shard);
                } else {
                  InverseReal<R, Rank>(x.data<C>() + begin * in_inner,
                                       (*out)->template data<R>() + begin * out_inner, shard);
                }
              });
  return absl::OkStatus();
}

template <int Rank>
ComputeFn FftCompute(Kind kind, bool forward) {
  return [kind, forward](KernelContext& ctx) -> absl::Status {
    const DataType in = ctx.input(0).dtype();
    const bool dbl = in == DataType::kDouble || in == DataType::kComplex128;
    return AtNode(ctx, dbl ? Transform<double, Rank>(ctx, kind, forward)
                           : Transform<float, Rank>(ctx, kind, forward));
  };
}

template <int Rank>
void AddFftOps(KernelRegistry& r, const std::string& suffix) {
  const std::vector<DataType> complex_types = DataTypes(elementwise::ComplexTypes{});
  const std::vector<DataType> real_types = DataTypes(TypeList<float, double>{});
  r.AddKernel({"FFT" + suffix, kCpu, "Tcomplex", complex_types,
               FftCompute<Rank>(Kind::kComplex, /*forward=*/true)});
  r.AddKernel({"IFFT" + suffix, kCpu, "Tcomplex", complex_types,
               FftCompute<Rank>(Kind::kComplex, /*forward=*/false)});
  r.AddKernel({"RFFT" + suffix, kCpu, "Treal", real_types,
               FftCompute<Rank>(Kind::kForwardReal, /*forward=*/true)});
  r.AddKernel({"IRFFT" + suffix, kCpu, "Treal", real_types,
               FftCompute<Rank>(Kind::kInverseReal, /*forward=*/false)});
}

}  // namespace

void RegisterFftOps(KernelRegistry& r) {
  AddFftOps<1>(r, "");
  AddFftOps<2>(r, "2D");
  AddFftOps<3>(r, "3D");
}

}  // namespace smrt::kernels
