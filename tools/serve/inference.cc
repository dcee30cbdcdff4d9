#include "serve/inference.h"

#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/cli_support.h"

namespace smrt::serve {
namespace {

using tensorflow::serving::ClassificationResult;
using tensorflow::serving::Input;
using tensorflow::serving::RegressionResult;
using tensorflow::serving::SignatureDefMap;

constexpr char kDefaultSignature[] = "serving_default";
constexpr char kPredictMethod[] = "tensorflow/serving/predict";
constexpr char kClassifyMethod[] = "tensorflow/serving/classify";
constexpr char kRegressMethod[] = "tensorflow/serving/regress";
constexpr char kClassifyInputs[] = "inputs";
constexpr char kClassifyClasses[] = "classes";
constexpr char kClassifyScores[] = "scores";
constexpr char kRegressInputs[] = "inputs";
constexpr char kRegressOutputs[] = "outputs";

std::atomic<bool> method_name_check{false};

// TensorShape::DebugString: "[2,3]", "<unknown>".
std::string ShapeDebugString(const Tensor& t) {
  return absl::StrCat("[", absl::StrJoin(t.shape(), ","), "]");
}

template <typename Map>
std::set<std::string> Keys(const Map& map) {
  std::set<std::string> keys;
  for (const auto& entry : map) keys.insert(entry.first);
  return keys;
}

std::set<std::string> SpecNames(const std::vector<TensorSpec>& specs) {
  std::set<std::string> names;
  for (const TensorSpec& spec : specs) names.insert(spec.name);
  return names;
}

std::set<std::string> Difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  for (const std::string& x : a) {
    if (b.count(x) == 0) out.insert(x);
  }
  return out;
}

// The SignatureDef as TF Serving's messages print it (signature.DebugString()).
std::string SignatureDebugString(const Servable& servable, const std::string& key) {
  absl::StatusOr<SignatureDefMap> defs = SignatureDefs(servable);
  if (!defs.ok()) return key;
  auto it = defs->signature_def().find(key);
  if (it == defs->signature_def().end()) return key;
  return it->second.DebugString();
}

// The examples of `input` as one string tensor of serialized tf.Examples;
// with a context, each is the context's bytes followed by the example's (a
// proto merge: the example's features win where both have one), as TF
// Serving builds them.
absl::StatusOr<Tensor> SerializedExamples(const Input& input) {
  int64_t n = 0;
  if (input.has_example_list()) n = input.example_list().examples_size();
  if (input.has_example_list_with_context()) {
    n = input.example_list_with_context().examples_size();
  }
  if (n == 0) return absl::InvalidArgumentError("Input is empty.");
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {n});
  if (!t.ok()) return t.status();
  std::string* out = t->data<std::string>();
  if (input.has_example_list()) {
    for (int64_t i = 0; i < n; ++i) {
      input.example_list().examples(static_cast<int>(i)).SerializeToString(&out[i]);
    }
  } else {
    const auto& list = input.example_list_with_context();
    const std::string context = list.context().SerializeAsString();
    for (int64_t i = 0; i < n; ++i) {
      out[i] = context + list.examples(static_cast<int>(i)).SerializeAsString();
    }
  }
  return t;
}

// The signature of a classify / regress call, or TF Serving's error.
absl::StatusOr<const SignatureInfo*> FindSignature(const Servable& servable,
                                                   const std::string& key) {
  absl::StatusOr<const SignatureInfo*> sig = servable.model().signature(key);
  if (!sig.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("No signature was found with the name: ", key));
  }
  return sig;
}

absl::Status PreProcessClassification(const Servable& servable, const SignatureInfo& sig) {
  if (SignatureMethodNameCheck() && sig.method_name != kClassifyMethod) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected classification signature method_name to be ", kClassifyMethod,
                     ". Was: ", sig.method_name));
  }
  if (sig.inputs.size() != 1) return absl::InvalidArgumentError("Expected one input Tensor.");
  if (sig.outputs.size() != 1 && sig.outputs.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected one or two output Tensors, found ", sig.outputs.size()));
  }
  if (sig.inputs[0].name != kClassifyInputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("No classification inputs found in SignatureDef: ",
                     SignatureDebugString(servable, sig.key)));
  }
  const std::set<std::string> outputs = SpecNames(sig.outputs);
  if (outputs.count(kClassifyClasses) == 0 && outputs.count(kClassifyScores) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected classification signature outputs to contain at least one of \"",
                     kClassifyClasses, "\" or \"", kClassifyScores,
                     "\". Signature was: ", SignatureDebugString(servable, sig.key)));
  }
  return absl::OkStatus();
}

