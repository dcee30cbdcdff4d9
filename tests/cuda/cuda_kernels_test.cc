// The CUDA backend's registrations and every check its kernels make before
// touching device memory: these run on any machine (no GPU needed). The
// shape ops run fully here, on fake device tensors, since they never read
// elements. GPU results against the CPU kernels: cuda_gpu_kernels_test.cc.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/shared/conv_util.h"
#include "kernels/cuda/broadcast_index.h"
#include "kernels/cuda/cudnn_loader.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/transpose.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

const std::vector<DataType> kF32 = {DataType::kFloat};
const std::vector<DataType> kF32I32 = {DataType::kFloat, DataType::kInt32};
// float32 and the 16-bit floats of Keras mixed precision (and the integers).
const std::vector<DataType> kFloating = {DataType::kFloat, DataType::kHalf,
                                         DataType::kBFloat16};
const std::vector<DataType> kFloatingInts = {DataType::kFloat, DataType::kHalf,
                                             DataType::kBFloat16, DataType::kInt32,
                                             DataType::kInt64};
const std::vector<DataType> kFloatingI64 = {DataType::kFloat, DataType::kHalf,
                                            DataType::kBFloat16, DataType::kInt64};
const std::vector<DataType> kFloatingI64Bool = {DataType::kFloat, DataType::kHalf,
                                                DataType::kBFloat16, DataType::kInt64,
                                                DataType::kBool};
const std::vector<DataType> kAllFixed = {
    DataType::kFloat, DataType::kDouble,   DataType::kInt32,     DataType::kUInt8,
    DataType::kInt16, DataType::kInt8,     DataType::kComplex64, DataType::kInt64,
    DataType::kBool,  DataType::kBFloat16, DataType::kUInt16,    DataType::kComplex128,
    DataType::kHalf,  DataType::kUInt32,   DataType::kUInt64};

struct Expected {
  const char* op;
  const char* type_attr;
  std::vector<DataType> types;
  std::vector<int> host_memory_inputs;
};

