// The int8 fused conv and matmul (ops/quantized_ops.h) on oneDNN against the
// float32 fused kernels: run on the dequantized operands they differ only
// by the order of accumulation (tight bounds); run on the float operands,
// by at most what one quantization step of each operand moves a sum.
#include "ops/quantized_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

const KernelSpec* Find(const std::string& op, const std::string& backend) {
  static std::vector<std::unique_ptr<KernelSpec>> keep;
  for (const KernelSpec& k : KernelRegistry::Default().Kernels(op)) {
    if (k.backend == backend && k.device == kCpu) {
      keep.push_back(std::make_unique<KernelSpec>(k));
      return keep.back().get();
    }
  }
  return nullptr;
}

// What the kernel computes on, written out here independently: x rounded to
// the input's steps; w to per-channel steps (max|w| / 127).
Tensor DequantizedInput(const Tensor& x, const ops::InputQuantization& q) {
  Tensor out = *x.Clone();
  const float lo = q.is_signed ? -128 : 0, hi = q.is_signed ? 127 : 255;
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    float& v = out.data<float>()[i];
    v = std::clamp(std::nearbyint(v / q.scale), lo, hi) * q.scale;
  }
  return out;
}

struct Dequantized {
  Tensor w;
  float max_step = 0;  // the largest channel's step
};

Dequantized DequantizedWeights(const Tensor& w, int64_t channels, bool channel_fastest) {
  const int64_t count = w.num_elements(), per = count / channels;
  auto channel = [&](int64_t i) { return channel_fastest ? i % channels : i / per; };
  std::vector<float> step(channels, 0.0f);
  for (int64_t i = 0; i < count; ++i) {
    step[channel(i)] = std::max(step[channel(i)], std::fabs(w.data<float>()[i]) / 127.0f);
  }
  Dequantized d{*w.Clone()};
  for (int64_t i = 0; i < count; ++i) {
    float& v = d.w.data<float>()[i];
    v = std::nearbyint(v / step[channel(i)]) * step[channel(i)];
  }
  d.max_step = *std::max_element(step.begin(), step.end());
  return d;
}

float MaxAbs(const Tensor& t) {
  float m = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) m = std::max(m, std::fabs(t.data<float>()[i]));
  return m;
}

// The most a sum of `terms` products moves when x moves by up to half a step
// sx and w by up to half a step sw: |x dw| + |w dx| + |dx dw| per term. The
// post-ops tested (bias, ReLU, ReLU6, a residual sum) move it no further.
double QuantizationBound(int64_t terms, float x_max, float sx, float w_max, float sw) {
  return terms * (x_max * sw / 2 + w_max * sx / 2 + sx * sw / 4);
}

struct Case {
  std::string name;
  Shape x, w;
  bool depthwise = false;
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::string padding = "SAME";
  std::vector<std::string> fused_ops;
  float lo = -2, hi = 2;  // the input's values
};

std::vector<Case> ConvCases() {
  std::vector<Case> c;
  c.push_back({"3x3_same_bias_relu6_batch2", {2, 9, 8, 16}, {3, 3, 16, 24}});
  c.back().fused_ops = {"BiasAdd", "Relu6"};
  c.back().lo = 0;  // uint8 input
  c.push_back({"strided_valid_bias_sum_relu_signed", {1, 11, 10, 8}, {3, 2, 8, 12}});
  c.back().strides = {1, 2, 2, 1};
  c.back().padding = "VALID";
  c.back().fused_ops = {"BiasAdd", "Add", "Relu"};
  c.push_back({"grouped_bias", {2, 6, 6, 8}, {3, 3, 4, 8}});
  c.back().fused_ops = {"BiasAdd"};
  c.push_back({"depthwise_strided_bias_relu6", {2, 10, 9, 16}, {3, 3, 16, 1}});
  c.back().depthwise = true;
  c.back().strides = {1, 2, 2, 1};
  c.back().fused_ops = {"BiasAdd", "Relu6"};
  c.back().lo = 0;
  c.push_back({"depthwise_mult2_valid_signed", {1, 7, 7, 4}, {3, 3, 4, 2}});
  c.back().depthwise = true;
  c.back().padding = "VALID";
  // MobileNetV2's first layer: 3 channels, stride 2, SAME padding only after.
  c.push_back({"stem_3ch_stride2_same_relu6", {1, 96, 96, 3}, {3, 3, 3, 16}});
  c.back().strides = {1, 2, 2, 1};
  c.back().fused_ops = {"BiasAdd", "Relu6"};
  c.back().lo = 0;
  c.back().hi = 1;
  c.push_back({"pointwise_bias_residual", {3, 5, 5, 32}, {1, 1, 32, 32}});
  c.back().fused_ops = {"BiasAdd", "Add"};
  c.back().lo = 0;
  return c;
}