absl::Status PreProcessRegression(const Servable& servable, const SignatureInfo& sig) {
  if (SignatureMethodNameCheck() && sig.method_name != kRegressMethod) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected regression signature method_name to be ", kRegressMethod,
                     ". Was: ", sig.method_name));
  }
  if (sig.inputs.size() != 1) return absl::InvalidArgumentError("Expected one input Tensor.");
  if (sig.outputs.size() != 1) return absl::InvalidArgumentError("Expected one output Tensor.");
  if (sig.inputs[0].name != kRegressInputs) {
    return absl::InvalidArgumentError(absl::StrCat("No regression inputs found in SignatureDef: ",
                                                   SignatureDebugString(servable, sig.key)));
  }
  if (sig.outputs[0].name != kRegressOutputs) {
    return absl::InvalidArgumentError(absl::StrCat("No regression outputs found in SignatureDef: ",
                                                   SignatureDebugString(servable, sig.key)));
  }
  return absl::OkStatus();
}

absl::Status PostProcessClassification(const NamedTensors& outputs, int64_t num_examples,
                                       ClassificationResult* result) {
  auto classes_it = outputs.find(kClassifyClasses);
  auto scores_it = outputs.find(kClassifyScores);
  const Tensor* classes = classes_it == outputs.end() ? nullptr : &classes_it->second;
  const Tensor* scores = scores_it == outputs.end() ? nullptr : &scores_it->second;
  if (classes != nullptr) {
    if (classes->rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected Tensor shape: [batch_size num_classes] but got ", ShapeDebugString(*classes)));
    }
    if (classes->dtype() != DataType::kString) {
      return absl::InvalidArgumentError(absl::StrCat("Expected classes Tensor of DT_STRING. Got: ",
                                                     DataTypeName(classes->dtype())));
    }
    if (classes->dim(0) != num_examples) {
      return absl::InvalidArgumentError(absl::StrCat("Expected classes output batch size of ",
                                                     num_examples, ". Got: ", classes->dim(0)));
    }
  }
  if (scores != nullptr) {
    if (scores->rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected Tensor shape: [batch_size num_classes] but got ", ShapeDebugString(*scores)));
    }
    if (scores->dtype() != DataType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected scores Tensor of DT_FLOAT. Got: ", DataTypeName(scores->dtype())));
    }
    if (scores->dim(0) != num_examples) {
      return absl::InvalidArgumentError(absl::StrCat("Expected scores output batch size of ",
                                                     num_examples, ". Got: ", scores->dim(0)));
    }
  }
  int64_t num_classes = 0;
  if (classes != nullptr && scores != nullptr) {
    if (classes->dim(1) != scores->dim(1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensors class and score should match in dim_size(1). Got ", classes->dim(1),
                       " vs. ", scores->dim(1)));
    }
    num_classes = classes->dim(1);
  } else if (classes != nullptr) {
    num_classes = classes->dim(1);
  } else if (scores != nullptr) {
    num_classes = scores->dim(1);
  }
  for (int64_t i = 0; i < num_examples; ++i) {
    tensorflow::serving::Classifications* classifications = result->add_classifications();
    for (int64_t c = 0; c < num_classes; ++c) {
      tensorflow::serving::Class* cl = classifications->add_classes();
      if (classes != nullptr) cl->set_label(classes->data<std::string>()[i * num_classes + c]);
      if (scores != nullptr) cl->set_score(scores->data<float>()[i * num_classes + c]);
    }
  }
  return absl::OkStatus();
}