TEST(CudaKernelsTest, EveryOpIsRegisteredWithItsDtypesAndHostInputs) {
  const std::vector<Expected> expected = {
      {kToDeviceOp, "T", kAllFixed, {0}},
      {kToHostOp, "T", kAllFixed, {}},
      {"Const", "dtype", kAllFixed, {}},
      {"Identity", "T", kAllFixed, {}},
      {"Reshape", "T", kAllFixed, {1}},
      {"ExpandDims", "T", kAllFixed, {1}},
      {"Squeeze", "T", kAllFixed, {}},
      {"Add", "T", kFloatingInts, {}},
      {"AddV2", "T", kFloatingInts, {}},
      {"Sub", "T", kFloatingInts, {}},
      {"Mul", "T", kFloatingInts, {}},
      {"RealDiv", "T", kFloating, {}},
      {"Maximum", "T", kFloatingInts, {}},
      {"Minimum", "T", kFloatingInts, {}},
      {"SquaredDifference", "T", kFloatingInts, {}},
      {"Relu", "T", kFloatingInts, {}},
      {"Relu6", "T", kFloatingInts, {}},
      {"Neg", "T", kFloatingInts, {}},
      {"Square", "T", kFloatingInts, {}},
      {"Sigmoid", "T", kFloating, {}},
      {"Tanh", "T", kFloating, {}},
      {"Exp", "T", kFloating, {}},
      {"Sqrt", "T", kFloating, {}},
      {"Rsqrt", "T", kFloating, {}},
      {"Elu", "T", kFloating, {}},
      {"Abs", "T", kFloatingInts, {}},
      {"Log", "T", kFloating, {}},
      {"Log1p", "T", kFloating, {}},
      {"Erf", "T", kFloating, {}},
      {"Erfc", "T", kFloating, {}},
      {"Floor", "T", kFloating, {}},
      {"Ceil", "T", kFloating, {}},
      {"Reciprocal", "T", kFloating, {}},
      {"Inv", "T", kFloating, {}},
      {"LeakyRelu", "T", kFloating, {}},
      {"Softplus", "T", kFloating, {}},
      {"Softsign", "T", kFloating, {}},
      {"Selu", "T", kFloating, {}},
      {"Sign", "T", kFloating, {}},
      {"Round", "T", kFloating, {}},
      {"Sin", "T", kFloating, {}},
      {"Cos", "T", kFloating, {}},
      {"Expm1", "T", kFloating, {}},
      {"IsNan", "T", kFloating, {}},
      {"IsFinite", "T", kFloating, {}},
      {"SpaceToDepth", "T", kAllFixed, {}},
      {"DepthToSpace", "T", kAllFixed, {}},
      // int32 comparisons stay on the host (graph/host_nodes.h).
      {"Less", "T", kFloatingI64, {}},
      {"LessEqual", "T", kFloatingI64, {}},
      {"Greater", "T", kFloatingI64, {}},
      {"GreaterEqual", "T", kFloatingI64, {}},
      {"Equal", "T", kFloatingI64Bool, {}},
      {"NotEqual", "T", kFloatingI64Bool, {}},
      {"BiasAdd", "T", kFloating, {}},
      {"MatMul", "T", kFloating, {}},
      {"BatchMatMulV2", "T", kFloating, {}},
      {"Softmax", "T", kFloating, {}},
      {"LogSoftmax", "T", kFloating, {}},
      {"_SmrtFusedMatMul", "T", kFloating, {}},
      {"_SmrtLayerNorm", "T", kF32, {}},
      {"Transpose", "T", kAllFixed, {1}},
      {"Conv2D", "T", kFloating, {}},
      {"DepthwiseConv2dNative", "T", kFloating, {}},
      {"_SmrtFusedConv2D", "T", kFloating, {}},
      {"MaxPool", "T", kFloating, {}},
      {"AvgPool", "T", kFloating, {}},
      {"Sum", "T", kFloating, {1}},
      {"Mean", "T", kFloating, {1}},
      {"Prod", "T", kF32, {1}},
      {"Max", "T", kFloating, {1}},
      {"Min", "T", kFloating, {1}},
      {"ArgMax", "T", kF32, {1}},
      {"ArgMin", "T", kF32, {1}},
      {"FusedBatchNormV3", "T", kFloating, {}},
  };
  const KernelRegistry& r = KernelRegistry::Default();
  const bool cudnn = Cudnn().ok();  // convolutions are served only with cuDNN
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.op);
    if (!cudnn && absl::StrContains(e.op, "Conv")) {
      EXPECT_FALSE(r.FindKernel(e.op, kCudaDevice, TypeAttr(DataType::kFloat, e.type_attr)).ok());
      continue;
    }
    EXPECT_TRUE(r.FindOp(e.op) != nullptr) << "no OpSpec";
    for (DataType t : kAllFixed) {
      absl::StatusOr<const KernelSpec*> k =
          r.FindKernel(e.op, kCudaDevice, TypeAttr(t, e.type_attr));
      const bool want = std::find(e.types.begin(), e.types.end(), t) != e.types.end();
      if (!want) {
        EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented) << DataTypeName(t);
        continue;
      }
      ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
      EXPECT_EQ((*k)->device, "CUDA");
      EXPECT_EQ((*k)->backend, "cuda");
      EXPECT_EQ((*k)->host_memory_inputs, e.host_memory_inputs);
    }
    // Strings cannot live in device memory.
    EXPECT_FALSE(r.FindKernel(e.op, kCudaDevice, TypeAttr(DataType::kString, e.type_attr)).ok());
  }
  // Logical ops have no type attr: their operands are bool.
  for (const char* op : {"LogicalAnd", "LogicalOr", "LogicalNot"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, AttrMap());
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ((*k)->backend, "cuda");
    EXPECT_TRUE((*k)->host_memory_inputs.empty());
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
  EXPECT_EQ(std::vector<int64_t>(idx->a_strides, idx->a_strides + 3),
            (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(std::vector<int64_t>(idx->b_strides, idx->b_strides + 3),
            (std::vector<int64_t>{0, 1, 0}));
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

// ---------------------------------------------------------------- shape ops, no GPU needed

// The CUDA kernel's output is a view of the device input with the CPU
// kernel's shape; or both fail with the same code and message.
void ExpectShapeOpLikeCpu(const std::string& op, AttrMap attrs, const Shape& in_shape,
                          std::vector<Tensor> host_rest) {
  SCOPED_TRACE(op + " of " + ShapeToString(in_shape));
  attrs.Set("T", DataType::kFloat);
  absl::StatusOr<Tensor> host = Tensor::Create(DataType::kFloat, in_shape);
  ASSERT_TRUE(host.ok());
  std::vector<Tensor> cpu_inputs = {*host};
  for (const Tensor& t : host_rest) cpu_inputs.push_back(t);
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, attrs, cpu_inputs);

  const Tensor dev = FakeDeviceTensor(DataType::kFloat, in_shape);
  std::vector<Tensor> gpu_inputs = {dev};
  for (const Tensor& t : host_rest) gpu_inputs.push_back(t);
  FakeDevice device;
  absl::StatusOr<std::vector<Tensor>> gpu = RunCudaKernel(&device, op, attrs, gpu_inputs);
  if (!cpu.ok()) {
    ASSERT_FALSE(gpu.ok()) << "the CPU kernel failed: " << cpu.status();
    EXPECT_EQ(gpu.status().code(), cpu.status().code());
    EXPECT_TRUE(absl::StrContains(gpu.status().message(), cpu.status().message()))
        << gpu.status() << "\nvs CPU: " << cpu.status();
    EXPECT_TRUE(absl::StrContains(gpu.status().message(), "gpu_node")) << gpu.status();
    return;
  }
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const Tensor& out = (*gpu)[0];
  EXPECT_TRUE(out.on_device());
  EXPECT_EQ(out.raw_data(), dev.raw_data()) << "not a view of the input";
  EXPECT_EQ(out.dtype(), DataType::kFloat);
  EXPECT_EQ(out.shape(), (*cpu)[0].shape());
}

TEST(CudaShapeKernelsTest, ReshapeMatchesTheCpuKernel) {
  using V = std::vector<int32_t>;
  ExpectShapeOpLikeCpu("Reshape", {}, {2, 3, 4}, {MakeTensor<int32_t>({2}, V{6, 4})});
  ExpectShapeOpLikeCpu("Reshape", {}, {2, 3, 4}, {MakeTensor<int32_t>({3}, V{-1, 2, 2})});
  ExpectShapeOpLikeCpu("Reshape", {}, {2, 3, 4},
                       {MakeTensor<int64_t>({2}, std::vector<int64_t>{4, -1})});
  ExpectShapeOpLikeCpu("Reshape", {}, {1}, {MakeTensor<int32_t>({0}, V{})});  // to a scalar
  ExpectShapeOpLikeCpu("Reshape", {}, {0, 3}, {MakeTensor<int32_t>({2}, V{-1, 3})});
  // Errors: two -1, a wrong count, a 2-D shape.
  ExpectShapeOpLikeCpu("Reshape", {}, {2, 3, 4}, {MakeTensor<int32_t>({2}, V{-1, -1})});
  ExpectShapeOpLikeCpu("Reshape", {}, {2, 3, 4}, {MakeTensor<int32_t>({2}, V{5, 5})});
  ExpectShapeOpLikeCpu("Reshape", {}, {2, 3, 4}, {MakeTensor<int32_t>({2}, V{-1, 5})});
  ExpectShapeOpLikeCpu("Reshape", {}, {4}, {MakeTensor<int32_t>({2, 1}, V{2, 2})});
}

TEST(CudaShapeKernelsTest, ExpandDimsMatchesTheCpuKernel) {
  for (int32_t axis : {0, 1, 2, -1, -3, 3, -4}) {
    ExpectShapeOpLikeCpu("ExpandDims", {}, {2, 5}, {MakeTensor<int32_t>({}, {axis})});
  }
  ExpectShapeOpLikeCpu("ExpandDims", {}, {}, {MakeTensor<int64_t>({1}, std::vector<int64_t>{0})});
}

TEST(CudaShapeKernelsTest, SqueezeMatchesTheCpuKernel) {
  ExpectShapeOpLikeCpu("Squeeze", {}, {1, 3, 1, 2}, {});
  AttrMap dims;
  dims.Set("squeeze_dims", std::vector<int64_t>{-2});
  ExpectShapeOpLikeCpu("Squeeze", dims, {1, 3, 1, 2}, {});
  dims.Set("squeeze_dims", std::vector<int64_t>{1});  // not a 1: error
  ExpectShapeOpLikeCpu("Squeeze", dims, {1, 3, 1, 2}, {});
  dims.Set("squeeze_dims", std::vector<int64_t>{4});  // out of range
  ExpectShapeOpLikeCpu("Squeeze", dims, {1, 3, 1, 2}, {});
}

TEST(CudaShapeKernelsTest, IdentitySharesTheInput) {
  FakeDevice device;
  const Tensor dev = FakeDeviceTensor(DataType::kInt64, {3, 2});
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(&device, "Identity", TypeAttr(DataType::kInt64), {dev});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), dev.raw_data());
  EXPECT_EQ((*out)[0].shape(), dev.shape());
  EXPECT_TRUE((*out)[0].on_device());
}

