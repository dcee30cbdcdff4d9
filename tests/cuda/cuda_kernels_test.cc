// The CUDA backend (built with SMRT_WITH_CUDA=ON): its kernels are in the
// default registry, broadcasting plans are right (host-only, runs anywhere),
// and on a GPU every kernel matches the CPU reference kernel exactly (Add,
// Mul and Relu are single IEEE operations). GPU tests skip with the CUDA
// error when no device is visible.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/cuda/broadcast_index.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"
#include "kernels/testing/op_runner.h"

namespace smrt::kernels::cuda {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::RunOp;
using kernels::testing::Values;

AttrMap TypeAttr(DataType t) {
  AttrMap a;
  a.Set("T", t);
  return a;
}

// "" when a GPU is usable, else why not.
std::string NoGpuReason() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    return absl::StrCat("no CUDA device: cudaGetDeviceCount failed: ", cudaGetErrorName(err), ": ",
                        cudaGetErrorString(err));
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount reports 0";
  return "";
}

#define SKIP_WITHOUT_GPU()                                 \
  do {                                                     \
    const std::string why = NoGpuReason();                 \
    if (!why.empty()) GTEST_SKIP() << why;                 \
  } while (0)

TEST(CudaKernelsTest, RegisteredInTheDefaultRegistry) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"Add", "AddV2", "Mul", "Relu"}) {
    for (DataType t : {DataType::kFloat, DataType::kInt32}) {
      absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, TypeAttr(t));
      ASSERT_TRUE(k.ok()) << op << " " << DataTypeName(t) << ": " << k.status();
      EXPECT_EQ((*k)->device, "CUDA");
    }
    // The CPU kernel is still there, and a dtype the GPU lacks says so.
    EXPECT_TRUE(r.FindKernel(op, kCpu, TypeAttr(DataType::kFloat)).ok()) << op;
    EXPECT_EQ(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kDouble)).status().code(),
              absl::StatusCode::kUnimplemented);
  }
}

TEST(BroadcastIndexTest, EqualShapesAreOneFlatDim) {
  Shape out;
  auto idx = MakeBroadcastIndex({2, 3, 4}, {2, 3, 4}, &out);
  ASSERT_TRUE(idx.ok()) << idx.status();
  EXPECT_EQ(out, (Shape{2, 3, 4}));
  ASSERT_EQ(idx->rank, 1);
  EXPECT_EQ(idx->dims[0], 24);
  EXPECT_EQ(idx->a_strides[0], 1);
  EXPECT_EQ(idx->b_strides[0], 1);
}

TEST(BroadcastIndexTest, RowVectorAndScalar) {
  Shape out;
  auto idx = MakeBroadcastIndex({2, 3}, {3}, &out);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(out, (Shape{2, 3}));
  ASSERT_EQ(idx->rank, 2);
  EXPECT_EQ(idx->dims[0], 2);
  EXPECT_EQ(idx->dims[1], 3);
  EXPECT_EQ(idx->a_strides[0], 3);
  EXPECT_EQ(idx->b_strides[0], 0);
  EXPECT_EQ(idx->b_strides[1], 1);
  idx = MakeBroadcastIndex({}, {5, 1, 7}, &out);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(out, (Shape{5, 1, 7}));
  ASSERT_EQ(idx->rank, 1);  // the 1 drops out, then 5 and 7 merge
  EXPECT_EQ(idx->dims[0], 35);
  EXPECT_EQ(idx->a_strides[0], 0);
  EXPECT_EQ(idx->b_strides[0], 1);
}

TEST(BroadcastIndexTest, BothSidesStretch) {
  Shape out;
  auto idx = MakeBroadcastIndex({4, 1, 3}, {1, 5, 1}, &out);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(out, (Shape{4, 5, 3}));
  ASSERT_EQ(idx->rank, 3);
  EXPECT_EQ(std::vector<int64_t>(idx->a_strides, idx->a_strides + 3), (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(std::vector<int64_t>(idx->b_strides, idx->b_strides + 3), (std::vector<int64_t>{0, 1, 0}));
}

TEST(BroadcastIndexTest, ErrorsNameTheShapes) {
  Shape out;
  auto idx = MakeBroadcastIndex({2, 3}, {4}, &out);
  EXPECT_EQ(idx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(idx.status().message(), "(2, 3) vs (4)")) << idx.status();
  // Alternating broadcast dims cannot merge: 9 dims is more than the kernel takes.
  Shape a, b;
  for (int i = 0; i < 9; ++i) {
    a.push_back(i % 2 ? 2 : 1);
    b.push_back(i % 2 ? 1 : 2);
  }
  idx = MakeBroadcastIndex(a, b, &out);
  EXPECT_EQ(idx.status().code(), absl::StatusCode::kUnimplemented) << idx.status();
}

template <typename T>
std::vector<T> RandomValues(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      x = std::uniform_real_distribution<float>(-10, 10)(rng);
    } else {
      x = static_cast<T>(std::uniform_int_distribution<int>(-1000, 1000)(rng));
    }
  }
  return v;
}

