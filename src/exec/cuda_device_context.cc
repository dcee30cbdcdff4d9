#include "exec/cuda_device_context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "device/device_registry.h"
#include "exec/run_device.h"
#include "memory/cuda_allocators.h"

namespace smrt::exec {

absl::StatusOr<std::unique_ptr<CudaDeviceContext>> CudaDeviceContext::Create(
    int device, const memory::GpuAllocatorOptions& options) {
  absl::StatusOr<const device::CudaRuntimeApi*> api = device::LoadCudaRuntime();
  if (!api.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA:", device, " is not usable: ", api.status().message()));
  }
  if (absl::Status s = CheckKernelsRun(kernels::ThisCudaBuild(),
                                       device::DeviceRegistry::Get().discovery(), device);
      !s.ok()) {
    return s;
  }
  return Create(**api, device, options);
}

absl::Status CudaDeviceContext::CheckKernelsRun(const kernels::CudaBuild& build,
                                                const device::DeviceDiscovery& discovery,
                                                int device) {
  for (const device::DeviceInfo& info : discovery.devices) {
    if (info.kind != device::DeviceKind::kCuda || info.index != device) continue;
    const std::string why = kernels::WhyCudaBuildCannotRun(build, discovery.cuda.driver_version,
                                                           info.cc_major, info.cc_minor);
    if (why.empty()) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("CUDA:", device, " (", info.description,
                                                      ") cannot run smrt's CUDA kernels: ", why,
                                                      " (`smrt devices` says more)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CudaDeviceContext>> CudaDeviceContext::Create(
    const device::CudaRuntimeApi& cuda, int device, const memory::GpuAllocatorOptions& options) {
  int count = 0;
  if (int err = cuda.GetDeviceCount(&count); err != device::kCudaSuccess) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CUDA:", device, " is not usable: cudaGetDeviceCount failed: ", cuda.ErrorText(err),
        " (libcudart at ", cuda.path, "; `smrt devices` says more)"));
  }
  if (device < 0 || device >= count) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CUDA:", device, " does not exist: this machine has ", count, " CUDA device(s)"));
  }
  if (int err = cuda.SetDevice(device); err != device::kCudaSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA:", device, ": cudaSetDevice failed: ", cuda.ErrorText(err)));
  }
  void* stream = nullptr;
  if (int err = cuda.StreamCreate(&stream); err != device::kCudaSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA:", device, ": cudaStreamCreate failed: ", cuda.ErrorText(err)));
  }
  std::unique_ptr<CudaDeviceContext> context(new CudaDeviceContext(cuda, device, stream));
  absl::StatusOr<std::unique_ptr<memory::Allocator>> allocator =
      memory::CreateCudaAllocator(cuda, device, options, stream);
  if (!allocator.ok()) return allocator.status();
  context->allocator_ = *std::move(allocator);
  return context;
}

CudaDeviceContext::~CudaDeviceContext() {
  device::CallerContextGuard keep_callers(&api_);
  (void)MakeCurrent();
  for (void* s : idle_streams_) (void)api_.StreamDestroy(s);  // runs have ended
  (void)api_.StreamSynchronize(stream_);
  // The async arena frees on this stream: it must go before the stream does
  // unless device tensors still hold it, which then free on a dead stream.
  // Models free their tensors first (the context is the Model's last member).
  allocator_.reset();
  (void)api_.StreamDestroy(stream_);
}

absl::StatusOr<Tensor> CudaDeviceContext::Allocate(DataType dtype, const Shape& shape,
                                                   absl::string_view name) {
  return AllocateOn(stream_, dtype, shape, name);
}

absl::StatusOr<Tensor> CudaDeviceContext::AllocateOn(void* stream, DataType dtype,
                                                     const Shape& shape, absl::string_view name) {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  if (!IsFixedSize(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "': a ", DataTypeName(dtype), " tensor cannot live in device memory"));
  }
  const size_t bytes = static_cast<size_t>(*n) * DataTypeSize(dtype);
  auto* ordered = dynamic_cast<memory::StreamOrderedAllocator*>(allocator_.get());
  absl::StatusOr<void*> ptr = ordered != nullptr && stream != stream_
                                  ? ordered->AllocateOnStream(bytes, name, stream)
                                  : allocator_->Allocate(bytes, name);
  if (!ptr.ok()) return ptr.status();
  std::shared_ptr<memory::Allocator> allocator = allocator_;
  std::shared_ptr<void> storage(*ptr, [allocator](void* p) { allocator->Deallocate(p); });
  return Tensor::DeviceStorage(dtype, shape, std::move(storage));
}

std::unique_ptr<kernels::DeviceContext> CudaDeviceContext::ForRun() {
  const device::CudaRuntimeApi* api = &api_;
  auto synchronize = [api](void* s) { (void)api->StreamSynchronize(s); };
  void* stream = nullptr;
  // A stream belongs to the device current when it is made. Constants
  // uploaded and filters transformed at load are on the model's stream; a
  // run's stream must not read them before they are there.
  if (MakeCurrent().ok() && api_.StreamSynchronize(stream_) == device::kCudaSuccess) {
    {
      std::lock_guard<std::mutex> lock(streams_mu_);
      if (!idle_streams_.empty()) {
        stream = idle_streams_.back();
        idle_streams_.pop_back();
      }
    }
    void* made = nullptr;
    if (stream == nullptr && api_.StreamCreate(&made) == device::kCudaSuccess) {
      stream = made;
      std::lock_guard<std::mutex> lock(streams_mu_);
      ++run_streams_;
    }
  }
  if (stream == nullptr) {
    // No stream of its own (the device fails, or has no more streams): the
    // run queues on the model's stream, shared with any other such run, and
    // still parks what it frees until it has waited for that stream, so a
    // run on a stream of its own is never handed a buffer this one's queued
    // work still reads.
    return std::make_unique<RunDevice>(*this, stream_, synchronize, [](void*) {});
  }
  return std::make_unique<RunDevice>(
      *this, stream, synchronize,
      [this](void* s) {
        std::lock_guard<std::mutex> lock(streams_mu_);
        idle_streams_.push_back(s);
      },
      [this, stream](DataType dtype, const Shape& shape, absl::string_view name) {
        return AllocateOn(stream, dtype, shape, name);
      });
}

absl::Status CudaDeviceContext::MakeCurrent() const {
  if (int err = api_.SetDevice(device_); err != device::kCudaSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA:", device_, ": cudaSetDevice failed: ", api_.ErrorText(err)));
  }
  return absl::OkStatus();
}

int CudaDeviceContext::run_streams() const {
  std::lock_guard<std::mutex> lock(streams_mu_);
  return run_streams_;
}

std::string CudaDeviceContext::TuningScope() const {
  const device::DeviceDiscovery& d = device::DeviceRegistry::Get().discovery();
  std::string gpu = absl::StrCat("CUDA:", device_);
  for (const device::DeviceInfo& info : d.devices) {
    if (info.kind == device::DeviceKind::kCuda && info.index == device_) {
      gpu = absl::StrCat(info.description, " cc", info.cc_major, ".", info.cc_minor);
    }
  }
  return absl::StrCat(gpu, ";driver=", device::CudaVersionString(d.cuda.driver_version),
                      ";cudart=", device::CudaVersionString(d.cuda.runtime_version),
                      ";cudnn=", d.cuda.cudnn.version, ";cublas=", d.cuda.cublas.version);
}

}  // namespace smrt::exec