absl::Status PostProcessRegression(const NamedTensors& outputs, int64_t num_examples,
                                   RegressionResult* result) {
  auto it = outputs.find(kRegressOutputs);
  if (it == outputs.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not find output tensor '", kRegressOutputs, "'"));
  }
  const Tensor& out = it->second;
  if (!(out.rank() == 1 || (out.rank() == 2 && out.dim(1) == 1))) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected output Tensor shape to be either [batch_size] or ",
                     "[batch_size, 1] but got ", ShapeDebugString(out)));
  }
  if (num_examples != out.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input batch size did not match output batch size: ", num_examples, " vs. ", out.dim(0)));
  }
  if (out.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected output Tensor of DT_FLOAT.  Got: ", DataTypeName(out.dtype())));
  }
  if (out.num_elements() != num_examples) {
    return absl::InvalidArgumentError(absl::StrCat("Expected output batch size to be ",
                                                   num_examples, ".  Got: ", out.num_elements()));
  }
  for (int64_t i = 0; i < num_examples; ++i) {
    result->add_regressions()->set_value(out.data<float>()[i]);
  }
  return absl::OkStatus();
}

// Tensor::AsProtoField: the typed value fields TF Serving's Predict answers
// with (not tensor_content).
absl::Status TensorToProtoField(const Tensor& t, tfproto::TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(static_cast<tfproto::DataType>(t.dtype()));
  for (int64_t d : t.shape()) proto->mutable_tensor_shape()->add_dim()->set_size(d);
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DataType::kFloat:
      proto->mutable_float_val()->Add(t.data<float>(), t.data<float>() + n);
      break;
    case DataType::kDouble:
      proto->mutable_double_val()->Add(t.data<double>(), t.data<double>() + n);
      break;
    case DataType::kInt32:
      proto->mutable_int_val()->Add(t.data<int32_t>(), t.data<int32_t>() + n);
      break;
    case DataType::kInt16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int16_t>()[i]);
      break;
    case DataType::kInt8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int8_t>()[i]);
      break;
    case DataType::kUInt8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<uint8_t>()[i]);
      break;
    case DataType::kUInt16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<uint16_t>()[i]);
      break;
    case DataType::kHalf:
    case DataType::kBFloat16:
      for (int64_t i = 0; i < n; ++i) proto->add_half_val(t.data<uint16_t>()[i]);
      break;
    case DataType::kInt64:
      proto->mutable_int64_val()->Add(t.data<int64_t>(), t.data<int64_t>() + n);
      break;
    case DataType::kUInt32:
      proto->mutable_uint32_val()->Add(t.data<uint32_t>(), t.data<uint32_t>() + n);
      break;
    case DataType::kUInt64:
      proto->mutable_uint64_val()->Add(t.data<uint64_t>(), t.data<uint64_t>() + n);
      break;
    case DataType::kBool:
      for (int64_t i = 0; i < n; ++i) proto->add_bool_val(t.data<bool>()[i]);
      break;
    case DataType::kComplex64:
      proto->mutable_scomplex_val()->Add(t.data<float>(), t.data<float>() + 2 * n);
      break;
    case DataType::kComplex128:
      proto->mutable_dcomplex_val()->Add(t.data<double>(), t.data<double>() + 2 * n);
      break;
    case DataType::kString:
      for (int64_t i = 0; i < n; ++i) proto->add_string_val(t.data<std::string>()[i]);
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("cannot encode a ", DataTypeName(t.dtype()), " tensor"));
  }
  return absl::OkStatus();
}

void MakeModelSpec(const Servable& servable, const std::string& signature,
                   tensorflow::serving::ModelSpec* spec) {
  spec->Clear();
  spec->set_name(servable.name());
  spec->set_signature_name(signature);
  spec->mutable_version()->set_value(servable.version());
}

}  // namespace

std::string SignatureOrDefault(std::string_view signature) {
  return signature.empty() ? std::string(kDefaultSignature) : std::string(signature);
}

void SetSignatureMethodNameCheck(bool enabled) { method_name_check = enabled; }
bool SignatureMethodNameCheck() { return method_name_check; }