AttrMap ConvAttrs(const Case& c) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("strides", c.strides);
  a.Set("padding", c.padding);
  a.Set("depthwise", c.depthwise);
  a.Set("fused_ops", c.fused_ops);
  a.Set("weights_constant", true);
  return a;
}

TEST(QuantizedFusedConvTest, MatchesFloatOnDequantizedOperandsAndWithinTheStepOfFloat) {
  const KernelSpec* q = Find(ops::kQuantizedFusedConv2D, "onednn");
  const KernelSpec* f = Find(kFusedConv2D, "reference");
  if (q == nullptr) GTEST_SKIP() << "built without oneDNN";
  ASSERT_NE(f, nullptr);
  for (const Case& c : ConvCases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = RandomFloats(c.x, 1, c.lo, c.hi), w = RandomFloats(c.w, 2);
    const ops::InputQuantization iq = ops::InputQuantizationFor(c.lo, c.hi);
    ASSERT_EQ(iq.is_signed, c.lo < 0);
    AttrMap attrs = ConvAttrs(c);
    AttrMap probe = attrs;
    probe.Set("fused_ops", std::vector<std::string>{});
    absl::StatusOr<Tensor> plain = RunKernel(*f, probe, {x, w});
    ASSERT_TRUE(plain.ok()) << plain.status();
    const Shape out = plain->shape();
    std::vector<Tensor> args;
    for (const std::string& op : c.fused_ops) {
      if (op == "BiasAdd") args.push_back(RandomFloats({out[3]}, 3));
      if (op == "Add") args.push_back(RandomFloats(out, 4, -3, 3));
    }
    const int64_t channels = c.depthwise ? c.w[2] * c.w[3] : c.w[3];
    const Dequantized dw = DequantizedWeights(w, channels, /*channel_fastest=*/true);
    std::vector<Tensor> deq_in = {DequantizedInput(x, iq), dw.w}, float_in = {x, w};
    deq_in.insert(deq_in.end(), args.begin(), args.end());
    float_in.insert(float_in.end(), args.begin(), args.end());
    absl::StatusOr<Tensor> on_dequantized = RunKernel(*f, attrs, deq_in);
    absl::StatusOr<Tensor> in_float = RunKernel(*f, attrs, float_in);
    ASSERT_TRUE(on_dequantized.ok() && in_float.ok());

    AttrMap qattrs = attrs;
    qattrs.Set(ops::kInputScaleAttr, iq.scale);
    qattrs.Set(ops::kInputSignedAttr, iq.is_signed);
    std::unique_ptr<KernelState> state = q->make_state();
    for (int run = 0; run < 2; ++run) {  // the second run reuses the plan
      absl::StatusOr<Tensor> got = RunKernel(*q, qattrs, float_in, state.get());
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(TensorsNear(*got, *on_dequantized, 2e-5, 2e-5));
      const int64_t terms = c.w[0] * c.w[1] * (c.depthwise ? 1 : c.w[2]);
      const double bound = QuantizationBound(terms, MaxAbs(x), iq.scale, MaxAbs(w), dw.max_step);
      EXPECT_TRUE(TensorsNear(*got, *in_float, bound, 0)) << "bound " << bound;
      // The bound is not vacuous: int8 moved the answer, by less than it.
      Tensor diff = *got->Clone();
      for (int64_t i = 0; i < diff.num_elements(); ++i) {
        diff.data<float>()[i] -= in_float->data<float>()[i];
      }
      EXPECT_GT(MaxAbs(diff), 0.0f);
      EXPECT_LT(MaxAbs(diff), bound);
    }
    // The node's state holds its int8 weights once (memory reports count
    // them): about a quarter of the float32 filter's bytes, padded.
    EXPECT_GE(state->bytes(), w.num_elements());
    EXPECT_LE(state->bytes(), 4 * static_cast<int64_t>(w.byte_size()));
  }
}

