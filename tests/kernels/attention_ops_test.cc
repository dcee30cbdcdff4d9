// _SmrtAttention (ops/fused_ops.h) on every CPU backend built (reference
// and oneDNN), against the definition computed in double: each mask mode,
// bfloat16 on oneDNN where the CPU has it (within its roundings),
// masks broadcast in several ways, shapes small enough for heads to run in
// parallel and large enough for one GEMM at a time, rows masked out entirely,
// and the errors a bad node gets.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

struct Case {
  std::string name;
  int64_t batch, query, key, heads, depth, value_depth;
  std::string mask = "none";
  Shape mask_shape;
  float scale = 1.0f;
  float mask_fill = 0.0f;
  bool fill_probs = false;
  float probs_fill = 0.0f;
};

// Mask element i: some positions off, never a pattern aligned with a dim.
Tensor MakeMask(const Case& c) {
  if (c.mask == "select") {
    Tensor m = *Tensor::Create(DataType::kBool, c.mask_shape);
    for (int64_t i = 0; i < m.num_elements(); ++i) m.data<bool>()[i] = (i * 7 + 3) % 5 != 0;
    return m;
  }
  Tensor m = *Tensor::Create(DataType::kFloat, c.mask_shape);
  for (int64_t i = 0; i < m.num_elements(); ++i) m.data<float>()[i] = (i % 3 == 0) ? -50.0f : 0.5f;
  return m;
}

// Index of mask element (b, h, t, s) under broadcasting.
int64_t MaskIndex(const Shape& shape, int64_t b, int64_t h, int64_t t, int64_t s) {
  const int64_t idx[4] = {b, h, t, s};
  int64_t offset = 0, stride = 1;
  for (int d = 3, m = static_cast<int>(shape.size()) - 1; m >= 0; --d, --m) {
    if (shape[m] != 1) offset += idx[d] * stride;
    stride *= shape[m];
  }
  return offset;
}

std::vector<double> Expected(const Case& c, const Tensor& q, const Tensor& k, const Tensor& v,
                             const Tensor* mask) {
  std::vector<double> out(c.batch * c.query * c.heads * c.value_depth);
  const float* qd = q.data<float>();
  const float* kd = k.data<float>();
  const float* vd = v.data<float>();
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      for (int64_t t = 0; t < c.query; ++t) {
        std::vector<double> p(c.key);
        std::vector<bool> off(c.key, false);
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t s = 0; s < c.key; ++s) {
          double dot = 0;
          for (int64_t d = 0; d < c.depth; ++d) {
            dot += double(qd[((b * c.query + t) * c.heads + h) * c.depth + d]) *
                   kd[((b * c.key + s) * c.heads + h) * c.depth + d];
          }
          dot *= c.scale;
          if (mask != nullptr) {
            const int64_t mi = MaskIndex(c.mask_shape, b, h, t, s);
            if (c.mask == "select" && !mask->data<bool>()[mi]) {
              off[s] = true;
              dot = c.mask_fill;
            } else if (c.mask == "add") {
              dot += mask->data<float>()[mi];
            }
          }
          p[s] = dot;
          max = std::max(max, dot);
        }
        double sum = 0;
        for (double& x : p) sum += (x = std::exp(x - max));
        for (int64_t s = 0; s < c.key; ++s) {
          p[s] /= sum;
          if (c.fill_probs && off[s]) p[s] = c.probs_fill;
        }
        for (int64_t d = 0; d < c.value_depth; ++d) {
          double acc = 0;
          for (int64_t s = 0; s < c.key; ++s) {
            acc += p[s] * vd[((b * c.key + s) * c.heads + h) * c.value_depth + d];
          }
          out[((b * c.query + t) * c.heads + h) * c.value_depth + d] = acc;
        }
      }
    }
  }
  return out;
}

AttrMap Attrs(const Case& c) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("mask", c.mask);
  a.Set("scale", c.scale);
  a.Set("mask_fill", c.mask_fill);
  a.Set("fill_masked_probs", c.fill_probs);
  a.Set("probs_fill", c.probs_fill);
  return a;
}

// With a fresh state, as a Program gives each node.
absl::StatusOr<Tensor> RunAttention(const KernelSpec& k, const AttrMap& attrs,
                                    std::vector<Tensor> inputs) {
  std::unique_ptr<KernelState> state = k.make_state ? k.make_state() : nullptr;
  return testing::RunKernel(k, attrs, std::move(inputs), state.get());
}

