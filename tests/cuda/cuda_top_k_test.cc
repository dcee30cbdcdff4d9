// TopKV2 on CUDA. Without a GPU: the rank order the kernel runs
// (top_k.h), evaluated on the host, gives the CPU kernel's values and
// indices (ties by lower index, NaN first, -0 equal to +0), and every check
// fails before any device work. With one: the kernel against the CPU, byte
// for byte, both outputs.
#include "kernels/cuda/top_k.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// TopKV2 as the kernel computes it, on the host: element i of a row goes to
// position TopKRank(...) when that is below k.
template <typename T>
void HostTopK(const T* in, int64_t rows, int64_t n, int64_t k, T* values, int32_t* indices) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = in + r * n;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t rank = TopKRank(row, n, i, k);
      if (rank < k) {
        values[r * k + rank] = row[i];
        indices[r * k + rank] = static_cast<int32_t>(i);
      }
    }
  }
}

// `x` (any dtype) through HostTopK<T> against the CPU kernel, byte for byte.
template <typename T>
void ExpectHostTopKIsTheCpus(const Tensor& x, int64_t k) {
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunOp("TopKV2", TypeAttr(x.dtype()), {x, Scalar<int32_t>(static_cast<int32_t>(k))});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  const int64_t n = x.dim(x.rank() - 1);
  const int64_t rows = n == 0 ? 0 : x.num_elements() / n;
  std::vector<T> values(static_cast<size_t>(rows * k));
  std::vector<int32_t> indices(static_cast<size_t>(rows * k), -1);
  HostTopK(static_cast<const T*>(x.raw_data()), rows, n, k, values.data(), indices.data());
  ASSERT_EQ((*cpu)[0].num_elements(), rows * k);
  EXPECT_EQ(std::memcmp(values.data(), (*cpu)[0].raw_data(), values.size() * sizeof(T)), 0)
      << DataTypeName(x.dtype()) << " k=" << k;
  EXPECT_EQ(std::memcmp(indices.data(), (*cpu)[1].raw_data(), indices.size() * sizeof(int32_t)),
            0)
      << DataTypeName(x.dtype()) << " k=" << k;
}

// Rows of ties, NaNs, infinities and signed zeros, then random rows with
// values from a small set (many ties).
Tensor HardRows() {
  std::vector<float> v = {3, 1, 3, kNan, -kInf, 0.0f, -0.0f, kInf, kNan, 1,   // row 0
                          2, 2, 2, 2,    2,     2,    2,     2,    2,    2,   // row 1
                          -0.0f, 0.0f, -0.0f, 0.0f, -1, 1, -1, 1, -kInf, -kInf};
  const Tensor r = RandomFloats({5, 10}, 7, -3, 3);
  for (int64_t i = 0; i < r.num_elements(); ++i) v.push_back(std::round(r.data<float>()[i]));
  return MakeTensor<float>({8, 10}, v);
}

TEST(CudaTopKTest, TheRankOrderGivesTheCpusValuesAndIndices) {
  const Tensor x = HardRows();
  for (int64_t k : {0, 1, 3, 7, 10}) {
    ExpectHostTopKIsTheCpus<float>(x, k);
    ExpectHostTopKIsTheCpus<__half>(CastTo(x, DataType::kHalf), k);
    ExpectHostTopKIsTheCpus<__nv_bfloat16>(CastTo(x, DataType::kBFloat16), k);
  }
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < 60; ++i) ints.push_back((i * 7919) % 13 - 6);
  ints[5] = std::numeric_limits<int64_t>::min();
  ints[6] = std::numeric_limits<int64_t>::max();
  for (int64_t k : {1, 4, 12}) {
    ExpectHostTopKIsTheCpus<int64_t>(MakeTensor<int64_t>({5, 12}, ints), k);
  }
  std::vector<int32_t> ints32(ints.begin(), ints.end());
  ints32[5] = std::numeric_limits<int32_t>::min();
  ints32[6] = std::numeric_limits<int32_t>::max();
  ExpectHostTopKIsTheCpus<int32_t>(MakeTensor<int32_t>({4, 15}, ints32), 15);
  // An empty last dimension with k = 0.
  ExpectHostTopKIsTheCpus<float>(MakeTensor<float>({3, 0}, {}), 0);
}

// The sort path's keys: a stable descending sort of (TopKKey, index) is the
// rank order, pair by pair and as the CPU kernel's whole-row answer.
template <typename T>
void ExpectKeysSortLikeTheCpu(const Tensor& x) {
  const T* v = static_cast<const T*>(x.raw_data());
  const int64_t n = x.dim(x.rank() - 1), rows = x.num_elements() / n;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = v + r * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const auto ki = TopKKey(row[i]), kj = TopKKey(row[j]);
        ASSERT_EQ(TopKBefore(row[i], i, row[j], j), ki > kj || (ki == kj && i < j))
            << DataTypeName(x.dtype()) << " row " << r << " elements " << i << ", " << j;
      }
    }
  }
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunOp("TopKV2", TypeAttr(x.dtype()), {x, Scalar<int32_t>(static_cast<int32_t>(n))});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return TopKKey(v[r * n + a]) > TopKKey(v[r * n + b]);
    });
    EXPECT_EQ(std::memcmp(order.data(), (*cpu)[1].data<int32_t>() + r * n, n * sizeof(int32_t)),
              0)
        << DataTypeName(x.dtype()) << " row " << r;
  }
}

