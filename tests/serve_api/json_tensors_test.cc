// The REST JSON codec on TF Serving's own cases (tensorflow_serving/util/
// json_tensor_test.cc): the same requests must give the same TensorProtos and
// Examples, the same tensors the same JSON, the same mistakes the same errors.
#include "serve/json_tensors.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "loader/tensor_proto.h"
#include "rapidjson/document.h"

namespace smrt::serve {
namespace {

using google::protobuf::TextFormat;
using google::protobuf::util::MessageDifferencer;
using tensorflow::serving::ClassificationRequest;
using tensorflow::serving::ClassificationResult;
using tensorflow::serving::PredictRequest;
using tensorflow::serving::RegressionRequest;
using tensorflow::serving::RegressionResult;
using ::testing::HasSubstr;

InputDtypesFn Dtypes(std::map<std::string, DataType> dtypes) {
  return [dtypes](const std::string&) -> absl::StatusOr<std::map<std::string, DataType>> {
    return dtypes;
  };
}

tfproto::TensorProto Proto(const std::string& text) {
  tfproto::TensorProto proto;
  EXPECT_TRUE(TextFormat::ParseFromString(text, &proto)) << text;
  return proto;
}

void ExpectProto(const tfproto::TensorProto& actual, const std::string& expected_text) {
  const tfproto::TensorProto expected = Proto(expected_text);
  EXPECT_TRUE(MessageDifferencer::Equals(actual, expected)) << "got:\n"
                                                            << actual.DebugString() << "expected:\n"
                                                            << expected.DebugString();
}

// Both parse to the same JSON DOM.
void ExpectJson(const std::string& actual, const std::string& expected) {
  rapidjson::Document a, e;
  a.Parse<rapidjson::kParseNanAndInfFlag>(actual.c_str());
  e.Parse<rapidjson::kParseNanAndInfFlag>(expected.c_str());
  ASSERT_FALSE(a.HasParseError()) << actual;
  ASSERT_FALSE(e.HasParseError()) << expected;
  EXPECT_TRUE(a == e) << "got:\n" << actual << "\nexpected:\n" << expected;
}

NamedTensors Tensors(const std::map<std::string, std::string>& protos) {
  NamedTensors tensors;
  for (const auto& [name, text] : protos) {
    absl::StatusOr<Tensor> tensor = loader::TensorFromProto(Proto(text));
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    if (tensor.ok()) tensors[name] = *tensor;
  }
  return tensors;
}

absl::Status Fill(const std::string& json, const std::map<std::string, DataType>& dtypes,
                  PredictRequest* request, JsonPredictFormat* format) {
  request->Clear();
  return FillPredictRequestFromJson(json, Dtypes(dtypes), request, format);
}

TEST(JsonTensorsTest, SingleUnnamedTensor) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(
      Fill(R"({"instances": [[1,2],[3,4],[5,6]]})", {{"default", DataType::kInt32}}, &req, &format)
          .ok());
  EXPECT_EQ(format, JsonPredictFormat::kRow);
  ASSERT_EQ(req.inputs().size(), 1u);
  ExpectProto(req.inputs().at("default"), R"(
    dtype: DT_INT32 tensor_shape { dim { size: 3 } dim { size: 2 } }
    int_val: 1 int_val: 2 int_val: 3 int_val: 4 int_val: 5 int_val: 6)");
}

TEST(JsonTensorsTest, DeeplyNestedWellFormedAndMalformed) {
  PredictRequest req;
  JsonPredictFormat format;
  std::string json = R"({"instances":[1], "nested":)";
  json.append(500000, '[');
  json.append(500000, ']');
  json.append("}");
  EXPECT_TRUE(Fill(json, {{"default", DataType::kInt32}}, &req, &format).ok());

  json = R"({"signature_name":)";
  json.append(500000, '[');
  json.append(500000, ']');
  json.append("}");
  absl::Status status = Fill(json, {{"default", DataType::kInt32}}, &req, &format);
  ASSERT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(status.message(), HasSubstr("key must be a string value"));
}

TEST(JsonTensorsTest, MixedInputForFloatAndDoubleTensors) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(R"({"instances": [1, 2.0, 3, 4, 5.003, 0.007, 0.0]})",
                   {{"default", DataType::kFloat}}, &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("default"), R"(
    dtype: DT_FLOAT tensor_shape { dim { size: 7 } }
    float_val: 1 float_val: 2.0 float_val: 3 float_val: 4 float_val: 5.003
    float_val: 0.007 float_val: 0.0)");
  ASSERT_TRUE(Fill(R"({"instances": [1.0, 2, 3, 4, 0.662, 0, 0.0]})",
                   {{"default", DataType::kDouble}}, &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("default"), R"(
    dtype: DT_DOUBLE tensor_shape { dim { size: 7 } }
    double_val: 1.0 double_val: 2 double_val: 3 double_val: 4 double_val: 0.662
    double_val: 0 double_val: 0.0)");
}

TEST(JsonTensorsTest, FloatOverflowAndUnderflow) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(absl::StrCat(R"({"instances": [)", std::numeric_limits<double>::max(), "]}"),
                   {{"default", DataType::kFloat}}, &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("default"),
              "dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: inf");
  ASSERT_TRUE(Fill(absl::StrCat(R"({"instances": [)", std::numeric_limits<double>::min(), "]}"),
                   {{"default", DataType::kFloat}}, &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("default"),
              "dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 0");
}

TEST(JsonTensorsTest, SignatureNameAndNonNullTerminatedBody) {
  PredictRequest req;
  JsonPredictFormat format;
  std::string seen_signature = "unset";
  auto dtypes =
      [&](const std::string& signature) -> absl::StatusOr<std::map<std::string, DataType>> {
    seen_signature = signature;
    return std::map<std::string, DataType>{{"default", DataType::kInt32}};
  };
  const std::string body = R"({"signature_name": "sig", "instances": [[1,2]]}garbage)";
  // Only the object is given: the body need not end in NUL.
  ASSERT_TRUE(FillPredictRequestFromJson(std::string_view(body.data(), body.size() - 7), dtypes,
                                         &req, &format)
                  .ok());
  EXPECT_EQ(seen_signature, "sig");
  EXPECT_EQ(req.model_spec().signature_name(), "sig");
  ExpectProto(req.inputs().at("default"),
              "dtype: DT_INT32 tensor_shape { dim { size: 1 } dim { size: 2 } } int_val: 1 "
              "int_val: 2");
}

TEST(JsonTensorsTest, Base64Strings) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(R"({"instances": [ { "b64" : "aGVsbG8=" }, { "b64": "d29ybGQ=" } ]})",
                   {{"default", DataType::kString}}, &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("default"),
              R"(dtype: DT_STRING tensor_shape { dim { size: 2 } }
                 string_val: "hello" string_val: "world")");
  ASSERT_TRUE(Fill(R"({"instances": [ [{ "b64" : "aGVsbG8=" }], [{ "b64": "d29ybGQ=" }] ]})",
                   {{"default", DataType::kString}}, &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("default"),
              R"(dtype: DT_STRING tensor_shape { dim { size: 2 } dim { size: 1 } }
                 string_val: "hello" string_val: "world")");
  ASSERT_TRUE(
      Fill(R"({"instances": [{"default": [ [{ "b64" : "aGVsbG8=" }], [{ "b64": "d29ybGQ=" }] ]}]})",
           {{"default", DataType::kString}}, &req, &format)
          .ok());
  ExpectProto(req.inputs().at("default"),
              R"(dtype: DT_STRING tensor_shape { dim { size: 1 } dim { size: 2 } dim { size: 1 } }
                 string_val: "hello" string_val: "world")");
  absl::Status status =
      Fill(R"({"instances": [{"b64": "!!!"}]})", {{"default", DataType::kString}}, &req, &format);
  EXPECT_THAT(std::string(status.message()), HasSubstr("Unable to base64 decode"));
}

TEST(JsonTensorsTest, MultipleNamedTensors) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(R"({
      "instances": [
        {"int_tensor": [[1,2],[3,4],[5,6]], "str_tensor": ["foo", "bar"],
         "float_tensor": [1.0], "double_tensor": [1.0],
         "int64_tensor": [123], "uint32_tensor": [0], "uint64_tensor": [42]},
        {"int_tensor": [[7,8],[9,0],[1,2]], "str_tensor": ["baz", "bat"],
         "float_tensor": [2.0], "double_tensor": [2.0],
         "int64_tensor": [456], "uint32_tensor": [4294967295],
         "uint64_tensor": [18446744073709551615]}]})",
                   {{"int_tensor", DataType::kInt32},
                    {"str_tensor", DataType::kString},
                    {"float_tensor", DataType::kFloat},
                    {"double_tensor", DataType::kDouble},
                    {"int64_tensor", DataType::kInt64},
                    {"uint32_tensor", DataType::kUInt32},
                    {"uint64_tensor", DataType::kUInt64}},
                   &req, &format)
                  .ok());
  ASSERT_EQ(req.inputs().size(), 7u);
  ExpectProto(req.inputs().at("int_tensor"),
              R"(dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 3 } dim { size: 2 } }
                 int_val: 1 int_val: 2 int_val: 3 int_val: 4 int_val: 5 int_val: 6
                 int_val: 7 int_val: 8 int_val: 9 int_val: 0 int_val: 1 int_val: 2)");
  ExpectProto(req.inputs().at("str_tensor"),
              R"(dtype: DT_STRING tensor_shape { dim { size: 2 } dim { size: 2 } }
                 string_val: "foo" string_val: "bar" string_val: "baz" string_val: "bat")");
  ExpectProto(req.inputs().at("uint32_tensor"),
              R"(dtype: DT_UINT32 tensor_shape { dim { size: 2 } dim { size: 1 } }
                 uint32_val: 0 uint32_val: 4294967295)");
  ExpectProto(req.inputs().at("uint64_tensor"),
              R"(dtype: DT_UINT64 tensor_shape { dim { size: 2 } dim { size: 1 } }
                 uint64_val: 42 uint64_val: 18446744073709551615)");
}