// ---------------------------------------------------------------- errors before any CUDA call

void ExpectError(const std::string& op, const AttrMap& attrs, std::vector<Tensor> inputs,
                 absl::StatusCode code, const std::string& text, DeviceContext* device) {
  absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(device, op, attrs, std::move(inputs));
  ASSERT_FALSE(out.ok()) << op << " succeeded";
  EXPECT_EQ(out.status().code(), code) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), text)) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "gpu_node")) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), op)) << out.status();
}

TEST(CudaKernelsTest, ChecksComeBeforeAnyDeviceWork) {
  FakeDevice device;
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  const Tensor a = FakeDeviceTensor(DataType::kFloat, {2, 3});
  const Tensor b = FakeDeviceTensor(DataType::kFloat, {4});
  ExpectError("AddV2", f32, {a, b}, absl::StatusCode::kInvalidArgument, "(2, 3) vs (4)", &device);
  // A host tensor where device memory is expected.
  ExpectError("Mul", f32, {a, MakeTensor<float>({3}, {1, 2, 3})},
              absl::StatusCode::kFailedPrecondition, "host memory", &device);
  // No device at all.
  ExpectError("Relu", f32, {a}, absl::StatusCode::kFailedPrecondition, "without a device", nullptr);
  ExpectError(kToHostOp, f32, {MakeTensor<float>({1}, {1})}, absl::StatusCode::kFailedPrecondition,
              "host memory", &device);

  ExpectError(
      "MatMul", f32,
      {FakeDeviceTensor(DataType::kFloat, {2, 3}), FakeDeviceTensor(DataType::kFloat, {4, 5})},
      absl::StatusCode::kInvalidArgument, "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]",
      &device);
  ExpectError(
      "MatMul", f32,
      {FakeDeviceTensor(DataType::kFloat, {2, 3, 4}), FakeDeviceTensor(DataType::kFloat, {4, 5})},
      absl::StatusCode::kInvalidArgument, "must be matrices", &device);
  ExpectError("BatchMatMulV2", f32,
              {FakeDeviceTensor(DataType::kFloat, {3, 1, 2, 4}),
               FakeDeviceTensor(DataType::kFloat, {1, 2, 4, 5})},
              absl::StatusCode::kUnimplemented, "[3,1,2,4] vs. [1,2,4,5]", &device);
  ExpectError("BatchMatMulV2", f32,
              {FakeDeviceTensor(DataType::kFloat, {3, 2, 4}),
               FakeDeviceTensor(DataType::kFloat, {2, 4, 5})},
              absl::StatusCode::kInvalidArgument, "compatible batch dimensions", &device);

  AttrMap nchw = f32;
  nchw.Set("data_format", std::string("NCHW"));
  ExpectError(
      "BiasAdd", nchw,
      {FakeDeviceTensor(DataType::kFloat, {2, 3, 4}), FakeDeviceTensor(DataType::kFloat, {4})},
      absl::StatusCode::kInvalidArgument, "as many biases", &device);
  ExpectError("Softmax", f32, {FakeDeviceTensor(DataType::kFloat, {})},
              absl::StatusCode::kInvalidArgument, ">= 1 dimension", &device);

  ExpectError("Less", f32, {a, b}, absl::StatusCode::kInvalidArgument, "(2, 3) vs (4)", &device);
  ExpectError("Equal", f32, {a, FakeDeviceTensor(DataType::kBool, {2, 3})},
              absl::StatusCode::kInvalidArgument, "different types", &device);
  ExpectError("LogicalNot", AttrMap(), {a}, absl::StatusCode::kInvalidArgument,
              "input must be bool", &device);
  ExpectError("LeakyRelu", f32, {MakeTensor<float>({1}, {1})},
              absl::StatusCode::kFailedPrecondition, "host memory", &device);
}

