// Every CUDA kernel against the CPU reference kernel on the same host inputs
// (fixed seeds): exact for copies, shape ops and int32; within 1e-5 for
// float32 elementwise and softmax, 1e-4 for the cuBLAS products. Inputs go
// up through _SmrtToDevice and results come back through _SmrtToHost, as in
// a run. Each test skips, with the CUDA error, where no GPU is visible.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

class CudaGpuTest : public testing::GpuTest {};

int64_t Count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Tensor RandomInts(const Shape& shape, uint32_t seed, int lo = -1000, int hi = 1000) {
  std::mt19937 rng(seed);
  std::vector<int32_t> v(Count(shape));
  for (int32_t& x : v) x = std::uniform_int_distribution<int>(lo, hi)(rng);
  return MakeTensor<int32_t>(shape, v);
}

// Random bytes of any fixed-size dtype (bools 0 or 1).
Tensor RandomBytes(DataType t, const Shape& shape, uint32_t seed) {
  absl::StatusOr<Tensor> out = Tensor::Create(t, shape);
  EXPECT_TRUE(out.ok()) << out.status();
  std::mt19937 rng(seed);
  auto* p = static_cast<uint8_t*>(out->raw_data());
  for (size_t i = 0; i < out->byte_size(); ++i) {
    p[i] = static_cast<uint8_t>(t == DataType::kBool ? rng() % 2 : rng() % 256);
  }
  return *out;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

// ---------------------------------------------------------------- copies, Const, shape ops

TEST_F(CudaGpuTest, CopiesRoundTripEveryDtype) {
  uint32_t seed = 1;
  for (DataType t : FixedSizeTypes()) {
    for (const Shape& shape : {Shape{}, Shape{3, 5}, Shape{0, 4}, Shape{1000, 37}}) {
      SCOPED_TRACE(absl::StrCat(DataTypeName(t), " ", ShapeToString(shape)));
      const Tensor host = RandomBytes(t, shape, seed++);
      absl::StatusOr<Tensor> dev = Upload(device_.get(), host);
      ASSERT_TRUE(dev.ok()) << dev.status();
      EXPECT_TRUE(dev->on_device());
      EXPECT_EQ(dev->shape(), shape);
      absl::StatusOr<Tensor> back = Download(device_.get(), *dev);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_FALSE(back->on_device());
      EXPECT_TRUE(SameBytes(*back, host));
    }
  }
}

TEST_F(CudaGpuTest, ConstUploadsItsValue) {
  for (DataType t : {DataType::kFloat, DataType::kInt64, DataType::kBool, DataType::kHalf}) {
    AttrMap attrs;
    attrs.Set("dtype", t);
    const Tensor value = RandomBytes(t, {4, 9}, 77);
    attrs.Set("value", value);
    absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(device_.get(), "Const", attrs, {});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_TRUE((*out)[0].on_device());
    absl::StatusOr<Tensor> back = Download(device_.get(), (*out)[0]);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(SameBytes(*back, value)) << DataTypeName(t);
  }
}

TEST_F(CudaGpuTest, ShapeOpsShareStorageAndKeepBytes) {
  const Tensor host = RandomBytes(DataType::kInt32, {2, 1, 6}, 5);
  absl::StatusOr<Tensor> dev = Upload(device_.get(), host);
  ASSERT_TRUE(dev.ok()) << dev.status();
  struct Case {
    const char* op;
    AttrMap attrs;
    std::vector<Tensor> rest;
    Shape want;
  };
  AttrMap squeeze = TypeAttr(DataType::kInt32);
  squeeze.Set("squeeze_dims", std::vector<int64_t>{1});
  const std::vector<Case> cases = {
      {"Identity", TypeAttr(DataType::kInt32), {}, {2, 1, 6}},
      {"Reshape", TypeAttr(DataType::kInt32), {MakeTensor<int64_t>({2}, {-1, 4})}, {3, 4}},
      {"ExpandDims", TypeAttr(DataType::kInt32), {MakeTensor<int32_t>({}, {-1})}, {2, 1, 6, 1}},
      {"Squeeze", squeeze, {}, {2, 6}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    const int before = device_->allocations();
    std::vector<Tensor> inputs = {*dev};
    for (const Tensor& t : c.rest) inputs.push_back(t);
    absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(device_.get(), c.op, c.attrs, inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(device_->allocations(), before) << "a shape op allocated";
    EXPECT_EQ((*out)[0].raw_data(), dev->raw_data());
    EXPECT_EQ((*out)[0].shape(), c.want);
    absl::StatusOr<Tensor> back = Download(device_.get(), (*out)[0]);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(std::memcmp(back->raw_data(), host.raw_data(), host.byte_size()), 0);
  }
}

// ---------------------------------------------------------------- elementwise

const std::vector<std::pair<Shape, Shape>> kBroadcastCases = {
    {{}, {}},
    {{7}, {}},
    {{}, {7}},
    {{2, 3, 4}, {4}},
    {{2, 1, 4}, {1, 3, 1}},
    {{2, 3}, {2, 1}},
    {{4, 1, 3}, {1, 5, 1}},
    {{3, 1}, {1, 4}},
    {{2, 3, 4, 5}, {1, 3, 1, 5}},
    {{0, 3}, {3}},
    {{1027, 129}, {129}},    // more than one block; odd sizes
    {{1 << 20}, {1 << 20}},  // more elements than the grid has threads
};

TEST_F(CudaGpuTest, BinariesMatchTheCpuWithBroadcasting) {
  uint32_t seed = 100;
  for (const auto& [sa, sb] : kBroadcastCases) {
    SCOPED_TRACE(ShapeToString(sa) + " vs " + ShapeToString(sb));
    const Tensor fa = RandomFloats(sa, seed++, -10, 10);
    const Tensor fb = RandomFloats(sb, seed++, -10, 10);
    const Tensor ia = RandomInts(sa, seed++);
    const Tensor ib = RandomInts(sb, seed++);
    for (const char* op :
         {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference"}) {
      ExpectLikeCpu(op, TypeAttr(DataType::kFloat), {fa, fb}, 1e-5);
      if (std::string(op) != "RealDiv") {
        ExpectLikeCpu(op, TypeAttr(DataType::kInt32), {ia, ib}, 0);
      }
    }
  }
}

TEST_F(CudaGpuTest, BinariesKeepNaNsAndWrapIntegers) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor fa = MakeTensor<float>({6}, {nan, 1, -0.0f, inf, 0, 3});
  const Tensor fb = MakeTensor<float>({6}, {1, nan, 0.0f, inf, 0, -inf});
  for (const char* op :
       {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference"}) {
    ExpectLikeCpu(op, TypeAttr(DataType::kFloat), {fa, fb}, 0);
  }
  const int32_t big = std::numeric_limits<int32_t>::max();
  const int32_t small = std::numeric_limits<int32_t>::min();
  const Tensor ia = MakeTensor<int32_t>({4}, {big, small, big, 65536});
  const Tensor ib = MakeTensor<int32_t>({4}, {1, 1, -1, 65536});
  for (const char* op : {"AddV2", "Sub", "Mul", "SquaredDifference", "Maximum"}) {
    ExpectLikeCpu(op, TypeAttr(DataType::kInt32), {ia, ib}, 0);
  }
  // int64 (token ids plus an offset in text models), wrapping alike.
  const int64_t big64 = std::numeric_limits<int64_t>::max();
  const int64_t small64 = std::numeric_limits<int64_t>::min();
  const Tensor la = MakeTensor<int64_t>({5}, {big64, small64, big64, int64_t{1} << 32, -7});
  const Tensor lb = MakeTensor<int64_t>({5}, {1, 1, -1, int64_t{1} << 32, 3});
  for (const char* op : {"AddV2", "Sub", "Mul", "SquaredDifference", "Maximum", "Minimum"}) {
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kInt64), {la, lb});
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kInt64), {la, MakeTensor<int64_t>({}, {-5})});
  }
  for (const char* op : {"Relu", "Relu6", "Neg", "Square", "Abs"}) {
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kInt64), {la});
  }
}

