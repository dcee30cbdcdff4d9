#include "kernels/cpu/onednn/quantize_util.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/target_clones.h"

namespace smrt::kernels::onednn {

absl::StatusOr<Int8Attrs> ReadInt8Attrs(const AttrMap& attrs) {
  Int8Attrs q;
  absl::StatusOr<ops::InputQuantization> in = ops::ReadInputQuantization(attrs);
  if (!in.ok()) return in.status();
  q.input = *in;
  absl::StatusOr<bool> input_quantized = attrs.GetOr<bool>(ops::kInputQuantizedAttr, false);
  if (!input_quantized.ok()) return input_quantized.status();
  q.input_quantized = *input_quantized;
  absl::StatusOr<std::optional<ops::InputQuantization>> out = ops::ReadOutputQuantization(attrs);
  if (!out.ok()) return out.status();
  q.output = *out;
  absl::StatusOr<std::optional<ops::InputQuantization>> residual =
      ops::ReadResidualQuantization(attrs);
  if (!residual.ok()) return residual.status();
  q.residual = *residual;
  if (q.residual && !q.output) {
    return absl::InvalidArgumentError("an 8-bit residual (residual_scale) needs an 8-bit output");
  }
  return q;
}

void AppendOutputQuantization(dnnl::post_ops& po, const Int8Attrs& q) {
  if (!q.output) return;
  po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f / q.output->scale, 0.0f);
}

QuantizedWeights QuantizePerChannel(const float* w, int64_t count, int64_t channels,
                                    bool channel_fastest) {
  QuantizedWeights q;
  q.values.resize(count);
  q.scales.assign(channels, 0.0f);
  const int64_t per_channel = channels > 0 ? count / channels : 0;
  auto channel = [&](int64_t i) { return channel_fastest ? i % channels : i / per_channel; };
  for (int64_t i = 0; i < count; ++i) {
    float& s = q.scales[channel(i)];
    s = std::max(s, std::fabs(w[i]));
  }
  for (float& s : q.scales) s = s > 0 ? s / 127.0f : 1.0f;
  for (int64_t i = 0; i < count; ++i) {
    const float v = std::nearbyint(w[i] / q.scales[channel(i)]);
    q.values[i] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
  }
  return q;
}

dnnl::memory QuantizedWeightsIn(WeightCache* cache, const dnnl::memory::desc& user,
                                const QuantizedWeights& q, const Shape& shape,
                                const dnnl::memory::desc& want) {
  if (cache == nullptr) return ReorderWeights(user, q.values.data(), want);
  absl::StatusOr<Tensor> view =
      Tensor::View(DataType::kInt8, shape, const_cast<int8_t*>(q.values.data()), q.values.size());
  if (!view.ok()) return ReorderWeights(user, q.values.data(), want);
  return cache->Weights(user, *view, want);
}

std::vector<float> BiasBeforeOutputScales(const float* bias, const std::vector<float>& scales) {
  std::vector<float> out(scales.size());
  for (size_t i = 0; i < scales.size(); ++i) out[i] = bias[i] / scales[i];
  return out;
}

InputQuantizer::InputQuantizer(const dnnl::memory::desc& quantized, const ops::InputQuantization& q)
    : from_(quantized), to_(quantized), is_signed_(q.is_signed), inverse_scale_(1.0f / q.scale) {
  from_.data.data_type = dnnl_f32;  // same dims and strides (in elements)
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {inverse_scale_});
  reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), from_, Engine(), to_, attr));
}

namespace {

void* ThreadBuffer(size_t size) {
  thread_local AlignedBuffer buffer(nullptr, std::free);
  thread_local size_t capacity = 0;
  if (size > capacity) {
    capacity = (size + 63) / 64 * 64;
    buffer.reset(std::aligned_alloc(64, capacity));
    if (buffer == nullptr) {
      capacity = 0;
      throw std::bad_alloc();
    }
  }
  return buffer.get();
}

}  // namespace

// The loops clamp before rounding (the bounds are whole numbers, so that is
// the same) with comparisons that send NaN to the lowest value. One clone
// per type: clang multiversions no templates.
template <typename Q>
inline __attribute__((always_inline)) void QuantizeLoop(const float* in, Q* out, int64_t n,
                                                        float inverse_scale) {
  constexpr float lo = std::is_signed_v<Q> ? -128.0f : 0.0f;
  constexpr float hi = std::is_signed_v<Q> ? 127.0f : 255.0f;
  for (int64_t i = 0; i < n; ++i) {
    float v = in[i] * inverse_scale;
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    out[i] = static_cast<Q>(static_cast<int>(std::nearbyint(v)));
  }
}

SMRT_TARGET_CLONES void QuantizeRange(const float* in, uint8_t* out, int64_t n,
                                      float inverse_scale) {
  QuantizeLoop(in, out, n, inverse_scale);
}

SMRT_TARGET_CLONES void QuantizeRange(const float* in, int8_t* out, int64_t n,
                                      float inverse_scale) {
  QuantizeLoop(in, out, n, inverse_scale);
}

void* InputQuantizer::Run(const Tensor& input) const {
  const size_t size = to_.get_size();
  void* buffer = ThreadBuffer(size);
  if (static_cast<int64_t>(size) == input.num_elements()) {  // dense: element i to byte i
    const float* in = input.data<float>();
    ParallelFor(input.num_elements(), kMinShardElements, 16, [&](int64_t begin, int64_t end) {
      if (is_signed_) {
        QuantizeRange(in + begin, static_cast<int8_t*>(buffer) + begin, end - begin,
                      inverse_scale_);
      } else {
        QuantizeRange(in + begin, static_cast<uint8_t*>(buffer) + begin, end - begin,
                      inverse_scale_);
      }
    });
    return buffer;
  }
  dnnl::memory from(from_, Engine(), const_cast<void*>(input.raw_data()));
  dnnl::memory to(to_, Engine(), buffer);
  dnnl::stream& s = ThreadStream();
  reorder_.execute(s, from, to);
  s.wait();
  return buffer;
}

absl::StatusOr<NodeTypes> ResolveNodeTypes(const KernelContext& ctx, bool quantized,
                                           bool weights_constant, const char* what,
                                           const char* int8_what, const char* weights) {
  NodeTypes t;
  t.float_type = quantized ? DataType::kFloat : ctx.input(0).dtype();
  if (t.float_type != DataType::kFloat && t.float_type != DataType::kBFloat16) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " takes float32 or bfloat16, got ", DataTypeName(ctx.input(0).dtype())));
  }
  t.in = t.out = t.float_type;
  if (quantized) {
    absl::StatusOr<Int8Attrs> q = ReadInt8Attrs(ctx.attrs());
    if (!q.ok()) return q.status();
    if (!weights_constant) {
      return absl::InvalidArgumentError(
          absl::StrCat("an int8 ", int8_what, " needs a constant ", weights));
    }
    t.quant = *q;
    if (q->input_quantized) t.in = ops::QuantizedType(q->input.is_signed);
    t.out = q->output_dtype();
  }
  return t;
}

}  // namespace smrt::kernels::onednn
