// Conversions between TensorFlow's TensorProto / TensorShapeProto and smrt.
#ifndef SMRT_LOADER_TENSOR_PROTO_H_
#define SMRT_LOADER_TENSOR_PROTO_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"
#include "smrt/tfproto/tensor.pb.h"
#include "smrt/tfproto/tensor_shape.pb.h"

namespace smrt::loader {

// InvalidArgument for dims below -1.
absl::StatusOr<PartialShape> PartialShapeFromProto(const tfproto::TensorShapeProto& proto);

// A fully known shape: InvalidArgument for unknown rank or unknown dims.
absl::StatusOr<Shape> ShapeFromProto(const tfproto::TensorShapeProto& proto);

// Decodes a TensorProto as TensorFlow does: from tensor_content when set, else
// from the typed *_val field, where fewer values than elements repeat the last
// value (and none means zeros). InvalidArgument when the content size does not
// match the shape or there are more values than elements; Unimplemented for
// dtypes smrt does not hold. Element count is checked against max_bytes before
// anything is allocated.
absl::StatusOr<Tensor> TensorFromProto(const tfproto::TensorProto& proto,
                                       uint64_t max_bytes = uint64_t{1} << 34);

// Encodes a tensor (tensor_content for fixed-size types, string_val for strings).
absl::StatusOr<tfproto::TensorProto> TensorToProto(const Tensor& tensor);

}  // namespace smrt::loader

#endif  // SMRT_LOADER_TENSOR_PROTO_H_