// A quantized product (matmul or einsum: weights per output column) on
// float operands `a` and `b` (plus `args`) against the float kernel `f`: on
// the dequantized operands within accumulation-order bounds, on the float
// ones within the one-step bound of a `k`-term sum, twice (a cached plan
// too). Returns the float answer on the dequantized operands.
Tensor ExpectInt8ProductNearFloat(const KernelSpec& q, const KernelSpec& f, const AttrMap& attrs,
                                  const Tensor& a, const Tensor& b, const std::vector<Tensor>& args,
                                  const ops::InputQuantization& iq, int64_t columns,
                                  bool columns_fastest, int64_t k) {
  const Dequantized db = DequantizedWeights(b, columns, columns_fastest);
  std::vector<Tensor> deq_in = {DequantizedInput(a, iq), db.w}, float_in = {a, b};
  deq_in.insert(deq_in.end(), args.begin(), args.end());
  float_in.insert(float_in.end(), args.begin(), args.end());
  absl::StatusOr<Tensor> on_dequantized = RunKernel(f, attrs, deq_in);
  absl::StatusOr<Tensor> in_float = RunKernel(f, attrs, float_in);
  EXPECT_TRUE(on_dequantized.ok() && in_float.ok()) << on_dequantized.status();
  if (!on_dequantized.ok() || !in_float.ok()) return Tensor();
  AttrMap qattrs = attrs;
  qattrs.Set(ops::kInputScaleAttr, iq.scale);
  qattrs.Set(ops::kInputSignedAttr, iq.is_signed);
  std::unique_ptr<KernelState> state = q.make_state();
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<Tensor> got = RunKernel(q, qattrs, float_in, state.get());
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok()) break;
    EXPECT_EQ(got->shape(), in_float->shape());
    EXPECT_TRUE(TensorsNear(*got, *on_dequantized, 2e-5, 2e-5));
    const double bound = QuantizationBound(k, MaxAbs(a), iq.scale, MaxAbs(b), db.max_step);
    EXPECT_TRUE(TensorsNear(*got, *in_float, bound, 0)) << "bound " << bound;
  }
  return *on_dequantized;
}

TEST(QuantizedFusedMatMulTest, MatchesFloatOnDequantizedOperandsAndWithinTheStepOfFloat) {
  const KernelSpec* q = Find(ops::kQuantizedFusedMatMul, "onednn");
  const KernelSpec* f = Find(kFusedMatMul, "reference");
  if (q == nullptr) GTEST_SKIP() << "built without oneDNN";
  ASSERT_NE(f, nullptr);
  struct MmCase {
    int64_t m, k, n;
    bool ta, tb;
    std::vector<std::string> fused_ops;
    float lo, hi;
  };
  for (const MmCase& c :
       std::vector<MmCase>{{4, 64, 40, false, false, {"BiasAdd", "Relu"}, 0, 3},
                           {1, 100, 10, false, true, {"BiasAdd"}, -1, 2},
                           {17, 33, 8, true, false, {}, -2, 2},
                           {8, 48, 24, false, true, {"BiasAdd", "Relu6"}, 0, 4}}) {
    SCOPED_TRACE(absl::StrCat(c.m, "x", c.k, "x", c.n, c.ta ? " ta" : "", c.tb ? " tb" : ""));
    const Tensor a = RandomFloats(c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, 5, c.lo, c.hi);
    const Tensor b = RandomFloats(c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, 6);
    AttrMap attrs;
    attrs.Set("T", DataType::kFloat);
    attrs.Set("transpose_a", c.ta);
    attrs.Set("transpose_b", c.tb);
    attrs.Set("fused_ops", c.fused_ops);
    attrs.Set("weights_constant", true);
    std::vector<Tensor> args;
    if (!c.fused_ops.empty()) args.push_back(RandomFloats({c.n}, 7));
    ExpectInt8ProductNearFloat(*q, *f, attrs, a, b, args, ops::InputQuantizationFor(c.lo, c.hi),
                               c.n, /*columns_fastest=*/!c.tb, c.k);
  }
}