TEST(JsonTensorsTest, ColumnarFormat) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(R"({"inputs": {"int_tensor": [[[1,2],[3,4],[5,6]]]}})",
                   {{"int_tensor", DataType::kInt32}}, &req, &format)
                  .ok());
  EXPECT_EQ(format, JsonPredictFormat::kColumnar);
  const std::string expected = R"(
    dtype: DT_INT32 tensor_shape { dim { size: 1 } dim { size: 3 } dim { size: 2 } }
    int_val: 1 int_val: 2 int_val: 3 int_val: 4 int_val: 5 int_val: 6)";
  ExpectProto(req.inputs().at("int_tensor"), expected);
  ASSERT_TRUE(Fill(R"({"inputs": [[[1,2],[3,4],[5,6]]]})", {{"int_tensor", DataType::kInt32}}, &req,
                   &format)
                  .ok());
  ExpectProto(req.inputs().at("int_tensor"), expected);

  ASSERT_TRUE(Fill(R"({"inputs": {"int_tensor": [[[1,2],[3,4],[5,6]]],
                                  "str_tensor": ["foo", "bar"],
                                  "bin_tensor": { "b64" : "aGVsbG8=" }}})",
                   {{"int_tensor", DataType::kInt32},
                    {"str_tensor", DataType::kString},
                    {"bin_tensor", DataType::kString}},
                   &req, &format)
                  .ok());
  ExpectProto(req.inputs().at("int_tensor"), expected);
  ExpectProto(req.inputs().at("str_tensor"),
              R"(dtype: DT_STRING tensor_shape { dim { size: 2 } }
                 string_val: "foo" string_val: "bar")");
  ExpectProto(req.inputs().at("bin_tensor"),
              R"(dtype: DT_STRING tensor_shape {} string_val: "hello")");
}