// Comparisons give bools; NaN compares false (NotEqual true), -0 == 0.
TEST_F(CudaGpuTest, ComparisonsAndLogicalsMatchTheCpu) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor sa = MakeTensor<float>({8}, {nan, 1, -0.0f, inf, 0, 3, 2, -inf});
  const Tensor sb = MakeTensor<float>({8}, {1, nan, 0.0f, inf, 0, -inf, 2, -inf});
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    SCOPED_TRACE(op);
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kFloat), {sa, sb});
    uint32_t seed = 300;
    for (const auto& [a, b] : kBroadcastCases) {
      SCOPED_TRACE(ShapeToString(a) + " vs " + ShapeToString(b));
      // Few distinct values, so that equal operands occur.
      Tensor fa = RandomFloats(a, seed++, -3, 3);
      Tensor fb = RandomFloats(b, seed++, -3, 3);
      for (Tensor* t : {&fa, &fb}) {
        for (int64_t i = 0; i < t->num_elements(); ++i) {
          t->data<float>()[i] = std::round(t->data<float>()[i]);
        }
      }
      ExpectSameBytesAsCpu(op, TypeAttr(DataType::kFloat), {fa, fb});
    }
  }
  const Tensor ba = RandomBytes(DataType::kBool, {7, 33}, 301);
  const Tensor bb = RandomBytes(DataType::kBool, {33}, 302);
  for (const char* op : {"LogicalAnd", "LogicalOr"}) ExpectSameBytesAsCpu(op, AttrMap(), {ba, bb});
  for (const char* op : {"Equal", "NotEqual"}) {
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kBool), {ba, bb});
  }
  // int64: Keras's embedding bounds check, Less(ids, 0), on looked-up ids.
  const Tensor la = MakeTensor<int64_t>({6}, {std::numeric_limits<int64_t>::min(), -1, 0,
                                              int64_t{1} << 40, 5, 5});
  const Tensor lb = MakeTensor<int64_t>({6}, {0, 0, 0, int64_t{1} << 40, 4, 6});
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"}) {
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kInt64), {la, lb});
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kInt64), {la, MakeTensor<int64_t>({}, {0})});
  }
  ExpectSameBytesAsCpu("LogicalNot", AttrMap(), {ba});
  // Shapes that do not broadcast, without incompatible_shape_error: one bool.
  AttrMap lenient = TypeAttr(DataType::kFloat);
  lenient.Set("incompatible_shape_error", false);
  for (const char* op : {"Equal", "NotEqual"}) {
    ExpectSameBytesAsCpu(op, lenient,
                         {RandomFloats({2, 3}, 303, -1, 1), RandomFloats({4}, 304, -1, 1)});
  }
}

