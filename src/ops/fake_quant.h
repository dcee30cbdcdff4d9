// The checks that FakeQuantWithMinMax{Args,Vars,VarsPerChannel} make alike at
// load (src/ops/defs/fake_quant_ops.cc) and when they run (every backend's
// kernel), with TensorFlow's conditions and messages: num_bits and
// narrow_range as the integer range, Args' min and max, and the shapes of
// the Vars ops' min and max inputs.
#ifndef SMRT_OPS_FAKE_QUANT_H_
#define SMRT_OPS_FAKE_QUANT_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"

namespace smrt::ops {

// The integers a value is quantized to: [quant_min, quant_max].
struct FakeQuantRange {
  int quant_min = 0;
  int quant_max = 255;
};

// From attrs num_bits (2..16, default 8) and narrow_range (default false):
// [narrow_range ? 1 : 0, 2^num_bits - 1], as TensorFlow's kernels.
inline absl::StatusOr<FakeQuantRange> FakeQuantRangeFromAttrs(const AttrMap& attrs) {
  absl::StatusOr<int64_t> num_bits = attrs.GetOr<int64_t>("num_bits", 8);
  if (!num_bits.ok()) return num_bits.status();
  absl::StatusOr<bool> narrow_range = attrs.GetOr<bool>("narrow_range", false);
  if (!narrow_range.ok()) return narrow_range.status();
  if (*num_bits < 2 || *num_bits > 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_bits must be between 2 and 16, inclusive (attr num_bits is ", *num_bits, ")"));
  }
  return FakeQuantRange{*narrow_range ? 1 : 0, (1 << *num_bits) - 1};
}

// TensorFlow's Nudge: the zero point (quant_min - min / scale) rounded to an
// integer in [quant_min, quant_max], and the range moved to put 0 on it.
// (No product here is followed by a sum, so no compiler fuses one into an
// FMA: every caller gets TensorFlow's bits.)
struct FakeQuantNudged {
  float nudged_min = 0;
  float nudged_max = 0;
  float scale = 0;
};
inline FakeQuantNudged FakeQuantNudge(float min, float max, const FakeQuantRange& range) {
  FakeQuantNudged n;
  const float quant_min = static_cast<float>(range.quant_min);
  const float quant_max = static_cast<float>(range.quant_max);
  n.scale = (max - min) / (quant_max - quant_min);
  const float zero_point_from_min = quant_min - min / n.scale;
  uint16_t zero_point;
  if (zero_point_from_min < quant_min) {
    zero_point = static_cast<uint16_t>(range.quant_min);
  } else if (zero_point_from_min > quant_max) {
    zero_point = static_cast<uint16_t>(range.quant_max);
  } else if (std::isnan(zero_point_from_min)) {
    zero_point = 0;  // what TensorFlow's cast of NaN gives on x86; the scale is NaN or inf then
  } else {
    zero_point = static_cast<uint16_t>(std::round(zero_point_from_min));
  }
  n.nudged_min = (quant_min - zero_point) * n.scale;
  n.nudged_max = (quant_max - zero_point) * n.scale;
  return n;
}

// A float as TensorFlow's messages print it: %.6g, or %.9g when %.6g does
// not read back as the same float.
inline std::string FakeQuantFloatText(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  if (std::strtof(buf, nullptr) != v) std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

// FakeQuantWithMinMaxArgs' attrs min and max (defaults -6 and 6): min < max.
// (TensorFlow asks no more: a range that leaves out 0 is nudged to hold it.)
inline absl::StatusOr<std::pair<float, float>> FakeQuantArgsMinMax(const AttrMap& attrs) {
  absl::StatusOr<float> min = attrs.GetOr<float>("min", -6.0f);
  if (!min.ok()) return min.status();
  absl::StatusOr<float> max = attrs.GetOr<float>("max", 6.0f);
  if (!max.ok()) return max.status();
  if (!(*min < *max)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min has to be smaller than max, was: ", FakeQuantFloatText(*min),
                     " >= ", FakeQuantFloatText(*max)));
  }
  return std::make_pair(*min, *max);
}

// FakeQuantWithMinMaxVars: `which` ("min" or "max") must be a scalar.
inline absl::Status CheckFakeQuantScalar(const char* which, int rank) {
  if (rank == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("`", which, "` must be rank 0 but is rank ", rank,
                                                 " (one range for the whole tensor)"));
}

// FakeQuantWithMinMaxVarsPerChannel: inputs has a last dimension, of size
// `depth`; `which` ("min" or "max") is a vector of `size` values, one per
// element of that dimension. A size of -1 is unknown and passes.
inline absl::Status CheckFakeQuantPerChannelInput(int input_rank) {
  if (input_rank >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("inputs must be at least rank 1 but is rank ", input_rank,
                   " (min and max hold one value per element of its last dimension)"));
}

inline absl::Status CheckFakeQuantPerChannel(const char* which, int rank, int64_t size,
                                             int64_t depth) {
  if (rank != 1) {
    return absl::InvalidArgumentError(absl::StrCat("`", which, "` must be rank 1 but is rank ",
                                                   rank, " (one value per channel)"));
  }
  if (size >= 0 && depth >= 0 && size != depth) {
    return absl::InvalidArgumentError(
        absl::StrCat(which, " has incorrect size, expected ", depth, " was ", size,
                     " (one value per element of the last dimension of inputs)"));
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_FAKE_QUANT_H_
