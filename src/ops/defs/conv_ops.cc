// Conv2D (grouped when the input depth is a multiple of the filter's) and
// DepthwiseConv2dNative: NHWC or NCHW, HWIO filters (ops/conv_shapes.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/conv_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

std::vector<std::pair<std::string, AttrValue>> ConvDefaults(bool with_cudnn) {
  std::vector<std::pair<std::string, AttrValue>> d;
  if (with_cudnn) d.emplace_back("use_cudnn_on_gpu", true);
  d.emplace_back("explicit_paddings", EmptyList{});
  d.emplace_back("data_format", std::string("NHWC"));
  d.emplace_back("dilations", std::vector<int64_t>{1, 1, 1, 1});
  return d;
}

}  // namespace

void RegisterConvOps(OpRegistry& r) {
  r.AddOp({"Conv2D", ConvDefaults(/*with_cudnn=*/true),
           [](InferenceContext& ctx) { return InferConv2D(ctx, /*depthwise=*/false); }, nullptr});
  r.AddOp({"DepthwiseConv2dNative", ConvDefaults(/*with_cudnn=*/false),
           [](InferenceContext& ctx) { return InferConv2D(ctx, /*depthwise=*/true); }, nullptr});
}

}  // namespace smrt::ops
