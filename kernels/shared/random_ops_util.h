// Glue shared by the stateful (random_ops.cc) and stateless
// (stateless_random_ops.cc) random kernels: reading the shape input, filling
// a tensor of a runtime dtype from a Philox stream, multinomial sampling.
#ifndef SMRT_KERNELS_SHARED_RANDOM_OPS_UTIL_H_
#define SMRT_KERNELS_SHARED_RANDOM_OPS_UTIL_H_

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/shared/philox.h"
#include "kernels/shared/random_distributions.h"
#include "kernels/kernel.h"

namespace smrt::kernels::random {

// The node's generator (a Resource of the loaded model, seeded as
// TensorFlow's GuardedPhiloxRandom) positioned at the start of `blocks`
// blocks it reserves for this call; outside a loaded model (no node
// resource) each call starts from the node's seeds afresh. For any device's
// kernel of a stateful random op (random_ops.cc).
absl::StatusOr<Philox> ReserveBlocks(KernelContext& ctx, uint64_t blocks);

// The output shape from a shape input: a vector (or scalar) of int32/int64.
inline absl::StatusOr<std::vector<int64_t>> OutputDims(const Tensor& shape) {
  if (shape.shape().size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be a vector of {int32,int64}, got shape ", ShapeToString(shape.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> dims = ToInt64s(shape);
  if (!dims.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector of {int32,int64}, got ", DataTypeName(shape.dtype())));
  }
  for (int64_t d : *dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape has a negative dimension ", d, ": ", ShapeToString(*dims)));
    }
  }
  return dims;
}

// Fills `out` (of a floating dtype) with Dist<T> for its element type.
template <template <typename> class Dist>
absl::Status FillFloating(const Philox& gen, Tensor& out) {
  const int64_t n = out.num_elements();
  switch (out.dtype()) {
    case DataType::kFloat:
      FillPhilox(gen, out.data<float>(), n, Dist<float>());
      break;
    case DataType::kDouble:
      FillPhilox(gen, out.data<double>(), n, Dist<double>());
      break;
    case DataType::kHalf:
      FillPhilox(gen, out.data<Eigen::half>(), n, Dist<Eigen::half>());
      break;
    case DataType::kBFloat16:
      FillPhilox(gen, out.data<Eigen::bfloat16>(), n, Dist<Eigen::bfloat16>());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("no random kernel for dtype ", DataTypeName(out.dtype())));
  }
  return absl::OkStatus();
}

// Reads a scalar bound of the integer type T (minval/maxval inputs).
template <typename T>
absl::StatusOr<T> ScalarBound(const Tensor& t, const char* name) {
  if (!t.shape().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be 0-D, got shape ", ShapeToString(t.shape())));
  }
  return t.data<T>()[0];
}

// Checks minval/maxval for a uniform integer output of `dtype` (int32 or
// int64) and `elements` elements: same dtype, scalars, and minval < maxval
// unless the output is empty (TensorFlow accepts any bounds for zero
// outputs). Runs before a stateful op reserves its samples, so a failed call
// leaves the stream where it was.
inline absl::Status CheckUniformIntBounds(const Tensor& minval, const Tensor& maxval,
                                          DataType dtype, int64_t elements) {
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    return absl::UnimplementedError(
        absl::StrCat("no uniform integer kernel for dtype ", DataTypeName(dtype)));
  }
  if (minval.dtype() != dtype || maxval.dtype() != dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("minval and maxval must be ", DataTypeName(dtype), ", got ",
                     DataTypeName(minval.dtype()), " and ", DataTypeName(maxval.dtype())));
  }
  auto check = [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    absl::StatusOr<T> lo = ScalarBound<T>(minval, "minval");
    if (!lo.ok()) return lo.status();
    absl::StatusOr<T> hi = ScalarBound<T>(maxval, "maxval");
    if (!hi.ok()) return hi.status();
    if (elements > 0 && !(*lo < *hi)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Need minval < maxval, got ", *lo, " >= ", *hi));
    }
    return absl::OkStatus();
  };
  return dtype == DataType::kInt32 ? check(int32_t{}) : check(int64_t{});
}

