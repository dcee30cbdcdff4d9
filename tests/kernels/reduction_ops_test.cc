// Reductions and ArgMax/ArgMin against TensorFlow goldens
// (tests/generators/kernel_goldens/elementwise.py), plus identities of empty
// reductions, axis errors and shape inference.
#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/elementwise_test_util.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

// --- golden helpers (bfloat16 goldens are stored as uint16 bits) ---

// Elements [offset, offset + size of `shape`) of a flat golden, as `shape`.
Tensor Segment(const Tensor& flat, int64_t offset, const Shape& shape) {
  Tensor t = *Tensor::Create(flat.dtype(), shape);
  const size_t elem = DataTypeSize(flat.dtype());
  EXPECT_LE(offset + t.num_elements(), flat.num_elements());
  if (offset + t.num_elements() <= flat.num_elements()) {
    std::memcpy(t.raw_data(), static_cast<const char*>(flat.raw_data()) + offset * elem,
                t.byte_size());
  }
  return t;
}

Tensor Slice(const Tensor& stacked, int64_t i) {
  Shape shape(stacked.shape().begin() + 1, stacked.shape().end());
  return Segment(stacked, i * (stacked.num_elements() / stacked.dim(0)), shape);
}

AttrMap ReduceAttrs(DataType t, bool keep_dims = false) {
  AttrMap a;
  if (t != DataType::kBool) a.Set("T", t);
  a.Set("keep_dims", keep_dims);
  return a;
}

// The reductions of the goldens, in the script's order.
struct Config {
  std::vector<int32_t> axes;
  bool scalar_axis;  // axis is the scalar 1 rather than a vector
  bool keep_dims;
};
const std::vector<Config> kConfigs = {{{0}, false, false},       {{1}, false, true},
                                      {{2}, false, false},       {{-1}, false, false},
                                      {{0, 2}, false, false},    {{2, 0}, false, true},
                                      {{0, 1, 2}, false, false}, {{1, -1}, false, false},
                                      {{1}, true, false},        {{}, false, false}};

Shape ReducedShape(const Shape& in, const Config& c) {
  std::vector<bool> reduced(in.size(), false);
  for (int32_t a : c.axes) reduced[a < 0 ? a + in.size() : a] = true;
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(in[d]);
    } else if (c.keep_dims) {
      out.push_back(1);
    }
  }
  return out;
}

Tensor AxisTensor(const Config& c) {
  if (c.scalar_axis) return Scalar<int32_t>(c.axes[0]);
  return MakeTensor<int32_t>({static_cast<int64_t>(c.axes.size())}, c.axes);
}

void CheckReductions(const std::string& name, DataType dtype, const std::string& op, double atol,
                     double rtol) {
  SCOPED_TRACE(name + " " + op);
  const Tensor x = Golden("reduce_" + name + "_x", dtype);
  const Tensor flat = Golden("reduce_" + name + "_" + op, dtype);
  ASSERT_EQ(x.dtype(), dtype);
  int64_t offset = 0;
  for (size_t i = 0; i < kConfigs.size(); ++i) {
    SCOPED_TRACE("config " + std::to_string(i));
    const Shape want_shape = ReducedShape(x.shape(), kConfigs[i]);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(op, ReduceAttrs(dtype, kConfigs[i].keep_dims), {x, AxisTensor(kConfigs[i])});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = Segment(flat, offset, want_shape);
    EXPECT_TRUE(Near((*out)[0], want, atol, rtol));
    offset += want.num_elements();
  }
  EXPECT_EQ(offset, flat.num_elements());
}

TEST(ReductionOpsTest, MatchTensorFlow) {
  struct Case {
    std::string name;
    DataType dtype;
    double atol, rtol;
  };
  // float16/bfloat16: TF may round partial sums to the stored type; smrt
  // accumulates in float and rounds once.
  for (const Case& c : std::vector<Case>{{"float32", DataType::kFloat, 1e-5, 1e-5},
                                         {"float64", DataType::kDouble, 1e-12, 1e-12},
                                         {"float16", DataType::kHalf, 2e-2, 4e-3},
                                         {"bfloat16", DataType::kBFloat16, 1e-1, 2e-2},
                                         {"int32", DataType::kInt32, 0, 0},
                                         {"int64", DataType::kInt64, 0, 0},
                                         {"int8", DataType::kInt8, 0, 0},
                                         {"uint8", DataType::kUInt8, 0, 0}}) {
    for (std::string op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
      CheckReductions(c.name, c.dtype, op, c.atol, c.rtol);
    }
  }
  CheckReductions("bool", DataType::kBool, "All", 0, 0);
  CheckReductions("bool", DataType::kBool, "Any", 0, 0);
}

