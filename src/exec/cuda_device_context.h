// The DeviceContext of a CUDA GPU: the model's stream (what loading queues:
// constants uploaded, filters transformed), a pool of streams for runs, and
// one arena from src/memory (the BFC arena over cudaMalloc, or
// cuda_malloc_async, ordered on the stream of the run that asks) that device
// tensors are carved from. Everything goes through the dlopen'd libcudart, so this builds and
// links without CUDA.
//
// Any GPU of the machine can hold a model (LoadOptions::device "CUDA:1"):
// the executor makes the model's device current on each thread before it
// runs a step there (MakeCurrent), and so does every call here that makes
// or waits for streams, so a thread that has run models on other GPUs, or
// an application that set its own device, never sends work to the wrong
// one. This reaches the kernels too, though they launch through the static
// libcudart they are linked with and not the dlopen'd one used here: every
// runtime call acts on the driver context current to the calling thread,
// which cudaSetDevice sets to the device's primary context, shared by both.
// The other way round, the application's thread gets its own context back
// after a load, a run or a model's end (device::CallerContextGuard).
//
// Each Run takes a stream of the pool for its kernels and copies (ForRun,
// exec/run_device.h), so concurrent runs overlap on the GPU. The arena's
// reuse stays safe without events: within a run, a buffer freed by one step
// and reused by a later one is only touched by work queued after the work
// that read it; between runs, nothing a run frees goes back to the arena
// before the run has waited for its stream.
#ifndef SMRT_EXEC_CUDA_DEVICE_CONTEXT_H_
#define SMRT_EXEC_CUDA_DEVICE_CONTEXT_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "device/cuda_runtime.h"
#include "device/device_registry.h"
#include "kernels/cuda_build.h"
#include "kernels/kernel.h"
#include "memory/allocator.h"
#include "memory/allocator_options.h"

namespace smrt::exec {

class CudaDeviceContext final : public kernels::DeviceContext {
 public:
  // For GPU `device` (CUDA:device) with an arena made per `options`.
  // FailedPrecondition saying why when there is no such usable GPU (no
  // libcudart, no driver, fewer devices); the allocator's errors otherwise.
  static absl::StatusOr<std::unique_ptr<CudaDeviceContext>> Create(
      int device, const memory::GpuAllocatorOptions& options);
  // OK when this build's CUDA kernels can run on GPU `device` as
  // `discovery` found it (its driver's CUDA version, its compute
  // capability: kernels/cuda_build.h); else FailedPrecondition saying why
  // and what to do, instead of an error at the first kernel. OK when
  // `discovery` does not know the GPU.
  static absl::Status CheckKernelsRun(const kernels::CudaBuild& build,
                                      const device::DeviceDiscovery& discovery, int device);
  // The same over `api` (a fake runtime in tests), which must outlive the
  // context.
  static absl::StatusOr<std::unique_ptr<CudaDeviceContext>> Create(
      const device::CudaRuntimeApi& api, int device, const memory::GpuAllocatorOptions& options);
  // Waits for the stream's work, then frees the stream. Device tensors may
  // outlive the context: the arena stays until the last one is freed. The
  // calling thread's current context is as before (CallerContextGuard).
  ~CudaDeviceContext() override;

  absl::string_view device_type() const override { return "CUDA"; }
  absl::StatusOr<Tensor> Allocate(DataType dtype, const Shape& shape,
                                  absl::string_view name) override;
  // As Allocate, ordered on `stream` when the arena is stream-ordered
  // (cuda_malloc_async): by the pool's contract, memory allocated on the
  // model's stream is usable on another only once that stream got there.
  // Freed on the model's stream (what a run gives back it has waited for).
  absl::StatusOr<Tensor> AllocateOn(void* stream, DataType dtype, const Shape& shape,
                                    absl::string_view name);
  void* stream() const override { return stream_; }
  kernels::TuningCache* tuning_cache() const override { return tuning_cache_.get(); }
  // A RunDevice on a stream of the pool (made when none is idle), after the
  // model's stream has finished what loading queued. When no stream can be
  // had, a RunDevice on the model's stream (parking what the run frees all
  // the same); never null.
  std::unique_ptr<kernels::DeviceContext> ForRun() override;
  // cudaSetDevice(device()) on the calling thread; FailedPrecondition naming
  // the device when it fails.
  absl::Status MakeCurrent() const override;
  // Streams made for runs so far (idle or in use).
  int run_streams() const;
  void set_tuning_cache(std::unique_ptr<kernels::TuningCache> cache) {
    tuning_cache_ = std::move(cache);
  }
  // What a measured choice on this device depends on besides the model: the
  // GPU, its driver and the CUDA libraries' versions ("NVIDIA H200 cc9.0;
  // driver=13.0;cudart=13.0;cudnn=9.14.0;cublas=13.1.0").
  std::string TuningScope() const;

  const memory::Allocator& allocator() const { return *allocator_; }
  memory::Allocator& allocator() { return *allocator_; }
  int device() const { return device_; }
  const device::CudaRuntimeApi& api() const { return api_; }

 private:
  CudaDeviceContext(const device::CudaRuntimeApi& api, int device, void* stream)
      : api_(api), device_(device), stream_(stream) {}

  const device::CudaRuntimeApi& api_;
  const int device_;
  void* stream_;
  mutable std::mutex streams_mu_;
  std::vector<void*> idle_streams_;  // guarded by streams_mu_
  int run_streams_ = 0;              // guarded by streams_mu_
  std::shared_ptr<memory::Allocator> allocator_;
  std::unique_ptr<kernels::TuningCache> tuning_cache_;
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_CUDA_DEVICE_CONTEXT_H_
