// google.protobuf.Any values in TensorFlow's files, read by type name.
//
// smrt compiles TensorFlow's wire protos under a package of its own,
// smrt.tfproto (proto/smrt/tfproto), so that it can share a process with
// TensorFlow, whose generated pool holds tensorflow.GraphDef and the rest.
// The bytes are the same, but an Any that TensorFlow wrote names TensorFlow's
// type ("type.googleapis.com/tensorflow.AssetFileDef"), which Any::UnpackTo
// and the text format refuse for smrt.tfproto.AssetFileDef. Every Any smrt
// reads goes through these, which compare the name instead.
#ifndef SMRT_LOADER_TF_ANY_H_
#define SMRT_LOADER_TF_ANY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace smrt::loader {

// TensorFlow's full name for a message smrt compiles: "tensorflow.AssetFileDef"
// for smrt.tfproto.AssetFileDef, "xla.DotDimensionNumbers" for
// smrt.tfproto.xla.DotDimensionNumbers; any other type keeps its own name.
std::string TensorFlowTypeName(const google::protobuf::Descriptor& type);

// True when the type URL's last part (after its last '/') names `type`, by
// TensorFlow's name or by smrt's own.
bool AnyIs(const google::protobuf::Any& any, const google::protobuf::Descriptor& type);

// Parses the Any's value into `message`. InvalidArgument, naming the type URL
// and the type expected, when the Any holds another type or its bytes do not
// parse.
absl::Status UnpackAny(const google::protobuf::Any& any, google::protobuf::Message* message);

// smrt's message for TensorFlow's full name ("tensorflow.AssetFileDef"), or
// for its own; nullptr when smrt has no such message.
const google::protobuf::Descriptor* FindTensorFlowType(absl::string_view full_name);

// Resolves the text format's Any expansions ("[type.googleapis.com/
// tensorflow.AssetFileDef] { ... }", as TensorFlow writes saved_model.pbtxt)
// to smrt's messages; the parsed Any keeps TensorFlow's type URL.
class TensorFlowAnyFinder : public google::protobuf::TextFormat::Finder {
 public:
  const google::protobuf::Descriptor* FindAnyType(const google::protobuf::Message& message,
                                                  const std::string& prefix,
                                                  const std::string& name) const override;
};

}  // namespace smrt::loader

#endif  // SMRT_LOADER_TF_ANY_H_
