// FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// FakeQuantWithMinMaxVarsPerChannel against TensorFlow's values (exactly:
// NaN for NaN, the same side of every tie) and messages
// (tests/generators/kernel_goldens/fake_quant.py).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(
      smrt::testing::TestDataDir() + "/kernels/fake_quant/fake_quant.rec");
  return *goldens;
}

// TensorFlow's message for `key`; smrt's says it after "<op> node '<name>': "
// (errors found at load) and may add what to do after it.
#define EXPECT_TF_MESSAGE(status, key)                                                \
  do {                                                                                \
    const absl::Status s_ = (status);                                                 \
    const std::string want_ = Goldens().GetString(std::string("message.") + (key));   \
    EXPECT_EQ(s_.code(), absl::StatusCode::kInvalidArgument) << s_;                   \
    EXPECT_TRUE(absl::StrContains(s_.message(), want_)) << s_ << "\nwant: " << want_; \
  } while (0)

absl::Status Fails(absl::StatusOr<std::vector<Tensor>> out) {
  return out.ok() ? absl::OkStatus() : out.status();
}

AttrMap Attrs(int64_t num_bits, bool narrow_range) {
  AttrMap a;
  a.Set("num_bits", num_bits);
  a.Set("narrow_range", narrow_range);
  return a;
}

absl::StatusOr<std::vector<Tensor>> Args(const Tensor& x, float min, float max,
                                         int64_t num_bits = 8, bool narrow_range = false) {
  AttrMap a = Attrs(num_bits, narrow_range);
  a.Set("min", min);
  a.Set("max", max);
  return RunOp("FakeQuantWithMinMaxArgs", a, {x});
}

absl::StatusOr<std::vector<Tensor>> Vars(const std::string& op, const Tensor& x, const Tensor& min,
                                         const Tensor& max, int64_t num_bits = 8,
                                         bool narrow_range = false) {
  return RunOp(op, Attrs(num_bits, narrow_range), {x, min, max});
}

// Every case of the goldens, run as TensorFlow ran it.
TEST(FakeQuantOpsTest, MatchesTensorFlowExactly) {
  int cases = 0;
  for (const auto& [name, tensor] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    const std::string op = Goldens().GetString(name);
    const Tensor x = Goldens().Get(c + ".x");
    const Tensor min = Goldens().Get(c + ".min");
    const Tensor max = Goldens().Get(c + ".max");
    const int64_t num_bits = Goldens().Get(c + ".num_bits").data<int64_t>()[0];
    const bool narrow = Goldens().Get(c + ".narrow_range").data<bool>()[0];
    absl::StatusOr<std::vector<Tensor>> y =
        op == "FakeQuantWithMinMaxArgs"
            ? Args(x, min.data<float>()[0], max.data<float>()[0], num_bits, narrow)
            : Vars(op, x, min, max, num_bits, narrow);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Goldens().Get(c + ".y"), 0, 0)) << op;
    ++cases;
  }
  EXPECT_GE(cases, 40);
}

