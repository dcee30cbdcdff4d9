// TF1 control flow on CUDA: Switch, Merge, Enter, Exit, NextIteration (and
// the Ref forms) forward device tensors; Switch reads its pred on the host.
// They launch nothing, so the fake device runs them fully without a GPU.
// TF2's functional control flow and TensorLists are registered here.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

TEST(CudaControlFlowTest, RegisteredForEveryFixedSizeDtype) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
                         "RefExit", "NextIteration", "RefNextIteration"}) {
    SCOPED_TRACE(op);
    for (DataType t : {DataType::kFloat, DataType::kInt64, DataType::kBool, DataType::kHalf}) {
      absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, TypeAttr(t));
      ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
      EXPECT_EQ((*k)->host_memory_inputs,
                absl::StrContains(op, "Switch") ? std::vector<int>{1} : std::vector<int>{});
    }
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kString)).ok());
  }
  // The loop predicate stays on the host with its counter.
  EXPECT_FALSE(r.FindKernel("LoopCond", kCudaDevice, AttrMap()).ok());
}

// TF2's While, If and Case, the TensorList and TensorArray ops: the kernels every device
// shares (kernels/function_call_kernels.h, kernels/tensor_list.h), their
// int32, variant and resource values in host memory. They are run on the
// CPU's fake device by tests/passes/place_bodies_test.cc.
TEST(CudaControlFlowTest, FunctionCallsAndTensorListsKeepHostDtypesOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, AttrMap());
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_TRUE((*k)->host_memory_by_dtype);
    EXPECT_TRUE(InHostMemory(**k, true, 1, DataType::kInt32));
    EXPECT_TRUE(InHostMemory(**k, false, 2, DataType::kVariant));
    EXPECT_FALSE(InHostMemory(**k, true, 1, DataType::kFloat));
    EXPECT_FALSE(InHostMemory(**k, false, 0, DataType::kHalf));
    // If's predicate and Case's index are read on the host, whatever their type.
    EXPECT_EQ(InHostMemory(**k, true, 0, DataType::kFloat), !absl::StrContains(op, "While"));
  }
  AttrMap floats;
  floats.Set("element_dtype", DataType::kFloat);
  AttrMap strings;
  strings.Set("element_dtype", DataType::kString);
  for (const char* op : {"TensorListReserve", "TensorListFromTensor", "TensorListGetItem",
                         "TensorListSetItem", "TensorListStack", "TensorListPushBack"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, floats);
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_TRUE((*k)->host_memory_by_dtype);
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, strings).ok());  // strings stay on the host
  }
  // Shapes, sizes and indices are read on the host whatever their integer
  // type, and an element shape is made there.
  absl::StatusOr<const KernelSpec*> reserve =
      r.FindKernel("TensorListReserve", kCudaDevice, floats);
  ASSERT_TRUE(reserve.ok()) << reserve.status();
  EXPECT_TRUE(InHostMemory(**reserve, /*input=*/true, 0, DataType::kInt64));
  absl::StatusOr<const KernelSpec*> shape =
      r.FindKernel("TensorListElementShape", kCudaDevice, floats);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_TRUE(InHostMemory(**shape, /*input=*/false, 0, DataType::kInt64));
  EXPECT_TRUE(r.FindKernel("Identity", kCudaDevice, TypeAttr(DataType::kVariant)).ok());
  // TF1's TensorArrays; Concat's lengths are made on the host and Split's
  // read there.
  AttrMap dtype;
  dtype.Set("dtype", DataType::kFloat);
  for (const char* op : {"TensorArrayV3", "TensorArrayReadV3", "TensorArrayGatherV3",
                         "TensorArraySizeV3", "TensorArrayCloseV3", "TensorArrayConcatV3"}) {
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, dtype);
    ASSERT_TRUE(k.ok()) << op << ": " << k.status();
    EXPECT_TRUE((*k)->host_memory_by_dtype);
  }
  for (const char* op : {"TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArraySplitV3"}) {
    EXPECT_TRUE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kFloat)).ok()) << op;
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kString)).ok()) << op;
  }
  absl::StatusOr<const KernelSpec*> concat =
      r.FindKernel("TensorArrayConcatV3", kCudaDevice, dtype);
  ASSERT_TRUE(concat.ok()) << concat.status();
  EXPECT_TRUE(InHostMemory(**concat, /*input=*/false, 1, DataType::kInt64));
  EXPECT_FALSE(InHostMemory(**concat, /*input=*/false, 0, DataType::kFloat));
  absl::StatusOr<const KernelSpec*> split =
      r.FindKernel("TensorArraySplitV3", kCudaDevice, TypeAttr(DataType::kFloat));
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_TRUE(InHostMemory(**split, /*input=*/true, 2, DataType::kInt64));
  EXPECT_FALSE(InHostMemory(**split, /*input=*/true, 1, DataType::kFloat));
}

TEST(CudaControlFlowTest, SwitchForwardsTheDeviceTensorToTheTakenBranch) {
  FakeDevice device;
  const Tensor x = FakeDeviceTensor(DataType::kFloat, {2, 3});
  for (bool pred : {false, true}) {
    SCOPED_TRACE(pred);
    absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(
        &device, "Switch", TypeAttr(DataType::kFloat), {x, MakeTensor<bool>({}, {pred})}, 2);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& taken = (*out)[pred ? 1 : 0];
    const Tensor& dead = (*out)[pred ? 0 : 1];
    ASSERT_TRUE(taken.valid());
    EXPECT_TRUE(taken.on_device());
    EXPECT_EQ(taken.raw_data(), x.raw_data());  // the same storage: no copy
    EXPECT_FALSE(dead.valid());
  }
}

TEST(CudaControlFlowTest, FramesForwardTheSameStorage) {
  FakeDevice device;
  const Tensor x = FakeDeviceTensor(DataType::kFloat, {4});
  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out =
        RunCudaKernel(&device, op, TypeAttr(DataType::kFloat), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].raw_data(), x.raw_data());
  }
}

TEST(CudaControlFlowTest, ChecksNameTheNode) {
  const Tensor x = FakeDeviceTensor(DataType::kFloat, {2});
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  ExpectFakeDeviceError("Switch", f32, {x, FakeDeviceTensor(DataType::kBool, {})},
                        absl::StatusCode::kFailedPrecondition, "host memory", 2);
  ExpectFakeDeviceError("Switch", f32, {x, MakeTensor<bool>({2}, {true, false})},
                        absl::StatusCode::kInvalidArgument, "pred must be a bool scalar", 2);
  ExpectFakeDeviceError("Switch", f32, {MakeTensor<float>({1}, {1}), MakeTensor<bool>({}, {true})},
                        absl::StatusCode::kFailedPrecondition, "host memory", 2);
  ExpectFakeDeviceError("Merge", f32, {x, x}, absl::StatusCode::kFailedPrecondition,
                        "dataflow executor", 2);
}

}  // namespace
}  // namespace smrt::kernels::cuda