TEST_F(CudaGpuTest, LeakyReluMatchesTheCpu) {
  Tensor x = RandomFloats({33, 129}, 305, -10, 10);
  x.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[1] = -std::numeric_limits<float>::infinity();
  x.data<float>()[2] = -0.0f;
  for (float alpha : {0.2f, 0.01f, 1.5f}) {
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("alpha", alpha);
    ExpectLikeCpu("LeakyRelu", attrs, {x}, 0);
  }
  ExpectLikeCpu("LeakyRelu", TypeAttr(DataType::kFloat), {x}, 0);  // the default alpha, 0.2
}

TEST_F(CudaGpuTest, UnariesMatchTheCpu) {
  std::vector<float> v;
  const Tensor r = RandomFloats({5000}, 7, -10, 10);
  v.assign(r.data<float>(), r.data<float>() + 5000);
  v[0] = -0.0f;
  v[1] = std::numeric_limits<float>::quiet_NaN();
  v[2] = std::numeric_limits<float>::infinity();
  v[3] = -std::numeric_limits<float>::infinity();
  v[4] = 100.0f;  // exp overflows: Sigmoid is 1
  v[5] = -100.0f;
  v[6] = 6.0f;
  v[7] = 0.0f;
  const Tensor f = MakeTensor<float>({50, 100}, v);
  const Tensor empty = MakeTensor<float>({0, 3}, {});
  for (const char* op :
       {"Relu", "Relu6", "Neg", "Square", "Abs", "Sigmoid", "Tanh", "Exp", "Sqrt", "Rsqrt", "Elu",
        "Log", "Log1p", "Erf", "Erfc", "Floor", "Ceil", "Reciprocal", "Inv", "Softplus",
        "Softsign", "Selu", "Sign", "Round", "Sin", "Cos", "Expm1", "IsNan", "IsFinite"}) {
    SCOPED_TRACE(op);
    ExpectLikeCpu(op, TypeAttr(DataType::kFloat), {f}, 1e-5);
    ExpectLikeCpu(op, TypeAttr(DataType::kFloat), {empty}, 0);
  }
  // The exact ones bit for bit (TensorsNear takes -0 for +0), with the NaN
  // the GPU's arithmetic makes (0x7fffffff), which the CPU keeps.
  std::vector<float> canonical = v;
  const uint32_t gpu_nan = 0x7fffffffu;
  std::memcpy(&canonical[1], &gpu_nan, sizeof gpu_nan);
  const Tensor g = MakeTensor<float>({50, 100}, canonical);
  for (const char* op : {"Sign", "Round", "Floor", "Ceil", "IsNan", "IsFinite"}) {
    SCOPED_TRACE(op);
    ExpectSameBytesAsCpu(op, TypeAttr(DataType::kFloat), {g});
  }
  // Round's halves go to even, and -0.3 to -0, bit for bit.
  ExpectSameBytesAsCpu("Round", TypeAttr(DataType::kFloat),
                       {MakeTensor<float>({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -0.3f, 2.7f,
                                                -2.7f})});
  Tensor ints = RandomInts({3, 333}, 8);
  ints.data<int32_t>()[0] = std::numeric_limits<int32_t>::min();  // Neg and Square wrap
  ints.data<int32_t>()[1] = 70000;
  for (const char* op : {"Relu", "Relu6", "Neg", "Square", "Abs"}) {
    ExpectLikeCpu(op, TypeAttr(DataType::kInt32), {ints}, 0);
  }
}