TEST(JsonTensorsTest, SingleUnnamedTensorErrors) {
  PredictRequest req;
  JsonPredictFormat format;
  const std::map<std::string, DataType> dtypes = {{"default", DataType::kInt32}};
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {"", "JSON Parse error: The document is empty"},
      {"{", "JSON Parse error: Missing a name for object member. at offset: 1"},
      {"[1]", "JSON Value: [1] Is not object"},
      {R"({"signature_name": 5, "instances": [[1,2],[3,4],[5,6,7]]})", "must be a string value"},
      {R"({"instances": [[1,2]], "inputs": [[1,2]]})", "Not formatted correctly"},
      {R"({"instances": [[1,2],[3,4],[5,6,7]]})", "Expecting tensor size: 2 but got: 3"},
      {R"({"instances": [[1,2],[3,4],[[5,6]]]})", "Expecting shape [2] but got: [1,2]"},
      {R"({"instances": [1, [1]]})", "Expecting shape [] but got: [1]"},
      {R"({"instances": [[1,2],["a", "b"]]})",
       "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: JSON Value: "
       "\"a\" Type: String is not of expected type: int32"},
      {R"({"instances": [1.5]})", "Type: Number is not of expected type: int32"},
      {R"({"instances": []})", "No values in 'instances' array"},
      {R"({"instances": 1})", "Expecting 'instances' to be an list/array"},
      {R"({"foo": 1})", "Missing 'inputs' or 'instances' key"},
      {R"({"instances": [[[1]], [[1, 2]]]})", "Expecting tensor size: 1 but got: 2"},
      {R"({"inputs": [[1, 2], [3]]})", "Encountered list at unexpected size: 1 at level: 1"},
      {R"({"inputs": [[1, 2], 3]})", "found at incorrect level: 2 in the JSON DOM"},
  };
  for (const Case& c : cases) {
    absl::Status status = Fill(c.json, dtypes, &req, &format);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << c.json << ": " << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.json;
  }
}