TEST(CudaTopKTest, SortingByKeyIsTheRankOrder) {
  const Tensor x = HardRows();
  ExpectKeysSortLikeTheCpu<float>(x);
  ExpectKeysSortLikeTheCpu<__half>(CastTo(x, DataType::kHalf));
  ExpectKeysSortLikeTheCpu<__nv_bfloat16>(CastTo(x, DataType::kBFloat16));
  ExpectKeysSortLikeTheCpu<double>(CastTo(x, DataType::kDouble));
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < 60; ++i) ints.push_back((i * 7919) % 13 - 6);
  ints[5] = std::numeric_limits<int64_t>::min();
  ints[6] = std::numeric_limits<int64_t>::max();
  ExpectKeysSortLikeTheCpu<int64_t>(MakeTensor<int64_t>({5, 12}, ints));
  std::vector<int32_t> ints32(ints.begin(), ints.end());
  ints32[5] = std::numeric_limits<int32_t>::min();
  ints32[6] = std::numeric_limits<int32_t>::max();
  ExpectKeysSortLikeTheCpu<int32_t>(MakeTensor<int32_t>({4, 15}, ints32));
  // A negative NaN is a NaN: above +inf, like a positive one.
  const Tensor nans = MakeTensor<float>({1, 4}, {kInf, -kNan, 1, kNan});
  ExpectKeysSortLikeTheCpu<float>(nans);
}

TEST(CudaTopKTest, LongRowsAreSortedShortOnesRanked) {
  EXPECT_FALSE(TopKSorts(1000, 1024));
  EXPECT_TRUE(TopKSorts(1, 1025));
  EXPECT_TRUE(TopKSorts(64, 30522));          // a batch of vocabulary rows
  EXPECT_FALSE(TopKSorts(1, int64_t{1} << 31));  // a row past the sort's int count
  // Batches whose items and offsets fit an int, and items 2^28, sorted in turn.
  EXPECT_TRUE(TopKSorts(40000, 60000));
  EXPECT_EQ(TopKSortBatchRows(40000, 60000), 4473);
  EXPECT_EQ(TopKSortBatchRows(64, 30522), 64);
  EXPECT_EQ(TopKSortBatchRows(3, int64_t{1} << 30), 1);
  for (int64_t n : {int64_t{1025}, int64_t{60000}, int64_t{1} << 30}) {
    const int64_t b = TopKSortBatchRows(int64_t{1} << 20, n);
    EXPECT_LT(b * n + b, int64_t{1} << 31) << n;
    EXPECT_TRUE(b == 1 || b * n <= int64_t{1} << 28) << n;
  }
  size_t bytes = 1;
  EXPECT_EQ(TopKScratchBytes(TopKType::kFloat, 8, 100, &bytes), cudaSuccess);
  EXPECT_EQ(bytes, 0u);  // ranked: no scratch
}

TEST(CudaTopKTest, RegisteredForFloatsAndIntegersWithKOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                     DataType::kInt32, DataType::kInt64}) {
    absl::StatusOr<const KernelSpec*> k = r.FindKernel("TopKV2", kCudaDevice, TypeAttr(t));
    ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
    EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{1});
  }
  EXPECT_FALSE(r.FindKernel("TopKV2", kCudaDevice, TypeAttr(DataType::kUInt8)).ok());
}

TEST(CudaTopKTest, ChecksFailBeforeAnyDeviceWork) {
  const Tensor x = FakeDeviceTensor(DataType::kFloat, {2, 5});
  testing::ExpectFakeDeviceError("TopKV2", TypeAttr(DataType::kFloat), {x, Scalar<int32_t>(6)},
                                 absl::StatusCode::kInvalidArgument,
                                 "input must have at least k columns. Had 5, needed 6", 2);
  testing::ExpectFakeDeviceError("TopKV2", TypeAttr(DataType::kFloat), {x, Scalar<int32_t>(-1)},
                                 absl::StatusCode::kInvalidArgument, "Need k >= 0, got -1", 2);
  testing::ExpectFakeDeviceError("TopKV2", TypeAttr(DataType::kFloat),
                                 {x, MakeTensor<int32_t>({1}, {2})},
                                 absl::StatusCode::kInvalidArgument, "k must be scalar", 2);
  testing::ExpectFakeDeviceError(
      "TopKV2", TypeAttr(DataType::kFloat),
      {FakeDeviceTensor(DataType::kFloat, {}), Scalar<int32_t>(0)},
      absl::StatusCode::kInvalidArgument, "input must be >= 1-D", 2);
  AttrMap bad_index = TypeAttr(DataType::kFloat);
  bad_index.Set("index_type", DataType::kFloat);
  testing::ExpectFakeDeviceError("TopKV2", bad_index, {x, Scalar<int32_t>(1)},
                                 absl::StatusCode::kInvalidArgument,
                                 "index_type must be int16, int32 or int64", 2);
  AttrMap int16_index = TypeAttr(DataType::kFloat);
  int16_index.Set("index_type", DataType::kInt16);
  testing::ExpectFakeDeviceError(
      "TopKV2", int16_index, {FakeDeviceTensor(DataType::kFloat, {1, 40000}), Scalar<int32_t>(1)},
      absl::StatusCode::kInvalidArgument, "does not fit index_type DT_INT16", 2);
}