// A bfloat16 global average pool ([N, H, W, C] over H and W, as
// precision=bfloat16 runs squeeze-excite): the double sum of the exact
// values, rounded once, at one and two threads.
TEST(ReductionOpsTest, Bfloat16MeanOverRowsSumsInDoubleAndRoundsOnce) {
  const Tensor x = ToBFloat16(testing::RandomFloats({3, 37, 29, 24}, 5, -3.0f, 5.0f));
  const Tensor xf = ToFloat(x);
  Tensor axes = *Tensor::Create(DataType::kInt32, {2});
  axes.data<int32_t>()[0] = 1;
  axes.data<int32_t>()[1] = 2;
  for (int threads : {1, 2}) {
    IntraOpThreadsScope scope(threads);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Mean", ReduceAttrs(DataType::kBFloat16), {x, axes});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->at(0).shape(), (Shape{3, 24}));
    const Tensor got = ToFloat(out->at(0));
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t c = 0; c < 24; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < 37 * 29; ++i) sum += xf.data<float>()[(b * 37 * 29 + i) * 24 + c];
        const float want = static_cast<float>(Eigen::bfloat16(static_cast<float>(sum / (37 * 29))));
        ASSERT_EQ(got.data<float>()[b * 24 + c], want) << b << " " << c << " at " << threads;
      }
    }
  }
}

TEST(ReductionOpsTest, NaNPropagatesThroughMaxMinButNotArgMaxArgMin) {
  const Tensor x = Golden("reduce_nan_x");
  const Tensor want = Golden("reduce_nan_out");
  const Tensor axis = Scalar<int32_t>(1);
  int k = 0;
  for (std::string op : {"Max", "Min"}) {
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, ReduceAttrs(DataType::kFloat), {x, axis});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Slice(want, k++))) << op;
  }
  for (std::string op : {"ArgMax", "ArgMin"}) {
    AttrMap attrs;
    attrs.Set("T", DataType::kFloat);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, {x, axis});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor expected = Slice(want, k++);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ((*out)[0].data<int64_t>()[i], static_cast<int64_t>(expected.data<float>()[i]))
          << op << " row " << i;
    }
  }
}

TEST(ReductionOpsTest, ArgMaxArgMinMatchTensorFlow) {
  for (const auto& [name, dtype] :
       std::vector<std::pair<std::string, DataType>>{{"float32", DataType::kFloat},
                                                     {"int32", DataType::kInt32},
                                                     {"uint8", DataType::kUInt8},
                                                     {"float16", DataType::kHalf},
                                                     {"bool", DataType::kBool}}) {
    const Tensor x = Golden("arg_" + name + "_x");
    ASSERT_EQ(x.dtype(), dtype) << name;
    for (std::string op : {"ArgMax", "ArgMin"}) {
      SCOPED_TRACE(name + " " + op);
      const Tensor flat = Golden("arg_" + name + "_" + op);
      int64_t offset = 0;
      for (int axis : {0, 1, 2, -1}) {
        AttrMap attrs;
        attrs.Set("T", dtype);
        absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, {x, Scalar<int32_t>(axis)});
        ASSERT_TRUE(out.ok()) << out.status();
        Shape shape = x.shape();
        shape.erase(shape.begin() + (axis < 0 ? axis + 3 : axis));
        const Tensor want = Segment(flat, offset, shape);
        EXPECT_TRUE(TensorsNear((*out)[0], want)) << "axis " << axis;
        offset += want.num_elements();
      }
    }
  }
}

