// The array, index and image-geometry ops of array_extra_ops.cc, patch_ops.cc
// and inplace_ops.cc (and TopK, ConjugateTranspose, TensorScatter{Sub,Max,Min}
// beside their relatives) against TensorFlow 2.21's results and messages
// (tests/generators/kernel_goldens/array_extra.py): exactly, except LRN
// (float32 to 1e-5, float16 to 1e-3 relative), Empty without init (only
// its dtype and shape are defined) and TopK with sorted=false (the same
// elements, in an order TensorFlow leaves open).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(
      smrt::testing::TestDataDir() + "/kernels/array_extra/array_extra.rec");
  return *goldens;
}

int32_t GetInt(const std::string& name) { return Goldens().Get(name).data<int32_t>()[0]; }

// A golden tensor; those stored as bytes (float16, bfloat16, complex) are
// rebuilt in their dtype.
Tensor Load(const std::string& name) {
  Tensor t = Goldens().Get(name);
  if (!Goldens().Has(name + ".dtype")) return t;
  const DataType dtype = DataTypeFromProto(GetInt(name + ".dtype"));
  Shape dims = t.shape();
  dims.pop_back();
  Tensor out = *Tensor::Create(dtype, dims);
  EXPECT_EQ(out.byte_size(), t.byte_size()) << name;
  std::memcpy(out.raw_data(), t.raw_data(), std::min(out.byte_size(), t.byte_size()));
  return out;
}

