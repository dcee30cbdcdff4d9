// Segment*, UnsortedSegment* (segment_ops.cc) against TensorFlow's CPU
// kernels (tests/generators/kernel_goldens/segment.py), their errors, and
// their shape inference.
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/segment/" + name); }

Tensor Cast(const Tensor& t, DataType to) {
  AttrMap a;
  a.Set("SrcT", t.dtype());
  a.Set("DstT", to);
  absl::StatusOr<std::vector<Tensor>> out = RunOp("Cast", a, {t});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

absl::StatusOr<std::vector<Tensor>> Sorted(const std::string& op, const Tensor& data,
                                           const Tensor& ids) {
  AttrMap a;
  a.Set("T", data.dtype());
  a.Set("Tindices", ids.dtype());
  return RunOp(op, a, {data, ids});
}

absl::StatusOr<std::vector<Tensor>> Unsorted(const std::string& op, const Tensor& data,
                                             const Tensor& ids, const Tensor& num) {
  AttrMap a;
  a.Set("T", data.dtype());
  a.Set("Tindices", ids.dtype());
  a.Set("Tnumsegments", num.dtype());
  return RunOp(op, a, {data, ids, num});
}

// One input variant: data (cast to `dtype`), and the tolerance its results
// are held to (exact for integers).
struct Variant {
  const char* suffix;
  std::string data;
  DataType dtype;
  DataType ids;
  double tol;
};

void ExpectMatches(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& golden,
                   DataType dtype, double tol) {
  ASSERT_TRUE(out.ok()) << golden << ": " << out.status();
  Tensor expected = Golden(golden);
  if (expected.dtype() != dtype) expected = Cast(expected, dtype);  // bfloat16, stored as float32
  EXPECT_TRUE(TensorsNear((*out)[0], expected, tol, tol)) << golden;
}

TEST(SegmentOpsTest, SortedSegmentsMatchTensorFlow) {
  const Variant variants[] = {
      {"_f32", "d", DataType::kFloat, DataType::kInt32, 1e-5},
      {"_f64", "d", DataType::kDouble, DataType::kInt64, 1e-6},
      {"_i32", "di", DataType::kInt32, DataType::kInt32, 0},
      {"_i8", "d8", DataType::kInt8, DataType::kInt32, 0},
      {"_f16", "d", DataType::kHalf, DataType::kInt32, 2e-3},
      {"_bf16", "d", DataType::kBFloat16, DataType::kInt32, 1e-2},
      {"_3d", "d3", DataType::kFloat, DataType::kInt32, 1e-5},
  };
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    for (const Variant& v : variants) {
      Tensor data = Golden(v.data);
      if (data.dtype() != v.dtype) data = Cast(data, v.dtype);
      Tensor ids = Golden("ids");
      if (ids.dtype() != v.ids) ids = Cast(ids, v.ids);
      ExpectMatches(Sorted(op, data, ids), std::string(op) + v.suffix, v.dtype, v.tol);
    }
    // NaN, -inf and -0.0 in 1-D data: NaN stays until a later value replaces
    // it.
    ExpectMatches(Sorted(op, Golden("special"), Golden("special_ids")),
                  std::string(op) + "_special", DataType::kFloat, 0);
  }
}