// With a GPU.

class CudaGpuTopKTest : public testing::GpuTest {
 protected:
  // Both outputs of the GPU kernel against the CPU's, byte for byte.
  void ExpectBothOutputsLikeCpu(const Tensor& x, int64_t k, DataType index_type) {
    AttrMap attrs = TypeAttr(x.dtype());
    attrs.Set("index_type", index_type);
    const Tensor k_tensor = Scalar<int32_t>(static_cast<int32_t>(k));
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("TopKV2", attrs, {x, k_tensor});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<Tensor> on_device = testing::Upload(device_.get(), x);
    ASSERT_TRUE(on_device.ok()) << on_device.status();
    absl::StatusOr<std::vector<Tensor>> gpu =
        testing::RunCudaKernel(device_.get(), "TopKV2", attrs, {*on_device, k_tensor}, 2);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<Tensor> got = testing::Download(device_.get(), (*gpu)[i]);
      ASSERT_TRUE(got.ok()) << got.status();
      const Tensor& want = (*cpu)[i];
      ASSERT_EQ(got->shape(), want.shape());
      ASSERT_EQ(got->dtype(), want.dtype());
      EXPECT_TRUE(want.byte_size() == 0 ||
                  std::memcmp(got->raw_data(), want.raw_data(), want.byte_size()) == 0)
          << DataTypeName(x.dtype()) << " k=" << k << " output " << i;
    }
  }
};

TEST_F(CudaGpuTopKTest, ValuesAndIndicesAreTheCpus) {
  const Tensor hard = HardRows();
  const Tensor wide = RandomFloats({3, 4, 1000}, 11, -2, 2);
  for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kBFloat16}) {
    const Tensor h = t == DataType::kFloat ? hard : CastTo(hard, t);
    const Tensor w = t == DataType::kFloat ? wide : CastTo(wide, t);
    for (int64_t k : {0, 1, 5, 10}) ExpectBothOutputsLikeCpu(h, k, DataType::kInt32);
    ExpectBothOutputsLikeCpu(w, 7, DataType::kInt64);
    ExpectBothOutputsLikeCpu(w, 1000, DataType::kInt32);  // the whole row, sorted
  }
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < 600; ++i) ints.push_back((i * 7919) % 97 - 48);
  ExpectBothOutputsLikeCpu(MakeTensor<int64_t>({6, 100}, ints), 9, DataType::kInt16);
  ExpectBothOutputsLikeCpu(CastTo(wide, DataType::kDouble), 3, DataType::kInt32);
  ExpectBothOutputsLikeCpu(MakeTensor<float>({3, 0}, {}), 0, DataType::kInt32);
}

// Rows over 1024 elements take the radix sort: ascending and descending
// rows (the rank count's worst case), ties, NaNs and signed zeros, every
// type, k from 1 to the whole row; a single row alone.
TEST_F(CudaGpuTopKTest, LongRowsSortedMatchTheCpu) {
  const int64_t n = 3000;
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i));         // ascending
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(n - i));     // descending
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i % 7) - 3);  // ties
  for (int64_t i = 0; i < n; ++i) {
    v.push_back(i % 11 == 0 ? kNan : (i % 13 == 0 ? -0.0f : (i % 17 == 0 ? 0.0f : -kInf)));
  }
  const Tensor x = MakeTensor<float>({4, n}, v);
  // One row: the whole device's sort rather than the segmented one.
  for (int row = 0; row < 4; ++row) {
    const Tensor one = MakeTensor<float>(
        {1, n}, std::vector<float>(v.begin() + row * n, v.begin() + (row + 1) * n));
    for (int64_t k : {int64_t{1}, int64_t{100}, n}) {
      ExpectBothOutputsLikeCpu(one, k, DataType::kInt32);
    }
  }
  for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kBFloat16, DataType::kDouble}) {
    const Tensor xt = t == DataType::kFloat ? x : CastTo(x, t);
    for (int64_t k : {int64_t{1}, int64_t{5}, int64_t{100}, n}) {
      ExpectBothOutputsLikeCpu(xt, k, DataType::kInt32);
    }
  }
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < 2 * n; ++i) ints.push_back((i * 7919) % 97 - 48);
  ExpectBothOutputsLikeCpu(MakeTensor<int64_t>({2, n}, ints), 50, DataType::kInt64);
  std::vector<int32_t> ints32(ints.begin(), ints.end());
  ExpectBothOutputsLikeCpu(MakeTensor<int32_t>({2, n}, ints32), n, DataType::kInt16);
}

}  // namespace
}  // namespace smrt::kernels::cuda