TEST(CudaKernelsTest, ConvolutionsServeNhwcOnly) {
  absl::StatusOr<const CudnnApi*> cudnn = Cudnn();
  if (!cudnn.ok()) GTEST_SKIP() << "convolutions are not served without cuDNN: " << cudnn.status();
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"Conv2D", "DepthwiseConv2dNative", "_SmrtFusedConv2D"}) {
    SCOPED_TRACE(op);
    AttrMap attrs = TypeAttr(DataType::kFloat);
    EXPECT_TRUE(r.FindKernel(op, kCudaDevice, attrs).ok());  // NHWC by default
    attrs.Set("data_format", std::string("NHWC"));
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, attrs);
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_TRUE((*k)->make_state) << "keeps filters and algorithms per node";
    attrs.Set("data_format", std::string("NCHW"));
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, attrs).ok());
  }
}

// cuDNN's NOT_SUPPORTED family: a case it has no algorithm for sends a
// convolution another way; a missing driver, runtime, sub-library or
// architecture is an error that says so, not a silent slow path.
TEST(CudaKernelsTest, CudnnSaysNoAlgorithmOrWhatTheInstallationLacks) {
  for (cudnnStatus_t s : {CUDNN_STATUS_NOT_SUPPORTED, CUDNN_STATUS_NOT_SUPPORTED_SHAPE,
                          CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, CUDNN_STATUS_NOT_SUPPORTED_PADDING}) {
    EXPECT_TRUE(NoAlgorithmForCase(s)) << s;
  }
  for (cudnnStatus_t s : {CUDNN_STATUS_SUCCESS, CUDNN_STATUS_BAD_PARAM,
                          CUDNN_STATUS_INTERNAL_ERROR,
                          CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER,
                          CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
                          CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE}) {
    EXPECT_FALSE(NoAlgorithmForCase(s)) << s;
  }
  const absl::Status lacks =
      CudnnStatus(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE, "Conv2D", "conv1",
                  "cudnnFindConvolutionForwardAlgorithmEx");
  EXPECT_EQ(lacks.code(), absl::StatusCode::kFailedPrecondition) << lacks;
  EXPECT_NE(lacks.message().find("node 'conv1'"), std::string::npos) << lacks;
  EXPECT_NE(lacks.message().find("(3009)"), std::string::npos) << lacks;
  EXPECT_NE(lacks.message().find("smrt devices"), std::string::npos) << lacks;
  EXPECT_EQ(CudnnStatus(CUDNN_STATUS_BAD_PARAM, "Conv2D", "conv1", "x").code(),
            absl::StatusCode::kInternal);
}

