#include "ops/space_batch_shapes.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array_shapes.h"

namespace smrt::ops {
namespace {

// Reads block_shape (1-D, positive) and the (M, 2) paddings/crops matrix
// (non-negative). `what` is "paddings" or "crops".
absl::StatusOr<BlockSpec> ReadNdBlockSpec(absl::string_view op, const Tensor& block_shape,
                                          const Tensor& amounts, absl::string_view what) {
  if (block_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": block_shape must be one-dimensional, got shape ",
                     ShapeToString(block_shape.shape())));
  }
  const int64_t m = block_shape.dim(0);
  if (amounts.rank() != 2 || amounts.dim(0) != m || amounts.dim(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " must have shape [", m,
                                                   ", 2] for block_shape of length ", m, ", got ",
                                                   ShapeToString(amounts.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> b = IntValues(block_shape, "block_shape");
  if (!b.ok()) return b.status();
  absl::StatusOr<std::vector<int64_t>> a = IntValues(amounts, what);
  if (!a.ok()) return a.status();
  BlockSpec s;
  s.block = *b;
  for (int64_t i = 0; i < m; ++i) {
    if (s.block[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": block_shape must be positive, got [",
                                                     absl::StrJoin(s.block, ", "), "]"));
    }
    if (__builtin_mul_overflow(s.block_product, s.block[i], &s.block_product)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": the product of block_shape [", absl::StrJoin(s.block, ", "), "] overflows int64"));
    }
    const int64_t before = (*a)[2 * i], after = (*a)[2 * i + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " must be non-negative, got (",
                                                     before, ", ", after, ") for block dim ", i));
    }
    s.amount.emplace_back(before, after);
  }
  return s;
}

}  // namespace

bool IsBlockNdOp(absl::string_view op) { return op == "SpaceToBatchND" || op == "BatchToSpaceND"; }

absl::StatusOr<BlockSpec> ReadBlockSpec(absl::string_view op, const AttrMap& attrs,
                                        const Tensor* block, const Tensor& amounts, int input_rank,
                                        bool to_batch) {
  const char* what = to_batch ? "paddings" : "crops";
  if (IsBlockNdOp(op)) return ReadNdBlockSpec(op, *block, amounts, what);
  absl::StatusOr<int64_t> size = attrs.Get<int64_t>("block_size");
  if (!size.ok()) return size.status();
  if (*size < 2) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": block_size should be > 1, got ", *size));
  }
  if (input_rank != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be 4-dimensional, got rank ", input_rank));
  }
  Tensor square = *Tensor::Create(DataType::kInt64, {2});
  square.data<int64_t>()[0] = square.data<int64_t>()[1] = *size;
  return ReadNdBlockSpec(op, square, amounts, what);
}

absl::StatusOr<Shape> BlockOutputShape(absl::string_view op, const Shape& in, const BlockSpec& s,
                                       bool to_batch) {
  const int m = static_cast<int>(s.block.size());
  if (static_cast<int>(in.size()) < 1 + m) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": input rank must be at least ", 1 + m,
                                                   " for block_shape of length ", m,
                                                   ", got input shape ", ShapeToString(in)));
  }
  Shape out = in;
  if (in[0] >= 0) {
    if (to_batch) {
      if (__builtin_mul_overflow(in[0], s.block_product, &out[0])) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": output batch size overflows int64"));
      }
    } else {
      if (in[0] % s.block_product != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": input batch dimension ", in[0],
                         " is not divisible by the product of block_shape [",
                         absl::StrJoin(s.block, ", "), "] (", s.block_product, ")"));
      }
      out[0] = in[0] / s.block_product;
    }
  }
  for (int i = 0; i < m; ++i) {
    const int64_t dim = in[1 + i];
    if (dim < 0) continue;
    const auto [before, after] = s.amount[i];
    if (to_batch) {
      int64_t padded;
      if (__builtin_add_overflow(dim, before, &padded) ||
          __builtin_add_overflow(padded, after, &padded)) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": padded dimension overflows int64"));
      }
      if (padded % s.block[i] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            op, ": padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i,
            "]=", s.block[i], " (input shape ", ShapeToString(in), ")"));
      }
      out[1 + i] = padded / s.block[i];
    } else {
      int64_t full;
      if (__builtin_mul_overflow(dim, s.block[i], &full)) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": uncropped dimension overflows int64"));
      }
      if (before > full - after) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": crops (", before, ", ", after,
                                                       ") for dimension ", i + 1,
                                                       " are larger than the uncropped size ", full,
                                                       " (input shape ", ShapeToString(in), ")"));
      }
      out[1 + i] = full - before - after;
    }
  }
  return out;
}

absl::StatusOr<int64_t> ReadBlockSize(const AttrMap& attrs, absl::string_view op) {
  absl::StatusOr<std::string> format = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format != "NHWC") {
    return absl::UnimplementedError(
        absl::StrCat(op, ": only data_format NHWC is supported, got ", *format));
  }
  absl::StatusOr<int64_t> b = attrs.Get<int64_t>("block_size");
  if (!b.ok()) return b.status();
  if (*b < 2) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": block_size should be > 1, got ", *b));
  }
  if (*b > (int64_t{1} << 30)) {  // keeps block_size^2 within int64
    return absl::InvalidArgumentError(absl::StrCat(op, ": block_size ", *b, " is too large"));
  }
  return *b;
}

absl::StatusOr<Shape> DepthOutputShape(absl::string_view op, const Shape& in, int64_t b,
                                       bool to_depth) {
  if (in.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be 4-dimensional (NHWC), got ", ShapeToString(in)));
  }
  Shape out = in;
  if (to_depth) {
    for (int d : {1, 2}) {
      if (in[d] < 0) continue;
      if (in[d] % b != 0) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": image width and height ", in[2],
                                                       " and ", in[1],
                                                       " should be divisible by block_size: ", b));
      }
      out[d] = in[d] / b;
    }
    if (in[3] >= 0 && __builtin_mul_overflow(in[3], b * b, &out[3])) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": output depth overflows int64"));
    }
  } else {
    if (in[3] >= 0) {
      if (in[3] % (b * b) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": input depth dimension ", in[3],
                                                       " should be divisible by: ", b * b));
      }
      out[3] = in[3] / (b * b);
    }
    for (int d : {1, 2}) {
      if (in[d] >= 0 && __builtin_mul_overflow(in[d], b, &out[d])) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": output size overflows int64"));
      }
    }
  }
  return out;
}

}  // namespace smrt::ops
