// XlaReduce / XlaReduceWindow kernels with a stand-in function runtime: the
// general path calls the reducer with (accumulator, element) in row-major
// order, reducer errors surface, and bad window arguments are rejected.
// Numbers against TensorFlow: tests/api/xla_reduce_model_test.cc.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

// f(a, b) = 2a + b: order-dependent, so it shows the fold order. Fails on
// an element of 99.
class TwiceAccPlus : public FunctionCaller {
 public:
  explicit TwiceAccPlus(std::string binary_op = "") : binary_op_(std::move(binary_op)) {}
  absl::StatusOr<std::vector<Tensor>> Call(absl::string_view,
                                           std::vector<Tensor> args) const override {
    ++calls;
    const float a = args[0].data<float>()[0], b = args[1].data<float>()[0];
    if (b == 99) return absl::InvalidArgumentError("reducer saw 99");
    return std::vector<Tensor>{Scalar<float>(2 * a + b)};
  }
  std::string BinaryOpOf(absl::string_view) const override { return binary_op_; }
  mutable int calls = 0;

 private:
  std::string binary_op_;
};

AttrMap Attrs(const char* func_attr) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("Tindices", DataType::kInt32);
  a.Set(func_attr, FuncAttr{"reducer_fn", std::make_shared<AttrMap>()});
  return a;
}

absl::StatusOr<std::vector<Tensor>> RunWith(const std::string& op, const AttrMap& attrs,
                                            std::vector<Tensor> inputs, const FunctionCaller& f) {
  absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, attrs);
  if (!k.ok()) return k.status();
  KernelContext ctx("node", op, attrs, std::move(inputs), 1);
  ctx.set_functions(&f);
  if (absl::Status s = (*k)->compute(ctx); !s.ok()) return s;
  return ctx.outputs();
}

std::vector<Tensor> WindowInputs(const Tensor& x, std::vector<int32_t> window,
                                 std::vector<int32_t> strides, std::vector<int32_t> padding) {
  const int64_t n = static_cast<int64_t>(window.size());
  return {x,
          Scalar<float>(0),
          MakeTensor<int32_t>({n}, window),
          MakeTensor<int32_t>({n}, strides),
          MakeTensor<int32_t>({n}, std::vector<int32_t>(n, 1)),
          MakeTensor<int32_t>({n}, std::vector<int32_t>(n, 1)),
          MakeTensor<int32_t>({static_cast<int64_t>(padding.size()) / 2, 2}, padding)};
}

TEST(XlaReduceOpsTest, GeneralReducerFoldsInRowMajorOrder) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TwiceAccPlus f;
  AttrMap a = Attrs("reducer");
  a.Set("dimensions_to_reduce", std::vector<int64_t>{1});
  absl::StatusOr<std::vector<Tensor>> out = RunWith("XlaReduce", a, {x, Scalar<float>(0)}, f);
  ASSERT_TRUE(out.ok()) << out.status();
  // ((0*2+1)*2+2)*2+3 = 11, ((0*2+4)*2+5)*2+6 = 32.
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2}, {11, 32}), 0, 0));
  EXPECT_EQ(f.calls, 6);
  // Window [2, 2] stride 1 with one column of padding on the left: the
  // padded position is skipped, not folded in.
  out = RunWith("XlaReduceWindow", Attrs("computation"),
                WindowInputs(x, {2, 2}, {1, 1}, {0, 0, 1, 0}), f);
  ASSERT_TRUE(out.ok()) << out.status();
  // Window 0 sees 1, 4 -> (0*2+1)*2+4 = 6; window 1 sees 1 2 4 5 -> 29;
  // window 2 sees 2 3 5 6 -> 44.
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({1, 3}, {6, 29, 44}), 0, 0));
}

TEST(XlaReduceOpsTest, FastPathSkipsTheCallAndErrorsSurface) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 99, 6});
  AttrMap a = Attrs("reducer");
  a.Set("dimensions_to_reduce", std::vector<int64_t>{0, 1});
  TwiceAccPlus fast("Maximum");
  absl::StatusOr<std::vector<Tensor>> out = RunWith("XlaReduce", a, {x, Scalar<float>(-1)}, fast);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Scalar<float>(99), 0, 0));
  EXPECT_EQ(fast.calls, 0);
  TwiceAccPlus slow;
  out = RunWith("XlaReduce", a, {x, Scalar<float>(-1)}, slow);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "reducer saw 99")) << out.status();
  // Outside an executor there is no function to call.
  out = RunOp("XlaReduce", a, {x, Scalar<float>(0)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition) << out.status();
}

TEST(XlaReduceOpsTest, BadArguments) {
  const Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  TwiceAccPlus f("AddV2");
  const AttrMap w = Attrs("computation");
  // Window of the wrong length, zero stride, padding of the wrong shape,
  // padding that makes a dimension negative.
  for (const std::vector<Tensor>& in :
       {WindowInputs(x, {2}, {1}, {0, 0}), WindowInputs(x, {2, 2}, {1, 0}, {0, 0, 0, 0}),
        WindowInputs(x, {2, 2}, {1, 1}, {0, 0}), WindowInputs(x, {1, 1}, {1, 1}, {0, -3, 0, 0})}) {
    EXPECT_EQ(RunWith("XlaReduceWindow", w, in, f).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  // A window larger than the padded input gives an empty output.
  absl::StatusOr<std::vector<Tensor>> out =
      RunWith("XlaReduceWindow", w, WindowInputs(x, {3, 1}, {1, 1}, {0, 0, 0, 0}), f);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3}));
  AttrMap r = Attrs("reducer");
  r.Set("dimensions_to_reduce", std::vector<int64_t>{1, 1});
  EXPECT_EQ(RunWith("XlaReduce", r, {x, Scalar<float>(0)}, f).status().code(),
            absl::StatusCode::kInvalidArgument);
  r.Set("dimensions_to_reduce", std::vector<int64_t>{0});
  EXPECT_EQ(RunWith("XlaReduce", r, {x, MakeTensor<float>({1}, {0})}, f).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Reducing an empty axis gives init_value.
  out = RunWith("XlaReduce", r, {MakeTensor<float>({0, 2}, {}), Scalar<float>(7)}, f);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2}, {7, 7}), 0, 0));
}

}  // namespace
}  // namespace smrt::kernels