// The case's attrs: <c>.attr.<name> by the golden's dtype, <c>.type.<name>
// as a DataType; T is input 0's dtype unless given.
AttrMap CaseAttrs(const std::string& c, const std::string& op, const std::vector<Tensor>& inputs) {
  AttrMap attrs;
  const std::string attr_prefix = c + ".attr.", type_prefix = c + ".type.";
  for (const auto& [name, t] : Goldens().All()) {
    if (absl::StartsWith(name, type_prefix)) {
      attrs.Set(name.substr(type_prefix.size()), DataTypeFromProto(t.data<int32_t>()[0]));
      continue;
    }
    if (!absl::StartsWith(name, attr_prefix)) continue;
    const std::string key = name.substr(attr_prefix.size());
    if (t.dtype() == DataType::kString) {
      attrs.Set(key, t.data<std::string>()[0]);
    } else if (t.dtype() == DataType::kBool) {
      attrs.Set(key, t.data<bool>()[0]);
    } else if (t.dtype() == DataType::kFloat && t.rank() == 0) {
      attrs.Set(key, t.data<float>()[0]);
    } else if (t.dtype() == DataType::kFloat) {
      attrs.Set(key, Values<float>(t));
    } else if (t.rank() == 0) {
      attrs.Set(key, t.data<int64_t>()[0]);
    } else {
      std::vector<int64_t> v(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
      if (key == "shape") {
        attrs.Set(key, PartialShape::Known(v));
      } else {
        attrs.Set(key, v);
      }
    }
  }
  if (!attrs.Has("T") && !inputs.empty()) attrs.Set("T", inputs[0].dtype());
  if (op == "UnravelIndex") attrs.Set("Tidx", inputs[0].dtype());
  if (op == "ParallelConcat") attrs.Set("N", static_cast<int64_t>(inputs.size()));
  return attrs;
}

// Each row's (index, value) pairs in index order, for TopK with
// sorted=false.
std::vector<std::pair<int32_t, float>> ByIndex(const Tensor& values, const Tensor& indices) {
  std::vector<std::pair<int32_t, float>> pairs;
  const int64_t k = indices.rank() == 0 ? 1 : indices.dim(indices.rank() - 1);
  for (int64_t i = 0; i < indices.num_elements(); ++i) {
    pairs.emplace_back(indices.data<int32_t>()[i], values.data<float>()[i]);
  }
  for (int64_t r = 0; k > 0 && r * k < static_cast<int64_t>(pairs.size()); ++r) {
    std::sort(pairs.begin() + r * k, pairs.begin() + (r + 1) * k);
  }
  return pairs;
}

TEST(ArrayExtraOpsTest, MatchesTensorFlow) {
  std::map<std::string, int> cases, errors;
  double lrn_error[2] = {0, 0};  // float32, float16: the largest relative error
  for (const auto& [name, unused] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    const std::string op = Goldens().GetString(name);
    SCOPED_TRACE(c + " " + op);
    std::vector<Tensor> inputs;
    for (int i = 0; Goldens().Has(c + ".in" + std::to_string(i)); ++i) {
      inputs.push_back(Load(c + ".in" + std::to_string(i)));
    }
    const AttrMap attrs = CaseAttrs(c, op, inputs);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, inputs);
    ++cases[op];
    if (Goldens().IsError(c)) {
      ++errors[op];
      Goldens().ExpectError(c, out.status(), static_cast<absl::StatusCode>(GetInt(c + ".code")));
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    for (int i = 0; Goldens().Has(c + ".out" + std::to_string(i)); ++i) {
      ASSERT_LT(static_cast<size_t>(i), out->size());
      const Tensor want = Load(c + ".out" + std::to_string(i));
      const Tensor& got = (*out)[i];
      if (op == "Empty" && !attrs.Get<bool>("init").value_or(true)) {
        EXPECT_EQ(got.dtype(), want.dtype());
        EXPECT_EQ(got.shape(), want.shape());
      } else if (op == "LRN") {
        const bool half = want.dtype() == DataType::kHalf;
        EXPECT_TRUE(TensorsNear(got, want, half ? 1e-3 : 1e-6, half ? 1e-3 : 1e-5));
        for (int64_t j = 0; j < want.num_elements(); ++j) {
          const double a =
              half ? static_cast<double>(got.data<Eigen::half>()[j]) : got.data<float>()[j];
          const double e =
              half ? static_cast<double>(want.data<Eigen::half>()[j]) : want.data<float>()[j];
          lrn_error[half ? 1 : 0] =
              std::max(lrn_error[half ? 1 : 0], std::fabs(a - e) / std::max(std::fabs(e), 1e-6));
        }
      } else if (op == "TopK" && !attrs.Get<bool>("sorted").value_or(true)) {
        if (i == 0) {
          const Tensor want_indices = Load(c + ".out1");
          EXPECT_EQ(ByIndex(got, (*out)[1]), ByIndex(want, want_indices));
        }
      } else {
        EXPECT_TRUE(TensorsNear(got, want, 0, 0)) << "output " << i;
      }
    }
  }
  std::cout << "LRN: largest relative error float32 " << lrn_error[0] << ", float16 "
            << lrn_error[1] << "\n";
  for (const char* op : {"TopK",
                         "Reverse",
                         "Roll",
                         "LinSpace",
                         "InTopK",
                         "InTopKV2",
                         "Diag",
                         "DiagPart",
                         "InvertPermutation",
                         "UnravelIndex",
                         "LowerBound",
                         "UpperBound",
                         "NthElement",
                         "Cross",
                         "ConjugateTranspose",
                         "Empty",
                         "GuaranteeConst",
                         "BiasAddV1",
                         "DataFormatDimMap",
                         "DataFormatVecPermute",
                         "LRN",
                         "ExtractImagePatches",
                         "ExtractVolumePatches",
                         "Dilation2D",
                         "MaxPoolWithArgmax",
                         "HistogramFixedWidth",
                         "FractionalMaxPool",
                         "FractionalAvgPool",
                         "InplaceAdd",
                         "InplaceSub",
                         "InplaceUpdate",
                         "ParallelConcat",
                         "TensorScatterMax",
                         "TensorScatterMin",
                         "TensorScatterSub",
                         "TensorStridedSliceUpdate",
                         "Fingerprint"}) {
    EXPECT_GE(cases[op], 3) << op;
  }
  for (const char* op : {"TopK", "Reverse", "Roll", "InvertPermutation", "UnravelIndex",
                         "NthElement", "InTopKV2", "Fingerprint", "TensorScatterMax"}) {
    EXPECT_GE(errors[op], 1) << op;
  }
}

// TensorFlow's CPU has no bfloat16 LRN; smrt's computes in float32 from the
// bfloat16 values and rounds once, so it is the float32 LRN of the same
// values, rounded to bfloat16.
TEST(ArrayExtraOpsTest, LrnInBFloat16IsTheRoundedFloatResult) {
  Tensor x = RandomFloats({1, 2, 3, 7}, 35, -2, 2);
  Tensor xb = *Tensor::Create(DataType::kBFloat16, x.shape());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    xb.data<Eigen::bfloat16>()[i] = static_cast<Eigen::bfloat16>(x.data<float>()[i]);
    x.data<float>()[i] = static_cast<float>(xb.data<Eigen::bfloat16>()[i]);
  }
  AttrMap a;
  a.Set("depth_radius", int64_t{2});
  a.Set("alpha", 0.3f);
  a.Set("beta", 0.75f);
  absl::StatusOr<std::vector<Tensor>> f = RunOp("LRN", a, {x});
  a.Set("T", DataType::kBFloat16);
  absl::StatusOr<std::vector<Tensor>> b = RunOp("LRN", a, {xb});
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ((*b)[0].dtype(), DataType::kBFloat16);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    EXPECT_EQ(static_cast<float>((*b)[0].data<Eigen::bfloat16>()[i]),
              static_cast<float>(static_cast<Eigen::bfloat16>((*f)[0].data<float>()[i])))
        << i;
  }
}

