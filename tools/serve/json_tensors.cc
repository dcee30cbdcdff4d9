// Follows tensorflow_serving/util/json_tensor.cc step by step (same checks in
// the same order, same messages), reading smrt tensors on the way out.
#include "serve/json_tensors.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace smrt::serve {
namespace {

using tensorflow::serving::ClassificationRequest;
using tensorflow::serving::PredictRequest;
using tensorflow::serving::RegressionRequest;
using tfproto::TensorProto;
using tfproto::TensorShapeProto;
using RapidJsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

constexpr char kSignatureKey[] = "signature_name";
constexpr char kInstancesKey[] = "instances";
constexpr char kInputsKey[] = "inputs";
constexpr char kContextKey[] = "context";
constexpr char kExamplesKey[] = "examples";
constexpr char kPredictionsKey[] = "predictions";
constexpr char kOutputsKey[] = "outputs";
constexpr char kResultsKey[] = "results";
constexpr char kErrorKey[] = "error";
constexpr char kBase64Key[] = "b64";
constexpr char kBytesSuffix[] = "_bytes";

std::string JsonTypeString(const rapidjson::Value& val) {
  switch (val.GetType()) {
    case rapidjson::kNullType:
      return "Null";
    case rapidjson::kFalseType:
      return "False";
    case rapidjson::kTrueType:
      return "True";
    case rapidjson::kObjectType:
      return "Object";
    case rapidjson::kArrayType:
      return "Array";
    case rapidjson::kStringType:
      return "String";
    case rapidjson::kNumberType:
      return "Number";
  }
  return "Unknown";
}

// Writes floats as TF Serving does: six significant digits when they round
// trip, else max_digits10; ".0" on whole numbers so that readers see floats;
// NaN / Infinity / -Infinity (RapidJSON reads them back with
// kParseNanAndInfFlag).
template <typename T>
bool WriteDecimal(RapidJsonWriter* writer, T val) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  std::string text;
  if (std::isfinite(val)) {
    text = absl::StrCat(val);
    T parsed;
    bool ok;
    if constexpr (std::is_same_v<T, float>) {
      ok = absl::SimpleAtof(text, &parsed);
    } else {
      ok = absl::SimpleAtod(text, &parsed);
    }
    if (!ok) return false;
    if (parsed != val) text = absl::StrFormat("%.*g", std::numeric_limits<T>::max_digits10, val);
    if (!absl::StrContains(text, '.') && !absl::StrContains(text, 'e')) {
      absl::StrAppend(&text, ".0");
    }
  } else if (std::isnan(val)) {
    text = "NaN";
  } else {
    text = std::signbit(val) ? "-Infinity" : "Infinity";
  }
  return writer->RawValue(text.c_str(), text.size(), rapidjson::kNumberType);
}

// A RapidJSON handler that stops writing once `max_bytes` are out (error
// messages quote at most this much of a request).
class JsonWriterWithLimit {
 public:
  JsonWriterWithLimit(rapidjson::StringBuffer* buffer, RapidJsonWriter* writer, size_t max_bytes)
      : buffer_(buffer), writer_(writer), max_bytes_(max_bytes) {}

  bool Null() { return InLimit() && writer_->Null(); }
  bool Bool(bool b) { return InLimit() && writer_->Bool(b); }
  bool Int(int i) { return InLimit() && writer_->Int(i); }
  bool Uint(unsigned u) { return InLimit() && writer_->Uint(u); }
  bool Int64(int64_t i) { return InLimit() && writer_->Int64(i); }
  bool Uint64(uint64_t u) { return InLimit() && writer_->Uint64(u); }
  bool Double(double d) { return InLimit() && writer_->Double(d); }
  bool RawNumber(const char* str, rapidjson::SizeType length, bool copy = false) {
    return InLimit() && writer_->RawNumber(str, length, copy);
  }
  bool String(const char* str, rapidjson::SizeType length, bool copy = false) {
    return InLimit() && writer_->String(str, length, copy);
  }
  bool StartObject() { return InLimit() && writer_->StartObject(); }
  bool Key(const char* str, rapidjson::SizeType length, bool copy = false) {
    return InLimit() && writer_->Key(str, length, copy);
  }
  bool EndObject(rapidjson::SizeType count = 0) { return InLimit() && writer_->EndObject(count); }
  bool StartArray() { return InLimit() && writer_->StartArray(); }
  bool EndArray(rapidjson::SizeType count = 0) { return InLimit() && writer_->EndArray(count); }