TEST(JsonTensorsTest, MultipleNamedTensorErrors) {
  PredictRequest req;
  JsonPredictFormat format;
  const std::map<std::string, DataType> dtypes = {{"int_tensor", DataType::kInt32},
                                                  {"str_tensor", DataType::kString}};
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"instances": [{"int_tensor": [[1,2],[3,4]], "str_tensor": ["foo"]},
                         {"int_tensor": [[1,2]], "str_tensor": ["bar"]}]})",
       "Expecting tensor size"},
      {R"({"instances": [{"int_tensor": [1], "str_tensor": ["foo"]},
                         {"int_tensor": [1]}]})",
       "keys must be equal to: int_tensor,str_tensor"},
      {R"({"instances": [{"int_tensor": [1], "str_tensor": ["foo"], "x": [1]}]})",
       "does not have named input: x"},
      {R"({"instances": [[1], [2]]})", "instances is a plain list, but expecting list of objects"},
      {R"({"instances": [{"int_tensor": [1], "str_tensor": ["foo"]}, [1]]})",
       "Expecting object but got list at item 1 of input list"},
      {R"({"inputs": [1, 2]})", "inputs is a plain value/list, but expecting an object"},
      {R"({"inputs": {"int_tensor": [1]}})", "Missing named input: str_tensor in 'inputs' object."},
  };
  for (const Case& c : cases) {
    absl::Status status = Fill(c.json, dtypes, &req, &format);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << c.json << ": " << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.json;
  }
}

TEST(JsonTensorsTest, DtypesJsonCannotCarry) {
  PredictRequest req;
  JsonPredictFormat format;
  absl::Status status = Fill(R"({"inputs": [1.0]})", {{"x", DataType::kHalf}}, &req, &format);
  EXPECT_TRUE(absl::IsUnimplemented(status)) << status;
  EXPECT_EQ(status.message(), "Conversion of JSON Value: 1.0 to type: half");
  // Row items wrap the error, as TF Serving does.
  status = Fill(R"({"instances": [1.0]})", {{"x", DataType::kHalf}}, &req, &format);
  EXPECT_EQ(status.message(),
            "Failed to process element: 0 of 'instances' list. Error: UNIMPLEMENTED: Conversion "
            "of JSON Value: 1.0 to type: half");
}

