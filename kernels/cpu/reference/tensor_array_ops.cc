// The TensorArray ops' CPU kernels (kernels/tensor_array.h, shared with
// the devices' kernels); src/ops/defs/tensor_array_ops.cc defines the ops.
#include <string>

#include "kernels/registry.h"
#include "kernels/tensor_array.h"

namespace smrt::kernels {

void RegisterTensorArrayOps(KernelRegistry& r) {
  for (const std::string& op : TensorArrayOps()) {
    r.AddKernel({op, kCpu, "", {}, TensorArrayCompute(op, nullptr)});
  }
}

}  // namespace smrt::kernels
