// TensorLists, the DT_VARIANT values TF2 RNN loops carry (TensorListReserve,
// SetItem in the body, Stack after the loop), for the CPU and for any
// device. A list is an object in host memory, immutable once it is in a
// tensor (updates build a new list sharing the unchanged elements); its
// elements are where the kernels that made them run: host memory on the
// CPU, device memory on a device, except elements of the dtypes a device
// keeps on the host (kernels::HostMemoryDtype: int32), which stay there.
#ifndef SMRT_KERNELS_TENSOR_LIST_H_
#define SMRT_KERNELS_TENSOR_LIST_H_

#include <string>
#include <vector>

#include "kernels/device_bytes.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// The ops: TensorListReserve, EmptyTensorList, TensorListFromTensor,
// TensorListGetItem, TensorListSetItem, TensorListPushBack, TensorListStack,
// TensorListLength, TensorListElementShape, TensorListResize.
const std::vector<std::string>& TensorListOps();

// The kernel of one of TensorListOps() with elements in host memory (`bytes`
// null: the CPU's) or in the device memory `bytes` moves.
ComputeFn TensorListCompute(const std::string& op, const DeviceBytes* bytes);

// Every TensorList op on `device`, whose memory `bytes` moves: elements of
// fixed-size dtypes, the lists, indices and shapes in host memory
// (KernelSpec::host_memory_by_dtype); and Identity of a list, which loops
// pass through.
std::vector<KernelSpec> DeviceTensorListKernels(const std::string& device, DeviceBytes bytes);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_TENSOR_LIST_H_
