// TensorArrays, the TF1 dynamic arrays tf.compat.v1 while loops and
// dynamic_rnn carry (TensorArrayV3, Scatter in, Read/Write in the loop,
// Gather out), for the CPU and for any device. The handle output holds the
// array itself (a variant tensor standing for TensorFlow's resource handle,
// in host memory); the float flow tensor only orders the ops, as in
// TensorFlow. An array lives as long as a run uses its handle; ops on it run
// in flow order, so it is updated in place. Its elements are where the
// kernels that made them run (kernels/device_bytes.h).
#ifndef SMRT_KERNELS_TENSOR_ARRAY_H_
#define SMRT_KERNELS_TENSOR_ARRAY_H_

#include <string>
#include <vector>

#include "kernels/device_bytes.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// TensorArrayV3 and its Write, Read, Gather, Scatter, Concat, Split, Size
// and Close (the V3 forms).
const std::vector<std::string>& TensorArrayOps();

// The kernel of one of TensorArrayOps() with elements in host memory
// (`bytes` null: the CPU's), or in the device memory `bytes` moves; null for
// the ops only the CPU runs (Concat, Split).
ComputeFn TensorArrayCompute(const std::string& op, const DeviceBytes* bytes);

// TensorArrayV3, Write, Read, Gather, Scatter, Size and Close on `device`,
// whose memory `bytes` moves: elements of fixed-size dtypes; the handle,
// indices and sizes in host memory (KernelSpec::host_memory_by_dtype), the
// flow in device memory.
std::vector<KernelSpec> DeviceTensorArrayKernels(const std::string& device, DeviceBytes bytes);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_TENSOR_ARRAY_H_
