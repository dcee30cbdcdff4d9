// SmrtStatus, the C API's status (include/smrt/c_api.h), defined once for
// both of its makers: the C API (bindings/c) and the custom op API
// (include/smrt/custom_op.h, src/api/custom_ops.cc), whose statuses cross
// between a library, smrt and the application.
#ifndef SMRT_API_C_STATUS_H_
#define SMRT_API_C_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "smrt/c_api.h"

struct SmrtStatus {
  SmrtCode code;
  std::string message;
};

namespace smrt::api {

// A new SmrtStatus (null for OK); never throws: when even the status cannot
// be allocated, a static RESOURCE_EXHAUSTED one (which SmrtStatusDelete
// leaves alone).
SmrtStatus* ToCStatus(const absl::Status& status);

// Takes `status` (freeing it): OK for null.
absl::Status FromCStatus(SmrtStatus* status);

}  // namespace smrt::api

#endif  // SMRT_API_C_STATUS_H_