// _SmrtQuantizedFusedEinsum: the dense layers of a transformer (Keras's
// EinsumDense: the Q/K/V projections with a [heads, depth] bias, the output
// projection over two contracted labels) against the float fused einsum on
// the dequantized operands, and within the step bound of float; an 8-bit
// output too.
TEST(QuantizedFusedEinsumTest, MatchesFloatOnDequantizedOperandsAndWithinTheStepOfFloat) {
  const KernelSpec* q = Find(ops::kQuantizedFusedEinsum, "onednn");
  const KernelSpec* f = Find(ops::kFusedEinsum, "reference");
  if (q == nullptr) GTEST_SKIP() << "built without oneDNN";
  ASSERT_NE(f, nullptr);
  struct EinsumCase {
    std::string equation;
    Shape x, w, bias;
    int64_t k, n;  // contracted and output columns
    std::vector<std::string> fused_ops;
    float lo, hi;
  };
  for (const EinsumCase& c : std::vector<EinsumCase>{
           {"abc,cde->abde", {2, 7, 32}, {32, 4, 8}, {4, 8}, 32, 32, {"BiasAdd"}, -2, 2},
           {"abcd,cde->abe", {2, 7, 4, 8}, {4, 8, 32}, {32}, 32, 32, {"BiasAdd", "GeluErf"}, -1, 3},
           {"abc,cd->abd", {3, 5, 16}, {16, 24}, {}, 16, 24, {}, 0, 2}}) {
    SCOPED_TRACE(c.equation);
    const Tensor x = RandomFloats(c.x, 8, c.lo, c.hi), w = RandomFloats(c.w, 9);
    AttrMap attrs;
    attrs.Set("T", DataType::kFloat);
    attrs.Set("equation", c.equation);
    attrs.Set("fused_ops", c.fused_ops);
    attrs.Set("weights_constant", true);
    std::vector<Tensor> args;
    if (!c.bias.empty()) args.push_back(RandomFloats(c.bias, 10));
    const ops::InputQuantization iq = ops::InputQuantizationFor(c.lo, c.hi);
    const Tensor on_dequantized = ExpectInt8ProductNearFloat(*q, *f, attrs, x, w, args, iq, c.n,
                                                             /*columns_fastest=*/true, c.k);
    if (!on_dequantized.valid()) continue;
    std::vector<Tensor> float_in = {x, w};
    float_in.insert(float_in.end(), args.begin(), args.end());
    AttrMap qattrs = attrs;
    qattrs.Set(ops::kInputScaleAttr, iq.scale);
    qattrs.Set(ops::kInputSignedAttr, iq.is_signed);
    // An 8-bit output: the float answer over output_scale, rounded.
    AttrMap a8 = qattrs;
    a8.Set(ops::kOutputScaleAttr, 0.05f);
    a8.Set(ops::kOutputSignedAttr, true);
    absl::StatusOr<Tensor> y8 = RunKernel(*q, a8, float_in);
    ASSERT_TRUE(y8.ok()) << y8.status();
    ASSERT_EQ(y8->dtype(), DataType::kInt8);
    for (int64_t i = 0; i < y8->num_elements(); ++i) {
      const float want =
          std::clamp(std::nearbyint(on_dequantized.data<float>()[i] / 0.05f), -128.0f, 127.0f);
      ASSERT_LE(std::fabs(y8->data<int8_t>()[i] - want), 1) << i;
    }
  }
}

TEST(QuantizedFusedOpsTest, RefusesVariableWeightsAndAMissingScale) {
  const KernelSpec* q = Find(ops::kQuantizedFusedMatMul, "onednn");
  if (q == nullptr) GTEST_SKIP() << "built without oneDNN";
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set(ops::kInputScaleAttr, 0.01f);
  absl::StatusOr<Tensor> got =
      RunKernel(*q, attrs, {RandomFloats({2, 3}, 1), RandomFloats({3, 4}, 2)});
  EXPECT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("constant"), std::string::npos) << got.status();
  attrs.Set("weights_constant", true);
  attrs.Set(ops::kInputScaleAttr, -1.0f);
  got = RunKernel(*q, attrs, {RandomFloats({2, 3}, 1), RandomFloats({3, 4}, 2)});
  EXPECT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("input_scale"), std::string::npos) << got.status();
}

