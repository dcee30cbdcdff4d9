#include "api/c_status.h"

#include <new>
#include <string>
#include <utility>

namespace {

// Returned when not even a status can be allocated; never freed.
SmrtStatus kOutOfMemory{SMRT_RESOURCE_EXHAUSTED, "out of memory in the smrt C API"};

SmrtStatus* Make(SmrtCode code, const char* message, size_t length) noexcept {
  if (code == SMRT_OK) return nullptr;
  SmrtStatus* s = new (std::nothrow) SmrtStatus;
  if (s == nullptr) return &kOutOfMemory;
  s->code = code;
  try {
    s->message.assign(message, length);
  } catch (...) {
    delete s;
    return &kOutOfMemory;
  }
  return s;
}

}  // namespace

namespace smrt::api {

SmrtStatus* ToCStatus(const absl::Status& status) {
  if (status.ok()) return nullptr;
  return Make(static_cast<SmrtCode>(status.code()), status.message().data(),
              status.message().size());
}

absl::Status FromCStatus(SmrtStatus* status) {
  if (status == nullptr) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(status->code), status->message);
  SmrtStatusDelete(status);
  return out;
}

}  // namespace smrt::api

extern "C" {

SmrtStatus* SmrtStatusCreate(SmrtCode code, const char* message) {
  if (message == nullptr) message = "";
  return Make(code, message, std::char_traits<char>::length(message));
}

SmrtCode SmrtStatusCode(const SmrtStatus* status) {
  return status == nullptr ? SMRT_OK : status->code;
}

const char* SmrtStatusMessage(const SmrtStatus* status) {
  return status == nullptr ? "" : status->message.c_str();
}

void SmrtStatusDelete(SmrtStatus* status) {
  if (status != &kOutOfMemory) delete status;
}

}  // extern "C"