std::vector<KernelSpec> CpuKernels() {
  std::vector<KernelSpec> out;
  for (const KernelSpec& k : KernelRegistry::Default().Kernels(kAttention)) {
    if (k.device == kCpu) out.push_back(k);
  }
  return out;
}

TEST(AttentionOpsTest, EveryBackendMatchesTheDefinition) {
  const std::vector<KernelSpec> kernels = CpuKernels();
  ASSERT_FALSE(kernels.empty());
  const std::vector<Case> cases = {
      {"no mask, scaled", 2, 5, 7, 3, 4, 6, "none", {}, 0.35f},
      {"padding select mask, both fills",
       2,
       6,
       9,
       2,
       8,
       8,
       "select",
       {2, 1, 1, 9},
       1.0f,
       -1e9f,
       true,
       0.0f},
      {"per-query select mask", 1, 4, 4, 3, 5, 2, "select", {1, 1, 4, 4}, 0.5f, -1e4f},
      {"per-head select mask, rank 3",
       2,
       3,
       6,
       4,
       4,
       4,
       "select",
       {4, 1, 6},
       1.0f,
       -30.0f,
       true,
       0.25f},
      {"additive mask [key]", 3, 4, 5, 2, 3, 3, "add", {5}, 0.8f},
      {"additive mask [batch, 1, query, key]", 2, 5, 5, 3, 4, 4, "add", {2, 1, 5, 5}},
      // Heads of 128 x 128 x 64: one GEMM at a time, each on every thread.
      {"no keys", 1, 3, 0, 2, 4, 5, "none", {}},
      {"BERT-sized head", 1, 128, 128, 2, 64, 64, "select", {1, 1, 1, 128}, 0.125f, -1e9f, true},
  };
  for (const Case& c : cases) {
    const Tensor q = RandomFloats({c.batch, c.query, c.heads, c.depth}, 1, -1, 1);
    const Tensor k = RandomFloats({c.batch, c.key, c.heads, c.depth}, 2, -1, 1);
    const Tensor v = RandomFloats({c.batch, c.key, c.heads, c.value_depth}, 3, -1, 1);
    std::vector<Tensor> inputs = {q, k, v};
    Tensor mask;
    if (c.mask != "none") inputs.push_back(mask = MakeMask(c));
    const std::vector<double> want = Expected(c, q, k, v, c.mask != "none" ? &mask : nullptr);
    for (const KernelSpec& kernel : kernels) {
      SCOPED_TRACE(absl::StrCat(c.name, " on ", kernel.backend));
      absl::StatusOr<Tensor> got = RunAttention(kernel, Attrs(c), inputs);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->shape(), (Shape{c.batch, c.query, c.heads, c.value_depth}));
      for (int64_t i = 0; i < got->num_elements(); ++i) {
        ASSERT_NEAR(got->data<float>()[i], want[i], 2e-5) << "element " << i;
      }
    }
  }
}

// bfloat16 query, key, value and output (precision=bfloat16): against the
// definition on the same bf16-rounded inputs, within the rounding of the
// probabilities (for the second product) and of the output to bf16.
TEST(AttentionOpsTest, Bfloat16OnOneDnnMatchesTheDefinitionWithinItsRoundings) {
  AttrMap probe;
  probe.Set("T", DataType::kBFloat16);
  const KernelSpec* k = CpuKernel(kAttention, "onednn", DataType::kBFloat16);
  if (k == nullptr || !k->supports(probe)) GTEST_SKIP() << "no bfloat16 instructions here";
  const std::vector<Case> cases = {
      {"no mask, scaled", 2, 5, 7, 3, 4, 6, "none", {}, 0.35f},
      {"padding select mask, both fills",
       2,
       6,
       9,
       2,
       8,
       8,
       "select",
       {2, 1, 1, 9},
       1.0f,
       -1e9f,
       true,
       0.0f},
      {"per-query select mask", 2, 4, 4, 3, 5, 2, "select", {2, 1, 4, 4}, 0.5f, -1e4f},
      {"additive mask [batch, 1, query, key]", 2, 5, 5, 3, 4, 4, "add", {2, 1, 5, 5}},
      {"no keys", 1, 3, 0, 2, 4, 5, "none", {}},
      {"BERT-sized heads", 2, 128, 128, 3, 64, 64, "select", {2, 1, 128, 128}, 0.125f, -1e9f, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor q = ToBFloat16(RandomFloats({c.batch, c.query, c.heads, c.depth}, 1, -1, 1));
    const Tensor kk = ToBFloat16(RandomFloats({c.batch, c.key, c.heads, c.depth}, 2, -1, 1));
    const Tensor v = ToBFloat16(RandomFloats({c.batch, c.key, c.heads, c.value_depth}, 3, -1, 1));
    std::vector<Tensor> inputs = {q, kk, v};
    Tensor mask;
    if (c.mask != "none") inputs.push_back(mask = MakeMask(c));
    const std::vector<double> want =
        Expected(c, ToFloat(q), ToFloat(kk), ToFloat(v), c.mask != "none" ? &mask : nullptr);
    AttrMap attrs = Attrs(c);
    attrs.Set("T", DataType::kBFloat16);
    absl::StatusOr<Tensor> got = RunAttention(*k, attrs, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->dtype(), DataType::kBFloat16);
    ASSERT_EQ(got->shape(), (Shape{c.batch, c.query, c.heads, c.value_depth}));
    const Tensor y = ToFloat(*got);
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      // |out| <= max |v| = 1: the probabilities' rounding moves it by at
      // most 2^-8, the output's by 2^-8 of itself.
      ASSERT_NEAR(y.data<float>()[i], want[i], 1.0 / 128) << "element " << i;
    }
  }
}

