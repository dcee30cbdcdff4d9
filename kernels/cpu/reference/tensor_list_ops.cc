// The TensorList ops' CPU kernels (kernels/tensor_list.h, shared with the
// devices' kernels); src/ops/defs/tensor_list_ops.cc defines the ops.
#include <string>

#include "kernels/registry.h"
#include "kernels/tensor_list.h"

namespace smrt::kernels {

void RegisterTensorListOps(KernelRegistry& r) {
  for (const std::string& op : TensorListOps()) {
    r.AddKernel({op, kCpu, "", {}, TensorListCompute(op, nullptr)});
  }
}

}  // namespace smrt::kernels
