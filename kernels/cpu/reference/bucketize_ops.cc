// Bucketize: for each value, how many boundaries are <= it (the bucket
// index), compared in float as TensorFlow's kernel does.
#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

template <typename T>
void Bucketize(const Tensor &in, const std::vector<float> &boundaries, int32_t *out) {
  const T *x = in.data<T>();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const float v = static_cast<float>(x[i]);
    out[i] = static_cast<int32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), v) -
                                  boundaries.begin());
  }
}

absl::Status ComputeBucketize(KernelContext &ctx) {
  absl::StatusOr<std::vector<float>> boundaries =
      ctx.attrs().GetOr<std::vector<float>>("boundaries", {});
  if (!boundaries.ok()) return boundaries.status();
  if (!std::is_sorted(boundaries->begin(), boundaries->end())) {
    return absl::InvalidArgumentError("Expected sorted boundaries");
  }
  const Tensor &in = ctx.input(0);
  absl::StatusOr<Tensor *> out = ctx.allocate_output_for_overwrite(0, DataType::kInt32, in.shape());
  if (!out.ok()) return out.status();
  int32_t *o = (*out)->data<int32_t>();
  switch (in.dtype()) {
    case DataType::kFloat:
      Bucketize<float>(in, *boundaries, o);
      break;
    case DataType::kDouble:
      Bucketize<double>(in, *boundaries, o);
      break;
    case DataType::kInt32:
      Bucketize<int32_t>(in, *boundaries, o);
      break;
    case DataType::kInt64:
      Bucketize<int64_t>(in, *boundaries, o);
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("Bucketize: input must be int32, int64, float or double, got ",
                       DataTypeName(in.dtype())));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterBucketizeOps(KernelRegistry &r) {
  r.AddKernel({"Bucketize",
               kCpu,
               "T",
               {DataType::kInt32, DataType::kInt64, DataType::kFloat, DataType::kDouble},
               ComputeBucketize});
}

}  // namespace smrt::kernels
