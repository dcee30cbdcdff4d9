// Test-only devices for the CUDA kernel tests: a real one (cudaMalloc'd
// tensors, one stream) for the GPU tests, a fake one for checks that fail
// before any CUDA call and so run on machines without a GPU. The namespace is
// inline and testing/kernel_test.h is included: the tests in
// smrt::kernels::cuda use these helpers and the op runner's by their short
// names.
#ifndef SMRT_TESTS_CUDA_CUDA_TEST_UTIL_H_
#define SMRT_TESTS_CUDA_CUDA_TEST_UTIL_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/cuda/register.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
inline namespace testing {

// "" when a GPU is usable, else why not.
inline std::string NoGpuReason() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    return absl::StrCat("no CUDA device: cudaGetDeviceCount failed: ", cudaGetErrorName(err), ": ",
                        cudaGetErrorString(err));
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount reports 0";
  return "";
}

#define SMRT_SKIP_WITHOUT_GPU()                                            \
  do {                                                                     \
    const std::string why = ::smrt::kernels::cuda::testing::NoGpuReason(); \
    if (!why.empty()) GTEST_SKIP() << why;                                 \
  } while (0)

// cudaMalloc per tensor (freed by cudaFree when the last Tensor goes, which
// waits for the device), one stream of its own. Counts allocations so tests
// can see that shape ops allocate nothing.
class TestDevice : public DeviceContext {
 public:
  static absl::StatusOr<std::unique_ptr<TestDevice>> Create() {
    cudaStream_t s = nullptr;
    cudaError_t err = cudaStreamCreate(&s);
    if (err != cudaSuccess) {
      return absl::InternalError(absl::StrCat("cudaStreamCreate: ", cudaGetErrorString(err)));
    }
    return std::unique_ptr<TestDevice>(new TestDevice(s));
  }
  ~TestDevice() override {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  absl::string_view device_type() const override { return kCudaDevice; }
  absl::StatusOr<Tensor> Allocate(DataType dtype, const Shape& shape,
                                  absl::string_view name) override {
    ++allocations_;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t bytes = static_cast<size_t>(n) * DataTypeSize(dtype);
    if (bytes == 0) return Tensor::DeviceStorage(dtype, shape, nullptr);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
      return absl::ResourceExhaustedError(absl::StrCat("cudaMalloc of ", bytes, " bytes for ", name,
                                                       ": ", cudaGetErrorString(err)));
    }
    return Tensor::DeviceStorage(dtype, shape,
                                 std::shared_ptr<void>(p, [](void* q) { cudaFree(q); }));
  }
  void* stream() const override { return stream_; }
  TuningCache* tuning_cache() const override { return tuning_cache_; }
  void set_tuning_cache(TuningCache* cache) { tuning_cache_ = cache; }
  int allocations() const { return allocations_; }

 private:
  explicit TestDevice(cudaStream_t s) : stream_(s) {}
  cudaStream_t stream_;
  TuningCache* tuning_cache_ = nullptr;
  int allocations_ = 0;
};

// A TuningCache in memory that counts its stores.
class MapTuningCache : public TuningCache {
 public:
  std::optional<std::string> Lookup(absl::string_view key) const override {
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }
  void Store(absl::string_view key, absl::string_view value) override {
    ++stores_;
    values_[std::string(key)] = std::string(value);
  }
  const std::map<std::string, std::string>& values() const { return values_; }
  int stores() const { return stores_; }

 private:
  std::map<std::string, std::string> values_;
  int stores_ = 0;
};

// A device that allocates nothing and has no stream: for kernels that must
// fail (or, for shape ops, finish) before touching device memory.
class FakeDevice : public DeviceContext {
 public:
  absl::string_view device_type() const override { return kCudaDevice; }
  absl::StatusOr<Tensor> Allocate(DataType, const Shape&, absl::string_view name) override {
    return absl::FailedPreconditionError(absl::StrCat("fake device: no memory for ", name));
  }
  void* stream() const override { return nullptr; }
};

// A tensor marked as device memory whose bytes are really on the host and
// are never read: only for kernels that look at shapes alone.
inline Tensor FakeDeviceTensor(DataType dtype, const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::shared_ptr<void> bytes(new char[std::max<size_t>(1, n * DataTypeSize(dtype))],
                              [](void* p) { delete[] static_cast<char*>(p); });
  absl::StatusOr<Tensor> t = Tensor::DeviceStorage(dtype, shape, std::move(bytes));
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// Runs the registry's CUDA kernel for `op` on `device`, as the executor would:
// with `state` as the node's KernelState, or a fresh one from make_state.
inline absl::StatusOr<std::vector<Tensor>> RunCudaKernel(DeviceContext* device,
                                                         const std::string& op,
                                                         const AttrMap& attrs,
                                                         std::vector<Tensor> inputs,
                                                         int num_outputs = 1,
                                                         KernelState* state = nullptr) {
  absl::StatusOr<const KernelSpec*> k =
      KernelRegistry::Default().FindKernel(op, kCudaDevice, attrs);
  if (!k.ok()) return k.status();
  KernelContext ctx("gpu_node", op, attrs, std::move(inputs), num_outputs);
  ctx.set_device(device);
  std::unique_ptr<KernelState> fresh;
  if (state == nullptr && (*k)->make_state) {
    fresh = (*k)->make_state();
    state = fresh.get();
  }
  ctx.set_kernel_state(state);
  if (absl::Status s = (*k)->compute(ctx); !s.ok()) return s;
  return ctx.outputs();
}

// Runs the CUDA kernel for `op` on a fresh FakeDevice and expects it to fail
// before any device work: with `code`, a message holding `text` and the
// node's name.
inline void ExpectFakeDeviceError(const std::string& op, const AttrMap& attrs,
                                  std::vector<Tensor> inputs, absl::StatusCode code,
                                  const std::string& text, int num_outputs = 1) {
  FakeDevice device;
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(&device, op, attrs, std::move(inputs), num_outputs);
  ASSERT_FALSE(out.ok()) << op << " succeeded";
  EXPECT_EQ(out.status().code(), code) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), text)) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "gpu_node")) << out.status();
}

