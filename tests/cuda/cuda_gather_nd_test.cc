// GatherNd on CUDA. Without a GPU: what is registered, where each row's
// slice starts (gather_nd.h) walked on the host against the CPU kernel
// (whole-params rows, partial and full depth, batch dims, bad rows under
// IGNORE), and the checks made before any device work. With one: the kernel
// against the CPU, byte for byte, and the CPU's message for a bad index.
#include "kernels/cuda/gather_nd.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/cuda/gather_nd_index.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

AttrMap GatherNdAttrs(DataType t, DataType ti, const std::string& policy = "") {
  AttrMap a = TypeAttr(t, "Tparams");
  a.Set("Tindices", ti);
  if (!policy.empty()) a.Set("bad_indices_policy", policy);
  return a;
}

TEST(CudaGatherNdTest, RegisteredForInt32AndInt64Indices) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType ti : {DataType::kInt32, DataType::kInt64}) {
    for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kInt64, DataType::kBool,
                       DataType::kComplex128}) {
      absl::StatusOr<const KernelSpec*> k =
          r.FindKernel("GatherNd", kCudaDevice, GatherNdAttrs(t, ti));
      ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
      EXPECT_TRUE((*k)->host_memory_inputs.empty());
    }
  }
  EXPECT_FALSE(
      r.FindKernel("GatherNd", kCudaDevice, GatherNdAttrs(DataType::kFloat, DataType::kInt16))
          .ok());
  EXPECT_FALSE(
      r.FindKernel("GatherNd", kCudaDevice, GatherNdAttrs(DataType::kString, DataType::kInt32))
          .ok());
}

// A KernelContext for planning on the host: GatherNd of these inputs.
absl::StatusOr<GatherNdPlan> Plan(const AttrMap& attrs, const Tensor& params,
                                  const Tensor& indices) {
  KernelContext ctx("gpu_node", "GatherNd", attrs, {params, indices}, 1);
  return PlanGatherNd(ctx);
}

// The kernel's walk on the host: output element o is params[offset + r] of
// its row, or zero for a bad row.
TEST(CudaGatherNdTest, TheWalkGivesTheCpusOutput) {
  const Tensor params = RandomFloats({4, 3, 2}, 1);
  struct Case {
    Shape indices;
    std::vector<int64_t> values;
    std::string policy;
  };
  const Case cases[] = {
      {{2, 3}, {0, 0, 0, 3, 2, 1}, ""},                // full depth: single elements
      {{3, 2}, {1, 2, 3, 0, 0, 1}, ""},                // depth 2: rows of 2
      {{2, 2, 1}, {3, 0, 1, 2}, ""},                   // batch dims, depth 1
      {{2, 0}, {}, ""},                                 // depth 0: all of params per row
      {{4, 2}, {1, 2, 4, 0, -1, 1, 0, 2}, "IGNORE"},   // bad rows stay zero
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.indices));
    const Tensor indices = MakeTensor<int64_t>(c.indices, c.values);
    const AttrMap attrs = GatherNdAttrs(DataType::kFloat, DataType::kInt64, c.policy);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("GatherNd", attrs, {params, indices});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<GatherNdPlan> plan = Plan(attrs, params, indices);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->out_shape, (*cpu)[0].shape());
    const GatherNdIndex index = MakeGatherNdIndex(*plan, params.shape());
    const float* want = (*cpu)[0].data<float>();
    for (int64_t o = 0; o < (*cpu)[0].num_elements(); ++o) {
      const int64_t row = o / index.slice, r = o % index.slice;
      int64_t offset = 0;
      const bool good =
          GatherNdOffset(index, indices.data<int64_t>() + row * index.depth, &offset);
      const float got = good ? params.data<float>()[offset + r] : 0.0f;
      ASSERT_EQ(got, want[o]) << "element " << o;
    }
  }
}

void ExpectError(const AttrMap& attrs, std::vector<Tensor> inputs, const std::string& substring) {
  FakeDevice device;
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(&device, "GatherNd", attrs, std::move(inputs));
  ASSERT_FALSE(out.ok()) << "GatherNd succeeded";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), substring)) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "gpu_node")) << out.status();
}

