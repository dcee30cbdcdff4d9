// RaggedTensorToTensor on CUDA. Without a GPU: what is registered (shape and
// partitions in host memory), the kernel's two passes walked on the host over
// the CPU's plan (ragged.h) against the CPU kernel, byte for byte, and the
// checks made before any device work. With one: the kernel against the CPU.
#include "kernels/cuda/ragged.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/shared/ragged_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

AttrMap RaggedAttrs(DataType t, DataType index, std::vector<std::string> types) {
  AttrMap a;
  a.Set("T", t);
  a.Set("Tindex", index);
  a.Set("Tshape", DataType::kInt64);
  a.Set("num_row_partition_tensors", static_cast<int64_t>(types.size()));
  a.Set("row_partition_types", std::move(types));
  return a;
}

struct Case {
  std::string name;
  AttrMap attrs;
  std::vector<Tensor> inputs;  // shape, values, default_value, partitions...
};

std::vector<Case> Cases() {
  const DataType i64 = DataType::kInt64;
  const Tensor any = MakeTensor<int64_t>({}, {-1});
  std::vector<Case> c;
  // TextVectorization's padded batch: row splits, a fixed width that cuts a row.
  c.push_back({"splits_truncated", RaggedAttrs(i64, i64, {"ROW_SPLITS"}),
               {MakeTensor<int64_t>({2}, {-1, 3}),
                MakeTensor<int64_t>({7}, {5, 6, 7, 8, 9, 10, 11}),
                Scalar<int64_t>(0), MakeTensor<int64_t>({4}, {0, 4, 4, 7})}});
  c.push_back({"splits_auto_width", RaggedAttrs(DataType::kFloat, DataType::kInt32, {"ROW_SPLITS"}),
               {any, MakeTensor<float>({5}, {1.5f, 2.5f, 3.5f, 4.5f, 5.5f}), Scalar<float>(-1.0f),
                MakeTensor<int32_t>({4}, {0, 1, 1, 5})}});
  // Inner dims with a default broadcast along the last.
  c.push_back({"splits_inner_broadcast", RaggedAttrs(DataType::kInt32, i64, {"ROW_SPLITS"}),
               {MakeTensor<int64_t>({3}, {3, 2, 2}),
                MakeTensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6}),
                MakeTensor<int32_t>({2}, {-7, -8}), MakeTensor<int64_t>({3}, {0, 2, 3})}});
  c.push_back({"rowids", RaggedAttrs(i64, i64, {"FIRST_DIM_SIZE", "VALUE_ROWIDS"}),
               {any, MakeTensor<int64_t>({5}, {1, 2, 3, 4, 5}), Scalar<int64_t>(9),
                Scalar<int64_t>(4), MakeTensor<int64_t>({5}, {0, 0, 2, 2, 2})}});
  // Two ragged levels, and the first cut short by the shape.
  c.push_back({"two_levels", RaggedAttrs(i64, i64, {"ROW_SPLITS", "ROW_SPLITS"}),
               {MakeTensor<int64_t>({3}, {2, -1, 2}), MakeTensor<int64_t>({6}, {1, 2, 3, 4, 5, 6}),
                Scalar<int64_t>(0), MakeTensor<int64_t>({4}, {0, 2, 3, 4}),
                MakeTensor<int64_t>({5}, {0, 3, 3, 5, 6})}});
  c.push_back({"bool_values", RaggedAttrs(DataType::kBool, i64, {"ROW_SPLITS"}),
               {any, MakeTensor<bool>({3}, {true, false, true}), Scalar<bool>(false),
                MakeTensor<int64_t>({3}, {0, 2, 3})}});
  return c;
}