TEST(JsonTensorsTest, SignatureLookupErrorsPassThrough) {
  PredictRequest req;
  JsonPredictFormat format;
  auto dtypes = [](const std::string&) -> absl::StatusOr<std::map<std::string, DataType>> {
    return absl::InvalidArgumentError("Serving signature name: \"x\" not found in signature def");
  };
  absl::Status status = FillPredictRequestFromJson(R"({"signature_name": "x", "instances": [1]})",
                                                   dtypes, &req, &format);
  EXPECT_EQ(status.message(), "Serving signature name: \"x\" not found in signature def");
  status = Fill(R"({"instances": [1]})", {}, &req, &format);
  EXPECT_EQ(status.message(), "Failed to get input map for signature: DEFAULT");
}

TEST(JsonTensorsTest, ResponseSingleTensor) {
  const NamedTensors tensors = Tensors({{"int_tensor", R"(
      dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 3 } dim { size: 2 } }
      int_val: 1 int_val: 2 int_val: 3 int_val: 4 int_val: 5 int_val: 6
      int_val: 7 int_val: 8 int_val: 9 int_val: 0 int_val: 1 int_val: 2)"}});
  absl::StatusOr<std::string> json = MakeJsonFromTensors(tensors, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"predictions": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]]})");
  json = MakeJsonFromTensors(tensors, JsonPredictFormat::kColumnar);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"outputs": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]]})");
}