TEST(SegmentOpsTest, UnsortedSegmentsMatchTensorFlow) {
  const Variant variants[] = {
      {"_f32", "ud", DataType::kFloat, DataType::kInt32, 1e-5},
      {"_f64", "ud", DataType::kDouble, DataType::kInt64, 1e-6},
      {"_i32", "udi", DataType::kInt32, DataType::kInt32, 0},
      {"_i8", "ud8", DataType::kInt8, DataType::kInt32, 0},
      {"_f16", "ud", DataType::kHalf, DataType::kInt32, 2e-3},
      {"_bf16", "ud", DataType::kBFloat16, DataType::kInt32, 1e-2},
  };
  for (const char* op :
       {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    for (const Variant& v : variants) {
      Tensor data = Golden(v.data);
      if (data.dtype() != v.dtype) data = Cast(data, v.dtype);
      Tensor ids = Golden("uids");
      Tensor num = Scalar<int32_t>(5);
      if (v.ids == DataType::kInt64) {
        ids = Cast(ids, v.ids);
        num = Scalar<int64_t>(5);
      }
      ExpectMatches(Unsorted(op, data, ids, num), std::string(op) + v.suffix, v.dtype, v.tol);
    }
    // ids of shape [3, 4]: on [3, 4, 2] data rows of 2, on [3, 4] data single
    // values.
    Tensor d3 = Golden("ud3");
    ExpectMatches(Unsorted(op, d3, Golden("uids2"), Scalar<int32_t>(4)), std::string(op) + "_2dids",
                  DataType::kFloat, 1e-5);
    Tensor d2 = *Tensor::Create(DataType::kFloat, {3, 4});
    for (int64_t i = 0; i < d2.num_elements(); ++i) d2.data<float>()[i] = d3.data<float>()[2 * i];
    ExpectMatches(Unsorted(op, d2, Golden("uids2"), Scalar<int32_t>(4)),
                  std::string(op) + "_fullids", DataType::kFloat, 1e-5);
    ExpectMatches(Unsorted(op, Golden("uspecial"), Golden("uspecial_ids"), Scalar<int32_t>(5)),
                  std::string(op) + "_special", DataType::kFloat, 0);
  }
}

TEST(SegmentOpsTest, UnsortedEmptySegmentsStartFromTheTypesLimits) {
  // TensorFlow's std::max(-inf, lowest) keeps lowest: a segment of -inf
  // alone is float's lowest, not -inf (and +inf alone is float's max).
  absl::StatusOr<std::vector<Tensor>> out = Unsorted(
      "UnsortedSegmentMax", MakeTensor<float>({1}, {-std::numeric_limits<float>::infinity()}),
      MakeTensor<int32_t>({1}, {0}), Scalar<int32_t>(2));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{std::numeric_limits<float>::lowest(),
                                                          std::numeric_limits<float>::lowest()}));
  out = Unsorted("UnsortedSegmentMin",
                 MakeTensor<float>({1}, {std::numeric_limits<float>::infinity()}),
                 MakeTensor<int32_t>({1}, {0}), Scalar<int32_t>(1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{std::numeric_limits<float>::max()}));
  out = Unsorted("UnsortedSegmentMax", MakeTensor<uint8_t>({2}, {3, 4}),
                 MakeTensor<int64_t>({2}, {-1, 1}), Scalar<int64_t>(3));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 4, 0}));
  out = Unsorted("UnsortedSegmentMin", MakeTensor<int64_t>({2}, {3, 4}),
                 MakeTensor<int64_t>({2}, {-1, 1}), Scalar<int64_t>(3));
  ASSERT_TRUE(out.ok()) << out.status();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{kMax, 4, kMax}));
  // A scalar id for scalar data.
  out = Unsorted("UnsortedSegmentProd", Scalar<float>(3), Scalar<int32_t>(1), Scalar<int32_t>(3));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 3, 1}));
}