TEST(CudaRaggedTest, RegisteredWithShapeAndPartitionsOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  absl::StatusOr<const KernelSpec*> k = r.FindKernel(
      "RaggedTensorToTensor", kCudaDevice,
      RaggedAttrs(DataType::kInt64, DataType::kInt64, {"FIRST_DIM_SIZE", "VALUE_ROWIDS"}));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_TRUE(InHostMemory(**k, true, 0, DataType::kInt64));
  EXPECT_FALSE(InHostMemory(**k, true, 1, DataType::kInt64));
  EXPECT_FALSE(InHostMemory(**k, true, 2, DataType::kInt64));
  EXPECT_TRUE(InHostMemory(**k, true, 3, DataType::kInt64));
  EXPECT_TRUE(InHostMemory(**k, true, 4, DataType::kInt64));
  EXPECT_FALSE(r.FindKernel("RaggedTensorToTensor", kCudaDevice,
                            RaggedAttrs(DataType::kString, DataType::kInt64, {"ROW_SPLITS"}))
                   .ok());
  EXPECT_FALSE(r.FindKernel("RaggedTensorToTensor", kCudaDevice,
                            RaggedAttrs(DataType::kInt64, DataType::kInt64,
                                        std::vector<std::string>(9, "ROW_SPLITS")))
                   .ok());
}

// The CPU's plan, then the device's two passes on the host: the CPU's bytes.
TEST(CudaRaggedTest, ThePassesOverThePlanGiveTheCpusBytes) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("RaggedTensorToTensor", c.attrs, c.inputs);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const Tensor& want = (*cpu)[0];
    KernelContext ctx("gpu_node", "RaggedTensorToTensor", c.attrs, c.inputs, 1);
    absl::StatusOr<RaggedToTensorPlan> plan = PlanRaggedToTensor(ctx);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->out_shape, want.shape());
    const size_t es = DataTypeSize(want.dtype());
    const auto* values = static_cast<const char*>(c.inputs[1].raw_data());
    const auto* def = static_cast<const char*>(c.inputs[2].raw_data());
    std::vector<char> got(want.byte_size(), 0x5a);
    const int64_t width = plan->out_element;
    ASSERT_FALSE(plan->default_source.empty());
    for (int64_t o = 0; o < plan->rows * width; ++o) {
      std::memcpy(&got[o * es], def + RaggedDefaultAt(plan->default_source.data(), o, width) * es,
                  es);
    }
    const int64_t value_rows = static_cast<int64_t>(plan->index.size());
    for (int64_t t = 0; t < value_rows * width; ++t) {
      const int64_t to = RaggedTargetOf(plan->index.data(), t, width);
      if (to >= 0) std::memcpy(&got[to * es], values + t * es, es);
    }
    EXPECT_EQ(std::memcmp(got.data(), want.raw_data(), want.byte_size()), 0);
  }
}

TEST(CudaRaggedTest, ChecksComeBeforeAnyDeviceWork) {
  const AttrMap splits = RaggedAttrs(DataType::kInt64, DataType::kInt64, {"ROW_SPLITS"});
  const Tensor values = FakeDeviceTensor(DataType::kInt64, {3});
  const Tensor def = FakeDeviceTensor(DataType::kInt64, {});
  const Tensor shape = MakeTensor<int64_t>({2}, {-1, 3});
  ExpectFakeDeviceError("RaggedTensorToTensor", splits,
                        {shape, values, def, MakeTensor<int64_t>({3}, {1, 2, 3})},
                        absl::StatusCode::kInvalidArgument, "row_splits must start with 0");
  ExpectFakeDeviceError("RaggedTensorToTensor", splits,
                        {shape, values, def, MakeTensor<int64_t>({2}, {0, 9})},
                        absl::StatusCode::kInvalidArgument, "covers 9 values");
  // Partitions must be on the host, values on the device.
  ExpectFakeDeviceError("RaggedTensorToTensor", splits,
                        {shape, values, def, FakeDeviceTensor(DataType::kInt64, {3})},
                        absl::StatusCode::kFailedPrecondition, "row partition");
  ExpectFakeDeviceError("RaggedTensorToTensor", splits,
                        {shape, MakeTensor<int64_t>({3}, {1, 2, 3}), def,
                         MakeTensor<int64_t>({2}, {0, 3})},
                        absl::StatusCode::kFailedPrecondition, "");
}

class CudaGpuRaggedTest : public testing::GpuTest {};

TEST_F(CudaGpuRaggedTest, MatchesTheCpuByteForByte) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::vector<int> host = {0};
    for (size_t i = 3; i < c.inputs.size(); ++i) host.push_back(static_cast<int>(i));
    ExpectSameBytesAsCpu("RaggedTensorToTensor", c.attrs, c.inputs, host);
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
