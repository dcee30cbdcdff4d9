// The libcudart entry points smrt's device-agnostic code calls (device
// discovery, the CUDA arena's backing, the stream-ordered pool allocator),
// loaded with dlopen so that no CUDA header or library is needed to build or
// run the CPU path. Handles (streams, memory pools) are opaque pointers;
// error codes are cudaError_t values (0 = cudaSuccess).
#ifndef SMRT_DEVICE_CUDA_RUNTIME_H_
#define SMRT_DEVICE_CUDA_RUNTIME_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace smrt::device {

// Values from CUDA's driver_types.h that callers pass through this table.
inline constexpr int kCudaSuccess = 0;
inline constexpr int kCudaDevAttrMultiProcessorCount = 16;
inline constexpr int kCudaDevAttrComputeCapabilityMajor = 75;
inline constexpr int kCudaDevAttrComputeCapabilityMinor = 76;
inline constexpr int kCudaDevAttrMemoryPoolsSupported = 115;
inline constexpr int kCudaMemPoolAttrReleaseThreshold = 0x4;
inline constexpr int kCudaMemPoolAttrReservedMemCurrent = 0x5;
inline constexpr int kCudaMemPoolAttrUsedMemCurrent = 0x7;
inline constexpr int kCudaErrorMemoryAllocation = 2;
inline constexpr int kCudaMemcpyHostToDevice = 1;
inline constexpr int kCudaMemcpyDeviceToHost = 2;
inline constexpr int kCuErrorNotInitialized = 3;  // CUresult: cuInit not called yet

struct CudaRuntimeApi {
  using Error = int;
  Error (*GetDeviceCount)(int* count) = nullptr;
  // Fills a cudaDeviceProp; smrt reads only its first field, char name[256].
  Error (*GetDeviceProperties)(void* prop, int device) = nullptr;
  Error (*DeviceGetAttribute)(int* value, int attr, int device) = nullptr;
  Error (*SetDevice)(int device) = nullptr;
  Error (*MemGetInfo)(size_t* free_bytes, size_t* total_bytes) = nullptr;
  Error (*Malloc)(void** ptr, size_t bytes) = nullptr;
  Error (*Free)(void* ptr) = nullptr;
  Error (*Memcpy)(void* dst, const void* src, size_t bytes, int kind) = nullptr;
  Error (*StreamCreate)(void** stream) = nullptr;
  Error (*StreamDestroy)(void* stream) = nullptr;
  Error (*StreamSynchronize)(void* stream) = nullptr;
  Error (*DeviceGetDefaultMemPool)(void** pool, int device) = nullptr;
  Error (*MemPoolSetAttribute)(void* pool, int attr, void* value) = nullptr;
  Error (*MemPoolGetAttribute)(void* pool, int attr, void* value) = nullptr;
  Error (*MemPoolTrimTo)(void* pool, size_t min_bytes_to_keep) = nullptr;
  Error (*MallocFromPoolAsync)(void** ptr, size_t bytes, void* pool, void* stream) = nullptr;
  Error (*FreeAsync)(void* ptr, void* stream) = nullptr;
  Error (*DriverGetVersion)(int* version) = nullptr;
  Error (*RuntimeGetVersion)(int* version) = nullptr;
  const char* (*GetErrorName)(Error error) = nullptr;
  const char* (*GetErrorString)(Error error) = nullptr;
  // From the driver (libcuda.so.1), which this runtime and the one the
  // kernels link both act through: the calling thread's current context (a
  // CUcontext, null when the thread has none; cudaSetDevice makes the
  // device's primary context current) and setting it. CUresult codes. Null
  // when the driver cannot be opened.
  int (*CtxGetCurrent)(void** context) = nullptr;
  int (*CtxSetCurrent)(void* context) = nullptr;

  std::string path;  // the libcudart that was loaded

  // "cudaErrorNoDevice (100): no CUDA-capable device is detected".
  std::string ErrorText(Error error) const;
};

// Keeps the calling thread's current CUDA context across a scope: saved when
// made, set back when destroyed if a call in between changed it. A thread
// that had none is left with none (setting device 0 back would create a
// context there), so an application's own CUDA work on a thread that loaded
// or ran a model on CUDA:1 stays on the device it chose (a thread left with
// no context still has libcudart's own per-thread device, which cudaSetDevice
// set: only the driver's context is restored). Does nothing for a null `api`
// or one without the driver's context calls.
class CallerContextGuard {
 public:
  explicit CallerContextGuard(const CudaRuntimeApi* api);
  ~CallerContextGuard();
  CallerContextGuard(const CallerContextGuard&) = delete;
  CallerContextGuard& operator=(const CallerContextGuard&) = delete;

 private:
  const CudaRuntimeApi* api_ = nullptr;  // null: nothing to restore
  void* saved_ = nullptr;
};

// Loads libcudart once per process (libcudart.so.13, .so.12, .so; then under
// core/cuda_library_dirs.h's directories) and resolves every entry point
// above. NotFound naming the files tried when it is absent; Internal naming
// the symbol when one is missing. Thread-safe; the table lives forever.
absl::StatusOr<const CudaRuntimeApi*> LoadCudaRuntime();

}  // namespace smrt::device

#endif  // SMRT_DEVICE_CUDA_RUNTIME_H_