TEST(CudaKernelsTest, PoolsServeNhwcSpatialWindowsOnly) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("ksize", std::vector<int64_t>{1, 3, 3, 1});
    EXPECT_TRUE(r.FindKernel(op, kCudaDevice, attrs).ok());
    attrs.Set("data_format", std::string("NCHW"));
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, attrs).ok());
  }
  AttrMap depth = TypeAttr(DataType::kFloat);
  depth.Set("ksize", std::vector<int64_t>{1, 1, 1, 2});
  EXPECT_FALSE(r.FindKernel("MaxPool", kCudaDevice, depth).ok());
}

// The index arithmetic the transpose kernel runs (TransposeSourceOffset over
// a simplified plan), here on the host, against the CPU kernel.
// The conv kernels give cuDNN min(before, after) padding on each side and
// pad a copy of the input by the rest; cuDNN's output size for that must be
// TensorFlow's for every padding mode (else the kernel reports an Internal
// error naming both).
TEST(CudaKernelsTest, SymmetricPaddingPlusACopyGivesTensorFlowsOutputSize) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t in = rng() % 40, k = 1 + rng() % 7, s = 1 + rng() % 4, d = 1 + rng() % 3;
    const Padding mode = static_cast<Padding>(rng() % 3);
    const int64_t eb = rng() % 5, ea = rng() % 5;
    absl::StatusOr<WindowedSize> w = WindowedOutputSize(in, k, d, s, mode, eb, ea);
    if (!w.ok() || w->size == 0) continue;
    SCOPED_TRACE(absl::StrCat("in ", in, " k ", k, " s ", s, " d ", d, " mode ",
                              static_cast<int>(mode), " pads ", w->pad_before, ",", w->pad_after));
    const int64_t sym = std::min(w->pad_before, w->pad_after);
    const int64_t padded = in + (w->pad_before - sym) + (w->pad_after - sym);
    const int64_t cudnn = (padded + 2 * sym - (d * (k - 1) + 1)) / s + 1;
    ASSERT_EQ(cudnn, w->size);
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