absl::StatusOr<NamedTensors> Predict(const Servable& servable, std::string_view signature,
                                     const NamedTensors& inputs,
                                     const std::vector<std::string>& output_filter) {
  const std::string key = SignatureOrDefault(signature);
  absl::StatusOr<const SignatureInfo*> found = servable.model().signature(key);
  if (!found.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("Serving signature key \"", key, "\" not found."));
  }
  const SignatureInfo& sig = **found;
  if (SignatureMethodNameCheck() && sig.method_name != kPredictMethod &&
      sig.method_name != kClassifyMethod && sig.method_name != kRegressMethod) {
    return absl::InternalError(
        absl::StrCat("Expected prediction signature method_name to be one of {", kPredictMethod,
                     ", ", kClassifyMethod, ", ", kRegressMethod, "}. Was: ", sig.method_name));
  }
  const std::set<std::string> request_inputs = Keys(inputs);
  const std::set<std::string> signature_inputs = SpecNames(sig.inputs);
  if (request_inputs.size() != signature_inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input size does not match signature: ", request_inputs.size(),
                     "!=", signature_inputs.size(), " len({", absl::StrJoin(request_inputs, ","),
                     "}) != len({", absl::StrJoin(signature_inputs, ","), "}). Sent extra: {",
                     absl::StrJoin(Difference(request_inputs, signature_inputs), ","),
                     "}. Missing but required: {",
                     absl::StrJoin(Difference(signature_inputs, request_inputs), ","), "}."));
  }
  for (const TensorSpec& spec : sig.inputs) {
    if (inputs.count(spec.name) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Signature input alias: ", spec.name, "(feed name: ", spec.tensor_name,
          ") not found in request and no default value provided. Inputs expected to be in the "
          "request {",
          absl::StrJoin(request_inputs, ","), "}, or default input alias set: "));
    }
  }
  const std::set<std::string> signature_outputs = SpecNames(sig.outputs);
  std::set<std::string> seen;
  for (const std::string& alias : output_filter) {
    if (signature_outputs.count(alias) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output tensor alias not found in signature: ", alias,
          " Outputs expected to be in the set {", absl::StrJoin(signature_outputs, ","), "}."));
    }
    if (!seen.insert(alias).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate output tensor alias: ", alias));
    }
  }
  absl::StatusOr<NamedTensors> outputs = servable.Run(key, inputs);
  if (!outputs.ok() || output_filter.empty()) return outputs;
  NamedTensors filtered;
  for (const std::string& alias : output_filter) {
    auto it = outputs->find(alias);
    if (it == outputs->end()) return absl::UnknownError("Predict internal error");
    filtered.emplace(alias, it->second);
  }
  return filtered;
}