TEST(JsonTensorsTest, ResponseLayoutIsTfServings) {
  // TF Serving's PrettyWriter layout, byte for byte (what half_plus_two
  // answers: curl prints this).
  const NamedTensors tensors =
      Tensors({{"y",
                "dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 2.5 float_val: 3 "
                "float_val: 4.5"}});
  absl::StatusOr<std::string> json = MakeJsonFromTensors(tensors, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(*json, "{\n    \"predictions\": [2.5, 3.0, 4.5\n    ]\n}");
}

TEST(JsonTensorsTest, ResponseBytesAndNonUtf8Strings) {
  const NamedTensors tensors = Tensors({{"str_tensor_bytes", R"(
      dtype: DT_STRING tensor_shape { dim { size: 2 } dim { size: 2 } }
      string_val: "hello" string_val: "world" string_val: "tf" string_val: "serving")"}});
  absl::StatusOr<std::string> json = MakeJsonFromTensors(tensors, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"predictions": [
      [{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}],
      [{"b64": "dGY="}, {"b64": "c2VydmluZw=="}]]})");

  const NamedTensors text = Tensors({{"s", R"(
      dtype: DT_STRING tensor_shape { dim { size: 3 } }
      string_val: "caf\303\251" string_val: "\377\376" string_val: "\300\200")"}});
  json = MakeJsonFromTensors(text, JsonPredictFormat::kColumnar);
  ASSERT_TRUE(json.ok()) << json.status();
  // Valid UTF-8 stays text; bytes that are not (and an overlong NUL) go as b64.
  ExpectJson(*json, "{\"outputs\": [\"caf\xc3\xa9\", {\"b64\": \"//4=\"}, {\"b64\": \"wIA=\"}]}");
}

TEST(JsonTensorsTest, ResponseFloatsAsTfServingPrintsThem) {
  const NamedTensors tensors = Tensors({{"float_tensor", R"(
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } }
      float_val: 9000000 float_val: 999999 float_val: 0.50000
      float_val: .0003 float_val: .00003 float_val: 555557.5)"}});
  absl::StatusOr<std::string> json = MakeJsonFromTensors(tensors, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("[9e+06, 999999.0, 0.5]"));
  EXPECT_THAT(*json, HasSubstr("[0.0003, 3e-05, 555557.5]"));

  const NamedTensors special = Tensors({{"float_tensor", R"(
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
      float_val: NaN float_val: Infinity float_val: 3 float_val: -Infinity)"}});
  json = MakeJsonFromTensors(special, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("[NaN, Infinity]"));
  EXPECT_THAT(*json, HasSubstr("[3.0, -Infinity]"));

  // 0.1f does not round trip in six digits as a double would; a float does.
  const NamedTensors precise = Tensors({{"d", R"(
      dtype: DT_DOUBLE tensor_shape { dim { size: 2 } }
      double_val: 0.1 double_val: 0.123456789)"},
                                        {"f", R"(
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0.1 float_val: 1.2345678)"}});
  json = MakeJsonFromTensors(precise, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr(R"("d": 0.1,)"));
  EXPECT_THAT(*json, HasSubstr(R"("d": 0.123456789,)"));
  EXPECT_THAT(*json, HasSubstr(R"("f": 0.1)"));
  EXPECT_THAT(*json, HasSubstr(R"("f": 1.23456776)"));
}

TEST(JsonTensorsTest, ResponseMultipleNamedTensors) {
  const NamedTensors tensors = Tensors({
      {"int_tensor", R"(dtype: DT_INT32
          tensor_shape { dim { size: 2 } dim { size: 3 } dim { size: 2 } }
          int_val: 1 int_val: 2 int_val: 3 int_val: 4 int_val: 5 int_val: 6
          int_val: 7 int_val: 8 int_val: 9 int_val: 0 int_val: 1 int_val: 2)"},
      {"str_tensor", R"(dtype: DT_STRING tensor_shape { dim { size: 2 } dim { size: 2 } }
          string_val: "foo" string_val: "bar" string_val: "baz" string_val: "bat")"},
      {"float_tensor", R"(dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 1 } }
          float_val: 1.0 float_val: 2.0)"},
      {"double_scalar_tensor", R"(dtype: DT_DOUBLE tensor_shape { dim { size: 2 } }
          double_val: 8.0 double_val: 9.0)"},
      {"str_tensor_bytes", R"(dtype: DT_STRING tensor_shape { dim { size: 2 } dim { size: 2 } }
          string_val: "hello" string_val: "world" string_val: "tf" string_val: "serving")"},
  });
  absl::StatusOr<std::string> json = MakeJsonFromTensors(tensors, JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"predictions": [
      {"double_scalar_tensor": 8.0, "float_tensor": [1.0], "int_tensor": [[1, 2], [3, 4], [5, 6]],
       "str_tensor": ["foo", "bar"],
       "str_tensor_bytes": [ {"b64": "aGVsbG8="}, {"b64": "d29ybGQ="} ]},
      {"double_scalar_tensor": 9.0, "float_tensor": [2.0], "int_tensor": [[7, 8], [9, 0], [1, 2]],
       "str_tensor": ["baz", "bat"],
       "str_tensor_bytes": [ {"b64": "dGY="}, {"b64": "c2VydmluZw=="} ]}]})");
  json = MakeJsonFromTensors(tensors, JsonPredictFormat::kColumnar);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"outputs": {
      "double_scalar_tensor": [8.0, 9.0], "float_tensor": [[1.0], [2.0]],
      "int_tensor": [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 0], [1, 2]]],
      "str_tensor": [["foo", "bar"], ["baz", "bat"]],
      "str_tensor_bytes": [[{"b64": "aGVsbG8="}, {"b64": "d29ybGQ="}],
                           [{"b64": "dGY="}, {"b64": "c2VydmluZw=="}]]}})");
}

TEST(JsonTensorsTest, ResponseErrors) {
  absl::StatusOr<std::string> json = MakeJsonFromTensors({}, JsonPredictFormat::kRow);
  EXPECT_THAT(std::string(json.status().message()), HasSubstr("empty tensor map"));
  json = MakeJsonFromTensors(
      Tensors({{"tensor",
                "dtype: DT_COMPLEX64 tensor_shape { dim { size: 1 } } scomplex_val: 1 "
                "scomplex_val: 2"}}),
      JsonPredictFormat::kRow);
  EXPECT_THAT(std::string(json.status().message()), HasSubstr("tensor type: complex64"));
  json = MakeJsonFromTensors(Tensors({{"tensor", "dtype: DT_INT32 int_val: 1"}}),
                             JsonPredictFormat::kRow);
  EXPECT_THAT(std::string(json.status().message()), HasSubstr("no shape information"));
  // Columnar answers scalars as they are.
  json = MakeJsonFromTensors(Tensors({{"tensor", "dtype: DT_INT32 int_val: 1"}}),
                             JsonPredictFormat::kColumnar);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"outputs": 1})");
  json = MakeJsonFromTensors(
      Tensors({{"a", "dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2"},
               {"b", "dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1"}}),
      JsonPredictFormat::kRow);
  EXPECT_THAT(std::string(json.status().message()),
              HasSubstr("Tensor name: b has inconsistent batch size: 1 expecting: 2"));
}

TEST(JsonTensorsTest, ZeroBatchOutputs) {
  absl::StatusOr<std::string> json = MakeJsonFromTensors(
      Tensors({{"a", "dtype: DT_INT32 tensor_shape { dim { size: 0 } dim { size: 2 } }"}}),
      JsonPredictFormat::kRow);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"predictions": []})");
}

