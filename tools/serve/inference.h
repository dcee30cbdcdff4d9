// TF Serving's Predict, Classify, Regress, MultiInference and
// GetModelMetadata on a Servable, shared by the gRPC and REST front ends and
// the warm-up: the request's checks and error texts are TF Serving's.
#ifndef SMRT_TOOLS_SERVE_INFERENCE_H_
#define SMRT_TOOLS_SERVE_INFERENCE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "serve/servable.h"
#include "smrt/model.h"
#include "smrt/serving/classification.pb.h"
#include "smrt/serving/get_model_metadata.pb.h"
#include "smrt/serving/inference.pb.h"
#include "smrt/serving/input.pb.h"
#include "smrt/serving/predict.pb.h"
#include "smrt/serving/regression.pb.h"

namespace smrt::serve {

// "" -> "serving_default".
std::string SignatureOrDefault(std::string_view signature);

// TF Serving's --enable_signature_method_name_check (off by default, as
// there): when on, Predict refuses signatures whose method_name is not
// predict, classify or regress, and Classify / Regress those that are not
// tensorflow/serving/classify or /regress. Off, classify and regress accept
// any signature of the right form (TF2 exports name every signature
// tensorflow/serving/predict). Process-wide; set it before serving.
void SetSignatureMethodNameCheck(bool enabled);
bool SignatureMethodNameCheck();

// Runs `signature` on named inputs; with `output_filter` only those outputs
// (each must exist). InvalidArgument as TF Serving words it for an unknown or
// missing input or output alias.
absl::StatusOr<smrt::NamedTensors> Predict(const Servable& servable, std::string_view signature,
                                           const smrt::NamedTensors& inputs,
                                           const std::vector<std::string>& output_filter);

// Predict on a PredictRequest (the gRPC API and the warm-up): decodes its
// TensorProtos ("tensor parsing error: x" when one does not decode), runs
// Predict and fills `response` as TF Serving does: outputs in the typed value
// fields (float_val...; Tensor::AsProtoField, not tensor_content) and
// model_spec with the name, signature and the servable's version.
absl::Status PredictRequestOn(const Servable& servable,
                              const tensorflow::serving::PredictRequest& request,
                              tensorflow::serving::PredictResponse* response);

// A classify signature (method tensorflow/serving/classify: a string input
// of serialized tf.Examples, "classes" and/or "scores" outputs) on the
// input's examples (merged with the context when it has one).
absl::StatusOr<tensorflow::serving::ClassificationResult> Classify(
    const Servable& servable, std::string_view signature, const tensorflow::serving::Input& input);

// A regress signature (tensorflow/serving/regress: "outputs", one float per
// example).
absl::StatusOr<tensorflow::serving::RegressionResult> Regress(
    const Servable& servable, std::string_view signature, const tensorflow::serving::Input& input);

// Each task (classify or regress, one signature each) on the same input.
absl::StatusOr<tensorflow::serving::MultiInferenceResponse> MultiInference(
    const Servable& servable, const tensorflow::serving::MultiInferenceRequest& request);

// The servable's signatures as SignatureDefs (GetModelMetadata's
// "signature_def" field), read from its saved_model.pb.
absl::StatusOr<tensorflow::serving::SignatureDefMap> SignatureDefs(const Servable& servable);

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_INFERENCE_H_
