// The ops that call functions (While, If, Case and their Stateless forms) on
// a device other than the CPU. The loop or the branch runs on the host, as
// on the CPU (the CPU kernel runs it); the values it carries stay where the
// device keeps them: in device memory, except int32, variants (TensorLists),
// resources and strings (KernelSpec::host_memory_by_dtype), and If's and
// Case's predicate or index, read on the host. The executor compiles the
// functions for the device with their args and results where the node has
// them, and a While's condition hands its predicate to the host
// (exec::ProgramSpec::place_body).
#ifndef SMRT_KERNELS_FUNCTION_CALL_KERNELS_H_
#define SMRT_KERNELS_FUNCTION_CALL_KERNELS_H_

#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace smrt::kernels {

// `cpu_kernels` holds the CPU kernels these run (the registry they are added
// to); it must outlive the kernels.
std::vector<KernelSpec> DeviceFunctionCallKernels(const std::string& device,
                                                  const KernelRegistry& cpu_kernels);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_FUNCTION_CALL_KERNELS_H_
