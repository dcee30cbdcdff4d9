#include "ops/batch_norm_attrs.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {

bool NeedsRunningStats(const BatchNormAttrs& a) {
  return !a.is_training || a.exponential_avg_factor != 1.0f;
}

absl::StatusOr<BatchNormAttrs> ReadBatchNormAttrs(const AttrMap& attrs) {
  BatchNormAttrs a;
  absl::StatusOr<float> eps = attrs.GetOr<float>("epsilon", 1e-4f);
  if (!eps.ok()) return eps.status();
  absl::StatusOr<float> factor = attrs.GetOr<float>("exponential_avg_factor", 1.0f);
  if (!factor.ok()) return factor.status();
  absl::StatusOr<bool> training = attrs.GetOr<bool>("is_training", true);
  if (!training.ok()) return training.status();
  absl::StatusOr<std::string> format = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format == "NHWC" || *format == "NDHWC") {
    a.channels_last = true;
  } else if (*format == "NCHW" || *format == "NCDHW") {
    a.channels_last = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("data_format must be NHWC, NCHW, NDHWC or NCDHW, got '", *format, "'"));
  }
  a.epsilon = *eps;
  a.exponential_avg_factor = *factor;
  a.is_training = *training;
  return a;
}

}  // namespace smrt::ops