absl::Status PredictRequestOn(const Servable& servable,
                              const tensorflow::serving::PredictRequest& request,
                              tensorflow::serving::PredictResponse* response) {
  NamedTensors inputs;
  for (const auto& [alias, proto] : request.inputs()) {
    absl::StatusOr<Tensor> t = loader::TensorFromProto(proto);
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor parsing error: ", alias, " (", t.status().message(), ")"));
    }
    inputs.emplace(alias, *std::move(t));
  }
  const std::vector<std::string> filter(request.output_filter().begin(),
                                        request.output_filter().end());
  const std::string key = SignatureOrDefault(request.model_spec().signature_name());
  absl::StatusOr<NamedTensors> outputs = Predict(servable, key, inputs, filter);
  if (!outputs.ok()) return outputs.status();
  response->Clear();
  MakeModelSpec(servable, key, response->mutable_model_spec());
  for (const auto& [alias, tensor] : *outputs) {
    if (auto s = TensorToProtoField(tensor, &(*response->mutable_outputs())[alias]); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ClassificationResult> Classify(const Servable& servable, std::string_view signature,
                                              const Input& input) {
  const std::string key = SignatureOrDefault(signature);
  absl::StatusOr<const SignatureInfo*> sig = FindSignature(servable, key);
  if (!sig.ok()) return sig.status();
  if (auto s = PreProcessClassification(servable, **sig); !s.ok()) return s;
  absl::StatusOr<Tensor> examples = SerializedExamples(input);
  if (!examples.ok()) return examples.status();
  const int64_t n = examples->dim(0);
  absl::StatusOr<NamedTensors> outputs = servable.Run(key, {{kClassifyInputs, *examples}});
  if (!outputs.ok()) return outputs.status();
  ClassificationResult result;
  if (auto s = PostProcessClassification(*outputs, n, &result); !s.ok()) return s;
  return result;
}

absl::StatusOr<RegressionResult> Regress(const Servable& servable, std::string_view signature,
                                         const Input& input) {
  const std::string key = SignatureOrDefault(signature);
  absl::StatusOr<const SignatureInfo*> sig = FindSignature(servable, key);
  if (!sig.ok()) return sig.status();
  if (auto s = PreProcessRegression(servable, **sig); !s.ok()) return s;
  absl::StatusOr<Tensor> examples = SerializedExamples(input);
  if (!examples.ok()) return examples.status();
  const int64_t n = examples->dim(0);
  absl::StatusOr<NamedTensors> outputs = servable.Run(key, {{kRegressInputs, *examples}});
  if (!outputs.ok()) return outputs.status();
  RegressionResult result;
  if (auto s = PostProcessRegression(*outputs, n, &result); !s.ok()) return s;
  return result;
}

absl::StatusOr<tensorflow::serving::MultiInferenceResponse> MultiInference(
    const Servable& servable, const tensorflow::serving::MultiInferenceRequest& request) {
  std::string model_name;
  std::set<std::string> signatures;
  for (const auto& task : request.tasks()) {
    if (task.model_spec().name().empty()) {
      return absl::InvalidArgumentError("Found ModelSpec with an empty model name.");
    }
    if (model_name.empty()) {
      model_name = task.model_spec().name();
    } else if (model_name != task.model_spec().name()) {
      return absl::InvalidArgumentError(
          "All ModelSpecs in a MultiInferenceRequest must access the same model name.");
    }
    const std::string key = SignatureOrDefault(task.model_spec().signature_name());
    if (!signatures.insert(key).second) {
      return absl::InvalidArgumentError(absl::StrCat("Duplicate evaluation of signature: ", key));
    }
    absl::StatusOr<const SignatureInfo*> sig = servable.model().signature(key);
    if (!sig.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Requested signature not found in model graph: ", key));
    }
    if (task.method_name() == kClassifyMethod) {
      if (auto s = PreProcessClassification(servable, **sig); !s.ok()) return s;
    } else if (task.method_name() == kRegressMethod) {
      if (auto s = PreProcessRegression(servable, **sig); !s.ok()) return s;
    } else {
      return absl::UnimplementedError(
          absl::StrCat("Unsupported signature method_name: ", task.method_name()));
    }
  }
  absl::StatusOr<Tensor> examples = SerializedExamples(request.input());
  if (!examples.ok()) return examples.status();
  const int64_t n = examples->dim(0);
  // TF Serving runs the tasks' outputs in one session call; smrt runs each
  // signature once, on the same examples.
  std::map<std::string, NamedTensors> outputs;
  for (const std::string& key : signatures) {
    absl::StatusOr<NamedTensors> out = servable.Run(key, {{"inputs", *examples}});
    if (!out.ok()) return out.status();
    outputs.emplace(key, *std::move(out));
  }
  tensorflow::serving::MultiInferenceResponse response;
  for (const auto& task : request.tasks()) {
    const std::string key = SignatureOrDefault(task.model_spec().signature_name());
    tensorflow::serving::InferenceResult* result = response.add_results();
    if (task.method_name() == kClassifyMethod) {
      if (auto s =
              PostProcessClassification(outputs[key], n, result->mutable_classification_result());
          !s.ok()) {
        return s;
      }
    } else {
      if (auto s = PostProcessRegression(outputs[key], n, result->mutable_regression_result());
          !s.ok()) {
        return s;
      }
    }
    MakeModelSpec(servable, key, result->mutable_model_spec());
    result->mutable_model_spec()->set_name(task.model_spec().name());
  }
  return response;
}

absl::StatusOr<SignatureDefMap> SignatureDefs(const Servable& servable) {
  if (servable.signature_defs() != nullptr) return *servable.signature_defs();
  absl::StatusOr<tfproto::SavedModel> saved_model = loader::ReadSavedModelProto(servable.dir());
  if (!saved_model.ok()) return saved_model.status();
  absl::StatusOr<const tfproto::MetaGraphDef*> meta_graph =
      loader::SelectMetaGraph(*saved_model, loader::ParseTagSet("serve"), servable.dir());
  if (!meta_graph.ok()) return meta_graph.status();
  SignatureDefMap defs;
  for (const auto& [key, def] : (*meta_graph)->signature_def()) {
    (*defs.mutable_signature_def())[key] = def;
  }
  return defs;
}

}  // namespace smrt::serve
