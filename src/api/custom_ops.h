// Custom ops (include/smrt/custom_op.h) as the layers below the API see
// them: each SmrtCustomOp becomes an ops::OpSpec (its checks and shape
// function as `infer`) and a CPU kernels::KernelSpec (backend "custom") in
// a registry of the loading model's own, layered over
// KernelRegistry::Default() (docs/custom_ops.md says why per model).
#ifndef SMRT_API_CUSTOM_OPS_H_
#define SMRT_API_CUSTOM_OPS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/registry.h"
#include "smrt/custom_op.h"
#include "smrt/model.h"

namespace smrt::api {

// The backend name of custom kernels (KernelSpec::backend).
inline constexpr char kCustomBackend[] = "custom";

// The ops a load's custom_op_libraries and custom_op_functions register,
// over the built-in ones.
struct CustomOps {
  // Null when the options name no custom ops: use KernelRegistry::Default().
  std::shared_ptr<const kernels::KernelRegistry> registry;
  std::vector<std::string> ops;  // the custom ops' names, sorted
};

// Opens each library (dlopen RTLD_NOW | RTLD_LOCAL, once per path and
// process), calls its SmrtRegisterCustomOps, then each function. Errors name
// the library (or "custom op function #i"): the dlerror of a library that
// does not open, a missing entry point, or the status the entry point or
// RegisterOp returned (InvalidArgument, AlreadyExists naming the op).
absl::StatusOr<CustomOps> LoadCustomOps(const std::vector<std::string>& libraries,
                                        const std::vector<SmrtRegisterCustomOpsFn>& functions);

// LoadCustomOps for the options' custom_op_libraries and custom_op_functions.
absl::StatusOr<CustomOps> LoadCustomOps(const LoadOptions& options);

}  // namespace smrt::api

#endif  // SMRT_API_CUSTOM_OPS_H_
