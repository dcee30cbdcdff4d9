#include "loader/tf_any.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace smrt::loader {
namespace {

// The package proto/smrt/tfproto declares, and its XLA sub-package.
constexpr absl::string_view kOurs = "smrt.tfproto.";
constexpr absl::string_view kOursXla = "smrt.tfproto.xla.";

absl::string_view TypeNameOf(const google::protobuf::Any& any) {
  absl::string_view url = any.type_url();
  const size_t slash = url.rfind('/');
  return slash == absl::string_view::npos ? url : url.substr(slash + 1);
}

}  // namespace

std::string TensorFlowTypeName(const google::protobuf::Descriptor& type) {
  absl::string_view name = type.full_name();
  if (absl::ConsumePrefix(&name, kOursXla)) return absl::StrCat("xla.", name);
  if (absl::ConsumePrefix(&name, kOurs)) return absl::StrCat("tensorflow.", name);
  return std::string(name);
}

bool AnyIs(const google::protobuf::Any& any, const google::protobuf::Descriptor& type) {
  const absl::string_view name = TypeNameOf(any);
  return name == type.full_name() || name == TensorFlowTypeName(type);
}

absl::Status UnpackAny(const google::protobuf::Any& any, google::protobuf::Message* message) {
  const google::protobuf::Descriptor& type = *message->GetDescriptor();
  if (!AnyIs(any, type)) {
    return absl::InvalidArgumentError(absl::StrCat("an Any of type '", any.type_url(), "' where a ",
                                                   TensorFlowTypeName(type), " was expected"));
  }
  if (!message->ParseFromString(any.value())) {
    return absl::InvalidArgumentError(absl::StrCat("an Any of type '", any.type_url(),
                                                   "' whose bytes are not a valid ",
                                                   TensorFlowTypeName(type)));
  }
  return absl::OkStatus();
}

const google::protobuf::Descriptor* FindTensorFlowType(absl::string_view full_name) {
  std::string ours;
  absl::string_view rest = full_name;
  if (absl::ConsumePrefix(&rest, "tensorflow.")) {
    ours = absl::StrCat(kOurs, rest);
  } else if (absl::ConsumePrefix(&rest, "xla.")) {
    ours = absl::StrCat(kOursXla, rest);
  } else if (absl::StartsWith(full_name, kOurs)) {
    ours = std::string(full_name);
  } else {
    return nullptr;
  }
  return google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(ours);
}

const google::protobuf::Descriptor* TensorFlowAnyFinder::FindAnyType(
    const google::protobuf::Message& /*message*/, const std::string& /*prefix*/,
    const std::string& name) const {
  return FindTensorFlowType(name);
}

}  // namespace smrt::loader