TEST(SegmentOpsTest, SortedErrorsAreTensorFlows) {
  Tensor d = MakeTensor<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    ExpectInvalid(Sorted(op, d, MakeTensor<int32_t>({4}, {0, 1, 0, 1})),
                  "segment ids are not increasing");
    ExpectInvalid(Sorted(op, d, MakeTensor<int32_t>({4}, {-1, 0, 0, 1})),
                  "Segment id -1 out of range [0, 2), possibly because "
                  "'segment_ids' input is not "
                  "sorted.");
    ExpectInvalid(Sorted(op, d, MakeTensor<int64_t>({4}, {-3, -2, -2, -1})),
                  "segment ids must be >= 0");
    ExpectInvalid(Sorted(op, d, MakeTensor<int64_t>({4}, {0, 0, 0, -5})),
                  "segment ids must be >= 0");
    ExpectInvalid(Sorted(op, d, MakeTensor<int32_t>({3}, {0, 0, 1})),
                  "segment_ids should be the same size as dimension 0 of input.");
    ExpectInvalid(Sorted(op, d, MakeTensor<int32_t>({2, 2}, {0, 0, 1, 1})),
                  "segment_ids should be a vector.");
    ExpectInvalid(Sorted(op, Scalar<float>(1), MakeTensor<int32_t>({1}, {0})),
                  "input must be at least rank 1");
    // No ids: no rows.
    absl::StatusOr<std::vector<Tensor>> out =
        Sorted(op, *Tensor::Create(DataType::kFloat, {0, 2}), MakeTensor<int64_t>({0}, {}));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), (Shape{0, 2}));
  }
  EXPECT_EQ(Sorted("SegmentSum", MakeTensor<bool>({1}, {true}), MakeTensor<int32_t>({1}, {0}))
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
}

TEST(SegmentOpsTest, UnsortedErrorsAreTensorFlows) {
  Tensor d = MakeTensor<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (const char* op :
       {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    ExpectInvalid(Unsorted(op, d, MakeTensor<int32_t>({4}, {2, 0, 4, 1}), Scalar<int32_t>(4)),
                  "segment_ids[2] = 4 is out of range [0, 4)");
    ExpectInvalid(
        Unsorted(op, d, MakeTensor<int64_t>({4, 2}, {0, 1, 1, 0, 2, 7, 0, 0}), Scalar<int64_t>(3)),
        "segment_ids[2,1] = 7 is out of range [0, 3)");
    ExpectInvalid(Unsorted(op, d, MakeTensor<int32_t>({4}, {2, 0, 0, 1}), Scalar<int32_t>(-1)),
                  "Input num_segments == -1 must not be negative.");
    ExpectInvalid(
        Unsorted(op, d, MakeTensor<int32_t>({4}, {2, 0, 0, 1}), MakeTensor<int32_t>({1}, {3})),
        "num_segments should be a scalar, not shape [1]");
    ExpectInvalid(Unsorted(op, d, MakeTensor<int32_t>({3}, {0, 1, 1}), Scalar<int32_t>(3)),
                  "data.shape = [4,2] does not start with segment_ids.shape = [3]");
    ExpectInvalid(Unsorted(op, d, MakeTensor<int32_t>({1, 3}, {0, 1, 1}), Scalar<int32_t>(3)),
                  "data.shape = [4,2] does not start with segment_ids.shape = [1,3]");
    // Every id negative, no segments: an empty result.
    absl::StatusOr<std::vector<Tensor>> out =
        Unsorted(op, d, MakeTensor<int32_t>({4}, {-1, -1, -1, -1}), Scalar<int32_t>(0));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), (Shape{0, 2}));
  }
}

// The kernels check what inference could not (unknown shapes): run alone,
// without inference first.
absl::StatusOr<Tensor> KernelAlone(const std::string& op, const std::vector<Tensor>& inputs) {
  AttrMap a;
  a.Set("T", inputs[0].dtype());
  a.Set("Tindices", inputs[1].dtype());
  if (inputs.size() == 3) a.Set("Tnumsegments", inputs[2].dtype());
  absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, a);
  if (!k.ok()) return k.status();
  return RunKernel(**k, a, inputs);
}

