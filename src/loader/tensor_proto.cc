#include "loader/tensor_proto.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/string_bytes.h"

namespace smrt::loader {

absl::StatusOr<PartialShape> PartialShapeFromProto(const tfproto::TensorShapeProto& proto) {
  PartialShape shape;
  if (proto.unknown_rank()) {
    shape.known_rank = false;
    return shape;
  }
  shape.dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) {
    if (d.size() < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape has an invalid dim ", d.size()));
    }
    shape.dims.push_back(d.size());
  }
  return shape;
}

absl::StatusOr<Shape> ShapeFromProto(const tfproto::TensorShapeProto& proto) {
  absl::StatusOr<PartialShape> partial = PartialShapeFromProto(proto);
  if (!partial.ok()) return partial.status();
  if (!partial->known_rank) {
    return absl::InvalidArgumentError("expected a known shape, got unknown rank");
  }
  for (int64_t d : partial->dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a fully known shape, got ", partial->ToString()));
    }
  }
  return std::move(partial->dims);
}

namespace {

// Fills n elements of T from `vals` (a repeated field of V) with TensorFlow's
// splat rule. Values convert with a static_cast (int_val holds int8..uint16).
template <typename T, typename Repeated>
absl::Status FillFromValues(const Repeated& vals, int64_t n, T* out,
                            const char* field) {
  if (vals.size() > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto has ", vals.size(), " values in ", field, " for ", n,
        " elements"));
  }
  if (n == 0) return absl::OkStatus();
  int64_t i = 0;
  for (; i < vals.size(); ++i) out[i] = static_cast<T>(vals.Get(i));
  T last = vals.empty() ? T() : out[vals.size() - 1];
  for (; i < n; ++i) out[i] = last;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> TensorFromProto(const tfproto::TensorProto& proto, uint64_t max_bytes) {
  DataType dtype = DataTypeFromProto(proto.dtype());
  if (dtype == DataType::kInvalid || dtype == DataType::kResource ||
      dtype == DataType::kVariant) {
    return absl::UnimplementedError(
        absl::StrCat("TensorProto of dtype ",
                     tfproto::DataType_Name(static_cast<tfproto::DataType>(proto.dtype())), " (",
                     proto.dtype(), ") is not supported"));
  }
  absl::StatusOr<Shape> shape = ShapeFromProto(proto.tensor_shape());
  if (!shape.ok()) return shape.status();
  absl::StatusOr<int64_t> n = NumElements(*shape);
  if (!n.ok()) return n.status();
  size_t elem = dtype == DataType::kString ? sizeof(std::string) : DataTypeSize(dtype);
  if (static_cast<uint64_t>(*n) > max_bytes / elem) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "TensorProto of shape ", ShapeToString(*shape), " is larger than the limit of ",
        max_bytes, " bytes"));
  }

  if (dtype == DataType::kString) {
    if (!proto.tensor_content().empty()) {
      return absl::InvalidArgumentError(
          "string TensorProto must use string_val, not tensor_content");
    }
    const auto& vals = proto.string_val();
    if (vals.size() > *n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto has ", vals.size(), " strings for ", *n, " elements"));
    }
    // The contents, the last value repeated to fill the shape (a splat)
    // included, count against the limits before anything is allocated.
    uint64_t content = 0;
    for (const std::string& v : vals) content += v.size();
    const uint64_t repeats = static_cast<uint64_t>(*n - vals.size());
    const uint64_t last = vals.empty() ? 0 : vals.Get(vals.size() - 1).size();
    const uint64_t elements = static_cast<uint64_t>(*n) * sizeof(std::string);
    const uint64_t budget = max_bytes > elements ? max_bytes - elements : 0;
    if (elements > max_bytes || content > budget ||
        (last > 0 && repeats > (budget - content) / last)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "string TensorProto of shape ", ShapeToString(*shape), " holds more than the limit of ",
          max_bytes, " bytes"));
    }
    content += repeats * last;
    absl::StatusOr<Tensor> t = CreateStringTensor(*shape, content);
    if (!t.ok()) return t.status();
    std::string* out = t->data<std::string>();
    for (int64_t i = 0; i < *n; ++i) {
      if (i < vals.size()) {
        out[i] = vals.Get(i);
      } else if (!vals.empty()) {
        out[i] = vals.Get(vals.size() - 1);
      }
    }
    return t;
  }

  if (!proto.tensor_content().empty()) {
    const std::string& content = proto.tensor_content();
    uint64_t want = static_cast<uint64_t>(*n) * elem;
    if (content.size() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", content.size(), " bytes; a ",
          DataTypeShortName(dtype), " tensor of shape ", ShapeToString(*shape),
          " needs ", want));
    }
    absl::StatusOr<Tensor> t = Tensor::Create(dtype, *shape);
    if (!t.ok()) return t.status();
    if (want > 0) std::memcpy(t->raw_data(), content.data(), want);
    return t;
  }

  absl::StatusOr<Tensor> t = Tensor::Create(dtype, *shape);
  if (!t.ok()) return t.status();
  absl::Status s;
  switch (dtype) {
    case DataType::kFloat:
      s = FillFromValues(proto.float_val(), *n, t->data<float>(), "float_val");
      break;
    case DataType::kDouble:
      s = FillFromValues(proto.double_val(), *n, t->data<double>(), "double_val");
      break;
    case DataType::kInt32:
      s = FillFromValues(proto.int_val(), *n, t->data<int32_t>(), "int_val");
      break;
    case DataType::kInt16:
      s = FillFromValues(proto.int_val(), *n, t->data<int16_t>(), "int_val");
      break;
    case DataType::kInt8:
      s = FillFromValues(proto.int_val(), *n, t->data<int8_t>(), "int_val");
      break;
    case DataType::kUInt8:
      s = FillFromValues(proto.int_val(), *n, t->data<uint8_t>(), "int_val");
      break;
    case DataType::kUInt16:
      s = FillFromValues(proto.int_val(), *n, t->data<uint16_t>(), "int_val");
      break;
    case DataType::kHalf:
    case DataType::kBFloat16:
      s = FillFromValues(proto.half_val(), *n, t->data<uint16_t>(), "half_val");
      break;
    case DataType::kInt64:
      s = FillFromValues(proto.int64_val(), *n, t->data<int64_t>(), "int64_val");
      break;
    case DataType::kUInt32:
      s = FillFromValues(proto.uint32_val(), *n, t->data<uint32_t>(), "uint32_val");
      break;
    case DataType::kUInt64:
      s = FillFromValues(proto.uint64_val(), *n, t->data<uint64_t>(), "uint64_val");
      break;
    case DataType::kBool:
      s = FillFromValues(proto.bool_val(), *n, t->data<bool>(), "bool_val");
      break;
    case DataType::kComplex64:
      s = FillFromValues(proto.scomplex_val(), 2 * *n, t->data<float>(),
                         "scomplex_val");
      break;
    case DataType::kComplex128:
      s = FillFromValues(proto.dcomplex_val(), 2 * *n, t->data<double>(),
                         "dcomplex_val");
      break;
    default:
      return absl::UnimplementedError(absl::StrCat(
          "TensorProto of dtype ", DataTypeName(dtype), " is not supported"));
  }
  if (!s.ok()) return s;
  return t;
}

absl::StatusOr<tfproto::TensorProto> TensorToProto(const Tensor& tensor) {
  if (!tensor.valid()) return absl::InvalidArgumentError("invalid tensor");
  tfproto::TensorProto proto;
  proto.set_dtype(static_cast<tfproto::DataType>(tensor.dtype()));
  for (int64_t d : tensor.shape()) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  if (tensor.dtype() == DataType::kString) {
    const std::string* s = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.num_elements(); ++i) proto.add_string_val(s[i]);
  } else if (IsFixedSize(tensor.dtype())) {
    proto.set_tensor_content(static_cast<const char*>(tensor.raw_data()),
                             tensor.byte_size());
  } else {
    return absl::UnimplementedError(absl::StrCat(
        "cannot encode a ", DataTypeName(tensor.dtype()), " tensor"));
  }
  return proto;
}

}  // namespace smrt::loader
