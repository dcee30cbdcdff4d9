// Element storage for the kernels that keep tensors inside host objects
// (TensorLists, TensorArrays) on the CPU and on any device: where their
// elements live, how new ones are made, and how their bytes are copied.
#ifndef SMRT_KERNELS_DEVICE_BYTES_H_
#define SMRT_KERNELS_DEVICE_BYTES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// How a device's kernels move element bytes in its memory, queued on
// `stream` (the run's, DeviceContext::stream()).
struct DeviceBytes {
  absl::Status (*copy)(void* dst, const void* src, size_t bytes, void* stream) = nullptr;
  absl::Status (*zero)(void* dst, size_t bytes, void* stream) = nullptr;
  // Optional: dsts[i] <- srcs[i] (sizes[i] bytes) for i < count, in one call
  // (copies that do not overlap); null: one `copy` each.
  absl::Status (*copy_batch)(void* const* dsts, const void* const* srcs, const size_t* sizes,
                             size_t count, void* stream) = nullptr;
};

// One copy: `bytes` bytes from src to dst.
struct ByteCopy {
  void* dst;
  const void* src;
  size_t bytes;
};

// Where a kernel keeps elements of `dtype`: the device memory `bytes` moves,
// or host memory (null) for the CPU's kernels (`bytes` null) and for the
// dtypes a device keeps on the host (HostMemoryDtype).
const DeviceBytes* ElementMover(const DeviceBytes* bytes, DataType dtype);

// Internal when `item` (valid) is not where `mover` keeps elements: the
// object was made on another device.
absl::Status CheckWhere(const Tensor& item, const DeviceBytes* mover, absl::string_view what);

// A new element where `mover` keeps them: zeros when `zero`, else contents
// unspecified.
absl::StatusOr<Tensor> NewElement(KernelContext& ctx, const DeviceBytes* mover, DataType dtype,
                                  const Shape& shape, bool zero);

// Copies `n` bytes between elements where `mover` keeps them.
absl::Status CopyBytes(KernelContext& ctx, const DeviceBytes* mover, void* dst, const void* src,
                       size_t n);

// Every copy of `copies` (none overlapping) where `mover` keeps elements. A
// copy that continues the one before it in both source and destination
// joins it (the rows of one SplitRows stacked again are one copy); on a
// device, the rest go as one batch when the device has copy_batch. Stacking
// a list of a loop's n outputs is then one call, not n.
absl::Status CopyAll(KernelContext& ctx, const DeviceBytes* mover,
                     const std::vector<ByteCopy>& copies);

// The rows t[0], t[1], ... of `t` (rank >= 1, a fixed-size dtype) as new
// elements where `mover` keeps them. In device memory, one transfer copies
// all of `t`, and the rows are views into that copy, which the last of them
// frees (so a row is its buffer's sole owner only when it is the last);
// in host memory, each row is a copy of its own.
absl::StatusOr<std::vector<Tensor>> SplitRows(KernelContext& ctx, const DeviceBytes* mover,
                                              const Tensor& t);

// `f` with `bytes` (copied; null for host memory).
ComputeFn WithBytes(absl::Status (*f)(KernelContext&, const DeviceBytes*),
                    const DeviceBytes* bytes);

// The kernel of `op` on `device` running `compute`: its int32, variant,
// resource and string values in host memory (host_memory_by_dtype); it
// serves nodes whose element dtype (the first of `dtype_attrs` they have) is
// of a fixed size: strings stay on the CPU.
KernelSpec ElementKernel(const std::string& op, const std::string& device, ComputeFn compute,
                         const std::string& backend, std::vector<std::string> dtype_attrs);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_DEVICE_BYTES_H_