 private:
  bool InLimit() const { return buffer_->GetSize() < max_bytes_; }
  const rapidjson::StringBuffer* buffer_;
  RapidJsonWriter* writer_;
  size_t max_bytes_;
};

constexpr size_t kMaxJsonDebugStringBytes = 256;

std::string JsonValueToDebugString(const rapidjson::Value& val) {
  rapidjson::StringBuffer buffer;
  RapidJsonWriter writer(buffer);
  writer.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  JsonWriterWithLimit limited(&buffer, &writer, kMaxJsonDebugStringBytes);
  val.Accept(limited);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "[?]";
  return absl::StrCat("[",
                      absl::StrJoin(shape.dim(), ",",
                                    [](std::string* out, const TensorShapeProto::Dim& dim) {
                                      absl::StrAppend(out, dim.size());
                                    }),
                      "]");
}

bool IsShapeEqual(const TensorShapeProto& lhs, const TensorShapeProto& rhs) {
  if (lhs.unknown_rank() || rhs.unknown_rank() || lhs.dim_size() != rhs.dim_size()) return false;
  for (int i = 0; i < lhs.dim_size(); ++i) {
    if (lhs.dim(i).size() != rhs.dim(i).size()) return false;
  }
  return true;
}

absl::Status TypeError(const rapidjson::Value& val, DataType dtype) {
  return absl::InvalidArgumentError(
      absl::StrCat("JSON Value: ", JsonValueToDebugString(val), " Type: ", JsonTypeString(val),
                   " is not of expected type: ", TfDataTypeString(dtype)));
}

template <typename... Args>
absl::Status FormatError(const rapidjson::Value& val, const Args&... args) {
  return absl::InvalidArgumentError(
      absl::StrCat("JSON Value: ", JsonValueToDebugString(val), " ", args...));
}

absl::Status AddValueToTensor(const rapidjson::Value& val, DataType dtype, TensorProto* tensor) {
  switch (dtype) {
    case DataType::kFloat:
      if (!val.IsNumber()) return TypeError(val, dtype);
      tensor->add_float_val(val.GetFloat());
      break;
    case DataType::kDouble:
      if (!val.IsNumber()) return TypeError(val, dtype);
      tensor->add_double_val(val.GetDouble());
      break;
    case DataType::kInt32:
    case DataType::kInt16:
    case DataType::kInt8:
    case DataType::kUInt8:
      if (!val.IsInt()) return TypeError(val, dtype);
      tensor->add_int_val(val.GetInt());
      break;
    case DataType::kString:
      if (!val.IsString()) return TypeError(val, dtype);
      tensor->add_string_val(val.GetString(), val.GetStringLength());
      break;
    case DataType::kInt64:
      if (!val.IsInt64()) return TypeError(val, dtype);
      tensor->add_int64_val(val.GetInt64());
      break;
    case DataType::kBool:
      if (!val.IsBool()) return TypeError(val, dtype);
      tensor->add_bool_val(val.GetBool());
      break;
    case DataType::kUInt32:
      if (!val.IsUint()) return TypeError(val, dtype);
      tensor->add_uint32_val(val.GetUint());
      break;
    case DataType::kUInt64:
      if (!val.IsUint64()) return TypeError(val, dtype);
      tensor->add_uint64_val(val.GetUint64());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("Conversion of JSON Value: ", JsonValueToDebugString(val),
                       " to type: ", TfDataTypeString(dtype)));
  }
  return absl::OkStatus();
}

// The shape of a dense nested list, read along its first elements; a scalar
// adds no dimension.
void GetDenseTensorShape(const rapidjson::Value& val, TensorShapeProto* shape) {
  if (!val.IsArray()) return;
  const auto size = val.Size();
  shape->add_dim()->set_size(size);
  if (size > 0) GetDenseTensorShape(val[0], shape);
}

