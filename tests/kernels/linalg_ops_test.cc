// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky,
// MatrixSolve, MatrixTriangularSolve and SelfAdjointEigV2 against TensorFlow
// 2.21's CPU results and messages (tests/generators/kernel_goldens/linalg.py):
// float32 and float64, batched, empty, singular and non-positive-definite
// input, broadcast batch dims, and every shape error. Eigenvectors are
// compared up to the sign of each column, and checked as A v = v diag(e) with
// orthonormal columns.
#include <algorithm>
#include <cmath>
#include <cstdio>
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
  static const auto* goldens =
      new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() + "/kernels/linalg/linalg.rec");
  return *goldens;
}

// Element i of a float32 or float64 tensor as double.
double At(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kFloat ? t.data<float>()[i] : t.data<double>()[i];
}

// The largest |actual - expected| / max(1, |expected|) over finite values.
double MaxError(const Tensor& actual, const Tensor& expected) {
  double worst = 0;
  for (int64_t i = 0; i < expected.num_elements() && i < actual.num_elements(); ++i) {
    const double e = At(expected, i), a = At(actual, i);
    if (std::isfinite(e)) worst = std::max(worst, std::abs(a - e) / std::max(1.0, std::abs(e)));
  }
  return worst;
}

struct Tolerance {
  double atol, rtol;
};
Tolerance For(DataType t) {
  return t == DataType::kFloat ? Tolerance{2e-5, 2e-5} : Tolerance{1e-12, 1e-12};
}

// A v = v diag(e), v orthonormal, and v equal to TensorFlow's up to the sign
// of each column (where the eigenvalues are distinct, so v is unique up to
// sign). Returns the largest error against TensorFlow's v.
double CheckEigenvectors(const Tensor& a, const Tensor& e, const Tensor& v, const Tensor& want_v,
                         double tol) {
  const int64_t n = a.dim(a.rank() - 1);
  if (n == 0) return 0;
  double worst = 0;
  for (int64_t m = 0; m < a.num_elements() / (n * n); ++m) {
    const int64_t base = m * n * n;
    auto A = [&](int64_t r, int64_t c) { return At(a, base + r * n + c); };
    auto V = [&](const Tensor& t, int64_t r, int64_t c) { return At(t, base + r * n + c); };
    double scale = 1;
    for (int64_t i = 0; i < n * n; ++i) scale = std::max(scale, std::abs(At(a, base + i)));
    bool distinct = true;
    for (int64_t i = 1; i < n; ++i) {
      if (At(e, m * n + i) - At(e, m * n + i - 1) < 1e-3 * scale) distinct = false;
    }
    for (int64_t c = 0; c < n; ++c) {
      const double lambda = At(e, m * n + c);
      for (int64_t r = 0; r < n; ++r) {
        double av = 0;
        for (int64_t k = 0; k < n; ++k) av += A(r, k) * V(v, k, c);
        EXPECT_NEAR(av, lambda * V(v, r, c), tol * scale * n) << "matrix " << m << " column " << c;
      }
      for (int64_t c2 = 0; c2 < n; ++c2) {
        double dot = 0;
        for (int64_t k = 0; k < n; ++k) dot += V(v, k, c) * V(v, k, c2);
        EXPECT_NEAR(dot, c == c2 ? 1.0 : 0.0, tol * n) << "matrix " << m << " columns " << c;
      }
      if (!distinct) continue;
      double dot = 0;
      for (int64_t k = 0; k < n; ++k) dot += V(v, k, c) * V(want_v, k, c);
      const double sign = dot < 0 ? -1 : 1;
      for (int64_t r = 0; r < n; ++r) {
        const double err = std::abs(sign * V(v, r, c) - V(want_v, r, c));
        worst = std::max(worst, err);
        EXPECT_NEAR(sign * V(v, r, c), V(want_v, r, c), 100 * tol) << "matrix " << m;
      }
    }
  }
  return worst;
}

