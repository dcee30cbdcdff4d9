// Building google.protobuf.Value trees for the CLI's --json output.
#ifndef SMRT_TOOLS_JSON_VALUES_H_
#define SMRT_TOOLS_JSON_VALUES_H_

#include <string>
#include <vector>

#include "api/cli_support.h"
#include "google/protobuf/struct.pb.h"

namespace smrt::cli {

google::protobuf::Value Str(const std::string& s);
google::protobuf::Value Num(double d);
// [] rather than no value when empty.
google::protobuf::Value List(const std::vector<std::string>& items);
// role, found, path, version, tried, and error when not found.
google::protobuf::Value LibraryJson(const device::LibraryProbe& p);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_JSON_VALUES_H_