// The defaults are TensorFlow's: min -6, max 6, num_bits 8, narrow_range
// false (what an export that strips default attrs leaves).
TEST(FakeQuantOpsTest, DefaultAttrsAreTensorFlows) {
  const Tensor x = Goldens().Get("args0.x");
  absl::StatusOr<std::vector<Tensor>> y = RunOp("FakeQuantWithMinMaxArgs", AttrMap(), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear((*y)[0], Goldens().Get("args0.y"), 0, 0));
  y = RunOp("FakeQuantWithMinMaxVars", AttrMap(), {x, Scalar<float>(-6), Scalar<float>(6)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear((*y)[0], Goldens().Get("vars0.y"), 0, 0));
}

// Past 2 * kMinShardElements the loops split across the intra-op threads;
// every element must come out as it does when the tensor runs in small
// pieces, which run in one piece each.
TEST(FakeQuantOpsTest, LargeTensorsGiveTheBitsOfSmallOnes) {
  const int64_t rows = 3001, depth = 24;
  const Tensor x = RandomFloats({rows, depth}, 7, -8, 8);
  std::vector<float> lo(depth), hi(depth);
  for (int64_t c = 0; c < depth; ++c) {
    lo[c] = -0.5f - 0.25f * static_cast<float>(c);
    hi[c] = 0.3f + 0.5f * static_cast<float>(c);
  }
  lo[3] = hi[3] = 0;  // a channel of zeros
  const Tensor min = MakeTensor<float>({depth}, lo), max = MakeTensor<float>({depth}, hi);
  absl::StatusOr<std::vector<Tensor>> args = Args(x, -3.5f, 5.25f, 8, true);
  absl::StatusOr<std::vector<Tensor>> vars =
      Vars("FakeQuantWithMinMaxVars", x, Scalar<float>(-3.5f), Scalar<float>(5.25f), 8, true);
  absl::StatusOr<std::vector<Tensor>> pc =
      Vars("FakeQuantWithMinMaxVarsPerChannel", x, min, max, 4);
  ASSERT_TRUE(args.ok() && vars.ok() && pc.ok());
  const int64_t piece = 7;  // rows
  for (int64_t r = 0; r < rows; r += piece) {
    const int64_t n = std::min(piece, rows - r);
    std::vector<float> part(x.data<float>() + r * depth, x.data<float>() + (r + n) * depth);
    const Tensor xs = MakeTensor<float>({n, depth}, part);
    absl::StatusOr<std::vector<Tensor>> a = Args(xs, -3.5f, 5.25f, 8, true);
    absl::StatusOr<std::vector<Tensor>> v =
        Vars("FakeQuantWithMinMaxVars", xs, Scalar<float>(-3.5f), Scalar<float>(5.25f), 8, true);
    absl::StatusOr<std::vector<Tensor>> p =
        Vars("FakeQuantWithMinMaxVarsPerChannel", xs, min, max, 4);
    ASSERT_TRUE(a.ok() && v.ok() && p.ok());
    for (int64_t i = 0; i < n * depth; ++i) {
      ASSERT_EQ((*args)[0].data<float>()[r * depth + i], (*a)[0].data<float>()[i]) << r;
      ASSERT_EQ((*vars)[0].data<float>()[r * depth + i], (*v)[0].data<float>()[i]) << r;
      ASSERT_EQ((*pc)[0].data<float>()[r * depth + i], (*p)[0].data<float>()[i]) << r;
    }
  }
}

TEST(FakeQuantOpsTest, ErrorsAreTensorFlows) {
  const Tensor z = *Tensor::Create(DataType::kFloat, {3, 4});
  EXPECT_TF_MESSAGE(Fails(Args(z, 1.0f, 1.0f)), "args_equal");
  EXPECT_TF_MESSAGE(Fails(Args(z, 2.5f, -0.1f)), "args_greater");
  EXPECT_TF_MESSAGE(Fails(Args(z, -6, 6, 1)), "args_bits1");
  EXPECT_TF_MESSAGE(Fails(Args(z, -6, 6, 17)), "args_bits17");
  const std::string vars = "FakeQuantWithMinMaxVars";
  const Tensor one = MakeTensor<float>({1}, {1.0f});
  EXPECT_TF_MESSAGE(Fails(Vars(vars, z, Scalar<float>(-1), Scalar<float>(1), 17)), "vars_bits");
  EXPECT_TF_MESSAGE(Fails(Vars(vars, z, one, Scalar<float>(1))), "vars_min_rank");
  EXPECT_TF_MESSAGE(Fails(Vars(vars, z, Scalar<float>(-1), one)), "vars_max_rank");
  const std::string pc = "FakeQuantWithMinMaxVarsPerChannel";
  const Tensor four = MakeTensor<float>({4}, {1, 1, 1, 1});
  EXPECT_TF_MESSAGE(Fails(Vars(pc, z, four, four, 1)), "pc_bits");
  EXPECT_TF_MESSAGE(Fails(Vars(pc, z, Scalar<float>(-1), four)), "pc_min_rank");
  EXPECT_TF_MESSAGE(Fails(Vars(pc, z, four, MakeTensor<float>({1, 4}, {1, 1, 1, 1}))),
                    "pc_max_rank");
  EXPECT_TF_MESSAGE(Fails(Vars(pc, z, MakeTensor<float>({3}, {1, 1, 1}), four)), "pc_min_size");
  EXPECT_TF_MESSAGE(Fails(Vars(pc, z, four, MakeTensor<float>({5}, {1, 1, 1, 1, 1}))),
                    "pc_max_size");
  // TensorFlow's kernel aborts the process on a scalar input; smrt refuses it.
  const absl::Status scalar = Fails(Vars(pc, Scalar<float>(1), one, one));
  EXPECT_TRUE(absl::StrContains(scalar.message(), "inputs must be at least rank 1")) << scalar;
}

// The kernels make the same checks as inference, for shapes only known when
// the graph runs.
TEST(FakeQuantOpsTest, KernelsCheckWhatInferenceCouldNot) {
  const Tensor z = *Tensor::Create(DataType::kFloat, {3, 4});
  auto kernel = [](const std::string& op) {
    absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, AttrMap());
    EXPECT_TRUE(k.ok()) << k.status();
    return *k;
  };
  const Tensor three = MakeTensor<float>({3}, {1, 1, 1});
  absl::StatusOr<Tensor> run =
      RunKernel(*kernel("FakeQuantWithMinMaxVarsPerChannel"), AttrMap(), {z, three, three});
  ASSERT_FALSE(run.ok());
  EXPECT_TF_MESSAGE(run.status(), "pc_min_size");
  run = RunKernel(*kernel("FakeQuantWithMinMaxVars"), AttrMap(), {z, three, Scalar<float>(1)});
  ASSERT_FALSE(run.ok());
  EXPECT_TF_MESSAGE(run.status(), "vars_min_rank");
  AttrMap bits;
  bits.Set("num_bits", int64_t{17});
  run = RunKernel(*kernel("FakeQuantWithMinMaxArgs"), bits, {z});
  ASSERT_FALSE(run.ok());
  EXPECT_TF_MESSAGE(run.status(), "args_bits17");
}

// Inference keeps the input's shape, and takes the channel count from min or
// max where the input's last dimension is unknown.
TEST(FakeQuantOpsTest, InferenceKeepsTheShape) {
  const ValueInfo x{DataType::kFloat, PartialShape::Known({-1, 5, -1})};
  const ValueInfo vec{DataType::kFloat, PartialShape::Known({7})};
  const ValueInfo scalar{DataType::kFloat, PartialShape::Known({})};
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("FakeQuantWithMinMaxVarsPerChannel", AttrMap(), {x, vec, vec});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, 5, 7}));
  out = InferOp("FakeQuantWithMinMaxVars", AttrMap(), {x, scalar, scalar});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, x.shape);
  out =
      InferOp("FakeQuantWithMinMaxArgs", AttrMap(), {{DataType::kFloat, PartialShape::Unknown()}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype, DataType::kFloat);
  const ValueInfo doubles{DataType::kDouble, PartialShape::Known({2})};
  EXPECT_FALSE(InferOp("FakeQuantWithMinMaxArgs", AttrMap(), {doubles}).ok());
}

}  // namespace
}  // namespace smrt::kernels