// Where TensorFlow leaves values unspecified (Empty without init), smrt
// gives zeros.
TEST(ArrayExtraOpsTest, EmptyWithoutInitIsZeros) {
  AttrMap a;
  a.Set("dtype", DataType::kFloat);
  a.Set("init", false);
  absl::StatusOr<std::vector<Tensor>> e = RunOp("Empty", a, {MakeTensor<int32_t>({2}, {2, 3})});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(Values<float>((*e)[0]), std::vector<float>(6, 0.0f));
}

// Without seeds (deterministic=false) TensorFlow draws the pooling regions
// at random, and so does smrt: each row sequence starts at 0, ends at the
// input's rows and steps by floor(ratio) or one more.
TEST(ArrayExtraOpsTest, FractionalPoolWithoutSeedsDrawsValidRegions) {
  AttrMap a;
  a.Set("pooling_ratio", std::vector<float>{1.0f, 1.44f, 1.73f, 1.0f});
  a.Set("T", DataType::kFloat);
  for (uint32_t i = 0; i < 4; ++i) {
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("FractionalMaxPool", a, {RandomFloats({1, 10, 9, 2}, 7 + i)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), (Shape{1, 6, 5, 2}));
    const std::vector<int64_t> rows = Values<int64_t>((*out)[1]);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows.front(), 0);
    EXPECT_EQ(rows.back(), 10);
    for (size_t j = 1; j < rows.size(); ++j) {
      EXPECT_TRUE(rows[j] - rows[j - 1] == 1 || rows[j] - rows[j - 1] == 2) << j;
    }
  }
}

// PlaceholderV2 (TF 1.x) is a feed like Placeholder: its dtype and shape
// come from its attrs, and running it unfed is an error naming it.
TEST(ArrayExtraOpsTest, PlaceholderV2IsAFeed) {
  AttrMap a;
  a.Set("dtype", DataType::kFloat);
  a.Set("shape", PartialShape::Known({-1, 3}));
  absl::StatusOr<std::vector<ValueInfo>> info = InferOp("PlaceholderV2", a, {});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].dtype, DataType::kFloat);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, 3}));
  EXPECT_TRUE(IsError(RunOp("PlaceholderV2", a, {}).status(), absl::StatusCode::kInvalidArgument,
                      "must be fed"));
}

// Shapes known before running: TopK's k, the patches' windows, Fingerprint's
// rows.
TEST(ArrayExtraOpsTest, InfersShapes) {
  AttrMap topk;
  topk.Set("k", int64_t{3});
  absl::StatusOr<std::vector<ValueInfo>> t =
      InferOp("TopK", topk, {ValueInfo{DataType::kFloat, PartialShape::Known({2, -1, 9})}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0].shape, PartialShape::Known({2, -1, 3}));
  EXPECT_EQ((*t)[1].dtype, DataType::kInt32);
  AttrMap p;
  p.Set("ksizes", std::vector<int64_t>{1, 3, 2, 1});
  p.Set("strides", std::vector<int64_t>{1, 2, 3, 1});
  p.Set("rates", std::vector<int64_t>{1, 1, 1, 1});
  p.Set("padding", std::string("VALID"));
  absl::StatusOr<std::vector<ValueInfo>> patches = InferOp(
      "ExtractImagePatches", p, {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 6, 7, 3})}});
  ASSERT_TRUE(patches.ok()) << patches.status();
  EXPECT_EQ((*patches)[0].shape, PartialShape::Known({-1, 2, 2, 18}));
  absl::StatusOr<std::vector<ValueInfo>> f =
      InferOp("Fingerprint", {},
              {ValueInfo{DataType::kString, PartialShape::Known({5, 2})},
               ValueInfo{DataType::kString, PartialShape::Known({})}});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)[0].shape, PartialShape::Known({5, 8}));
  EXPECT_EQ((*f)[0].dtype, DataType::kUInt8);
}

}  // namespace
}  // namespace smrt::kernels
