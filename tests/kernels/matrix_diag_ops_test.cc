// MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3} and MatrixSetDiag{,V2,V3}
// against TensorFlow 2.21's results, exactly, and its messages
// (tests/generators/kernel_goldens/matrix_diag.py): bands above, below and
// across the main diagonal of square, wide and tall matrices, num_rows and
// num_cols given or inferred, padding, the four align values, batch dims,
// empty shapes and several dtypes.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(
      smrt::testing::TestDataDir() + "/kernels/matrix_diag/matrix_diag.rec");
  return *goldens;
}

TEST(MatrixDiagOpsTest, MatchesTensorFlowExactly) {
  std::map<std::string, int> cases;
  for (const auto& [name, tensor] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    const std::string op = Goldens().GetString(name);
    SCOPED_TRACE(c + " " + op);
    std::vector<Tensor> inputs;
    for (int i = 0; Goldens().Has(c + ".in" + std::to_string(i)); ++i) {
      inputs.push_back(Goldens().Get(c + ".in" + std::to_string(i)));
    }
    AttrMap attrs;
    attrs.Set("T", inputs[0].dtype());
    if (Goldens().Has(c + ".attr.align")) {
      attrs.Set("align", Goldens().GetString(c + ".attr.align"));
    }
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, inputs);
    ++cases[op];
    if (Goldens().IsError(c)) {
      Goldens().ExpectError(c, out.status());
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Goldens().Get(c + ".out0"), 0, 0));
  }
  for (const char* op :
       {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3", "MatrixDiagPart", "MatrixDiagPartV2",
        "MatrixDiagPartV3", "MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    EXPECT_GE(cases[op], 3) << op;
  }
}

// The kernels copy elements by size: float16, bfloat16 and the complex types
// come out as the same bits as an integer type of their size.
TEST(MatrixDiagOpsTest, EveryElementSizeCopiesBits) {
  const std::vector<uint16_t> bits = {0x3c00, 0x4000, 0x4200, 0x4400, 0xbc00, 0x7e00};
  Tensor ints = MakeTensor<uint16_t>({2, 3}, bits);
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    Tensor d = *Tensor::Create(t, {2, 3});
    std::memcpy(d.raw_data(), bits.data(), bits.size() * 2);
    Tensor pad_half = *Tensor::Create(t, {});
    std::memcpy(pad_half.raw_data(), &bits[4], 2);
    AttrMap a, ints_a;
    a.Set("align", std::string("LEFT_RIGHT"));
    a.Set("T", t);
    ints_a.Set("align", std::string("LEFT_RIGHT"));
    ints_a.Set("T", DataType::kUInt16);
    absl::StatusOr<std::vector<Tensor>> got =
        RunOp("MatrixDiagV3", a,
              {d, Scalar<int32_t>(1), Scalar<int32_t>(-1), Scalar<int32_t>(-1), pad_half});
    absl::StatusOr<std::vector<Tensor>> want =
        RunOp("MatrixDiagV3", ints_a,
              {ints, Scalar<int32_t>(1), Scalar<int32_t>(-1), Scalar<int32_t>(-1),
               Scalar<uint16_t>(bits[4])});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ((*got)[0].shape(), (Shape{2, 4, 4}));
    EXPECT_EQ(std::memcmp((*got)[0].raw_data(), (*want)[0].raw_data(), 2 * 16 * 2), 0);
  }
  Tensor c = *Tensor::Create(DataType::kComplex128, {3, 3});
  for (int i = 0; i < 18; ++i) reinterpret_cast<double*>(c.raw_data())[i] = i;
  AttrMap complex_a;
  complex_a.Set("T", DataType::kComplex128);
  absl::StatusOr<std::vector<Tensor>> part = RunOp("MatrixDiagPart", complex_a, {c});
  ASSERT_TRUE(part.ok()) << part.status();
  const double* p = reinterpret_cast<const double*>((*part)[0].raw_data());
  EXPECT_EQ(std::vector<double>(p, p + 6), (std::vector<double>{0, 1, 8, 9, 16, 17}));
}

// With k, num_rows and num_cols known before running, the output shape is
// known at load; with k unknown, nothing is.
TEST(MatrixDiagOpsTest, InfersShapes) {
  const Tensor k = MakeTensor<int32_t>({2}, {-1, 1});
  const Tensor rows = Scalar<int32_t>(-1), cols = Scalar<int32_t>(5);
  const Tensor pad = Scalar<float>(0);
  const ValueInfo i32{DataType::kInt32, PartialShape::Known({})};
  absl::StatusOr<std::vector<ValueInfo>> diag =
      InferOp("MatrixDiagV3", {},
              {ValueInfo{DataType::kFloat, PartialShape::Known({2, 3, 4})},
               ValueInfo{DataType::kInt32, PartialShape::Known({2})}, i32, i32,
               ValueInfo{DataType::kFloat, PartialShape::Known({})}},
              {nullptr, &k, &rows, &cols, &pad});
  ASSERT_TRUE(diag.ok()) << diag.status();
  EXPECT_EQ((*diag)[0].shape, PartialShape::Known({2, 4, 5}));
  absl::StatusOr<std::vector<ValueInfo>> part =
      InferOp("MatrixDiagPartV3", {},
              {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 4, 6})},
               ValueInfo{DataType::kInt32, PartialShape::Known({2})},
               ValueInfo{DataType::kFloat, PartialShape::Known({})}},
              {nullptr, &k, &pad});
  ASSERT_TRUE(part.ok()) << part.status();
  EXPECT_EQ((*part)[0].shape, PartialShape::Known({-1, 3, -1}));
  absl::StatusOr<std::vector<ValueInfo>> unknown_k =
      InferOp("MatrixDiagPartV3", {},
              {ValueInfo{DataType::kFloat, PartialShape::Known({2, 4, 6})},
               ValueInfo{DataType::kInt32, PartialShape::Known({2})},
               ValueInfo{DataType::kFloat, PartialShape::Known({})}});
  ASSERT_TRUE(unknown_k.ok()) << unknown_k.status();
  EXPECT_FALSE((*unknown_k)[0].shape.known_rank);
  AttrMap bad;
  bad.Set("align", std::string("CENTER"));
  EXPECT_TRUE(IsError(InferOp("MatrixDiagPartV3", bad,
                              {ValueInfo{DataType::kFloat, PartialShape::Known({2, 4, 6})},
                               ValueInfo{DataType::kInt32, PartialShape::Known({2})},
                               ValueInfo{DataType::kFloat, PartialShape::Known({})}})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "align must be one of"));
}

}  // namespace
}  // namespace smrt::kernels