// {"b64": "<string>"} and nothing else.
bool IsValBase64Object(const rapidjson::Value& val) {
  if (!val.IsObject()) return false;
  const auto itr = val.FindMember(kBase64Key);
  return itr != val.MemberEnd() && val.MemberCount() == 1 && itr->value.IsString();
}

absl::Status JsonDecodeBase64Object(const rapidjson::Value& val, std::string* decoded) {
  if (!IsValBase64Object(val)) {
    return absl::InvalidArgumentError(absl::StrCat("JSON Value: ", JsonValueToDebugString(val),
                                                   " not formatted correctly for base64 data"));
  }
  const auto itr = val.FindMember(kBase64Key);
  if (!absl::Base64Unescape(absl::string_view(itr->value.GetString(), itr->value.GetStringLength()),
                            decoded)) {
    return absl::InvalidArgumentError("Unable to base64 decode");
  }
  return absl::OkStatus();
}

absl::Status FillTensorProto(const rapidjson::Value& val, int level, DataType dtype, int* val_count,
                             TensorProto* tensor) {
  const int rank = tensor->tensor_shape().dim_size();
  if (!val.IsArray()) {
    // The values of a dense tensor are all at the level of its rank.
    if (level != rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "JSON Value: ", JsonValueToDebugString(val), " found at incorrect level: ", level + 1,
          " in the JSON DOM. Expected at level: ", rank));
    }
    absl::Status status;
    if (val.IsObject()) {
      status = dtype == DataType::kString ? JsonDecodeBase64Object(val, tensor->add_string_val())
                                          : TypeError(val, dtype);
    } else {
      status = AddValueToTensor(val, dtype, tensor);
    }
    if (status.ok()) ++*val_count;
    return status;
  }
  if (level >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Encountered list at unexpected level: ", level, " expected < ", rank));
  }
  if (static_cast<int64_t>(val.Size()) != tensor->tensor_shape().dim(level).size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Encountered list at unexpected size: ", val.Size(), " at level: ", level,
                     " expected size: ", tensor->tensor_shape().dim(level).size()));
  }
  for (const auto& v : val.GetArray()) {
    absl::Status status = FillTensorProto(v, level + 1, dtype, val_count, tensor);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status AddInstanceItem(const rapidjson::Value& item, const std::string& name,
                             const std::map<std::string, DataType>& dtypes,
                             std::map<std::string, int>* size_map,
                             std::map<std::string, TensorShapeProto>* shape_map,
                             google::protobuf::Map<std::string, TensorProto>* tensor_map) {
  const auto dtype_itr = dtypes.find(name);
  if (dtype_itr == dtypes.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON object: does not have named input: ", name));
  }
  int size = 0;
  TensorProto* tensor = &(*tensor_map)[name];
  tensor->mutable_tensor_shape()->Clear();
  GetDenseTensorShape(item, tensor->mutable_tensor_shape());
  absl::Status status = FillTensorProto(item, 0, dtype_itr->second, &size, tensor);
  if (!status.ok()) return status;
  const auto seen = size_map->find(name);
  if (seen == size_map->end()) {
    (*size_map)[name] = size;
    (*shape_map)[name] = tensor->tensor_shape();
  } else if (seen->second != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting tensor size: ", seen->second, " but got: ", size));
  } else if (!IsShapeEqual((*shape_map)[name], tensor->tensor_shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting shape ", ShapeString((*shape_map)[name]),
                     " but got: ", ShapeString(tensor->tensor_shape())));
  }
  return absl::OkStatus();
}

absl::Status ParseJson(std::string_view json, rapidjson::Document* doc) {
  if (json.empty()) return absl::InvalidArgumentError("JSON Parse error: The document is empty");
  // The body is not NUL-terminated: parse it as a stream.
  rapidjson::MemoryStream ms(json.data(), json.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(ms);
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag |
                              rapidjson::kParseStopWhenDoneFlag;
  if (doc->ParseStream<kFlags>(stream).HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON Parse error: ", rapidjson::GetParseError_En(doc->GetParseError()),
                     " at offset: ", doc->GetErrorOffset()));
  }
  if (!doc->IsObject()) return FormatError(*doc, "Is not object");
  return absl::OkStatus();
}

