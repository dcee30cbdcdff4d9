// What the int8 oneDNN kernels (ops/quantized_ops.h) share: per-channel
// weight quantization, the input's quantizing reorder and the bias scaling
// oneDNN 2.x asks for.
#ifndef SMRT_KERNELS_CPU_ONEDNN_QUANTIZE_UTIL_H_
#define SMRT_KERNELS_CPU_ONEDNN_QUANTIZE_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "ops/quantized_ops.h"
#include "smrt/tensor.h"

namespace smrt::kernels::onednn {

// f32 for a float32 value (nullopt), else u8 or s8.
inline dnnl::memory::data_type DnnlTypeOf(const std::optional<ops::InputQuantization>& q) {
  return !q             ? dnnl::memory::data_type::f32
         : q->is_signed ? dnnl::memory::data_type::s8
                        : dnnl::memory::data_type::u8;
}

// What an int8 node's attrs say (ops/quantized_ops.h).
struct Int8Attrs {
  ops::InputQuantization input;
  bool input_quantized = false;                    // input 0 is already 8-bit
  std::optional<ops::InputQuantization> output;    // an 8-bit output
  std::optional<ops::InputQuantization> residual;  // an 8-bit residual
  DataType output_dtype() const {
    return output ? ops::QuantizedType(output->is_signed) : DataType::kFloat;
  }
  DataType residual_dtype() const {
    return residual ? ops::QuantizedType(residual->is_signed) : DataType::kFloat;
  }
  dnnl::memory::data_type output_type() const { return DnnlTypeOf(output); }
  dnnl::memory::data_type residual_type() const { return DnnlTypeOf(residual); }
  // The residual sum's multiplier: an 8-bit residual's scale, else 1.
  float residual_scale() const { return residual ? residual->scale : 1.0f; }
};
absl::StatusOr<Int8Attrs> ReadInt8Attrs(const AttrMap& attrs);

// The types of a fused conv or matmul node: float32 or bfloat16 alike for
// input, weights, bias and output; an int8 node (`quantized`) keeps float32
// weights and bias and takes its input and output types from its attrs.
struct NodeTypes {
  DataType float_type = DataType::kFloat;  // weights and bias
  DataType in = DataType::kFloat, out = DataType::kFloat;
  std::optional<Int8Attrs> quant;
};
// `what` names the op in messages ("fused conv"); an int8 node with variable
// weights is refused as "an int8 <int8_what> needs a constant <weights>".
absl::StatusOr<NodeTypes> ResolveNodeTypes(const KernelContext& ctx, bool quantized,
                                           bool weights_constant, const char* what,
                                           const char* int8_what, const char* weights);

// An 8-bit output is the post-ops' float result divided by its scale: an
// eltwise linear post-op after them (oneDNN then rounds and saturates).
void AppendOutputQuantization(dnnl::post_ops& po, const Int8Attrs& q);

struct QuantizedWeights {
  std::vector<int8_t> values;  // in the float weights' layout
  std::vector<float> scales;   // per channel: max|w| / 127 (1 for an all-zero channel)
};

// Symmetric per-channel int8 of `count` floats holding `channels` channels:
// element i is in channel i % channels when `channel_fastest`, else
// i / (count / channels). q = round-half-even(w / scale), in [-127, 127].
QuantizedWeights QuantizePerChannel(const float* w, int64_t count, int64_t channels,
                                    bool channel_fastest);

// `q` (laid out as `user`, of the float weights' shape) in layout `want`:
// kept in `cache` (the node's state, so its memory reports count them and
// plans of other input shapes share them) when there is one.
dnnl::memory QuantizedWeightsIn(WeightCache* cache, const dnnl::memory::desc& user,
                                const QuantizedWeights& q, const Shape& shape,
                                const dnnl::memory::desc& want);

// oneDNN 2.x adds the bias to the int32 sum before the output scales: the
// float bias divided by each channel's output scale.
std::vector<float> BiasBeforeOutputScales(const float* bias, const std::vector<float>& scales);

using AlignedBuffer = std::unique_ptr<void, void (*)(void*)>;

// Quantizes a float32 input laid out as `quantized` says (its layout, u8 or
// s8) with the given scale, as oneDNN's reorder does (x times 1 / scale,
// saturated, rounded to nearest even; NaN, which oneDNN sends to the top
// of the int8 range, to the lowest value): a
// vectorized loop over the elements when the layout is dense (a oneDNN
// reorder of the 3-channel image a network starts with ran at a sixth of
// memory speed), else one oneDNN reorder, made once per plan.
class InputQuantizer {
 public:
  InputQuantizer() = default;
  InputQuantizer(const dnnl::memory::desc& quantized, const ops::InputQuantization& q);
  // `input` (float32, the layout's element count) quantized into the calling
  // thread's quantization buffer (64-byte aligned), valid until the thread's
  // next Run. The buffer grows to the largest input the thread quantized and
  // is kept: a fresh allocation per call (mmap and page faults for inputs of
  // megabytes) cost as much as a depthwise convolution.
  void* Run(const Tensor& input) const;

 private:
  dnnl::memory::desc from_, to_;
  dnnl::reorder reorder_;
  bool is_signed_ = false;
  float inverse_scale_ = 1.0f;
};

}  // namespace smrt::kernels::onednn

#endif  // SMRT_KERNELS_CPU_ONEDNN_QUANTIZE_UTIL_H_
