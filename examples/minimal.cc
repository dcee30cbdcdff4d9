// The shortest useful smrt program in C++: load a SavedModel, print its
// signatures, call serving_default and print its outputs.
//
//   minimal MODEL_DIR
//
// Float inputs are filled with the test pattern x[i] = ((i * 7919) % 1009) / 1008
// (unknown dims taken as 1), so the numbers can be checked against TensorFlow.
#include <cstdio>
#include <string>

#include "smrt/model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL_DIR\n", argv[0]);
    return 2;
  }
  absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  for (const std::string& key : (*model)->signature_keys()) {
    const smrt::SignatureInfo* sig = *(*model)->signature(key);
    std::printf("signature '%s' (%s)\n", key.c_str(), sig->method_name.c_str());
    for (const smrt::TensorSpec& in : sig->inputs) {
      std::printf("  input  %s: %s %s\n", in.name.c_str(),
                  std::string(smrt::DataTypeShortName(in.dtype)).c_str(), in.ShapeString().c_str());
    }
    for (const smrt::TensorSpec& out : sig->outputs) {
      std::printf("  output %s: %s %s\n", out.name.c_str(),
                  std::string(smrt::DataTypeShortName(out.dtype)).c_str(),
                  out.ShapeString().c_str());
    }
  }

  absl::StatusOr<const smrt::SignatureInfo*> sig = (*model)->signature("serving_default");
  if (!sig.ok()) {
    std::fprintf(stderr, "%s\n", sig.status().ToString().c_str());
    return 1;
  }
  smrt::NamedTensors inputs;
  for (const smrt::TensorSpec& spec : (*sig)->inputs) {
    if (spec.dtype != smrt::DataType::kFloat) {
      std::fprintf(stderr, "input '%s' is not float32; this example fills only float32 inputs\n",
                   spec.name.c_str());
      return 1;
    }
    smrt::Shape shape = spec.shape;
    for (int64_t& d : shape) d = d < 0 ? 1 : d;
    absl::StatusOr<smrt::Tensor> x = smrt::Tensor::Create(smrt::DataType::kFloat, shape);
    if (!x.ok()) {
      std::fprintf(stderr, "%s\n", x.status().ToString().c_str());
      return 1;
    }
    for (int64_t i = 0; i < x->num_elements(); ++i) {
      x->data<float>()[i] = static_cast<float>(((i * 7919) % 1009) / 1008.0);
    }
    inputs[spec.name] = *x;
  }
  absl::StatusOr<smrt::NamedTensors> outputs = (*model)->Run("serving_default", inputs);
  if (!outputs.ok()) {
    std::fprintf(stderr, "%s\n", outputs.status().ToString().c_str());
    return 1;
  }
  for (const auto& [name, t] : *outputs) {
    std::printf("serving_default: %s %s:", name.c_str(), t.DebugString().c_str());
    for (int64_t i = 0; i < t.num_elements() && i < 10; ++i) {
      if (t.dtype() == smrt::DataType::kFloat) std::printf(" %.4f", t.data<float>()[i]);
    }
    std::printf("\n");
  }
  return 0;
}
