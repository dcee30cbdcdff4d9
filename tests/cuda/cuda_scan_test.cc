// Cumsum and Cumprod on CUDA. Without a GPU: what is registered, the column
// scan the kernel runs (scan.h) evaluated on the host against the CPU kernel
// bit for bit (float32, float16, bfloat16, wrapping integers; every axis,
// exclusive and reverse), and the checks made before any device work. With
// one: the kernel against the CPU, byte for byte.
#include "kernels/cuda/scan.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

AttrMap ScanAttrs(DataType t, bool exclusive, bool reverse) {
  AttrMap a = TypeAttr(t);
  a.Set("Tidx", DataType::kInt32);
  a.Set("exclusive", exclusive);
  a.Set("reverse", reverse);
  return a;
}

TEST(CudaScanTest, RegisteredWithTheAxisOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"Cumsum", "Cumprod"}) {
    for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                       DataType::kInt32, DataType::kInt64}) {
      absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, TypeAttr(t));
      ASSERT_TRUE(k.ok()) << op << " " << DataTypeName(t) << ": " << k.status();
      EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{1});
    }
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kUInt8)).ok());
  }
}

// The kernel's scans on the host, column by column, for x of element type T.
template <typename T>
void ExpectHostScansAreTheCpus(const Tensor& x) {
  const int rank = x.rank();
  for (const char* op : {"Cumsum", "Cumprod"}) {
    const bool prod = std::string(op) == "Cumprod";
    for (int axis = -rank; axis < rank; ++axis) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(absl::StrCat(op, " ", DataTypeName(x.dtype()), " axis ", axis,
                                    exclusive ? " exclusive" : "", reverse ? " reverse" : ""));
          absl::StatusOr<std::vector<Tensor>> cpu =
              RunOp(op, ScanAttrs(x.dtype(), exclusive, reverse), {x, Scalar<int32_t>(axis)});
          ASSERT_TRUE(cpu.ok()) << cpu.status();
          const int a = axis < 0 ? axis + rank : axis;
          int64_t outer = 1, inner = 1;
          for (int d = 0; d < a; ++d) outer *= x.dim(d);
          for (int d = a + 1; d < rank; ++d) inner *= x.dim(d);
          std::vector<T> got(static_cast<size_t>(x.num_elements()));
          for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i = 0; i < inner; ++i) {
              const int64_t base = o * x.dim(a) * inner + i;
              ScanColumn(x.data<T>() + base, got.data() + base, x.dim(a), inner, prod, exclusive,
                         reverse);
            }
          }
          ASSERT_EQ(std::memcmp(got.data(), (*cpu)[0].raw_data(), got.size() * sizeof(T)), 0);
        }
      }
    }
  }
}

TEST(CudaScanTest, TheColumnScanIsTheCpusBitForBit) {
  // Values whose sums round differently in each order and type.
  const Tensor f = RandomFloats({3, 7, 5}, 11, -3, 3);
  ExpectHostScansAreTheCpus<float>(f);
  ExpectHostScansAreTheCpus<__half>(CastTo(f, DataType::kHalf));
  ExpectHostScansAreTheCpus<__nv_bfloat16>(CastTo(f, DataType::kBFloat16));
  const int32_t big = std::numeric_limits<int32_t>::max();
  ExpectHostScansAreTheCpus<int32_t>(
      MakeTensor<int32_t>({2, 4}, {big, 1, 65536, 65536, -7, big, 3, -big}));
  const int64_t big64 = std::numeric_limits<int64_t>::max();
  ExpectHostScansAreTheCpus<int64_t>(
      MakeTensor<int64_t>({4, 2}, {big64, 1, int64_t{1} << 40, 3, -5, big64, 1 << 30, 7}));
}

void ExpectError(const std::string& op, const AttrMap& attrs, std::vector<Tensor> inputs,
                 const std::string& substring) {
  FakeDevice device;
  absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(&device, op, attrs, std::move(inputs));
  ASSERT_FALSE(out.ok()) << op << " succeeded";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), substring)) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "gpu_node")) << out.status();
}

TEST(CudaScanTest, ChecksComeBeforeAnyDeviceWork) {
  const AttrMap f32 = ScanAttrs(DataType::kFloat, false, false);
  ExpectError("Cumsum", f32, {FakeDeviceTensor(DataType::kFloat, {2, 3}), Scalar<int32_t>(2)},
              "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
  ExpectError("Cumprod", f32,
              {FakeDeviceTensor(DataType::kFloat, {2, 3}), MakeTensor<int32_t>({1}, {0})},
              "ScanOp: axis must be a scalar");
}

class CudaGpuScanTest : public testing::GpuTest {};

TEST_F(CudaGpuScanTest, MatchesTheCpuByteForByte) {
  const Tensor f = RandomFloats({4, 65, 33}, 12, -2, 2);
  for (const char* op : {"Cumsum", "Cumprod"}) {
    for (int32_t axis : {0, 1, 2, -1}) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(absl::StrCat(op, " axis ", axis, " ", exclusive, reverse));
          for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kBFloat16}) {
            ExpectSameBytesAsCpu(op, ScanAttrs(t, exclusive, reverse),
                                 {CastTo(f, t), Scalar<int32_t>(axis)}, {1});
          }
        }
      }
    }
  }
  ExpectSameBytesAsCpu("Cumsum", ScanAttrs(DataType::kInt64, false, false),
                       {MakeTensor<int64_t>({2, 3}, {std::numeric_limits<int64_t>::max(), 1, 2,
                                                     3, 4, 5}),
                        Scalar<int32_t>(1)},
                       {1});
  // Many columns (more than a block) and an empty axis.
  ExpectSameBytesAsCpu("Cumsum", ScanAttrs(DataType::kFloat, false, false),
                       {RandomFloats({3, 1000}, 13), Scalar<int32_t>(0)}, {1});
  ExpectSameBytesAsCpu("Cumsum", ScanAttrs(DataType::kFloat, false, false),
                       {RandomFloats({3, 0}, 14), Scalar<int32_t>(1)}, {1});
}

}  // namespace
}  // namespace smrt::kernels::cuda