// Fills `out` uniformly in [minval, maxval); the bounds passed
// CheckUniformIntBounds.
inline void FillUniformInt(const Philox& gen, const Tensor& minval, const Tensor& maxval,
                           Tensor& out) {
  if (out.num_elements() == 0) return;
  if (out.dtype() == DataType::kInt32) {
    FillPhilox(gen, out.data<int32_t>(), out.num_elements(),
               UniformInt<int32_t>(minval.data<int32_t>()[0], maxval.data<int32_t>()[0]));
  } else {
    FillPhilox(gen, out.data<int64_t>(), out.num_elements(),
               UniformInt<int64_t>(minval.data<int64_t>()[0], maxval.data<int64_t>()[0]));
  }
}

// Checks Multinomial's logits [rows, classes] and num_samples (scalar int32).
struct MultinomialArgs {
  int64_t rows = 0;
  int64_t classes = 0;
  int64_t num_samples = 0;
};
inline absl::StatusOr<MultinomialArgs> ReadMultinomialArgs(const Tensor& logits,
                                                           const Tensor& num_samples) {
  if (logits.shape().size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("logits should be a matrix, got shape ", ShapeToString(logits.shape())));
  }
  if (!num_samples.shape().empty() || num_samples.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat("num_samples should be an int32 scalar, got ",
                                                   DataTypeName(num_samples.dtype()), " of shape ",
                                                   ShapeToString(num_samples.shape())));
  }
  MultinomialArgs a{logits.shape()[0], logits.shape()[1], num_samples.data<int32_t>()[0]};
  if (a.num_samples < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_samples should be non-negative, got ", a.num_samples));
  }
  if (a.classes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_classes should be positive, got ", a.classes));
  }
  return a;
}

// Blocks TensorFlow reserves for one Multinomial call (its CPU kernel counts
// two words per sample and rounds samples up to 4).
inline uint64_t MultinomialReservation(const MultinomialArgs& a) {
  const uint64_t ceil4 = static_cast<uint64_t>((a.num_samples + 3) / 4 * 4) * 2;
  return static_cast<uint64_t>(a.rows) * ceil4 * kReservedBlocksPerOutput;
}

// Samples into `out` ([rows, num_samples], int32 or int64) from logits of a
// floating dtype.
inline absl::Status FillMultinomial(const Philox& gen, const Tensor& logits,
                                    const MultinomialArgs& a, Tensor& out) {
  auto run = [&](auto logit_tag) -> absl::Status {
    using T = decltype(logit_tag);
    if (out.dtype() == DataType::kInt32) {
      SampleMultinomial(gen, logits.data<T>(), a.rows, a.classes, a.num_samples,
                        out.data<int32_t>());
    } else if (out.dtype() == DataType::kInt64) {
      SampleMultinomial(gen, logits.data<T>(), a.rows, a.classes, a.num_samples,
                        out.data<int64_t>());
    } else {
      return absl::UnimplementedError(absl::StrCat(
          "Multinomial output_dtype must be int32 or int64, got ", DataTypeName(out.dtype())));
    }
    return absl::OkStatus();
  };
  switch (logits.dtype()) {
    case DataType::kFloat:
      return run(float{});
    case DataType::kDouble:
      return run(double{});
    case DataType::kHalf:
      return run(Eigen::half{});
    case DataType::kBFloat16:
      return run(Eigen::bfloat16{});
    default:
      return absl::UnimplementedError(
          absl::StrCat("no Multinomial kernel for logits of dtype ", DataTypeName(logits.dtype())));
  }
}

}  // namespace smrt::kernels::random

#endif  // SMRT_KERNELS_SHARED_RANDOM_OPS_UTIL_H_
