#include "ops/volume_shapes.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {
namespace {

using Five = std::array<int64_t, 5>;

absl::StatusOr<Five> ReadFive(const AttrMap& attrs, absl::string_view name, int64_t fallback) {
  if (!attrs.Has(name)) {
    if (fallback > 0) return Five{fallback, fallback, fallback, fallback, fallback};
    return absl::InvalidArgumentError(absl::StrCat("missing attr ", name));
  }
  absl::StatusOr<std::vector<int64_t>> v = attrs.Get<std::vector<int64_t>>(name);
  if (!v.ok()) return v.status();
  if (v->size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must specify 5 dimensions, got [", absl::StrJoin(*v, ", "), "]"));
  }
  return Five{(*v)[0], (*v)[1], (*v)[2], (*v)[3], (*v)[4]};
}

absl::Status CheckNdhwc(const AttrMap& attrs, absl::string_view op) {
  absl::StatusOr<std::string> f = attrs.GetOr<std::string>("data_format", "NDHWC");
  if (!f.ok()) return f.status();
  if (*f != "NDHWC") {
    return absl::UnimplementedError(
        absl::StrCat(op, ": only data_format NDHWC is supported on CPU, got ", *f));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<VolumeAttrs> ReadVolumeAttrs(const AttrMap& attrs, absl::string_view op, bool pool) {
  if (absl::Status s = CheckNdhwc(attrs, op); !s.ok()) return s;
  VolumeAttrs a;
  absl::StatusOr<Padding> padding = ParsePadding(attrs, /*allow_explicit=*/false);
  if (!padding.ok()) return padding.status();
  a.padding = *padding;
  absl::StatusOr<Five> strides = ReadFive(attrs, "strides", 0);
  if (!strides.ok()) return strides.status();
  a.strides = *strides;
  if (pool) {
    absl::StatusOr<Five> k = ReadFive(attrs, "ksize", 0);
    if (!k.ok()) return k.status();
    a.window = *k;
  } else {
    absl::StatusOr<Five> d = ReadFive(attrs, "dilations", 1);
    if (!d.ok()) return d.status();
    a.dilations = *d;
  }
  for (int i = 0; i < 5; ++i) {
    if (a.strides[i] <= 0 || a.dilations[i] <= 0 || (pool && a.window[i] <= 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": strides", pool ? ", ksize" : ", dilations", " must be positive, got strides [",
          absl::StrJoin(a.strides, ", "), "] ", pool ? "ksize [" : "dilations [",
          absl::StrJoin(pool ? a.window : a.dilations, ", "), "]"));
    }
  }
  if (a.strides[0] != 1 || a.strides[4] != 1 || a.dilations[0] != 1 || a.dilations[4] != 1 ||
      (pool && (a.window[0] != 1 || a.window[4] != 1))) {
    return absl::UnimplementedError(
        absl::StrCat(op,
                     ": windows, strides and dilations over the batch and depth dimensions are not "
                     "supported, got strides [",
                     absl::StrJoin(a.strides, ", "), "]"));
  }
  return a;
}

}  // namespace smrt::ops
