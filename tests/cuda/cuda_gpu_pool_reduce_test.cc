// MaxPool, AvgPool, Sum, Mean, Prod, Max, Any and All on the GPU against the CPU kernels on
// the same host inputs (fixed seeds), within 1e-5: SAME windows that hang
// over the edge (AvgPool divides by the cells inside), VALID, EXPLICIT, and
// reductions over trailing axes, NHWC's spatial axes, all axes, none, axis
// sets that are not one block, with and without keep_dims. Skips without a
// GPU.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

class CudaGpuPoolReduceTest : public testing::GpuTest {
 protected:
  void ExpectLikeCpu(const std::string& op, const AttrMap& attrs, const std::vector<Tensor>& inputs,
                     const std::vector<int>& host_inputs = {}) {
    GpuTest::ExpectLikeCpu(op, attrs, inputs, 1e-5, host_inputs);
  }
};

struct PoolCase {
  Shape input;
  std::vector<int64_t> ksize, strides;
  std::string padding;
  std::vector<int64_t> explicit_paddings = {};
};

TEST_F(CudaGpuPoolReduceTest, PoolsMatchTheCpu) {
  const std::vector<PoolCase> cases = {
      {{1, 8, 8, 3}, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {{3, 7, 9, 5}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},   // overhangs the edge
      {{1, 112, 112, 64}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},  // ResNet's stem pool
      {{2, 6, 6, 4}, {1, 3, 2, 1}, {1, 1, 2, 1}, "SAME"},
      {{1, 7, 7, 16}, {1, 7, 7, 1}, {1, 1, 1, 1}, "VALID"},  // global
      {{3, 5, 5, 2}, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"},
  };
  uint32_t seed = 1;
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(ShapeToString(c.input), " k", absl::StrJoin(c.ksize, ","), " s",
                              absl::StrJoin(c.strides, ","), " ", c.padding));
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("ksize", c.ksize);
    attrs.Set("strides", c.strides);
    attrs.Set("padding", c.padding);
    attrs.Set("data_format", std::string("NHWC"));
    const Tensor x = RandomFloats(c.input, seed++, -5, 5);
    ExpectLikeCpu("AvgPool", attrs, {x});
    attrs.Set("explicit_paddings", std::vector<int64_t>{});
    ExpectLikeCpu("MaxPool", attrs, {x});
  }
  // MaxPool EXPLICIT, and NaN skipped as on the CPU.
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("ksize", std::vector<int64_t>{1, 3, 3, 1});
  attrs.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  attrs.Set("padding", std::string("EXPLICIT"));
  attrs.Set("explicit_paddings", std::vector<int64_t>{0, 0, 1, 2, 2, 0, 0, 0});
  attrs.Set("data_format", std::string("NHWC"));
  Tensor x = RandomFloats({2, 9, 8, 3}, 77, -5, 5);
  x.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  ExpectLikeCpu("MaxPool", attrs, {x});
}

struct ReduceCase {
  Shape input;
  std::vector<int32_t> axes;
};

TEST_F(CudaGpuPoolReduceTest, ReductionsMatchTheCpu) {
  const std::vector<ReduceCase> cases = {
      {{4, 768}, {-1}},                 // layer-norm style rows
      {{3, 5, 7}, {2}},
      {{3, 5, 7}, {1, 2}},              // trailing block
      {{2, 7, 7, 64}, {1, 2}},          // NHWC global pool
      {{1, 7, 7, 2048}, {2, 1}},        // order does not matter
      {{6, 5}, {0}},                    // leading: outer 1
      {{3, 1, 4, 1, 5}, {1, 2, 3}},     // size-1 dims merge
      {{2, 3, 4}, {0, 1, 2}},           // everything
      {{2, 3, 4}, {}},                  // nothing: a copy
      {{5, 100000}, {1}},               // long rows
      {{0, 4}, {0}},                    // an empty reduction
      {{3, 0}, {1}},
      {{2, 3, 4}, {0, 2}},              // not contiguous: transposed first
      {{2, 3, 4, 5}, {1, 3}},
      {{4, 1, 6, 1, 3}, {0, 4}},
      {{0, 3, 2}, {0, 2}},              // empty and not contiguous
      {{1, 1, 1, 1, 1, 2, 3, 4, 5}, {5, 7}},  // rank 9, four dims once size 1 is dropped
      // Split into chunks (ReduceChunks): a global average pool's channels,
      // everything of a long tensor, a few long rows, a column.
      {{1, 56, 56, 144}, {1, 2}},
      {{1 << 20}, {0}},
      {{3, 200003}, {1}},
      {{70001, 3}, {0}},
  };
  uint32_t seed = 100;
  for (const ReduceCase& c : cases) {
    const Tensor x = RandomFloats(c.input, seed++, -3, 3);
    const Tensor axes = MakeTensor<int32_t>({static_cast<int64_t>(c.axes.size())}, c.axes);
    for (bool keep : {false, true}) {
      for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
        SCOPED_TRACE(absl::StrCat(op, " ", ShapeToString(c.input), " axes [",
                                  absl::StrJoin(c.axes, ","), "] keep_dims ", keep));
        AttrMap attrs = TypeAttr(DataType::kFloat);
        attrs.Set("Tidx", DataType::kInt32);
        attrs.Set("keep_dims", keep);
        if (std::string(op) == "Prod") {  // the CPU's float product, in its order
          ExpectSameBytesAsCpu(op, attrs, {x, axes}, {1});
        } else {
          ExpectLikeCpu(op, attrs, {x, axes}, {1});
        }
      }
    }
  }
  // NaN propagates through Max; a scalar int64 axis.
  Tensor x = RandomFloats({4, 6}, 9);
  x.data<float>()[7] = std::numeric_limits<float>::quiet_NaN();
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("Tidx", DataType::kInt64);
  attrs.Set("keep_dims", false);
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    ExpectLikeCpu(op, attrs, {x, MakeTensor<int64_t>({}, {1})}, {1});
  }
  // Max and Min give the NaN itself (a negative one here); no axes give the
  // input's bits (-0 stays -0).
  x.data<float>()[7] = -std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[8] = -0.0f;
  for (const char* op : {"Max", "Min"}) {
    ExpectSameBytesAsCpu(op, attrs, {x, MakeTensor<int64_t>({}, {1})}, {1});
  }
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    ExpectSameBytesAsCpu(op, attrs, {x, MakeTensor<int64_t>({0}, {})}, {1});
  }
}