int64_t Count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Runs `op` through the registry's CUDA kernel, as the executor would.
absl::StatusOr<Tensor> RunCuda(const std::string& op, DataType t, std::vector<Tensor> inputs) {
  const AttrMap attrs = TypeAttr(t);
  absl::StatusOr<const KernelSpec*> k =
      KernelRegistry::Default().FindKernel(op, kCudaDevice, attrs);
  if (!k.ok()) return k.status();
  KernelContext ctx("gpu_node", op, attrs, std::move(inputs), 1);
  if (absl::Status s = (*k)->compute(ctx); !s.ok()) return s;
  return ctx.output(0);
}

template <typename T>
void ExpectSameAsCpu(const std::string& op, const std::vector<Tensor>& inputs) {
  const DataType t = kernels::testing::DataTypeOf<T>::value;
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, TypeAttr(t), inputs);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<Tensor> gpu = RunCuda(op, t, inputs);
  ASSERT_TRUE(gpu.ok()) << op << ": " << gpu.status();
  ASSERT_EQ(gpu->shape(), (*cpu)[0].shape()) << op;
  const std::vector<T> want = Values<T>((*cpu)[0]);
  const std::vector<T> got = Values<T>(*gpu);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << op << " element " << i;
        continue;
      }
    }
    ASSERT_EQ(got[i], want[i]) << op << " element " << i << " of " << ShapeToString(gpu->shape());
  }
}

const std::vector<std::pair<Shape, Shape>> kBroadcastCases = {
    {{}, {}},          {{7}, {}},          {{}, {7}},
    {{2, 3}, {3}},     {{2, 3}, {2, 1}},   {{4, 1, 3}, {1, 5, 1}},
    {{3, 1}, {1, 4}},  {{2, 3, 4, 5}, {1, 3, 1, 5}},
    {{0, 3}, {3}},     {{1027, 129}, {129}},  // more than one block; odd sizes
    {{1 << 20}, {1 << 20}},                   // grid-stride: more elements than threads
};

TEST(CudaKernelsGpuTest, AddAndMulMatchTheCpuKernelsWithBroadcasting) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 1;
  for (const auto& [sa, sb] : kBroadcastCases) {
    SCOPED_TRACE(ShapeToString(sa) + " vs " + ShapeToString(sb));
    Tensor fa = MakeTensor<float>(sa, RandomValues<float>(Count(sa), seed++));
    Tensor fb = MakeTensor<float>(sb, RandomValues<float>(Count(sb), seed++));
    Tensor ia = MakeTensor<int32_t>(sa, RandomValues<int32_t>(Count(sa), seed++));
    Tensor ib = MakeTensor<int32_t>(sb, RandomValues<int32_t>(Count(sb), seed++));
    for (const char* op : {"Add", "AddV2", "Mul"}) {
      ExpectSameAsCpu<float>(op, {fa, fb});
      ExpectSameAsCpu<int32_t>(op, {ia, ib});
    }
  }
}

TEST(CudaKernelsGpuTest, ReluMatchesTheCpuKernel) {
  SKIP_WITHOUT_GPU();
  std::vector<float> v = RandomValues<float>(5000, 7);
  v[0] = -0.0f;
  v[1] = std::numeric_limits<float>::quiet_NaN();
  v[2] = std::numeric_limits<float>::infinity();
  v[3] = -std::numeric_limits<float>::infinity();
  ExpectSameAsCpu<float>("Relu", {MakeTensor<float>({50, 100}, v)});
  ExpectSameAsCpu<int32_t>("Relu", {MakeTensor<int32_t>({3, 333}, RandomValues<int32_t>(999, 8))});
  ExpectSameAsCpu<float>("Relu", {MakeTensor<float>({0}, {})});
}

// Shapes are checked before any CUDA call, so this runs without a GPU too.
TEST(CudaKernelsTest, IncompatibleShapesAreInvalidArgument) {
  absl::StatusOr<Tensor> r =
      RunCuda("AddV2", DataType::kFloat,
              {MakeTensor<float>({2, 3}, std::vector<float>(6, 1)),
               MakeTensor<float>({4}, std::vector<float>(4, 1))});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
}

// The device-pointer layer directly, against a naive host loop.
TEST(CudaKernelsGpuTest, LaunchBinaryOnDeviceBuffers) {
  SKIP_WITHOUT_GPU();
  const Shape sa = {3, 1, 5}, sb = {4, 1};
  Shape out_shape;
  absl::StatusOr<BroadcastIndex> idx = MakeBroadcastIndex(sa, sb, &out_shape);
  ASSERT_TRUE(idx.ok());
  ASSERT_EQ(out_shape, (Shape{3, 4, 5}));
  const std::vector<float> a = RandomValues<float>(15, 21), b = RandomValues<float>(4, 22);
  float *da = nullptr, *db = nullptr, *dout = nullptr;
  ASSERT_EQ(cudaMalloc(&da, a.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&db, b.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dout, 60 * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul}) {
    ASSERT_EQ(LaunchBinary<float>(op, da, db, dout, 60, *idx, nullptr), cudaSuccess);
    std::vector<float> got(60);
    ASSERT_EQ(cudaMemcpy(got.data(), dout, 60 * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        for (int k = 0; k < 5; ++k) {
          const float x = a[i * 5 + k], y = b[j];
          EXPECT_EQ(got[(i * 4 + j) * 5 + k], op == BinaryOp::kAdd ? x + y : x * y);
        }
      }
    }
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
}

}  // namespace
}  // namespace smrt::kernels::cuda
