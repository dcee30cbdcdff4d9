// Assert, EnsureShape and CheckNumerics{,V2}: stop the run with
// TensorFlow's message when a check fails; otherwise Assert does nothing and
// the others forward their input.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "kernels/shared/tensor_summary.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeAssert(KernelContext &ctx) {
  const Tensor &condition = ctx.input(0);
  if (condition.dtype() != DataType::kBool || condition.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[0] should be a scalar: ", ops::TfShapeText(condition.shape())));
  }
  if (condition.data<bool>()[0]) return absl::OkStatus();
  absl::StatusOr<int64_t> summarize = ctx.attrs().GetOr<int64_t>("summarize", 3);
  if (!summarize.ok()) return summarize.status();
  std::string msg = "assertion failed: ";
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    absl::StrAppend(&msg, "[", SummarizeValue(ctx.input(i), *summarize, /*print_v2=*/false),
                    "]", i + 1 < ctx.num_inputs() ? " " : "");
  }
  return absl::InvalidArgumentError(msg);
}

absl::Status ComputeEnsureShape(KernelContext &ctx) {
  absl::StatusOr<PartialShape> expected = ctx.attrs().Get<PartialShape>("shape");
  if (!expected.ok()) return expected.status();
  const Tensor &in = ctx.input(0);
  if (!expected->IsCompatibleWith(in.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape of tensor ", ctx.node_name(), " ", ops::TfShapeText(in.shape()),
                     " is not compatible with expected shape ",
                     expected->known_rank ? ops::TfShapeText(expected->dims) : "<unknown>", "."));
  }
  ctx.set_output(0, in);
  return absl::OkStatus();
}

// Which of NaN, -Inf, +Inf a float tensor holds (bits 1, 2, 4).
template <typename T>
int NonFiniteKinds(const Tensor &t) {
  const T *data = t.data<T>();
  int kinds = 0;
  for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
    const float v = static_cast<float>(data[i]);
    if (std::isfinite(v)) continue;
    kinds |= std::isnan(v) ? 1 : (v < 0 ? 2 : 4);
  }
  return kinds;
}

template <>
int NonFiniteKinds<double>(const Tensor &t) {
  const double *data = t.data<double>();
  int kinds = 0;
  for (int64_t i = 0, n = t.num_elements(); i < n; ++i) {
    if (std::isfinite(data[i])) continue;
    kinds |= std::isnan(data[i]) ? 1 : (data[i] < 0 ? 2 : 4);
  }
  return kinds;
}

// TensorFlow's check_numerics_op.cc: V1 says "Inf", "NaN" or "Inf and NaN";
// V2 tells -Inf from +Inf ("-Inf, +Inf, and NaN").
absl::Status ComputeCheckNumerics(KernelContext &ctx, bool v2) {
  const Tensor &in = ctx.input(0);
  int kinds = 0;
  switch (in.dtype()) {
    case DataType::kFloat:
      kinds = NonFiniteKinds<float>(in);
      break;
    case DataType::kDouble:
      kinds = NonFiniteKinds<double>(in);
      break;
    case DataType::kHalf:
      kinds = NonFiniteKinds<Eigen::half>(in);
      break;
    case DataType::kBFloat16:
      kinds = NonFiniteKinds<Eigen::bfloat16>(in);
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "CheckNumerics takes bfloat16, half, float32 or float64 tensors, got ",
          DataTypeName(in.dtype())));
  }
  if (kinds != 0) {
    const bool nan = kinds & 1, minus = kinds & 2, plus = kinds & 4;
    std::string what;
    if (!v2) {
      what = (minus || plus) && nan ? "Inf and NaN" : nan ? "NaN" : "Inf";
    } else {
      std::vector<std::string> parts;
      if (minus) parts.push_back("-Inf");
      if (plus) parts.push_back("+Inf");
      if (nan) parts.push_back("NaN");
      what = parts.size() == 3   ? absl::StrCat(parts[0], ", ", parts[1], ", and ", parts[2])
             : parts.size() == 2 ? absl::StrCat(parts[0], " and ", parts[1])
                                 : parts[0];
    }
    absl::StatusOr<std::string> message = ctx.attrs().GetOr<std::string>("message", "");
    if (!message.ok()) return message.status();
    return absl::InvalidArgumentError(absl::StrCat(*message, " : Tensor had ", what, " values"));
  }
  ctx.set_output(0, in);
  return absl::OkStatus();
}

}  // namespace

void RegisterCheckOps(KernelRegistry &r) {
  r.AddKernel({"CheckNumerics", kCpu, "", {},
               [](KernelContext &ctx) { return ComputeCheckNumerics(ctx, /*v2=*/false); }});
  r.AddKernel({"CheckNumericsV2", kCpu, "", {},
               [](KernelContext &ctx) { return ComputeCheckNumerics(ctx, /*v2=*/true); }});
  r.AddKernel({"Assert", kCpu, "", {}, ComputeAssert});
  r.AddKernel({"EnsureShape", kCpu, "", {}, ComputeEnsureShape});
}

}  // namespace smrt::kernels