template <typename Request>
absl::Status FillSignature(const rapidjson::Document& doc, Request* request) {
  const auto itr = doc.FindMember(kSignatureKey);
  if (itr != doc.MemberEnd()) {
    if (!itr->value.IsString()) {
      return FormatError(doc,
                         "not formatted correctly. 'signature_name' key must be a string value.");
    }
    request->mutable_model_spec()->set_signature_name(itr->value.GetString(),
                                                      itr->value.GetStringLength());
  }
  return absl::OkStatus();
}

absl::Status FillTensorMapFromInstancesList(
    const rapidjson::Value& instances, const std::map<std::string, DataType>& dtypes,
    google::protobuf::Map<std::string, TensorProto>* tensor_map) {
  // A plain list, or a list of objects with one key per named input; not a
  // mix of both.
  if (!instances[0].IsObject() && dtypes.size() > 1) {
    return absl::InvalidArgumentError(
        "instances is a plain list, but expecting list of objects as multiple input tensors "
        "required as per tensorinfo_map");
  }
  auto is_element_object = [](const rapidjson::Value& val) {
    return val.IsObject() && !IsValBase64Object(val);
  };
  const bool elements_are_objects = is_element_object(instances[0]);
  std::set<std::string> input_names;
  for (const auto& [name, dtype] : dtypes) input_names.insert(name);

  tensor_map->clear();
  std::map<std::string, int> size_map;
  std::map<std::string, TensorShapeProto> shape_map;
  int tensor_count = 0;
  for (const auto& elem : instances.GetArray()) {
    if (elements_are_objects) {
      if (!is_element_object(elem)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expecting object but got list at item ", tensor_count, " of input list"));
      }
      std::set<std::string> object_keys;
      for (const auto& kv : elem.GetObject()) {
        const std::string name(kv.name.GetString(), kv.name.GetStringLength());
        object_keys.insert(name);
        absl::Status status =
            AddInstanceItem(kv.value, name, dtypes, &size_map, &shape_map, tensor_map);
        if (!status.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("Failed to process element: ", tensor_count, " key: ", name,
                           " of 'instances' list. Error: ", status.ToString()));
        }
      }
      if (input_names != object_keys) {
        return absl::InvalidArgumentError(
            absl::StrCat("Failed to process element: ", tensor_count,
                         " of 'instances' list. JSON object: ", JsonValueToDebugString(elem),
                         " keys must be equal to: ", absl::StrJoin(input_names, ",")));
      }
    } else {
      if (is_element_object(elem)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expecting value/list but got object at item ", tensor_count, " of input list"));
      }
      const std::string& name = dtypes.begin()->first;
      absl::Status status = AddInstanceItem(elem, name, dtypes, &size_map, &shape_map, tensor_map);
      if (!status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Failed to process element: ", tensor_count,
                         " of 'instances' list. Error: ", status.ToString()));
      }
    }
    ++tensor_count;
  }
  // Each item was one tensor of the same shape: stack them.
  for (auto& [name, tensor] : *tensor_map) {
    tensor.set_dtype(static_cast<tfproto::DataType>(dtypes.at(name)));
    const TensorShapeProto& item_shape = shape_map.at(name);
    TensorShapeProto* shape = tensor.mutable_tensor_shape();
    shape->Clear();
    shape->add_dim()->set_size(tensor_count);
    for (const auto& d : item_shape.dim()) shape->add_dim()->set_size(d.size());
  }
  return absl::OkStatus();
}

