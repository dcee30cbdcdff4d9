// What the graph and its passes may ask of the kernels compiled into a build,
// without depending on them: whether a node has a kernel on a device, where
// that kernel keeps its inputs and outputs, and the CPU kernel's answer for
// constant inputs (constant folding, shape values). The kernel registry
// (kernels/registry.h) implements it; the executor and the API hand it down.
#ifndef SMRT_OPS_KERNEL_CATALOG_H_
#define SMRT_OPS_KERNEL_CATALOG_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// The placement-relevant facts about one kernel.
struct KernelInfo {
  std::string op;
  std::string device = kCpu;
  std::string backend;
  // As TensorFlow's HostMemory: the inputs / outputs a kernel on a device
  // reads / makes in host memory (shapes, axes, lengths).
  std::vector<int> host_memory_inputs;
  std::vector<int> host_memory_outputs;
  // Its int32, variant, resource and string values are in host memory
  // (device kernels of While, If and the TensorList ops).
  bool host_memory_by_dtype = false;
  // It reads its inputs' dtypes and shapes, never their elements.
  bool reads_only_shapes = false;
};

// The dtypes a host_memory_by_dtype kernel keeps in host memory.
inline bool HostMemoryDtype(DataType t) {
  return t == DataType::kInt32 || t == DataType::kVariant || t == DataType::kResource ||
         t == DataType::kString;
}

// Whether the kernel `k` (a KernelInfo, or a kernels::KernelSpec, which has
// the same fields) reads its input `index` (or makes its output `index`, when
// !input), of dtype `dtype`, in host memory: always on the CPU; on a device,
// per host_memory_inputs/outputs, host_memory_by_dtype and kToHostOp. The
// placement pass, the executor and the memory plan ask it.
template <class Kernel>
bool InHostMemory(const Kernel& k, bool input, int index, DataType dtype) {
  if (k.device == kCpu) return true;
  if (k.host_memory_by_dtype && HostMemoryDtype(dtype)) return true;
  const std::vector<int>& host = input ? k.host_memory_inputs : k.host_memory_outputs;
  if (!input && k.op == kToHostOp) return true;
  return std::find(host.begin(), host.end(), index) != host.end();
}

class KernelCatalog {
 public:
  virtual ~KernelCatalog() = default;

  // The op's definition, or null when smrt does not know the op.
  virtual const OpSpec* FindOp(absl::string_view op) const = 0;

  // The kernel that would run a node of `op` with these attrs on `device`;
  // Unimplemented saying what is missing (the op, the device, the dtype)
  // when there is none.
  virtual absl::StatusOr<KernelInfo> FindKernelInfo(absl::string_view op,
                                                    absl::string_view device,
                                                    const AttrMap& attrs) const = 0;

  // Runs the CPU kernel of such a node on host values and returns its
  // outputs (an output the kernel did not set is an invalid Tensor); the
  // kernel's error, or Unimplemented when there is no CPU kernel.
  virtual absl::StatusOr<std::vector<Tensor>> RunOnCpu(absl::string_view node_name,
                                                       absl::string_view op,
                                                       const AttrMap& attrs,
                                                       std::vector<Tensor> inputs,
                                                       int num_outputs) const = 0;
};

}  // namespace smrt::ops

#endif  // SMRT_OPS_KERNEL_CATALOG_H_