template <typename Request>
absl::Status FillRequest(const std::string& json, Request* request);
template <>
absl::Status FillRequest(const std::string& json, ClassificationRequest* request) {
  return FillClassificationRequestFromJson(json, request);
}
template <>
absl::Status FillRequest(const std::string& json, RegressionRequest* request) {
  return FillRegressionRequestFromJson(json, request);
}

template <typename Request>
class ClassifyRegressRequestTest : public ::testing::Test {};
using RequestTypes = ::testing::Types<ClassificationRequest, RegressionRequest>;
TYPED_TEST_SUITE(ClassifyRegressRequestTest, RequestTypes);

TYPED_TEST(ClassifyRegressRequestTest, RequestNoContext) {
  TypeParam req;
  ASSERT_TRUE(FillRequest(R"({"examples": [
      {"names": [ "foo", "bar" ], "ratings": [ 8.0, 9.0 ], "age": 20},
      {"names": [ "baz" ], "ratings": 6.0}]})",
                          &req)
                  .ok());
  TypeParam expected;
  ASSERT_TRUE(TextFormat::ParseFromString(R"(
    input { example_list {
      examples { features {
        feature { key: "names" value { bytes_list { value: "foo" value: "bar" } } }
        feature { key: "ratings" value { float_list { value: 8.0 value: 9.0 } } }
        feature { key: "age" value { int64_list { value: 20 } } } } }
      examples { features {
        feature { key: "names" value { bytes_list { value: "baz" } } }
        feature { key: "ratings" value { float_list { value: 6.0 } } } } } } })",
                                          &expected));
  EXPECT_TRUE(MessageDifferencer::ApproximatelyEquals(req, expected)) << req.DebugString();
}

TYPED_TEST(ClassifyRegressRequestTest, RequestWithContextAndSignature) {
  TypeParam req;
  ASSERT_TRUE(FillRequest(R"({
      "signature_name": "custom_signture",
      "context": {"query": "pizza", "location": [ "sfo" ]},
      "examples": [
        {"names": [ "foo", "bar" ], "ratings": [ 8.0, 9.0, NaN, Infinity ], "age": 20},
        {"names": [ "baz", { "b64": "aGVsbG8=" } ], "ratings": 6.0,
         "intboolmix": [ 1, true, false ]},
        {"names": "bar", "ratings": -Infinity}]})",
                          &req)
                  .ok());
  EXPECT_EQ(req.model_spec().signature_name(), "custom_signture");
  const auto& list = req.input().example_list_with_context();
  ASSERT_EQ(list.examples_size(), 3);
  EXPECT_EQ(list.context().features().feature().at("query").bytes_list().value(0), "pizza");
  EXPECT_EQ(list.context().features().feature().at("location").bytes_list().value(0), "sfo");
  const auto& ratings = list.examples(0).features().feature().at("ratings").float_list();
  ASSERT_EQ(ratings.value_size(), 4);
  EXPECT_TRUE(std::isnan(ratings.value(2)));
  EXPECT_EQ(ratings.value(3), std::numeric_limits<float>::infinity());
  const auto& second = list.examples(1).features().feature();
  EXPECT_EQ(second.at("names").bytes_list().value(1), "hello");
  ASSERT_EQ(second.at("intboolmix").int64_list().value_size(), 3);
  EXPECT_EQ(second.at("intboolmix").int64_list().value(1), 1);
  EXPECT_EQ(second.at("intboolmix").int64_list().value(2), 0);
  EXPECT_EQ(list.examples(2).features().feature().at("ratings").float_list().value(0),
            -std::numeric_limits<float>::infinity());
}

