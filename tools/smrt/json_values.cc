#include "smrt/json_values.h"

namespace smrt::cli {

using google::protobuf::Value;

Value Str(const std::string& s) {
  Value v;
  v.set_string_value(s);
  return v;
}

Value Num(double d) {
  Value v;
  v.set_number_value(d);
  return v;
}

Value List(const std::vector<std::string>& items) {
  Value v;
  v.mutable_list_value();
  for (const std::string& s : items) *v.mutable_list_value()->add_values() = Str(s);
  return v;
}

Value LibraryJson(const device::LibraryProbe& p) {
  Value v;
  auto& f = *v.mutable_struct_value()->mutable_fields();
  f["role"] = Str(p.role);
  f["found"] = Str(p.found() ? "yes" : "no");
  f["path"] = Str(p.path);
  f["version"] = Str(p.version);
  f["tried"] = List(p.tried);
  if (!p.found()) f["error"] = Str(p.error);
  return v;
}

}  // namespace smrt::cli
