// The special functions (special_math_ops.cc) against TensorFlow 2.21's
// values and errors (tests/generators/kernel_goldens/special_math.py):
// poles, domain edges, infinities, NaN, tiny and huge arguments, every dtype
// TensorFlow's CPU kernels take, broadcasting, and Betainc's shape rule.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "core/attr_map.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "kernels/ulp_test_util.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/special_math/" + name); }

absl::StatusOr<std::vector<Tensor>> Apply(const std::string& op, const std::vector<Tensor>& in) {
  AttrMap attrs;
  attrs.Set("T", in[0].dtype());
  return RunOp(op, attrs, in);
}

const std::map<std::string, std::string>& Messages() {
  static const auto* messages = [] {
    auto* m = new std::map<std::string, std::string>;
    absl::StatusOr<std::string> text =
        file::ReadAll(smrt::testing::TestDataDir() + "/kernels/special_math/messages.txt");
    EXPECT_TRUE(text.ok()) << text.status();
    for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
      (*m)[parts[0]] = parts.size() > 1 ? parts[1] : "";
    }
    return m;
  }();
  return *messages;
}

void ExpectTfError(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& name) {
  ASSERT_FALSE(out.ok()) << name;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::EndsWith(out.status().message(), Messages().at(name)))
      << out.status() << "\nwant: " << Messages().at(name);
}

// {op, dtypes, most ulps from TensorFlow's value}.
struct Case {
  std::string op;
  std::vector<std::string> dtypes;
  int64_t ulps;
};

const std::vector<std::string> kF16F32F64 = {"f16", "f32", "f64"};
const std::vector<std::string> kF32F64 = {"f32", "f64"};

TEST(SpecialMathOpsTest, UnaryMatchTensorFlow) {
  const std::vector<Case> cases = {
      {"Lgamma", kF16F32F64, 2},   {"Digamma", kF16F32F64, 2},   {"Erfinv", kF32F64, 2},
      {"Ndtri", kF32F64, 2},       {"BesselI0", kF16F32F64, 4},  {"BesselI0e", kF16F32F64, 4},
      {"BesselI1", kF16F32F64, 4}, {"BesselI1e", kF16F32F64, 4}, {"BesselJ0", kF16F32F64, 4},
      {"BesselJ1", kF16F32F64, 4}, {"BesselK0", kF16F32F64, 4},  {"BesselK0e", kF16F32F64, 4},
      {"BesselK1", kF16F32F64, 4}, {"BesselK1e", kF16F32F64, 4}, {"BesselY0", kF16F32F64, 8},
      {"BesselY1", kF16F32F64, 4},
  };
  for (const Case& c : cases) {
    for (const std::string& dt : c.dtypes) {
      const std::string name = c.op + "_" + dt;
      SCOPED_TRACE(name);
      absl::StatusOr<std::vector<Tensor>> out = Apply(c.op, {Golden("x_" + dt)});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectUlps((*out)[0], Golden(name), c.ulps, name);
    }
  }
}

TEST(SpecialMathOpsTest, BinaryMatchTensorFlow) {
  const std::vector<Case> cases = {{"Igamma", kF32F64, 2},
                                   {"Igammac", kF32F64, 2},
                                   {"Zeta", kF32F64, 2},
                                   {"Polygamma", kF32F64, 2}};
  for (const Case& c : cases) {
    for (const std::string& dt : c.dtypes) {
      const std::string name = c.op + "_" + dt;
      SCOPED_TRACE(name);
      absl::StatusOr<std::vector<Tensor>> out = Apply(c.op, {Golden("a_" + dt), Golden("b_" + dt)});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectUlps((*out)[0], Golden(name), c.ulps, name);
    }
    SCOPED_TRACE(c.op + " broadcast");
    absl::StatusOr<std::vector<Tensor>> out = Apply(c.op, {Golden("bcast_a"), Golden("bcast_b")});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), (Shape{3, 4}));
    ExpectUlps((*out)[0], Golden("bcast_" + c.op), c.ulps, "bcast_" + c.op);
  }
}

TEST(SpecialMathOpsTest, BetaincMatchesTensorFlow) {
  for (const std::string& dt : kF32F64) {
    SCOPED_TRACE(dt);
    absl::StatusOr<std::vector<Tensor>> out =
        Apply("Betainc",
              {Golden("betainc_a_" + dt), Golden("betainc_b_" + dt), Golden("betainc_x_" + dt)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectUlps((*out)[0], Golden("Betainc_" + dt), 2, "Betainc_" + dt);
  }
  const Tensor b = Golden("betainc_sb"), x = Golden("betainc_sx");  // [2, 3]
  absl::StatusOr<std::vector<Tensor>> out = Apply("Betainc", {Scalar<float>(2.5f), b, x});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectUlps((*out)[0], Golden("Betainc_scalar_a"), 2, "Betainc_scalar_a");
  out = Apply("Betainc", {Scalar<float>(2.5f), b, Scalar<float>(0.25f)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectUlps((*out)[0], Golden("Betainc_scalar_ax"), 2, "Betainc_scalar_ax");
}

TEST(SpecialMathOpsTest, RefusesWhatTensorFlowRefuses) {
  auto zeros = [](Shape shape) { return *Tensor::Create(DataType::kFloat, std::move(shape)); };
  ExpectTfError(Apply("Betainc", {zeros({2, 1}), zeros({3}), zeros({3})}), "betainc_ab");
  ExpectTfError(Apply("Betainc", {zeros({3}), Scalar<float>(1), zeros({1})}), "betainc_ax");
  ExpectTfError(Apply("Betainc", {Scalar<float>(1), zeros({3}), zeros({2, 3})}), "betainc_bx");
  ExpectTfError(Apply("Igamma", {zeros({2}), zeros({3})}), "igamma_bcast");
}

}  // namespace
}  // namespace smrt::kernels