TEST(SegmentOpsTest, KernelsCheckShapesThemselves) {
  Tensor d = MakeTensor<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  ExpectInvalid(KernelAlone("SegmentSum", {d, MakeTensor<int32_t>({3}, {0, 0, 1})}),
                "segment_ids should be the same size as dimension 0 of input.");
  ExpectInvalid(KernelAlone("SegmentMin", {Scalar<float>(1), MakeTensor<int32_t>({1}, {0})}),
                "input must be at least rank 1");
  ExpectInvalid(KernelAlone("UnsortedSegmentSum",
                            {d, MakeTensor<int32_t>({1, 3}, {0, 1, 1}), Scalar<int32_t>(3)}),
                "does not start with segment_ids.shape = [1,3]");
  ExpectInvalid(KernelAlone("UnsortedSegmentMax",
                            {d, MakeTensor<int32_t>({4}, {0, 1, 1, 0}), Scalar<int64_t>(-7)}),
                "Input num_segments == -7 must not be negative.");
  ExpectInvalid(KernelAlone("UnsortedSegmentProd", {d, MakeTensor<int32_t>({4}, {0, 1, 1, 0}),
                                                    MakeTensor<int32_t>({2}, {3, 3})}),
                "num_segments should be a scalar, not shape [2]");
}

ValueInfo Info(DataType dtype, std::vector<int64_t> dims) {
  return {dtype, PartialShape::Known(std::move(dims))};
}

std::string ShapeOf(const absl::StatusOr<std::vector<ValueInfo>>& out) {
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[0].shape.ToString();
}

TEST(SegmentOpsTest, ShapeInferenceKeepsWhatIsKnown) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("Tindices", DataType::kInt32);
  const ValueInfo data = Info(DataType::kFloat, {-1, 3});
  const ValueInfo ids = Info(DataType::kInt32, {-1});
  EXPECT_EQ(ShapeOf(InferOp("SegmentSum", a, {data, ids})), "(-1, 3)");
  Tensor known = MakeTensor<int32_t>({4}, {0, 0, 2, 4});
  EXPECT_EQ(ShapeOf(InferOp("SegmentMax", a, {data, ids}, {nullptr, &known})), "(5, 3)");
  EXPECT_EQ(ShapeOf(InferOp("SegmentMean", a, {{DataType::kFloat, PartialShape::Unknown()}, ids})),
            "unknown_rank");
  EXPECT_NE(ShapeOf(InferOp("SegmentSum", a,
                            {Info(DataType::kFloat, {4, 3}), Info(DataType::kInt32, {5})}))
                .find("same size as dimension 0"),
            std::string::npos);
  EXPECT_NE(
      ShapeOf(InferOp("SegmentProd", a, {Info(DataType::kFloat, {}), ids})).find("at least rank 1"),
      std::string::npos);

  AttrMap u = a;  // Tnumsegments from its default
  const ValueInfo data3 = Info(DataType::kFloat, {5, 3, 2});
  const ValueInfo ids2 = Info(DataType::kInt32, {5, -1});
  const ValueInfo num = Info(DataType::kInt32, {});
  EXPECT_EQ(ShapeOf(InferOp("UnsortedSegmentSum", u, {data3, ids2, num})), "(-1, 2)");
  Tensor four = Scalar<int32_t>(4);
  EXPECT_EQ(
      ShapeOf(InferOp("UnsortedSegmentMax", u, {data3, ids2, num}, {nullptr, nullptr, &four})),
      "(4, 2)");
  EXPECT_EQ(ShapeOf(InferOp("UnsortedSegmentMin", u,
                            {data3, {DataType::kInt32, PartialShape::Unknown()}, num})),
            "unknown_rank");
  Tensor negative = Scalar<int32_t>(-2);
  EXPECT_NE(
      ShapeOf(InferOp("UnsortedSegmentProd", u, {data3, ids2, num}, {nullptr, nullptr, &negative}))
          .find("must not be negative"),
      std::string::npos);
  EXPECT_NE(ShapeOf(InferOp("UnsortedSegmentSum", u, {data3, Info(DataType::kInt32, {5, 4}), num}))
                .find("does not start with segment_ids.shape = [5,4]"),
            std::string::npos);
}

}  // namespace
}  // namespace smrt::kernels