// The input's quantization, seen through a 1x1 convolution with identity
// weights (each output is q(x) * input_scale, to float rounding): x times
// 1 / scale, rounded to nearest even, saturated; NaN to the lowest value.
// Ties, both ends, infinities and NaN, over enough elements to be split
// across threads.
TEST(QuantizedFusedConvTest, InputQuantizationRoundsToEvenAndSaturates) {
  const KernelSpec* conv = Find(ops::kQuantizedFusedConv2D, "onednn");
  if (conv == nullptr) GTEST_SKIP() << "built without oneDNN";
  constexpr int64_t kC = 16;
  Tensor w = *Tensor::Create(DataType::kFloat, {1, 1, kC, kC});
  for (int64_t i = 0; i < kC * kC; ++i) w.data<float>()[i] = i / kC == i % kC ? 1.0f : 0.0f;
  Case c{"identity", {1, 64, 64, kC}, {1, 1, kC, kC}};
  for (bool is_signed : {false, true}) {
    SCOPED_TRACE(is_signed ? "int8" : "uint8");
    const float scale = 0.25f;  // ties are exact: (k + 0.5) * 0.25
    const float lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    Tensor x = RandomFloats(c.x, 31, 2 * lo * scale, 2 * hi * scale);
    for (int64_t i = 0; i < x.num_elements(); i += 5) {
      x.data<float>()[i] = (static_cast<float>(i % 300) - 150.5f) * scale;  // a tie
    }
    x.data<float>()[1] = std::numeric_limits<float>::quiet_NaN();
    x.data<float>()[2] = std::numeric_limits<float>::infinity();
    x.data<float>()[3] = -std::numeric_limits<float>::infinity();
    AttrMap attrs = ConvAttrs(c);
    attrs.Set(ops::kInputScaleAttr, scale);
    attrs.Set(ops::kInputSignedAttr, is_signed);
    absl::StatusOr<Tensor> y = RunKernel(*conv, attrs, {x, w});
    ASSERT_TRUE(y.ok()) << y.status();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const float v = x.data<float>()[i] * (1.0f / scale);
      const float q = std::isnan(v) ? lo : std::nearbyint(std::clamp(v, lo, hi));
      ASSERT_NEAR(y->data<float>()[i], q * scale, 1e-3f * scale)
          << i << " x=" << x.data<float>()[i];
    }
  }
}