inline AttrMap TypeAttr(DataType t, const char* name = "T") {
  AttrMap a;
  a.Set(name, t);
  return a;
}

// A float32 host tensor converted to `t` by the CPU's Cast (float16 and
// bfloat16 rounded to nearest even, as Keras mixed precision rounds).
inline Tensor CastTo(const Tensor& x, DataType t) {
  AttrMap attrs = TypeAttr(DataType::kFloat, "SrcT");
  attrs.Set("DstT", t);
  absl::StatusOr<std::vector<Tensor>> out = kernels::testing::RunOp("Cast", attrs, {x});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// Host -> device through _SmrtToDevice.
inline absl::StatusOr<Tensor> Upload(DeviceContext* device, const Tensor& host) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(device, kToDeviceOp, TypeAttr(host.dtype()), {host});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Device -> host through _SmrtToHost (which waits for the stream).
inline absl::StatusOr<Tensor> Download(DeviceContext* device, const Tensor& on_device) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(device, kToHostOp, TypeAttr(on_device.dtype()), {on_device});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Uploads the inputs (except `host_inputs`, passed as they are), runs `op`'s
// CUDA kernel and downloads output 0.
inline absl::StatusOr<Tensor> RunOnGpu(DeviceContext* device, const std::string& op,
                                       const AttrMap& attrs, const std::vector<Tensor>& inputs,
                                       const std::vector<int>& host_inputs = {},
                                       KernelState* state = nullptr) {
  std::vector<Tensor> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool host = false;
    for (int h : host_inputs) host |= h == static_cast<int>(i);
    if (host) {
      args.push_back(inputs[i]);
      continue;
    }
    absl::StatusOr<Tensor> d = Upload(device, inputs[i]);
    if (!d.ok()) return d.status();
    args.push_back(*d);
  }
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(device, op, attrs, std::move(args), 1, state);
  if (!out.ok()) return out.status();
  if (!(*out)[0].on_device()) {
    return absl::InternalError(absl::StrCat(op, " returned a host tensor"));
  }
  return Download(device, (*out)[0]);
}

// The GPU tests' fixture: skips without a GPU, holds a TestDevice, and runs
// an op on the GPU and on the CPU to compare output 0.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_WITHOUT_GPU();
    absl::StatusOr<std::unique_ptr<TestDevice>> d = TestDevice::Create();
    ASSERT_TRUE(d.ok()) << d.status();
    device_ = *std::move(d);
  }

  // Within `tol` (absolute and relative).
  void ExpectLikeCpu(const std::string& op, const AttrMap& attrs, const std::vector<Tensor>& inputs,
                     double tol, const std::vector<int>& host_inputs = {}) {
    absl::StatusOr<std::vector<Tensor>> cpu = kernels::testing::RunOp(op, attrs, inputs);
    ASSERT_TRUE(cpu.ok()) << op << " on the CPU: " << cpu.status();
    absl::StatusOr<Tensor> gpu = RunOnGpu(device_.get(), op, attrs, inputs, host_inputs);
    ASSERT_TRUE(gpu.ok()) << op << " on the GPU: " << gpu.status();
    EXPECT_TRUE(kernels::testing::TensorsNear(*gpu, (*cpu)[0], tol, tol)) << op;
  }

  // The same bytes (every dtype, exactly).
  void ExpectSameBytesAsCpu(const std::string& op, const AttrMap& attrs,
                            const std::vector<Tensor>& inputs,
                            const std::vector<int>& host_inputs = {}) {
    absl::StatusOr<std::vector<Tensor>> cpu = kernels::testing::RunOp(op, attrs, inputs);
    ASSERT_TRUE(cpu.ok()) << op << " on the CPU: " << cpu.status();
    absl::StatusOr<Tensor> gpu = RunOnGpu(device_.get(), op, attrs, inputs, host_inputs);
    ASSERT_TRUE(gpu.ok()) << op << " on the GPU: " << gpu.status();
    const Tensor& want = (*cpu)[0];
    ASSERT_EQ(gpu->dtype(), want.dtype());
    ASSERT_EQ(gpu->shape(), want.shape());
    ASSERT_EQ(gpu->byte_size(), want.byte_size());
    EXPECT_TRUE(want.byte_size() == 0 ||
                std::memcmp(gpu->raw_data(), want.raw_data(), want.byte_size()) == 0);
  }

  std::unique_ptr<TestDevice> device_;
};

}  // namespace testing
}  // namespace smrt::kernels::cuda

#endif  // SMRT_TESTS_CUDA_CUDA_TEST_UTIL_H_