// Every case of the goldens, run as TensorFlow ran it.
TEST(LinalgOpsTest, MatchesTensorFlow) {
  std::map<std::string, double> worst;  // "op dtype" -> largest error seen
  std::map<std::string, int> cases;
  for (const auto& [name, tensor] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    const std::string op = Goldens().GetString(name);
    std::vector<Tensor> inputs;
    for (int i = 0; Goldens().Has(c + ".in" + std::to_string(i)); ++i) {
      inputs.push_back(Goldens().Get(c + ".in" + std::to_string(i)));
    }
    AttrMap attrs;
    attrs.Set("T", inputs[0].dtype());
    for (const char* attr : {"adjoint", "lower", "compute_v"}) {
      const std::string key = c + ".attr." + attr;
      if (Goldens().Has(key)) attrs.Set(attr, Goldens().Get(key).data<bool>()[0]);
    }
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, inputs);
    ++cases[op];
    if (Goldens().IsError(c)) {
      Goldens().ExpectError(c, out.status());
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    const DataType dtype = inputs[0].dtype();
    const Tolerance tol = For(dtype);
    const std::string key = op + " " + std::string(DataTypeShortName(dtype));
    const Tensor want = Goldens().Get(c + ".out0");
    const Tensor& got = (*out)[0];
    EXPECT_TRUE(TensorsNear(got, want, tol.atol, tol.rtol)) << op;
    worst[key] = std::max(worst[key], MaxError(got, want));
    if (op == "SelfAdjointEigV2" && !attrs.GetOr<bool>("compute_v", true).value_or(true)) {
      // TensorFlow 2.21's kernel leaves v an uninitialized scalar (not stored);
      // its shape function, and later kernels, say [0], as smrt gives.
      ASSERT_EQ(out->size(), 2u);
      EXPECT_EQ((*out)[1].shape(), (Shape{0}));
    } else if (op == "SelfAdjointEigV2") {
      const Tensor want_v = Goldens().Get(c + ".out1");
      EXPECT_EQ((*out)[1].shape(), want_v.shape());
      worst[key + " vectors"] =
          std::max(worst[key + " vectors"],
                   CheckEigenvectors(inputs[0], (*out)[0], (*out)[1], want_v, tol.rtol));
    } else if (Goldens().Has(c + ".out1")) {
      const Tensor want1 = Goldens().Get(c + ".out1");
      ASSERT_EQ(out->size(), 2u);
      EXPECT_TRUE(TensorsNear((*out)[1], want1, tol.atol, tol.rtol)) << op;
      worst[key] = std::max(worst[key], MaxError((*out)[1], want1));
    }
  }
  for (const char* op : {"MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky",
                         "MatrixSolve", "MatrixTriangularSolve", "SelfAdjointEigV2"}) {
    EXPECT_GE(cases[op], 10) << op;
  }
  for (const auto& [key, err] : worst) {
    std::printf("  largest error against TensorFlow, %s: %.3g\n", key.c_str(), err);
  }
}

AttrMap Typed(DataType t) {
  AttrMap a;
  a.Set("T", t);
  return a;
}

// Attrs stripped from an export take TensorFlow's defaults: no adjoint,
// lower triangle, eigenvectors computed.
TEST(LinalgOpsTest, DefaultAttrsAreTensorFlows) {
  const Tensor a = MakeTensor<float>({2, 2}, {2, 0, 1, 4});
  absl::StatusOr<std::vector<Tensor>> inv = RunOp("MatrixInverse", Typed(DataType::kFloat), {a});
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_TRUE(TensorsNear((*inv)[0], MakeTensor<float>({2, 2}, {0.5f, 0, -0.125f, 0.25f})));
  absl::StatusOr<std::vector<Tensor>> tri = RunOp("MatrixTriangularSolve", Typed(DataType::kFloat),
                                                  {a, MakeTensor<float>({2, 1}, {2, 9})});
  ASSERT_TRUE(tri.ok()) << tri.status();
  EXPECT_TRUE(TensorsNear((*tri)[0], MakeTensor<float>({2, 1}, {1, 2})));
  absl::StatusOr<std::vector<Tensor>> eig =
      RunOp("SelfAdjointEigV2", Typed(DataType::kFloat), {MakeTensor<float>({2, 2}, {2, 0, 0, 1})});
  ASSERT_TRUE(eig.ok()) << eig.status();
  EXPECT_EQ((*eig)[1].shape(), (Shape{2, 2}));
}