TEST_F(CudaGpuTest, BiasAddMatchesTheCpu) {
  AttrMap nhwc = TypeAttr(DataType::kFloat);
  nhwc.Set("data_format", std::string("NHWC"));
  AttrMap nchw = TypeAttr(DataType::kFloat);
  nchw.Set("data_format", std::string("NCHW"));
  ExpectLikeCpu("BiasAdd", nhwc, {RandomFloats({2, 3, 4, 5}, 1), RandomFloats({5}, 2)}, 1e-5);
  ExpectLikeCpu("BiasAdd", nchw, {RandomFloats({2, 3, 4, 5}, 3), RandomFloats({3}, 4)}, 1e-5);
  ExpectLikeCpu("BiasAdd", nhwc, {RandomFloats({7, 300}, 5), RandomFloats({300}, 6)}, 1e-5);
  ExpectLikeCpu("BiasAdd", nchw, {RandomFloats({7, 300}, 7), RandomFloats({300}, 8)}, 1e-5);
  ExpectLikeCpu("BiasAdd", nhwc, {RandomFloats({0, 4}, 9), RandomFloats({4}, 10)}, 0);
  ExpectLikeCpu("BiasAdd", TypeAttr(DataType::kFloat),  // data_format left to its default
                {RandomFloats({3, 2, 8}, 11), RandomFloats({8}, 12)}, 1e-5);
}

// ---------------------------------------------------------------- products

TEST_F(CudaGpuTest, MatMulMatchesTheCpu) {
  struct Mkn {
    int64_t m, k, n;
  };
  uint32_t seed = 200;
  for (const Mkn& d : {Mkn{1, 1, 1}, Mkn{3, 4, 5}, Mkn{64, 512, 33}, Mkn{130, 7, 257}, Mkn{0, 3, 4},
                       Mkn{3, 0, 4}, Mkn{3, 4, 0}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(absl::StrCat("m=", d.m, " k=", d.k, " n=", d.n, " transpose_a=", ta,
                                  " transpose_b=", tb));
        AttrMap attrs = TypeAttr(DataType::kFloat);
        attrs.Set("transpose_a", ta);
        attrs.Set("transpose_b", tb);
        const Tensor a = RandomFloats(ta ? Shape{d.k, d.m} : Shape{d.m, d.k}, seed++);
        const Tensor b = RandomFloats(tb ? Shape{d.n, d.k} : Shape{d.k, d.n}, seed++);
        ExpectLikeCpu("MatMul", attrs, {a, b}, 1e-4);
      }
    }
  }
}

