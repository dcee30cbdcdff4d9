// Kernels that may write their output into an input's buffer
// (KernelContext::forward_input_or_allocate_output): they do so only when the
// input is handed over (no other Tensor shares its buffer), and the numbers
// are the same bits as with a fresh output.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

struct Ran {
  Tensor out;
  const void* input_buffer = nullptr;  // of input `watched`, before the run
};

// Runs the op's chosen CPU kernel on `inputs`, which are moved into the
// kernel's context: an input the caller holds no copy of is handed over.
Ran RunHandingOver(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs, int watched) {
  const KernelRegistry& registry = KernelRegistry::Default();
  ApplyAttrDefaults(*registry.FindOp(op), attrs);
  absl::StatusOr<const KernelSpec*> k = registry.FindKernel(op, kCpu, attrs);
  EXPECT_TRUE(k.ok()) << k.status();
  Ran ran;
  if (!k.ok()) return ran;
  ran.input_buffer = inputs[watched].raw_data();
  std::unique_ptr<KernelState> state = (*k)->make_state ? (*k)->make_state() : nullptr;
  KernelContext ctx("node", op, attrs, std::move(inputs), 1);
  ctx.set_kernel_state(state.get());
  absl::Status s = (*k)->compute(ctx);
  EXPECT_TRUE(s.ok()) << op << ": " << s;
  ran.out = ctx.output(0);
  return ran;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

// Runs op once with every input shared (the caller keeps copies), then with
// input `watched` handed over: the second reuses that input's buffer and
// gives the same bits.
void ExpectInPlaceWhenHandedOver(const std::string& op, const AttrMap& attrs,
                                 const std::vector<Tensor>& inputs, int watched) {
  SCOPED_TRACE(op);
  const Ran shared = RunHandingOver(op, attrs, inputs, watched);
  EXPECT_NE(shared.out.raw_data(), shared.input_buffer) << "wrote over an input someone holds";
  std::vector<Tensor> handed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    handed.push_back(static_cast<int>(i) == watched ? *inputs[i].Clone() : inputs[i]);
  }
  const Ran own = RunHandingOver(op, attrs, std::move(handed), watched);
  EXPECT_EQ(own.out.raw_data(), own.input_buffer) << "did not reuse the handed-over buffer";
  EXPECT_TRUE(SameBits(own.out, shared.out));
}

TEST(InPlaceTest, ElementwiseOpsReuseAHandedOverInput) {
  AttrMap t;
  t.Set("T", DataType::kFloat);
  const Tensor x = RandomFloats({3, 5, 7, 33}, 1, -3, 3);
  const Tensor y = RandomFloats({3, 5, 7, 33}, 2, -3, 3);
  const Tensor se = RandomFloats({3, 1, 1, 33}, 3, -3, 3);  // a squeeze-excite scale
  ExpectInPlaceWhenHandedOver("Neg", t, {x}, 0);
  ExpectInPlaceWhenHandedOver("Relu", t, {x}, 0);
  ExpectInPlaceWhenHandedOver("Sigmoid", t, {x}, 0);
  ExpectInPlaceWhenHandedOver("AddV2", t, {x, y}, 0);
  ExpectInPlaceWhenHandedOver("Sub", t, {x, y}, 1);
  ExpectInPlaceWhenHandedOver("Mul", t, {x, se}, 0);
  ExpectInPlaceWhenHandedOver("Mul", t, {se, x}, 1);
  ExpectInPlaceWhenHandedOver("BiasAdd", t, {x, RandomFloats({33}, 4)}, 0);
  ExpectInPlaceWhenHandedOver("Softmax", t, {x}, 0);
  ExpectInPlaceWhenHandedOver("LogSoftmax", t, {x}, 0);
  AttrMap ln = t;
  ln.Set("epsilon", 1e-3f);
  ExpectInPlaceWhenHandedOver("_SmrtLayerNorm", ln,
                              {x, RandomFloats({33}, 5), RandomFloats({33}, 6)}, 0);
}

TEST(InPlaceTest, NoReuseAcrossShapesOrTypes) {
  AttrMap t;
  t.Set("T", DataType::kFloat);
  // The broadcast input is smaller than the output: never the output.
  const Ran mul = RunHandingOver("Mul", t, {RandomFloats({4, 1}, 1), RandomFloats({4, 6}, 2)}, 0);
  EXPECT_NE(mul.out.raw_data(), mul.input_buffer);
  EXPECT_EQ(mul.out.shape(), (Shape{4, 6}));
  // A comparison's bool output never lands in a float buffer.
  const Ran less = RunHandingOver("Less", t, {RandomFloats({64}, 1), RandomFloats({64}, 2)}, 0);
  EXPECT_NE(less.out.raw_data(), less.input_buffer);
  EXPECT_EQ(less.out.dtype(), DataType::kBool);
}

TEST(InPlaceTest, ForwardInputOrAllocateOutputChecksOwnershipDtypeAndShape) {
  AttrMap attrs;
  Tensor held = RandomFloats({8}, 1);
  Tensor copy = held;  // shared: not forwarded
  KernelContext shared("n", "Op", attrs, {held}, 1);
  absl::StatusOr<Tensor*> out = shared.forward_input_or_allocate_output({0}, 0, DataType::kFloat, {8});
  ASSERT_TRUE(out.ok());
  EXPECT_NE((*out)->raw_data(), copy.raw_data());

  Tensor own = RandomFloats({8}, 1);
  const void* buffer = own.raw_data();
  std::vector<Tensor> inputs;
  inputs.push_back(std::move(own));  // not through an initializer_list, which copies
  KernelContext handed("n", "Op", attrs, std::move(inputs), 1);
  out = handed.forward_input_or_allocate_output({0}, 0, DataType::kInt32, {8});
  EXPECT_NE((*out)->raw_data(), buffer);  // other dtype
  out = handed.forward_input_or_allocate_output({0}, 0, DataType::kFloat, {2, 4});
  EXPECT_NE((*out)->raw_data(), buffer);  // other shape
  out = handed.forward_input_or_allocate_output({3, 0}, 0, DataType::kFloat, {8});
  EXPECT_EQ((*out)->raw_data(), buffer);  // index 3 is no input: skipped
}

}  // namespace
}  // namespace smrt::kernels