TEST(CudaKernelsTest, TransposePlansMatchTheCpuKernel) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 10);
    Shape dims(rank);
    for (int64_t& d : dims) d = 1 + static_cast<int64_t>(rng() % 4);
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    SCOPED_TRACE(absl::StrCat(ShapeToString(dims), " perm ", absl::StrJoin(perm, ",")));
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int32_t> values(n);
    std::iota(values.begin(), values.end(), 0);
    const Tensor x = MakeTensor<int32_t>(dims, values);
    AttrMap attrs = TypeAttr(DataType::kInt32);
    attrs.Set("Tperm", DataType::kInt32);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(
        "Transpose", attrs,
        {x, MakeTensor<int32_t>({rank}, std::vector<int32_t>(perm.begin(), perm.end()))});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    Shape merged;
    std::vector<int> merged_perm;
    SimplifyTranspose(dims, perm, merged, merged_perm);
    ASSERT_FALSE(merged.empty());
    ASSERT_LE(merged.size(), dims.size());
    if (merged.size() > static_cast<size_t>(kMaxTransposeRank)) continue;
    const TransposePlan plan =
        MakeTransposePlan(merged.data(), merged_perm.data(), static_cast<int>(merged.size()));
    const int32_t* want = (*cpu)[0].data<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(values[TransposeSourceOffset(plan, i)], want[i]) << "element " << i;
    }
  }
}

TEST(CudaKernelsTest, FewOutputsOverManyValuesAreSplitIntoChunks) {
  // Enough outputs, short rows, Prod: one pass.
  EXPECT_EQ(ReduceChunks(ReduceOp::kSum, 1000, 1 << 20, 1), 1);
  EXPECT_EQ(ReduceChunks(ReduceOp::kMean, 4, 768, 1), 1);
  EXPECT_EQ(ReduceChunks(ReduceOp::kSum, 1, 1000, 40000), 1);
  EXPECT_EQ(ReduceChunks(ReduceOp::kProd, 1, 1 << 20, 1), 1);
  EXPECT_EQ(ReduceChunks(ReduceOp::kSum, 1, 0, 1), 1);
  // A global average pool over 56 x 56 of 144 channels: chunks of 32 rows.
  EXPECT_EQ(ReduceChunks(ReduceOp::kMean, 1, 3136, 144), 98);
  // Everything of 2^20 values: 256 blocks of 4096.
  EXPECT_EQ(ReduceChunks(ReduceOp::kMax, 1, 1 << 20, 1), 256);
  // Three long rows: up to 256 blocks in all.
  EXPECT_EQ(ReduceChunks(ReduceOp::kSum, 3, 200003, 1), 48);
  // Never more than 1024 chunks.
  EXPECT_EQ(ReduceChunks(ReduceOp::kSum, 1, int64_t{1} << 40, 1), 256);
  EXPECT_EQ(ReduceChunks(ReduceOp::kSum, 1, int64_t{1} << 40, 2), 1024);
}

