// TF Serving's REST JSON formats (tensorflow_serving/util/json_tensor.cc), with
// its error texts: predict requests in the row ("instances") and columnar
// ("inputs") formats into TensorProtos, outputs back into "predictions" /
// "outputs", classify and regress requests into tf.Examples and their
// results into "results", and errors into {"error": "..."}. Bodies are parsed
// with RapidJSON as TF Serving does, so numbers, NaN/Infinity and nesting
// limits behave as there.
#ifndef SMRT_TOOLS_SERVE_JSON_TENSORS_H_
#define SMRT_TOOLS_SERVE_JSON_TENSORS_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "smrt/dtype.h"
#include "smrt/model.h"
#include "smrt/serving/classification.pb.h"
#include "smrt/serving/predict.pb.h"
#include "smrt/serving/regression.pb.h"

namespace smrt::serve {

// Which key a predict request used; the response answers in the same format.
enum class JsonPredictFormat { kInvalid, kRow, kColumnar };

// A signature's inputs by name with their dtypes: what a request's values
// are converted to. Called with the request's "signature_name" ("" when it
// has none); its error is the request's.
using InputDtypesFn =
    std::function<absl::StatusOr<std::map<std::string, smrt::DataType>>(const std::string&)>;

// TensorFlow's DataTypeString: "float", "int32", "string"...
std::string TfDataTypeString(smrt::DataType dtype);

// Fills request->model_spec().signature_name() and request->inputs() from a
// predict body:
//   {"signature_name": "...", "instances": [<value>|<list>|<object>, ...]}
//   {"signature_name": "...", "inputs": <value>|<list>|{"name": <list>, ...}}
// Strings are UTF-8, or {"b64": "..."} for bytes. InvalidArgument with TF
// Serving's message for malformed JSON, a missing key, ragged lists, values
// of the wrong JSON type; Unimplemented for dtypes JSON cannot carry.
absl::Status FillPredictRequestFromJson(std::string_view json, const InputDtypesFn& input_dtypes,
                                        tensorflow::serving::PredictRequest* request,
                                        JsonPredictFormat* format);

// A predict response body: kRow gives {"predictions": [...]} (one item per
// batch element; objects keyed by output name when there are several),
// kColumnar {"outputs": ...}. Floats print as TF Serving prints them
// (shortest round trip, "2.0" not "2", NaN, Infinity, -Infinity). A string
// output is {"b64": ...} when its name ends in "_bytes", as in TF Serving,
// and also when it is not valid UTF-8 (TF Serving would write the raw bytes,
// which is not JSON). InvalidArgument when row outputs lack a batch
// dimension or disagree on its size.
absl::StatusOr<std::string> MakeJsonFromTensors(const smrt::NamedTensors& outputs,
                                                JsonPredictFormat format);

// Classify/regress bodies:
//   {"signature_name": "...", "context": {<feature>: <value>|<list>, ...},
//    "examples": [{<feature>: <value>|<list>, ...}, ...]}
// into request->input() (an ExampleList, or an ExampleListWithContext when
// there is a context): integers and booleans become int64_list, numbers with
// a fraction or exponent float_list, strings and {"b64": ...} bytes_list.
absl::Status FillClassificationRequestFromJson(std::string_view json,
                                               tensorflow::serving::ClassificationRequest* request);
absl::Status FillRegressionRequestFromJson(std::string_view json,
                                           tensorflow::serving::RegressionRequest* request);

// {"results": [[["label", score], ...], ...]}.
absl::StatusOr<std::string> MakeJsonFromClassificationResult(
    const tensorflow::serving::ClassificationResult& result);
// {"results": [value, ...]}.
absl::StatusOr<std::string> MakeJsonFromRegressionResult(
    const tensorflow::serving::RegressionResult& result);

// {"error": "<status message>"}; "" for OK.
std::string MakeJsonFromStatus(const absl::Status& status);

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_JSON_TENSORS_H_