TEST(AttentionOpsTest, RowsMaskedWithMinusInfinityAreNaNAsInTensorFlow) {
  // Every key of batch 1 masked with -inf: softmax(-inf, ..., -inf) is NaN.
  Case c{"all masked",
         2,
         3,
         4,
         2,
         4,
         4,
         "select",
         {2, 1, 1, 4},
         1.0f,
         -std::numeric_limits<float>::infinity()};
  Tensor mask = *Tensor::Create(DataType::kBool, c.mask_shape);
  for (int64_t i = 0; i < mask.num_elements(); ++i) mask.data<bool>()[i] = i < 4;
  const std::vector<Tensor> inputs = {RandomFloats({2, 3, 2, 4}, 4), RandomFloats({2, 4, 2, 4}, 5),
                                      RandomFloats({2, 4, 2, 4}, 6), mask};
  for (const KernelSpec& kernel : CpuKernels()) {
    SCOPED_TRACE(kernel.backend);
    absl::StatusOr<Tensor> got = RunAttention(kernel, Attrs(c), inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    const int64_t half = got->num_elements() / 2;
    for (int64_t i = 0; i < got->num_elements(); ++i) {
      EXPECT_EQ(std::isnan(got->data<float>()[i]), i >= half) << "element " << i;
    }
  }
}

TEST(AttentionOpsTest, BadNodesSayWhatIsWrong) {
  const Tensor q = RandomFloats({1, 3, 2, 4}, 7);
  const Tensor k = RandomFloats({1, 5, 2, 4}, 8);
  Case c{"", 1, 3, 5, 2, 4, 4};
  struct Bad {
    std::vector<Tensor> inputs;
    std::string mask;
    std::string message;
  };
  Tensor bool_mask = *Tensor::Create(DataType::kBool, {1, 1, 1, 4});
  Tensor float_mask = *Tensor::Create(DataType::kFloat, {1, 1, 1, 5});
  const std::vector<Bad> bad = {
      {{q, RandomFloats({1, 5, 2, 3}, 9), k}, "none", "do not match"},
      {{q, k, RandomFloats({1, 4, 2, 4}, 9)}, "none", "do not match"},
      {{q, k, k, bool_mask},
       "select",
       "must broadcast against the scores (1, 2, 3, 5), got (1, 1, 1, 4)"},
      {{q, k, k, float_mask}, "select", "must be DT_BOOL, got DT_FLOAT"},
      {{q, k, k}, "add", "takes 4 inputs, got 3"},
      {{RandomFloats({3, 2, 4}, 9), k, k}, "none", "[batch, seq, heads, depth]"},
  };
  for (const KernelSpec& kernel : CpuKernels()) {
    for (const Bad& b : bad) {
      SCOPED_TRACE(absl::StrCat(kernel.backend, ": ", b.message));
      c.mask = b.mask;
      absl::StatusOr<Tensor> got = RunAttention(kernel, Attrs(c), b.inputs);
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_TRUE(absl::StrContains(got.status().message(), b.message)) << got.status();
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