TEST_F(CudaGpuTest, BatchMatMulV2MatchesTheCpu) {
  struct Case {
    Shape x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {
      {{3, 2, 4, 5}, {3, 2, 5, 6}, false, false}, {{3, 2, 5, 4}, {3, 2, 5, 6}, true, false},
      {{3, 2, 4, 5}, {3, 2, 6, 5}, false, true},  {{3, 2, 5, 4}, {3, 2, 6, 5}, true, true},
      {{3, 2, 4, 5}, {5, 6}, false, false},        // y rank 2: repeated
      {{4, 5}, {3, 2, 5, 6}, false, false},        // x rank 2
      {{1, 1, 4, 5}, {3, 2, 5, 6}, false, false},  // x batch 1
      {{3, 2, 4, 5}, {1, 5, 6}, false, false},    {{2, 4, 5}, {2, 5, 6}, false, false},
      {{1, 4, 5}, {1, 5, 6}, false, false},        // one matrix: the plain GEMM
      {{3, 2, 4, 0}, {3, 2, 0, 6}, false, false},  // k = 0: zeros
      {{0, 4, 5}, {0, 5, 6}, false, false},        // no matrices
  };
  uint32_t seed = 300;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(ShapeToString(c.x), " x ", ShapeToString(c.y), " adj_x=", c.adj_x,
                              " adj_y=", c.adj_y));
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("adj_x", c.adj_x);
    attrs.Set("adj_y", c.adj_y);
    ExpectLikeCpu("BatchMatMulV2", attrs, {RandomFloats(c.x, seed++), RandomFloats(c.y, seed++)},
                  1e-4);
  }
}

// ---------------------------------------------------------------- softmax

TEST_F(CudaGpuTest, SoftmaxMatchesTheCpu) {
  uint32_t seed = 400;
  for (const Shape& shape :
       {Shape{4, 1}, Shape{3, 7}, Shape{5, 1000}, Shape{2, 2049}, Shape{2, 3, 33}, Shape{1000},
        Shape{70000, 3}, Shape{2, 0}, Shape{0, 5}}) {
    SCOPED_TRACE(ShapeToString(shape));
    // Around 1000: exp overflows unless the row maximum is subtracted first.
    ExpectLikeCpu("Softmax", TypeAttr(DataType::kFloat), {RandomFloats(shape, seed++, 990, 1010)},
                  1e-5);
    ExpectLikeCpu("Softmax", TypeAttr(DataType::kFloat), {RandomFloats(shape, seed++, -5, 5)},
                  1e-5);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // Rows with a NaN or an infinity are NaN on both; the all-equal row is uniform.
  ExpectLikeCpu("Softmax", TypeAttr(DataType::kFloat),
                {MakeTensor<float>({4, 3}, {1, nan, 2, nan, 1, 2, inf, 0, 1, 1000, 1000, 1000})},
                1e-6);
}

TEST_F(CudaGpuTest, LogSoftmaxMatchesTheCpu) {
  uint32_t seed = 450;
  for (const Shape& shape : {Shape{4, 1}, Shape{3, 7}, Shape{5, 1000}, Shape{2, 2049},
                             Shape{70000, 3}, Shape{2, 0}}) {
    SCOPED_TRACE(ShapeToString(shape));
    ExpectLikeCpu("LogSoftmax", TypeAttr(DataType::kFloat),
                  {RandomFloats(shape, seed++, 990, 1010)}, 1e-5);
    // One dominant logit per row: log_softmax near 0 (both sums drop the
    // small terms in their own order, ~1e-6 apart on long rows).
    Tensor peaked = RandomFloats(shape, seed++, -5, 5);
    const int64_t depth = shape.back();
    for (int64_t r = 0; depth > 0 && r < peaked.num_elements() / depth; ++r) {
      peaked.data<float>()[r * depth + r % depth] += 20.0f;
    }
    ExpectLikeCpu("LogSoftmax", TypeAttr(DataType::kFloat), {peaked}, 1e-5);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // A NaN or +inf makes the row NaN; -inf gives -inf; a row of one logit is 0.
  ExpectLikeCpu("LogSoftmax", TypeAttr(DataType::kFloat),
                {MakeTensor<float>({4, 3}, {1, nan, 2, inf, 1, 2, -inf, 0, 1, 5, 5, 5})}, 1e-6);
  ExpectLikeCpu("LogSoftmax", TypeAttr(DataType::kFloat), {MakeTensor<float>({3, 1}, {1, -4, 9})},
                0);
}

}  // namespace
}  // namespace smrt::kernels::cuda