// Any and All of bool masks over the same axis sets (sparse trues, so both
// answers occur), byte for byte.
TEST_F(CudaGpuPoolReduceTest, AnyAndAllMatchTheCpu) {
  const std::vector<ReduceCase> cases = {
      {{4, 768}, {-1}}, {{3, 5, 7}, {1, 2}}, {{2, 7, 7, 64}, {1, 2}}, {{6, 5}, {0}},
      {{2, 3, 4}, {0, 1, 2}}, {{2, 3, 4}, {}}, {{0, 4}, {0}}, {{3, 0}, {1}},
      {{2, 3, 4}, {0, 2}}, {{4, 1, 6, 1, 3}, {0, 4}},
  };
  uint32_t seed = 200;
  for (const ReduceCase& c : cases) {
    for (int every : {3, 40}) {  // one true in `every`, and all but one in `every`
      std::mt19937 rng(seed++);
      int64_t n = 1;
      for (int64_t d : c.input) n *= d;
      std::vector<bool> bits(static_cast<size_t>(n));
      for (size_t i = 0; i < bits.size(); ++i) bits[i] = (rng() % every == 0) != (every == 40);
      const Tensor x = MakeTensor<bool>(c.input, bits);
      const Tensor axes = MakeTensor<int32_t>({static_cast<int64_t>(c.axes.size())}, c.axes);
      for (bool keep : {false, true}) {
        for (const char* op : {"Any", "All"}) {
          SCOPED_TRACE(absl::StrCat(op, " ", ShapeToString(c.input), " axes [",
                                    absl::StrJoin(c.axes, ","), "] keep_dims ", keep));
          AttrMap attrs;
          attrs.Set("Tidx", DataType::kInt32);
          attrs.Set("keep_dims", keep);
          ExpectSameBytesAsCpu(op, attrs, {x, axes}, {1});
        }
      }
    }
  }
}

// The index of the first largest (smallest) value; a NaN never wins; int32
// and int64 indices; every axis of a 3-D tensor and a classifier's logits.
TEST_F(CudaGpuPoolReduceTest, ArgMaxAndArgMinMatchTheCpu) {
  Tensor x = RandomFloats({3, 5, 7}, 11, -3, 3);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.data<float>()[i] = std::round(x.data<float>()[i]);  // ties
  }
  x.data<float>()[4] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[9] = -std::numeric_limits<float>::infinity();
  const Tensor logits = RandomFloats({64, 1000}, 12, -10, 10);
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (DataType index : {DataType::kInt64, DataType::kInt32}) {
      AttrMap attrs = TypeAttr(DataType::kFloat);
      attrs.Set("Tidx", DataType::kInt32);
      attrs.Set("output_type", index);
      for (int32_t axis : {0, 1, 2, -1}) {
        SCOPED_TRACE(absl::StrCat(op, " axis ", axis, " ", DataTypeName(index)));
        ExpectSameBytesAsCpu(op, attrs, {x, MakeTensor<int32_t>({}, {axis})}, {1});
      }
      ExpectSameBytesAsCpu(op, attrs, {logits, MakeTensor<int32_t>({}, {1})}, {1});
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
