// Converts TensorFlow AttrValue protos into smrt attrs.
#ifndef SMRT_GRAPH_ATTR_FROM_PROTO_H_
#define SMRT_GRAPH_ATTR_FROM_PROTO_H_

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "google/protobuf/map.h"
#include "smrt/tfproto/attr_value.pb.h"

namespace smrt::graph {

// InvalidArgument for malformed values (bad tensors, bad shapes, types smrt
// does not know); "placeholder" attrs (unresolved function attrs) too.
absl::StatusOr<AttrValue> AttrFromProto(const tfproto::AttrValue& proto);

absl::StatusOr<AttrMap> AttrMapFromProto(
    const google::protobuf::Map<std::string, tfproto::AttrValue>& attrs);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_ATTR_FROM_PROTO_H_