TEST(CudaKernelsTest, TransposeMergesDimsWithSizeOneDimsBetweenThem) {
  Shape merged;
  std::vector<int> merged_perm;
  // Input dims 0 and 2 stay neighbours in the output: one run, a copy.
  SimplifyTranspose({2, 1, 3}, {0, 2, 1}, merged, merged_perm);
  EXPECT_EQ(merged, (Shape{6}));
  EXPECT_EQ(merged_perm, (std::vector<int>{0}));
  // Rank 17, nine dims of 2 between size-1 dims, the last two swapped:
  // three runs (within the limit of 8), not nine.
  Shape dims;
  for (int i = 0; i < 9; ++i) {
    if (i > 0) dims.push_back(1);
    dims.push_back(2);
  }
  std::vector<int> perm(dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[14], perm[16]);
  SimplifyTranspose(dims, perm, merged, merged_perm);
  EXPECT_EQ(merged, (Shape{128, 2, 2}));
  EXPECT_EQ(merged_perm, (std::vector<int>{0, 2, 1}));
}

TEST(CudaKernelsTest, TransposeKeepingTheOrderIsAView) {
  FakeDevice device;
  const Tensor dev = FakeDeviceTensor(DataType::kHalf, {1, 4, 1, 3});
  AttrMap attrs = TypeAttr(DataType::kHalf);
  attrs.Set("Tperm", DataType::kInt64);
  absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(
      &device, "Transpose", attrs, {dev, MakeTensor<int64_t>({4}, {1, 2, 0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].raw_data(), dev.raw_data());
  EXPECT_EQ((*out)[0].shape(), (Shape{4, 1, 1, 3}));
  EXPECT_TRUE((*out)[0].on_device());
}

// Any and All take bool (no type attr) with the axes on the host, and
// check them as the float reductions do.
TEST(CudaKernelsTest, AnyAndAllAreRegisteredAndCheckTheirAxes) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"Any", "All"}) {
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, AttrMap());
    ASSERT_TRUE(k.ok()) << op << ": " << k.status();
    EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{1});
    FakeDevice device;
    AttrMap attrs;
    attrs.Set("Tidx", DataType::kInt32);
    ExpectError(op, attrs,
                {FakeDeviceTensor(DataType::kBool, {2, 3}), MakeTensor<int32_t>({1}, {2})},
                absl::StatusCode::kInvalidArgument, "Invalid reduction dimension 2", &device);
    ExpectError(op, attrs,
                {FakeDeviceTensor(DataType::kFloat, {2, 3}), MakeTensor<int32_t>({1}, {1})},
                absl::StatusCode::kInvalidArgument, "expected DT_BOOL", &device);
  }
}

