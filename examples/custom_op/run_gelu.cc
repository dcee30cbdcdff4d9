// Runs examples/custom_op/model, whose serving_default applies Addons>Gelu,
// with the custom op library that defines it (smrt/cxx_api.h):
//
//   run_gelu MODEL_DIR [LIBRARY]
//
// Without LIBRARY the load fails, and the message names the op and says how
// to add it. The input is x[i] = ((i * 7919) % 1009) / 1008 * 6 - 3, shape (2, 4).
#include <cstdio>
#include <string>
#include <vector>

#include "smrt/cxx_api.h"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: run_gelu MODEL_DIR [CUSTOM_OP_LIBRARY]\n");
    return 2;
  }
  smrt::cxx::LoadOptions options;
  if (argc == 3) {
    if (smrt::cxx::Status s = options.Set("custom_op_libraries", argv[2]); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
  }
  smrt::cxx::Result<smrt::cxx::Model> model = smrt::cxx::Model::Load(argv[1], &options);
  if (!model.ok()) {
    std::printf("load failed: %s\n", model.status().ToString().c_str());
    return 1;
  }
  smrt::cxx::Result<smrt::cxx::Tensor> x = smrt::cxx::Tensor::Create(SMRT_FLOAT, {2, 4});
  if (!x.ok()) return 1;
  float* xs = x->data<float>();
  for (int i = 0; i < 8; ++i) xs[i] = static_cast<float>((i * 7919) % 1009 / 1008.0 * 6.0 - 3.0);
  smrt::cxx::Result<smrt::cxx::Outputs> out = model->Run("serving_default", {{"x", &*x}});
  if (!out.ok()) {
    std::printf("run failed: %s\n", out.status().ToString().c_str());
    return 1;
  }
  smrt::cxx::Result<smrt::cxx::TensorRef> y = out->Find("y");
  if (!y.ok()) return 1;
  std::printf("y %s %s:", std::string(smrt::cxx::DataTypeName(y->dtype())).c_str(),
              smrt::cxx::ShapeString(y->shape()).c_str());
  for (int64_t i = 0; i < y->element_count(); ++i) std::printf(" %.4f", y->data<float>()[i]);
  std::printf("\n");
  return 0;
}