TEST(ReductionOpsTest, EmptyReductionsGiveIdentities) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor xf = MakeTensor<float>({0, 3}, {});
  const Tensor axis0 = Scalar<int32_t>(0);
  struct Case {
    std::string op;
    float want;
  };
  for (const Case& c : std::vector<Case>{
           {"Sum", 0}, {"Prod", 1}, {"Max", -inf}, {"Min", inf}, {"Mean", std::nanf("")}}) {
    SCOPED_TRACE(c.op);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(c.op, ReduceAttrs(DataType::kFloat), {xf, axis0});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({3}, {c.want, c.want, c.want})));
  }
  const Tensor xi = MakeTensor<int32_t>({0, 2}, {});
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  const int32_t highest = std::numeric_limits<int32_t>::max();
  for (const auto& [op, want] : std::vector<std::pair<std::string, int32_t>>{
           {"Sum", 0}, {"Prod", 1}, {"Max", lowest}, {"Min", highest}, {"Mean", 0}}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, ReduceAttrs(DataType::kInt32), {xi, axis0});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{want, want}));
  }
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Min", ReduceAttrs(DataType::kUInt8), {MakeTensor<uint8_t>({0}, {}), axis0});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<uint8_t>()[0], 255);
  for (const auto& [op, want] :
       std::vector<std::pair<std::string, bool>>{{"All", true}, {"Any", false}}) {
    out = RunOp(op, ReduceAttrs(DataType::kBool, true),
                {MakeTensor<bool>({2, 0}, {}), Scalar<int32_t>(1)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), (Shape{2, 1}));
    EXPECT_EQ(Values<bool>((*out)[0]), (std::vector<bool>{want, want})) << op;
  }
  // A reduction whose output is empty.
  out = RunOp("Sum", ReduceAttrs(DataType::kFloat),
              {MakeTensor<float>({0, 3}, {}), Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
}

TEST(ReductionOpsTest, IntegerSumWrapsAndMeanAccumulatesWide) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Sum", ReduceAttrs(DataType::kInt8),
            {MakeTensor<int8_t>({3}, {100, 100, 100}), Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int8_t>()[0], 44);
  struct Case {
    std::vector<int32_t> in;
    int32_t want;
  };
  for (const Case& c : std::vector<Case>{
           {{-7, 0, 0, 0}, -1}, {{1, 2, 2}, 1}, {{2147483647, 2147483647}, 2147483647}}) {
    out =
        RunOp("Mean", ReduceAttrs(DataType::kInt32),
              {MakeTensor<int32_t>({static_cast<int64_t>(c.in.size())}, c.in), Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0], c.want);
  }
  out = RunOp("Mean", ReduceAttrs(DataType::kUInt8),
              {MakeTensor<uint8_t>({3}, {200, 200, 1}), Scalar<int64_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<uint8_t>()[0], 133);
}

TEST(ReductionOpsTest, AxisArguments) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap f = ReduceAttrs(DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> out = RunOp("Sum", f, {x, MakeTensor<int32_t>({2}, {1, -1})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "duplicate dimension: 1")) << out.status();
  out = RunOp("Sum", f, {x, MakeTensor<int32_t>({1}, {2})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(),
                                "Invalid reduction dimension 2 for input with 2 dimension(s)"))
      << out.status();
  out = RunOp("Sum", f, {x, MakeTensor<float>({1}, {0})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  // A 2-D axis tensor is flattened, int64 axes work.
  out = RunOp("Sum", f, {x, MakeTensor<int32_t>({1, 1}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{6, 15}));
  AttrMap f64 = f;
  f64.Set("Tidx", DataType::kInt64);
  out = RunOp("Max", f64, {x, Scalar<int64_t>(-2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{4, 5, 6}));
  // Empty axis list: the input unchanged, also for a scalar.
  out = RunOp("Prod", f, {x, MakeTensor<int32_t>({0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], x));
  out = RunOp("Sum", f, {Scalar<float>(3), MakeTensor<int32_t>({0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Scalar<float>(3)));
  out = RunOp("Sum", f, {Scalar<float>(3), Scalar<int32_t>(0)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  // Strings cannot be summed; All needs bool.
  out = RunOp("Sum", ReduceAttrs(DataType::kString),
              {MakeTensor<std::string>({1}, {"a"}), Scalar<int32_t>(0)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  out = RunOp("All", ReduceAttrs(DataType::kBool), {x, Scalar<int32_t>(0)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

PartialShape Dims(Shape d) { return PartialShape::Known(std::move(d)); }

TEST(ReductionOpsTest, InfersShapes) {
  const ValueInfo in{DataType::kFloat, Dims({2, -1, 4})};
  const ValueInfo axis_vec{DataType::kInt32, Dims({2})};
  const Tensor axes = MakeTensor<int32_t>({2}, {0, -1});
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("Mean", ReduceAttrs(DataType::kFloat), {in, axis_vec}, {nullptr, &axes});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({-1}));
  info = InferOp("Mean", ReduceAttrs(DataType::kFloat, true), {in, axis_vec}, {nullptr, &axes});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({1, -1, 1}));
  // Axis unknown: keep_dims keeps the rank, otherwise the rank is unknown.
  info = InferOp("Sum", ReduceAttrs(DataType::kFloat, true), {in, axis_vec});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({-1, -1, -1}));
  info = InferOp("Sum", ReduceAttrs(DataType::kFloat), {in, axis_vec});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)[0].shape.known_rank);
  // An axis vector known to be empty leaves the input shape.
  info = InferOp("Sum", ReduceAttrs(DataType::kFloat), {in, {DataType::kInt32, Dims({0})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, in.shape);
  // Unknown input rank.
  info = InferOp("Any", ReduceAttrs(DataType::kBool),
                 {{DataType::kBool, PartialShape::Unknown()}, axis_vec}, {nullptr, &axes});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)[0].shape.known_rank);
  EXPECT_EQ((*info)[0].dtype, DataType::kBool);
  // Known bad axes fail at inference.
  const Tensor bad = MakeTensor<int32_t>({1}, {3});
  info = InferOp("Sum", ReduceAttrs(DataType::kFloat), {in, {DataType::kInt32, Dims({1})}},
                 {nullptr, &bad});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ReductionOpsTest, ArgMaxArgMinArguments) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 5, 5, 7, 0, 7});
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> out = RunOp("ArgMax", attrs, {x, Scalar<int32_t>(-1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 0}));  // ties: first index
  AttrMap i32 = attrs;
  i32.Set("output_type", DataType::kInt32);
  i32.Set("Tidx", DataType::kInt64);
  out = RunOp("ArgMin", i32, {x, Scalar<int64_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 1, 0}));

  out = RunOp("ArgMax", attrs, {x, Scalar<int32_t>(2)});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "[-2, 2)")) << out.status();
  out = RunOp("ArgMax", attrs, {x, MakeTensor<int32_t>({1}, {0})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = RunOp("ArgMax", attrs, {Scalar<float>(1), Scalar<int32_t>(0)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = RunOp("ArgMax", attrs, {MakeTensor<float>({2, 0}, {}), Scalar<int32_t>(1)});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(out.status().message(), "Reduction axis 1 is empty in shape (2, 0)"))
      << out.status();
  out = RunOp("ArgMin", attrs, {MakeTensor<float>({0, 3}, {}), Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));

  const Tensor axis = Scalar<int32_t>(1);
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("ArgMax", attrs, {{DataType::kFloat, Dims({-1, 3, 5})}, {DataType::kInt32, Dims({})}},
              {nullptr, &axis});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({-1, 5}));
  EXPECT_EQ((*info)[0].dtype, DataType::kInt64);
  info = InferOp("ArgMax", attrs,
                 {{DataType::kFloat, Dims({-1, 3, 5})}, {DataType::kInt32, Dims({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({-1, -1}));
}

// Sum/Mean over the rows of [rows, cols] or [batch, rows, cols] (the global
// average pool of NHWC activations) take their own path: checked against a
// plain double sum on shapes with several row chunks and ragged tails, and for
// the same bits at 1, 2 and 3 threads.
TEST(ReductionOpsTest, GlobalPoolSumsMatchPlainSumsAtEveryThreadCount) {
  struct Case {
    Shape shape;
    std::vector<int32_t> axes;
  };
  for (const Case& c : std::vector<Case>{{{1, 112, 112, 32}, {1, 2}},
                                         {{1, 14, 14, 480}, {1, 2}},
                                         {{3, 9, 7, 5}, {1, 2}},
                                         {{2, 1001, 3}, {1}},
                                         {{1037, 20}, {0}}}) {
    Tensor x = *Tensor::Create(DataType::kFloat, c.shape);
    float* xv = x.data<float>();
    for (int64_t i = 0; i < x.num_elements(); ++i) xv[i] = std::sin(0.37f * i) + 0.001f * (i % 97);
    const int64_t cols = c.shape.back();
    int64_t rows = 1;
    for (int32_t a : c.axes) rows *= c.shape[a];
    const int64_t batch = x.num_elements() / (rows * cols);
    for (std::string op : {"Sum", "Mean"}) {
      SCOPED_TRACE(op + " of " + x.DebugString());
      std::vector<float> want(batch * cols);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t j = 0; j < cols; ++j) {
          double sum = 0;
          for (int64_t r = 0; r < rows; ++r) sum += xv[(b * rows + r) * cols + j];
          want[b * cols + j] = static_cast<float>(op == "Mean" ? sum / rows : sum);
        }
      }
      std::vector<float> first;
      for (int threads : {1, 2, 3}) {
        IntraOpThreadsScope scope(threads);
        absl::StatusOr<std::vector<Tensor>> out =
            RunOp(op, ReduceAttrs(DataType::kFloat, true),
                  {x, MakeTensor<int32_t>({static_cast<int64_t>(c.axes.size())}, c.axes)});
        ASSERT_TRUE(out.ok()) << out.status();
        const std::vector<float> got = Values<float>((*out)[0]);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::fabs(want[i]))) << "at " << i;
        }
        if (first.empty()) first = got;
        EXPECT_EQ(got, first) << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