TEST(CudaGatherNdTest, ChecksComeBeforeAnyDeviceWork) {
  auto dev = [](DataType t, Shape s) { return FakeDeviceTensor(t, std::move(s)); };
  const AttrMap f32 = GatherNdAttrs(DataType::kFloat, DataType::kInt32);
  ExpectError(f32, {dev(DataType::kFloat, {4, 3}), dev(DataType::kInt32, {2, 3})},
              "index innermost dimension length must be <= params rank; saw: 3 vs. 2");
  ExpectError(f32, {dev(DataType::kFloat, {4, 3}), dev(DataType::kInt32, {})},
              "indices must be at least a vector");
  ExpectError(f32, {dev(DataType::kFloat, {0, 3}), dev(DataType::kInt32, {2, 1})},
              "Requested more than 0 entries, but params is empty");
  ExpectError(GatherNdAttrs(DataType::kFloat, DataType::kInt32, "CLAMP"),
              {dev(DataType::kFloat, {4, 3}), dev(DataType::kInt32, {2, 1})},
              "bad_indices_policy must be '', 'DEFAULT' or 'IGNORE', got 'CLAMP'");
}

class CudaGpuGatherNdTest : public testing::GpuTest {};

TEST_F(CudaGpuGatherNdTest, MatchesTheCpuByteForByte) {
  const Tensor params = RandomFloats({5, 4, 3}, 2);
  const AttrMap i64 = GatherNdAttrs(DataType::kFloat, DataType::kInt64);
  ExpectSameBytesAsCpu("GatherNd", i64,
                       {params, MakeTensor<int64_t>({2, 3}, {0, 0, 0, 4, 3, 2})});
  ExpectSameBytesAsCpu("GatherNd", i64,
                       {params, MakeTensor<int64_t>({3, 2}, {1, 2, 4, 0, 0, 3})});
  ExpectSameBytesAsCpu("GatherNd", i64, {params, MakeTensor<int64_t>({2, 2, 1}, {4, 0, 1, 2})});
  ExpectSameBytesAsCpu("GatherNd", i64, {params, MakeTensor<int64_t>({3, 0}, {})});
  ExpectSameBytesAsCpu("GatherNd", GatherNdAttrs(DataType::kFloat, DataType::kInt32),
                       {params, MakeTensor<int32_t>({2, 1}, {3, 1})});
  ExpectSameBytesAsCpu("GatherNd", GatherNdAttrs(DataType::kFloat, DataType::kInt64, "IGNORE"),
                       {params, MakeTensor<int64_t>({3, 2}, {1, 2, 5, 0, 0, -1})});
  // Many rows: more than one block.
  std::vector<int64_t> rows(3000);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>((i * 7) % 5);
  ExpectSameBytesAsCpu("GatherNd", i64, {params, MakeTensor<int64_t>({3000, 1}, rows)});
  ExpectSameBytesAsCpu("GatherNd", GatherNdAttrs(DataType::kInt64, DataType::kInt64),
                       {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}),
                        MakeTensor<int64_t>({2, 2}, {1, 0, 0, 1})});
}

TEST_F(CudaGpuGatherNdTest, ABadIndexIsTheCpusError) {
  const Tensor params = RandomFloats({5, 4}, 3);
  const AttrMap i32 = GatherNdAttrs(DataType::kFloat, DataType::kInt32);
  const std::vector<Tensor> inputs = {params,
                                      MakeTensor<int32_t>({2, 2, 2}, {0, 0, 1, 1, 2, 4, 5, 0})};
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp("GatherNd", i32, inputs);
  ASSERT_FALSE(cpu.ok());
  absl::StatusOr<Tensor> gpu = testing::RunOnGpu(device_.get(), "GatherNd", i32, inputs);
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
  // The first bad row, [1,0] = [2, 4], as the CPU says it.
  EXPECT_TRUE(absl::StrContains(cpu.status().message(),
                                "indices[1,0] = [2, 4] does not index into param shape [5,4]"))
      << cpu.status();
  const std::string message(cpu.status().message());
  const size_t from = message.find("indices[");
  ASSERT_NE(from, std::string::npos);
  EXPECT_TRUE(absl::StrContains(gpu.status().message(), message.substr(from))) << gpu.status();
}

}  // namespace
}  // namespace smrt::kernels::cuda