// Many matrices split across the intra-op threads give what each gives alone,
// and a singular matrix anywhere in the batch fails the op.
TEST(LinalgOpsTest, LargeBatchesGiveTheBitsOfSingleMatrices) {
  const int64_t batch = 301, n = 5;
  Tensor a = RandomFloats({batch, n, n}, 11);
  for (int64_t m = 0; m < batch; ++m) {
    for (int64_t i = 0; i < n; ++i) a.data<float>()[m * n * n + i * n + i] += 5;
  }
  absl::StatusOr<std::vector<Tensor>> all = RunOp("MatrixInverse", Typed(DataType::kFloat), {a});
  ASSERT_TRUE(all.ok()) << all.status();
  for (int64_t m : {int64_t{0}, int64_t{150}, batch - 1}) {
    Tensor one = *Tensor::Create(DataType::kFloat, {n, n});
    std::copy_n(a.data<float>() + m * n * n, n * n, one.data<float>());
    absl::StatusOr<std::vector<Tensor>> single =
        RunOp("MatrixInverse", Typed(DataType::kFloat), {one});
    ASSERT_TRUE(single.ok()) << single.status();
    for (int64_t i = 0; i < n * n; ++i) {
      EXPECT_EQ((*all)[0].data<float>()[m * n * n + i], (*single)[0].data<float>()[i]);
    }
  }
  std::fill_n(a.data<float>() + 200 * n * n, n * n, 0.0f);
  ExpectInvalid(RunOp("MatrixInverse", Typed(DataType::kFloat), {a}), "Input is not invertible.");
  ExpectInvalid(RunOp("MatrixSolve", Typed(DataType::kFloat), {a, RandomFloats({batch, n, 2}, 3)}),
                "Input matrix is not invertible.");
}

// Shape errors are found at load when the shapes are known, in TensorFlow's
// words; unknown dims pass.
TEST(LinalgOpsTest, InfersShapes) {
  ValueInfo m{DataType::kFloat, PartialShape::Known({-1, 3, -1})};
  ValueInfo rhs{DataType::kFloat, PartialShape::Known({4, -1, 2})};
  absl::StatusOr<std::vector<ValueInfo>> solve = InferOp("MatrixSolve", {}, {m, rhs});
  ASSERT_TRUE(solve.ok()) << solve.status();
  EXPECT_EQ((*solve)[0].shape, PartialShape::Known({4, 3, 2}));
  absl::StatusOr<std::vector<ValueInfo>> tri =
      InferOp("MatrixTriangularSolve", {},
              {ValueInfo{DataType::kFloat, PartialShape::Known({2, 1, 3, 3})},
               ValueInfo{DataType::kFloat, PartialShape::Known({5, 3, 4})}});
  ASSERT_TRUE(tri.ok()) << tri.status();
  EXPECT_EQ((*tri)[0].shape, PartialShape::Known({2, 5, 3, 4}));
  absl::StatusOr<std::vector<ValueInfo>> det = InferOp(
      "LogMatrixDeterminant", {}, {ValueInfo{DataType::kDouble, PartialShape::Known({7, 3, 3})}});
  ASSERT_TRUE(det.ok()) << det.status();
  ASSERT_EQ(det->size(), 2u);
  EXPECT_EQ((*det)[1].shape, PartialShape::Known({7}));
  AttrMap no_v;
  no_v.Set("compute_v", false);
  absl::StatusOr<std::vector<ValueInfo>> eig = InferOp(
      "SelfAdjointEigV2", no_v, {ValueInfo{DataType::kFloat, PartialShape::Known({2, -1, 4})}});
  ASSERT_TRUE(eig.ok()) << eig.status();
  EXPECT_EQ((*eig)[0].shape, PartialShape::Known({2, 4}));
  EXPECT_EQ((*eig)[1].shape, PartialShape::Known({0}));
  EXPECT_TRUE(IsError(
      InferOp("Cholesky", {}, {ValueInfo{DataType::kFloat, PartialShape::Known({2, 3})}}).status(),
      absl::StatusCode::kInvalidArgument, "Input matrix must be square."));
}

}  // namespace
}  // namespace smrt::kernels