// Requantization (passes/requantize_int8.cc): an 8-bit output is the float
// output divided by output_scale, rounded and saturated; an 8-bit input
// gives what quantizing the float input to those values gives.
TEST(QuantizedFusedOpsTest, EightBitOutputsAndInputsMatchTheFloatPath) {
  const KernelSpec* conv = Find(ops::kQuantizedFusedConv2D, "onednn");
  const KernelSpec* mm = Find(ops::kQuantizedFusedMatMul, "onednn");
  if (conv == nullptr || mm == nullptr) GTEST_SKIP() << "built without oneDNN";
  Case c{"relu6_to_uint8", {2, 9, 8, 16}, {3, 3, 16, 24}};
  c.fused_ops = {"BiasAdd", "Relu6"};
  c.lo = 0;
  const Tensor x = RandomFloats(c.x, 11, 0, 2), w = RandomFloats(c.w, 12);
  const Tensor bias = RandomFloats({24}, 13);
  const ops::InputQuantization iq = ops::InputQuantizationFor(0, 2);
  AttrMap attrs = ConvAttrs(c);
  attrs.Set(ops::kInputScaleAttr, iq.scale);
  absl::StatusOr<Tensor> y = RunKernel(*conv, attrs, {x, w, bias});
  ASSERT_TRUE(y.ok()) << y.status();

  for (bool is_signed : {false, true}) {
    SCOPED_TRACE(is_signed ? "int8 output" : "uint8 output");
    const float out_scale = is_signed ? 6.0f / 127 : 6.0f / 255;
    AttrMap a = attrs;
    a.Set(ops::kOutputScaleAttr, out_scale);
    a.Set(ops::kOutputSignedAttr, is_signed);
    absl::StatusOr<Tensor> y8 = RunKernel(*conv, a, {x, w, bias});
    ASSERT_TRUE(y8.ok()) << y8.status();
    ASSERT_EQ(y8->dtype(), is_signed ? DataType::kInt8 : DataType::kUInt8);
    ASSERT_EQ(y8->shape(), y->shape());
    int64_t off = 0;
    for (int64_t i = 0; i < y->num_elements(); ++i) {
      const float want = std::clamp(std::nearbyint(y->data<float>()[i] / out_scale),
                                    is_signed ? -128.0f : 0.0f, is_signed ? 127.0f : 255.0f);
      const float got = is_signed ? y8->data<int8_t>()[i] : y8->data<uint8_t>()[i];
      ASSERT_LE(std::fabs(got - want), 1) << i;  // a tie may round either way
      off += got != want;
    }
    EXPECT_LE(off, y->num_elements() / 100);
  }

  // The uint8 values the kernel would have made of x, given as they are.
  Tensor x8 = *Tensor::Create(DataType::kUInt8, x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x8.data<uint8_t>()[i] = static_cast<uint8_t>(
        std::clamp(std::nearbyint(x.data<float>()[i] / iq.scale), 0.0f, 255.0f));
  }
  AttrMap a = attrs;
  a.Set(ops::kInputQuantizedAttr, true);
  absl::StatusOr<Tensor> from8 = RunKernel(*conv, a, {x8, w, bias});
  ASSERT_TRUE(from8.ok()) << from8.status();
  EXPECT_TRUE(TensorsNear(*from8, *y, 0, 0));
  // A float input where the 8-bit one is declared is refused.
  EXPECT_FALSE(RunKernel(*conv, a, {x, w, bias}).ok());

  // The matmul: a signed 8-bit input and output.
  AttrMap m;
  m.Set("T", DataType::kFloat);
  m.Set("fused_ops", std::vector<std::string>{"BiasAdd"});
  m.Set("weights_constant", true);
  const ops::InputQuantization mq = ops::InputQuantizationFor(-1, 1);
  m.Set(ops::kInputScaleAttr, mq.scale);
  m.Set(ops::kInputSignedAttr, true);
  const Tensor am = RandomFloats({6, 32}, 14), bm = RandomFloats({32, 10}, 15);
  const Tensor biasm = RandomFloats({10}, 16);
  absl::StatusOr<Tensor> ym = RunKernel(*mm, m, {am, bm, biasm});
  ASSERT_TRUE(ym.ok()) << ym.status();
  Tensor a8 = *Tensor::Create(DataType::kInt8, am.shape());
  for (int64_t i = 0; i < am.num_elements(); ++i) {
    a8.data<int8_t>()[i] = static_cast<int8_t>(
        std::clamp(std::nearbyint(am.data<float>()[i] / mq.scale), -128.0f, 127.0f));
  }
  m.Set(ops::kInputQuantizedAttr, true);
  m.Set(ops::kOutputScaleAttr, 0.05f);
  m.Set(ops::kOutputSignedAttr, true);
  absl::StatusOr<Tensor> ym8 = RunKernel(*mm, m, {a8, bm, biasm});
  ASSERT_TRUE(ym8.ok()) << ym8.status();
  ASSERT_EQ(ym8->dtype(), DataType::kInt8);
  for (int64_t i = 0; i < ym->num_elements(); ++i) {
    const float want = std::clamp(std::nearbyint(ym->data<float>()[i] / 0.05f), -128.0f, 127.0f);
    ASSERT_LE(std::fabs(ym8->data<int8_t>()[i] - want), 1) << i;
  }
}

