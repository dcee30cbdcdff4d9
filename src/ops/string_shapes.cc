#include "ops/string_shapes.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {

absl::StatusOr<std::unique_ptr<re2::RE2>> CompileRegex(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(pattern, options);
  if (!re->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid pattern: ", pattern, ", error: ", re->error()));
  }
  return re;
}

absl::StatusOr<std::vector<int>> ReduceJoinDims(const std::vector<int64_t>& indices, int rank) {
  std::vector<int> dims;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t i : indices) {
    if (i < -rank || i >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid reduction dimension ", i,
                                                     " for input with ", rank, " dimension(s)"));
    }
    int d = static_cast<int>(i < 0 ? i + rank : i);
    if (seen[d])
      return absl::InvalidArgumentError(absl::StrCat("Duplicate reduction dimension ", i));
    seen[d] = true;
    dims.push_back(d);
  }
  return dims;
}

absl::StatusOr<int64_t> NumBuckets(const AttrMap& attrs) {
  absl::StatusOr<int64_t> n = attrs.Get<int64_t>("num_buckets");
  if (!n.ok()) return n.status();
  if (*n < 1) {
    return absl::InvalidArgumentError(absl::StrCat("num_buckets must be >= 1, got ", *n));
  }
  return *n;
}

absl::StatusOr<AsStringFormat> MakeAsStringFormat(const AttrMap& attrs, DataType dtype) {
  absl::StatusOr<int64_t> precision = attrs.GetOr<int64_t>("precision", -1);
  if (!precision.ok()) return precision.status();
  absl::StatusOr<bool> scientific = attrs.GetOr<bool>("scientific", false);
  if (!scientific.ok()) return scientific.status();
  absl::StatusOr<bool> shortest = attrs.GetOr<bool>("shortest", false);
  if (!shortest.ok()) return shortest.status();
  absl::StatusOr<int64_t> width = attrs.GetOr<int64_t>("width", -1);
  if (!width.ok()) return width.status();
  absl::StatusOr<std::string> fill = attrs.GetOr<std::string>("fill", "");
  if (!fill.ok()) return fill.status();
  const bool floating = dtype == DataType::kFloat || dtype == DataType::kDouble ||
                        dtype == DataType::kComplex64 || dtype == DataType::kComplex128;
  if (dtype != DataType::kString && !floating) {
    if (*scientific || *shortest) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scientific and shortest format not supported for datatype ", DataTypeName(dtype)));
    }
    if (*precision >= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("precision not supported for datatype ", DataTypeName(dtype)));
    }
  }
  if (fill->size() > 1) {
    return absl::InvalidArgumentError("Fill string must be one or fewer characters");
  }
  if (*scientific && *shortest) {
    return absl::InvalidArgumentError("Cannot select both scientific and shortest notation");
  }
  if (!fill->empty() && std::string(" +-0#").find((*fill)[0]) == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("Fill argument not supported: \"", *fill, "\""));
  }
  if (*width > 1 << 20 || *precision > 1 << 20) {
    return absl::InvalidArgumentError(
        absl::StrCat("width (", *width, ") and precision (", *precision, ") must be at most 2^20"));
  }
  AsStringFormat f;
  f.width = static_cast<int>(std::max<int64_t>(*width, 0));
  f.precision = static_cast<int>(std::max<int64_t>(*precision, -1));
  char conv = 's';
  if (floating) conv = *shortest ? 'g' : *scientific ? 'e' : 'f';
  f.spec = absl::StrCat("%", *fill, "*.*");
  f.spec.push_back(conv);
  return f;
}

}  // namespace smrt::ops