TYPED_TEST(ClassifyRegressRequestTest, Errors) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {"", "document is empty"},
      {R"({"signature_name": [], "examples": [{}]})", "must be a string value"},
      {R"({"context": [1], "examples": [{}]})", "Example must be JSON object but got JSON Array"},
      {R"({"foo": 1})", "When method is classify, key 'examples' is expected and was not found"},
      {R"({"examples": {}})", "Expecting 'examples' value to be an list/array"},
      {R"({"examples": []})", "'examples' value is an empty array"},
      {R"({"examples": [{"names": [1, "a"]}]})",
       "Unexpected element type in feature: names expecting type: int64"},
      {R"({"examples": [{"names": [1.5, 2]}]})",
       "Unexpected element type in feature: names expecting type: float"},
      {R"({"examples": [{"names": [[1]]}]})",
       "Feature: names has element with unexpected JSON type: Array"},
      {R"({"examples": [{"names": null}]})",
       "Feature: names has element with unexpected JSON type: Null"},
      {R"({"examples": [{"names": {"a": 1}}]})",
       "Feature: names has element with unexpected JSON type: Object"},
      {R"({"examples": [{"n": 18446744073709551615}]})",
       "Feature: n has uint64_t element. Only int64_t is supported."},
  };
  for (const Case& c : cases) {
    TypeParam req;
    absl::Status status = FillRequest(c.json, &req);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << c.json << ": " << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.json;
  }
}

TEST(JsonTensorsTest, ClassificationAndRegressionResults) {
  ClassificationResult classification;
  ASSERT_TRUE(TextFormat::ParseFromString(R"(
    classifications {
      classes { label: "car" score: 0.2 } classes { label: "bike" score: 0.7 }
      classes { label: "bus" score: 0.1 } }
    classifications {
      classes { label: "car" score: 0.7 } classes { label: "bike" score: 0.1 }
      classes { label: "bus" score: 0.2 } })",
                                          &classification));
  absl::StatusOr<std::string> json = MakeJsonFromClassificationResult(classification);
  ASSERT_TRUE(json.ok()) << json.status();
  ExpectJson(*json, R"({"results": [
      [ ["car", 0.2], ["bike", 0.7], ["bus", 0.1] ],
      [ ["car", 0.7], ["bike", 0.1], ["bus", 0.2] ]]})");

  RegressionResult regression;
  ASSERT_TRUE(TextFormat::ParseFromString(R"(
    regressions { value: 0.2 } regressions { value: Infinity } regressions { value: 1.0 }
    regressions { value: -Infinity } regressions { value: NaN })",
                                          &regression));
  json = MakeJsonFromRegressionResult(regression);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("[0.2, Infinity, 1.0, -Infinity, NaN]"));

  EXPECT_THAT(std::string(MakeJsonFromClassificationResult({}).status().message()),
              HasSubstr("empty ClassificationResults"));
  EXPECT_THAT(std::string(MakeJsonFromRegressionResult({}).status().message()),
              HasSubstr("empty RegressionResults"));
}

TEST(JsonTensorsTest, StatusBodies) {
  EXPECT_EQ(MakeJsonFromStatus(absl::OkStatus()), "");
  const std::string json = MakeJsonFromStatus(absl::InvalidArgumentError("bad \"x\""));
  ExpectJson(json, R"({"error": "bad \"x\""})");
}

TEST(JsonTensorsTest, TfDataTypeStrings) {
  EXPECT_EQ(TfDataTypeString(DataType::kFloat), "float");
  EXPECT_EQ(TfDataTypeString(DataType::kUInt8), "uint8");
  EXPECT_EQ(TfDataTypeString(DataType::kBFloat16), "bfloat16");
}

}  // namespace
}  // namespace smrt::serve