absl::Status FillTensorMapFromInputsMap(
    const rapidjson::Value& val, const std::map<std::string, DataType>& dtypes,
    google::protobuf::Map<std::string, TensorProto>* tensor_map) {
  // A list or b64 object for a single input; an object of name -> value for
  // several.
  if (!val.IsObject() || IsValBase64Object(val)) {
    if (dtypes.size() > 1) {
      return absl::InvalidArgumentError(
          "inputs is a plain value/list, but expecting an object as multiple input tensors "
          "required as per tensorinfo_map");
    }
    const auto& [name, dtype] = *dtypes.begin();
    TensorProto* tensor = &(*tensor_map)[name];
    tensor->set_dtype(static_cast<tfproto::DataType>(dtype));
    GetDenseTensorShape(val, tensor->mutable_tensor_shape());
    int unused_size = 0;
    return FillTensorProto(val, 0, dtype, &unused_size, tensor);
  }
  for (const auto& [name, dtype] : dtypes) {
    const auto item = val.FindMember(name.c_str());
    if (item == val.MemberEnd()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Missing named input: ", name, " in 'inputs' object."));
    }
    TensorProto* tensor = &(*tensor_map)[name];
    tensor->set_dtype(static_cast<tfproto::DataType>(dtype));
    tensor->mutable_tensor_shape()->Clear();
    GetDenseTensorShape(item->value, tensor->mutable_tensor_shape());
    int unused_size = 0;
    absl::Status status = FillTensorProto(item->value, 0, dtype, &unused_size, tensor);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// --- classify / regress ---

using tfproto::Example;
using tfproto::Feature;

bool IsFeatureOfKind(const Feature& feature, Feature::KindCase kind) {
  return feature.kind_case() == Feature::KIND_NOT_SET || feature.kind_case() == kind;
}

absl::Status IncompatibleFeatureKindError(const std::string& name, const Feature& feature) {
  std::string kind;
  switch (feature.kind_case()) {
    case Feature::kBytesList:
      kind = "bytes";
      break;
    case Feature::kFloatList:
      kind = "float";
      break;
    case Feature::kInt64List:
      kind = "int64";
      break;
    case Feature::KIND_NOT_SET:
      kind = "UNKNOWN";
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Unexpected element type in feature: ", name, " expecting type: ", kind));
}

absl::Status UnexpectedFeatureType(const std::string& name, const rapidjson::Value& val) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Feature: ", name, " has element with unexpected JSON type: ", JsonTypeString(val)));
}

absl::Status AddValueToFeature(const rapidjson::Value& val, const std::string& name,
                               Feature* feature) {
  switch (val.GetType()) {
    case rapidjson::kNullType:
    case rapidjson::kArrayType:
      return UnexpectedFeatureType(name, val);
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      if (!IsFeatureOfKind(*feature, Feature::kInt64List)) {
        return IncompatibleFeatureKindError(name, *feature);
      }
      feature->mutable_int64_list()->add_value(val.GetBool() ? 1 : 0);
      break;
    case rapidjson::kObjectType: {
      if (!IsValBase64Object(val)) return UnexpectedFeatureType(name, val);
      if (!IsFeatureOfKind(*feature, Feature::kBytesList)) {
        return IncompatibleFeatureKindError(name, *feature);
      }
      std::string decoded;
      absl::Status status = JsonDecodeBase64Object(val, &decoded);
      if (!status.ok()) return status;
      feature->mutable_bytes_list()->add_value(std::move(decoded));
      break;
    }
    case rapidjson::kStringType:
      if (!IsFeatureOfKind(*feature, Feature::kBytesList)) {
        return IncompatibleFeatureKindError(name, *feature);
      }
      feature->mutable_bytes_list()->add_value(val.GetString(), val.GetStringLength());
      break;
    case rapidjson::kNumberType:
      if (val.IsDouble()) {
        if (!IsFeatureOfKind(*feature, Feature::kFloatList)) {
          return IncompatibleFeatureKindError(name, *feature);
        }
        feature->mutable_float_list()->add_value(val.GetFloat());
      } else {
        if (!IsFeatureOfKind(*feature, Feature::kInt64List)) {
          return IncompatibleFeatureKindError(name, *feature);
        }
        if (!val.IsInt64() && val.IsUint64()) {
          return absl::InvalidArgumentError(
              absl::StrCat("Feature: ", name, " has uint64_t element. Only int64_t is supported."));
        }
        feature->mutable_int64_list()->add_value(val.GetInt64());
      }
      break;
  }
  return absl::OkStatus();
}

absl::Status MakeExampleFromJsonObject(const rapidjson::Value& val, Example* example) {
  if (!val.IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Example must be JSON object but got JSON ", JsonTypeString(val)));
  }
  for (const auto& kv : val.GetObject()) {
    const std::string name(kv.name.GetString(), kv.name.GetStringLength());
    Feature feature;
    if (kv.value.IsArray()) {
      for (const auto& v : kv.value.GetArray()) {
        absl::Status status = AddValueToFeature(v, name, &feature);
        if (!status.ok()) return status;
      }
    } else {
      absl::Status status = AddValueToFeature(kv.value, name, &feature);
      if (!status.ok()) return status;
    }
    (*example->mutable_features()->mutable_feature())[name] = std::move(feature);
  }
  return absl::OkStatus();
}

template <typename Request>
absl::Status FillClassifyRegressRequestFromJson(std::string_view json, Request* request) {
  rapidjson::Document doc;
  absl::Status status = ParseJson(json, &doc);
  if (status.ok()) status = FillSignature(doc, request);
  if (!status.ok()) return status;

  bool has_context = false;
  tensorflow::serving::Input* input = request->mutable_input();
  auto itr = doc.FindMember(kContextKey);
  if (itr != doc.MemberEnd()) {
    status = MakeExampleFromJsonObject(
        itr->value, input->mutable_example_list_with_context()->mutable_context());
    if (!status.ok()) return status;
    has_context = true;
  }
  itr = doc.FindMember(kExamplesKey);
  if (itr == doc.MemberEnd()) {
    return FormatError(doc, "When method is classify, key '", kExamplesKey,
                       "' is expected and was not found");
  }
  if (!itr->value.IsArray()) {
    return FormatError(doc, "Expecting '", kExamplesKey, "' value to be an list/array");
  }
  if (itr->value.Empty()) {
    return FormatError(doc, "'", kExamplesKey, "' value is an empty array");
  }
  for (const auto& val : itr->value.GetArray()) {
    status = MakeExampleFromJsonObject(
        val, has_context ? input->mutable_example_list_with_context()->add_examples()
                         : input->mutable_example_list()->add_examples());
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// --- responses ---

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra;
    uint32_t min;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      min = 0x10000;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    uint32_t code = c & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      code = (code << 6) | (cc & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

bool WriteString(RapidJsonWriter* writer, const std::string& str, bool as_bytes) {
  if (as_bytes || !IsValidUtf8(str)) {
    std::string base64;
    absl::Base64Escape(str, &base64);
    writer->StartObject();
    writer->Key(kBase64Key);
    const bool ok = writer->String(base64.c_str(), base64.size());
    writer->EndObject();
    return ok;
  }
  return writer->String(str.c_str(), str.size());
}

absl::Status AddSingleValueAndAdvance(const Tensor& tensor, bool string_as_bytes,
                                      RapidJsonWriter* writer, int64_t* offset) {
  const int64_t i = *offset;
  bool ok = false;
  switch (tensor.dtype()) {
    case DataType::kFloat:
      ok = WriteDecimal(writer, tensor.data<float>()[i]);
      break;
    case DataType::kDouble:
      ok = WriteDecimal(writer, tensor.data<double>()[i]);
      break;
    case DataType::kInt32:
      ok = writer->Int(tensor.data<int32_t>()[i]);
      break;
    case DataType::kInt16:
      ok = writer->Int(tensor.data<int16_t>()[i]);
      break;
    case DataType::kInt8:
      ok = writer->Int(tensor.data<int8_t>()[i]);
      break;
    case DataType::kUInt8:
      ok = writer->Int(tensor.data<uint8_t>()[i]);
      break;
    case DataType::kString:
      ok = WriteString(writer, tensor.data<std::string>()[i], string_as_bytes);
      break;
    case DataType::kInt64:
      ok = writer->Int64(tensor.data<int64_t>()[i]);
      break;
    case DataType::kBool:
      ok = writer->Bool(tensor.data<bool>()[i]);
      break;
    case DataType::kUInt32:
      ok = writer->Uint(tensor.data<uint32_t>()[i]);
      break;
    case DataType::kUInt64:
      ok = writer->Uint64(tensor.data<uint64_t>()[i]);
      break;
    default:
      break;
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("Failed to write JSON value for tensor type: ",
                                                   TfDataTypeString(tensor.dtype())));
  }
  ++*offset;
  return absl::OkStatus();
}

absl::Status AddTensorValues(const Tensor& tensor, bool string_as_bytes, int dim,
                             RapidJsonWriter* writer, int64_t* offset) {
  if (dim > tensor.rank() - 1) {
    return AddSingleValueAndAdvance(tensor, string_as_bytes, writer, offset);
  }
  writer->StartArray();
  for (int64_t i = 0; i < tensor.dim(dim); ++i) {
    absl::Status status = dim == tensor.rank() - 1
                              ? AddSingleValueAndAdvance(tensor, string_as_bytes, writer, offset)
                              : AddTensorValues(tensor, string_as_bytes, dim + 1, writer, offset);
    if (!status.ok()) return status;
  }
  writer->EndArray();
  return absl::OkStatus();
}

bool IsNamedTensorBytes(const std::string& name, const Tensor& tensor) {
  return tensor.dtype() == DataType::kString && absl::EndsWith(name, kBytesSuffix);
}

absl::StatusOr<std::string> MakeRowFormatJson(const NamedTensors& outputs) {
  // Every output's first dimension is the batch, the same for all.
  int64_t batch_size = -1;
  std::map<std::string, int64_t> offsets;
  for (const auto& [name, tensor] : outputs) {
    if (tensor.rank() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensor name: ", name, " has no shape information "));
    }
    const int64_t cur = tensor.dim(0);
    if (batch_size >= 0 && batch_size != cur) {
      return absl::InvalidArgumentError(absl::StrCat("Tensor name: ", name,
                                                     " has inconsistent batch size: ", cur,
                                                     " expecting: ", batch_size));
    }
    batch_size = cur;
    offsets[name] = 0;
  }
  rapidjson::StringBuffer buffer;
  RapidJsonWriter writer(buffer);
  writer.StartObject();
  writer.Key(kPredictionsKey);
  writer.StartArray();
  const bool elements_are_objects = outputs.size() > 1;
  for (int64_t item = 0; item < batch_size; ++item) {
    if (elements_are_objects) writer.StartObject();
    writer.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    for (const auto& [name, tensor] : outputs) {
      if (elements_are_objects) writer.Key(name.c_str(), name.size());
      absl::Status status =
          AddTensorValues(tensor, IsNamedTensorBytes(name, tensor), 1, &writer, &offsets.at(name));
      if (!status.ok()) return status;
    }
    writer.SetFormatOptions(rapidjson::kFormatDefault);
    if (elements_are_objects) writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

absl::StatusOr<std::string> MakeColumnarFormatJson(const NamedTensors& outputs) {
  rapidjson::StringBuffer buffer;
  RapidJsonWriter writer(buffer);
  writer.StartObject();
  writer.Key(kOutputsKey);
  const bool elements_are_objects = outputs.size() > 1;
  if (elements_are_objects) writer.StartObject();
  for (const auto& [name, tensor] : outputs) {
    if (elements_are_objects) writer.Key(name.c_str(), name.size());
    int64_t unused_offset = 0;
    absl::Status status =
        AddTensorValues(tensor, IsNamedTensorBytes(name, tensor), 0, &writer, &unused_offset);
    if (!status.ok()) return status;
  }
  if (elements_are_objects) writer.EndObject();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string TfDataTypeString(DataType dtype) {
  std::string name(DataTypeName(dtype));
  if (absl::StartsWith(name, "DT_")) name = name.substr(3);
  return absl::AsciiStrToLower(name);
}

absl::Status FillPredictRequestFromJson(std::string_view json, const InputDtypesFn& input_dtypes,
                                        PredictRequest* request, JsonPredictFormat* format) {
  rapidjson::Document doc;
  *format = JsonPredictFormat::kInvalid;
  absl::Status status = ParseJson(json, &doc);
  if (status.ok()) status = FillSignature(doc, request);
  if (!status.ok()) return status;

  const std::string& signature = request->model_spec().signature_name();
  absl::StatusOr<std::map<std::string, DataType>> dtypes = input_dtypes(signature);
  if (!dtypes.ok()) return dtypes.status();
  if (dtypes->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Failed to get input map for signature: ",
                                                   signature.empty() ? "DEFAULT" : signature));
  }
  const auto instances = doc.FindMember(kInstancesKey);
  const auto inputs = doc.FindMember(kInputsKey);
  if (instances != doc.MemberEnd()) {
    if (inputs != doc.MemberEnd()) {
      return FormatError(doc, "Not formatted correctly expecting only one of '", kInputsKey,
                         "' or '", kInstancesKey, "' keys to exist ");
    }
    if (!instances->value.IsArray()) {
      return FormatError(doc, "Expecting '", kInstancesKey, "' to be an list/array");
    }
    if (instances->value.Empty()) {
      return FormatError(doc, "No values in '", kInstancesKey, "' array");
    }
    *format = JsonPredictFormat::kRow;
    return FillTensorMapFromInstancesList(instances->value, *dtypes, request->mutable_inputs());
  }
  if (inputs != doc.MemberEnd()) {
    *format = JsonPredictFormat::kColumnar;
    return FillTensorMapFromInputsMap(inputs->value, *dtypes, request->mutable_inputs());
  }
  return absl::InvalidArgumentError("Missing 'inputs' or 'instances' key");
}

absl::StatusOr<std::string> MakeJsonFromTensors(const NamedTensors& outputs,
                                                JsonPredictFormat format) {
  if (outputs.empty()) {
    return absl::InvalidArgumentError("Cannot convert empty tensor map to JSON");
  }
  switch (format) {
    case JsonPredictFormat::kRow:
      return MakeRowFormatJson(outputs);
    case JsonPredictFormat::kColumnar:
      return MakeColumnarFormatJson(outputs);
    case JsonPredictFormat::kInvalid:
      break;
  }
  return absl::InvalidArgumentError("Invalid request format");
}

absl::Status FillClassificationRequestFromJson(std::string_view json,
                                               ClassificationRequest* request) {
  return FillClassifyRegressRequestFromJson(json, request);
}

absl::Status FillRegressionRequestFromJson(std::string_view json, RegressionRequest* request) {
  return FillClassifyRegressRequestFromJson(json, request);
}

absl::StatusOr<std::string> MakeJsonFromClassificationResult(
    const tensorflow::serving::ClassificationResult& result) {
  if (result.classifications_size() == 0) {
    return absl::InvalidArgumentError("Cannot convert empty ClassificationResults to JSON");
  }
  rapidjson::StringBuffer buffer;
  RapidJsonWriter writer(buffer);
  writer.StartObject();
  writer.Key(kResultsKey);
  writer.StartArray();
  for (const auto& classifications : result.classifications()) {
    writer.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    writer.StartArray();
    for (const auto& elem : classifications.classes()) {
      writer.StartArray();
      if (!WriteString(&writer, elem.label(), false)) {
        return absl::InternalError(
            absl::StrCat("Failed to write class label: ", elem.label(), " to output JSON buffer"));
      }
      if (!WriteDecimal(&writer, elem.score())) {
        return absl::InternalError(
            absl::StrCat("Failed to write class score : ", elem.score(), " to output JSON buffer"));
      }
      writer.EndArray();
    }
    writer.EndArray();
    writer.SetFormatOptions(rapidjson::kFormatDefault);
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

absl::StatusOr<std::string> MakeJsonFromRegressionResult(
    const tensorflow::serving::RegressionResult& result) {
  if (result.regressions_size() == 0) {
    return absl::InvalidArgumentError("Cannot convert empty RegressionResults to JSON");
  }
  rapidjson::StringBuffer buffer;
  RapidJsonWriter writer(buffer);
  writer.StartObject();
  writer.Key(kResultsKey);
  writer.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  writer.StartArray();
  for (const auto& regression : result.regressions()) {
    if (!WriteDecimal(&writer, regression.value())) {
      return absl::InternalError(absl::StrCat(
          "Failed to write regression value : ", regression.value(), " to output JSON buffer"));
    }
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string MakeJsonFromStatus(const absl::Status& status) {
  if (status.ok()) return "";
  rapidjson::StringBuffer buffer;
  RapidJsonWriter writer(buffer);
  writer.StartObject();
  writer.Key(kErrorKey);
  const absl::string_view message = status.message();
  writer.String(message.data(), message.size());
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace smrt::serve