TEST(CudaKernelsTest, NewKernelsCheckBeforeAnyDeviceWork) {
  FakeDevice device;
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  auto dev = [](Shape s) { return FakeDeviceTensor(DataType::kFloat, std::move(s)); };

  AttrMap mm = f32;
  mm.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  ExpectError("_SmrtFusedMatMul", mm, {dev({2, 3}), dev({3, 4}), dev({3})},
              absl::StatusCode::kInvalidArgument, "bias must be a vector of 4 values", &device);
  ExpectError("_SmrtFusedMatMul", mm, {dev({2, 3}), dev({3, 4})},
              absl::StatusCode::kInvalidArgument, "extra inputs", &device);
  mm.Set("fused_ops", std::vector<std::string>{"Add"});
  ExpectError("_SmrtFusedMatMul", mm, {dev({2, 3}), dev({3, 4}), dev({4})},
              absl::StatusCode::kInvalidArgument, "output's shape", &device);
  // A float16 product takes float16 post-op args only.
  AttrMap mm16 = TypeAttr(DataType::kHalf);
  mm16.Set("fused_ops", std::vector<std::string>{"BiasAdd"});
  auto dev16 = [](Shape s) { return FakeDeviceTensor(DataType::kHalf, std::move(s)); };
  ExpectError("_SmrtFusedMatMul", mm16, {dev16({2, 3}), dev16({3, 4}), dev({4})},
              absl::StatusCode::kInvalidArgument, "must be DT_HALF as input 0, got DT_FLOAT",
              &device);

  AttrMap ln = f32;
  ln.Set("epsilon", 1e-3f);
  ExpectError("_SmrtLayerNorm", ln, {dev({2, 8}), dev({7}), dev({8})},
              absl::StatusCode::kInvalidArgument, "gamma must hold 1 or 8 values", &device);

  AttrMap tr = f32;
  tr.Set("Tperm", DataType::kInt32);
  ExpectError("Transpose", tr, {dev({2, 3}), MakeTensor<int32_t>({2}, {0, 0})},
              absl::StatusCode::kInvalidArgument, "not a permutation", &device);
  ExpectError("Transpose", tr, {dev({2, 3}), MakeTensor<int32_t>({3}, {0, 1, 2})},
              absl::StatusCode::kInvalidArgument, "has 3 entries", &device);

  AttrMap pool = f32;
  pool.Set("ksize", std::vector<int64_t>{1, 2, 2, 1});
  pool.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  pool.Set("padding", std::string("VALID"));
  ExpectError("AvgPool", pool, {dev({1, 4, 4})}, absl::StatusCode::kInvalidArgument,
              "4-dimensional", &device);
  pool.Set("ksize", std::vector<int64_t>{2, 2, 2, 1});
  ExpectError("MaxPool", pool, {dev({1, 4, 4, 1})}, absl::StatusCode::kUnimplemented,
              "batch dimension", &device);

  AttrMap sum = f32;
  sum.Set("Tidx", DataType::kInt32);
  ExpectError("Mean", sum, {dev({2, 3, 4}), MakeTensor<int32_t>({2}, {1, -2})},
              absl::StatusCode::kInvalidArgument, "duplicate dimension: 1", &device);
  ExpectError("Max", sum, {dev({2, 3, 4}), MakeTensor<int32_t>({1}, {3})},
              absl::StatusCode::kInvalidArgument, "Invalid reduction dimension 3", &device);

  AttrMap arg = f32;
  arg.Set("Tidx", DataType::kInt32);
  arg.Set("output_type", DataType::kInt64);
  ExpectError("ArgMax", arg, {dev({2, 3}), MakeTensor<int32_t>({}, {2})},
              absl::StatusCode::kInvalidArgument, "Expected dimension in the range [-2, 2)",
              &device);
  ExpectError("ArgMin", arg, {dev({2, 0}), MakeTensor<int32_t>({}, {1})},
              absl::StatusCode::kInvalidArgument, "Reduction axis 1 is empty", &device);
  ExpectError("ArgMax", arg, {dev({2, 3}), MakeTensor<int32_t>({1}, {1})},
              absl::StatusCode::kInvalidArgument, "dimension must be a scalar", &device);
  ExpectError("ArgMax", arg, {dev({2, 3}), FakeDeviceTensor(DataType::kInt32, {})},
              absl::StatusCode::kFailedPrecondition, "host memory", &device);
  // int16 indices stay on the CPU.
  arg.Set("output_type", DataType::kInt16);
  EXPECT_FALSE(KernelRegistry::Default().FindKernel("ArgMax", kCudaDevice, arg).ok());

  if (!Cudnn().ok()) return;  // convolutions are served only with cuDNN
  AttrMap conv = f32;
  conv.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  conv.Set("padding", std::string("SAME"));
  ExpectError("Conv2D", conv, {dev({1, 5, 5, 3}), dev({3, 3, 2, 4})},
              absl::StatusCode::kInvalidArgument, "evenly divisible by filter depth", &device);
  ExpectError("DepthwiseConv2dNative", conv, {dev({1, 5, 5, 3}), dev({3, 3, 4, 1})},
              absl::StatusCode::kInvalidArgument, "same depth", &device);
  ExpectError("Conv2D", conv, {dev({5, 5, 3}), dev({3, 3, 3, 4})},
              absl::StatusCode::kInvalidArgument, "4-dimensional", &device);
  AttrMap explicit_pad = conv;
  explicit_pad.Set("padding", std::string("EXPLICIT"));
  explicit_pad.Set("explicit_paddings", std::vector<int64_t>{0, 0, 1, 1});
  ExpectError("Conv2D", explicit_pad, {dev({1, 5, 5, 3}), dev({3, 3, 3, 4})},
              absl::StatusCode::kInvalidArgument, "8 values", &device);
  AttrMap fused = conv;
  fused.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  ExpectError("_SmrtFusedConv2D", fused, {dev({1, 5, 5, 3}), dev({3, 3, 3, 4}), dev({3})},
              absl::StatusCode::kInvalidArgument, "bias must be a vector of 4 values", &device);
}

}  // namespace
}  // namespace smrt::kernels::cuda