// A residual block in 8 bits: the residual (the sum post-op's operand)
// arrives 8-bit at residual_scale and the output leaves 8-bit; the answer is
// the float32 output's of the dequantized residual, divided by output_scale,
// rounded and saturated. The residual may be signed where the output is not.
TEST(QuantizedFusedOpsTest, EightBitResidualSumMatchesTheFloatPath) {
  const KernelSpec* conv = Find(ops::kQuantizedFusedConv2D, "onednn");
  if (conv == nullptr) GTEST_SKIP() << "built without oneDNN";
  Case c{"pointwise_bias_sum_relu", {2, 7, 6, 32}, {1, 1, 32, 48}};
  c.fused_ops = {"BiasAdd", "Add", "Relu"};
  const Tensor x = RandomFloats(c.x, 21, 0, 2), w = RandomFloats(c.w, 22);
  const Tensor bias = RandomFloats({48}, 23);
  AttrMap attrs = ConvAttrs(c);
  attrs.Set(ops::kInputScaleAttr, ops::InputQuantizationFor(0, 2).scale);
  for (bool residual_signed : {false, true}) {
    SCOPED_TRACE(residual_signed ? "int8 residual" : "uint8 residual");
    const ops::InputQuantization rq = ops::InputQuantizationFor(residual_signed ? -3 : 0, 3);
    const Tensor r = RandomFloats({2, 7, 6, 48}, 24, residual_signed ? -3 : 0, 3);
    Tensor r8 = *Tensor::Create(ops::QuantizedType(residual_signed), r.shape());
    Tensor r_deq = *r.Clone();
    for (int64_t i = 0; i < r.num_elements(); ++i) {
      const float q =
          std::clamp(std::nearbyint(r.data<float>()[i] / rq.scale),
                     residual_signed ? -127.0f : 0.0f, residual_signed ? 127.0f : 255.0f);
      if (residual_signed) {
        r8.data<int8_t>()[i] = static_cast<int8_t>(q);
      } else {
        r8.data<uint8_t>()[i] = static_cast<uint8_t>(q);
      }
      r_deq.data<float>()[i] = q * rq.scale;
    }
    absl::StatusOr<Tensor> y = RunKernel(*conv, attrs, {x, w, bias, r_deq});
    ASSERT_TRUE(y.ok()) << y.status();
    const float out_scale = 8.0f / 255;
    AttrMap a = attrs;
    a.Set(ops::kOutputScaleAttr, out_scale);
    a.Set(ops::kResidualScaleAttr, rq.scale);
    a.Set(ops::kResidualSignedAttr, residual_signed);
    absl::StatusOr<Tensor> y8 = RunKernel(*conv, a, {x, w, bias, r8});
    ASSERT_TRUE(y8.ok()) << y8.status();
    ASSERT_EQ(y8->dtype(), DataType::kUInt8);
    int64_t off = 0, saturated = 0;
    for (int64_t i = 0; i < y->num_elements(); ++i) {
      const float want = std::clamp(std::nearbyint(y->data<float>()[i] / out_scale), 0.0f, 255.0f);
      const float got = y8->data<uint8_t>()[i];
      ASSERT_LE(std::fabs(got - want), 1) << i;  // a tie may round either way
      off += got != want;
      saturated += want == 255;
    }
    EXPECT_LE(off, y->num_elements() / 100);
    EXPECT_LT(saturated, y->num_elements() / 10);  // the range fits the values
    // The residual must be the declared 8-bit type, and an 8-bit output
    // takes no float residual.
    EXPECT_FALSE(RunKernel(*conv, a, {x, w, bias, r_deq}).ok());
    AttrMap float_residual = a;
    float_residual.Set(ops::kResidualScaleAttr, 0.0f);
    EXPECT_FALSE(RunKernel(*conv, float_residual, {x, w, bias, r_deq}).ok());
  }
  // residual_scale without an 8-bit output is malformed.
  AttrMap a = attrs;
  a.Set(ops::kResidualScaleAttr, 0.1f);
  Tensor r8 = *Tensor::Create(DataType::kUInt8, {2, 7, 6, 48});
  EXPECT_FALSE(RunKernel(*conv, a, {x, w, bias, r8}).ok());
}

// _SmrtDequantize: each 8-bit value times scale, exactly.
TEST(DequantizeTest, MultipliesEachValueByTheScale) {
  const KernelSpec* k = Find(ops::kDequantize, "reference");
  ASSERT_NE(k, nullptr);
  Tensor u = *Tensor::Create(DataType::kUInt8, {3, 40000});
  Tensor s = *Tensor::Create(DataType::kInt8, {3, 40000});
  for (int64_t i = 0; i < u.num_elements(); ++i) {
    u.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
    s.data<int8_t>()[i] = static_cast<int8_t>(static_cast<int>(i * 13 % 255) - 127);
  }
  for (const Tensor* t : {&u, &s}) {
    AttrMap a;
    a.Set("T", t->dtype());
    a.Set("scale", 0.037f);
    absl::StatusOr<Tensor> y = RunKernel(*k, a, {*t});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(y->dtype(), DataType::kFloat);
    ASSERT_EQ(y->shape(), t->shape());
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      const float q = t->dtype() == DataType::kUInt8 ? t->data<uint8_t>()[i] : t->data<int8_t>()[i];
      ASSERT_EQ(y->data<float>()[i], q * 0.037f) << i;
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
