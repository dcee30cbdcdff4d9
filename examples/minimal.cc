// The shortest useful smrt program in C++: load a SavedModel, print its
// signatures, call serving_default and print its outputs.
//
//   minimal MODEL_DIR
//
// It uses smrt/cxx_api.h, the header-only C++ layer over the C ABI: it needs
// no abseil and links against any libsmrt.so (tests/CMakeLists.txt checks
// that no abseil header is read to compile it).
//
// Float inputs are filled with the test pattern x[i] = ((i * 7919) % 1009) / 1008
// (unknown dims taken as 1), so the numbers can be checked against TensorFlow.
#include <cstdio>
#include <string>
#include <vector>

#include "smrt/cxx_api.h"

namespace cxx = smrt::cxx;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL_DIR\n", argv[0]);
    return 2;
  }
  cxx::Result<cxx::Model> model = cxx::Model::Load(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  for (const std::string& key : model->signature_keys()) {
    const cxx::Signature sig = *model->signature(key);
    std::printf("signature '%s' (%s)\n", key.c_str(), sig.method_name.c_str());
    for (const cxx::TensorSpec& in : sig.inputs) {
      std::printf("  input  %s: %s %s\n", in.name.c_str(),
                  std::string(cxx::DataTypeName(in.dtype)).c_str(), in.ShapeString().c_str());
    }
    for (const cxx::TensorSpec& out : sig.outputs) {
      std::printf("  output %s: %s %s\n", out.name.c_str(),
                  std::string(cxx::DataTypeName(out.dtype)).c_str(), out.ShapeString().c_str());
    }
  }

  cxx::Result<cxx::Signature> sig = model->signature("serving_default");
  if (!sig.ok()) {
    std::fprintf(stderr, "%s\n", sig.status().ToString().c_str());
    return 1;
  }
  std::vector<cxx::Tensor> tensors;
  for (const cxx::TensorSpec& spec : sig->inputs) {
    if (spec.dtype != SMRT_FLOAT) {
      std::fprintf(stderr, "input '%s' is not float32; this example fills only float32 inputs\n",
                   spec.name.c_str());
      return 1;
    }
    std::vector<int64_t> shape = spec.shape;
    for (int64_t& d : shape) d = d < 0 ? 1 : d;
    cxx::Result<cxx::Tensor> x = cxx::Tensor::Create(SMRT_FLOAT, shape);
    if (!x.ok()) {
      std::fprintf(stderr, "%s\n", x.status().ToString().c_str());
      return 1;
    }
    for (int64_t i = 0; i < x->element_count(); ++i) {
      x->data<float>()[i] = static_cast<float>(((i * 7919) % 1009) / 1008.0);
    }
    tensors.push_back(*std::move(x));
  }
  std::vector<cxx::NamedInput> inputs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    inputs.emplace_back(sig->inputs[i].name, &tensors[i]);
  }
  cxx::Result<cxx::Outputs> outputs = model->Run("serving_default", inputs);
  if (!outputs.ok()) {
    std::fprintf(stderr, "%s\n", outputs.status().ToString().c_str());
    return 1;
  }
  for (int i = 0; i < outputs->size(); ++i) {
    const cxx::TensorRef t = outputs->at(i);
    std::printf("serving_default: %s %s %s:", std::string(outputs->name(i)).c_str(),
                std::string(cxx::DataTypeName(t.dtype())).c_str(),
                cxx::ShapeString(t.shape()).c_str());
    for (int64_t k = 0; k < t.element_count() && k < 10; ++k) {
      if (t.dtype() == SMRT_FLOAT) std::printf(" %.4f", t.data<float>()[k]);
    }
    std::printf("\n");
  }
  return 0;
}
