// Helpers of the smrt_serve tests: TF Serving's test models in version
// folders of a temporary base path, tensors and tf.Examples.
#ifndef SMRT_TESTS_SERVE_SERVE_TEST_UTIL_H_
#define SMRT_TESTS_SERVE_SERVE_TEST_UTIL_H_

#include <filesystem>
#include <string>
#include <vector>

#include "smrt/serving/input.pb.h"
#include "smrt/tensor.h"
#include "smrt/tfproto/example.pb.h"
#include "testing/paths.h"

namespace smrt::serve::testing {

// TF Serving's half_plus_two, TF1 export (y = 0.5x + 2; classify / regress
// signatures on tf.Examples with features x and x2).
inline std::string HalfPlusTwo() {
  return smrt::testing::SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123");
}
// The TF2 export of the same model.
inline std::string HalfPlusTwoTf2() {
  return smrt::testing::SharedModel("tf-serving/saved_model_half_plus_two_tf2_cpu/00000123");
}
// Scalar x -> y = 0.5x + 3: a version whose answers differ from half_plus_two's.
inline std::string HalfPlusThree() {
  return smrt::testing::SharedModel("tf-serving/saved_model_half_plus_three/00000123");
}

// Copies a SavedModel folder to base/<version>.
inline std::string AddVersion(const std::string& base, int64_t version, const std::string& from) {
  const std::string dir = base + "/" + std::to_string(version);
  smrt::testing::CopyTree(from, dir);
  return dir;
}

inline Tensor FloatTensor(Shape shape, const std::vector<float>& values) {
  Tensor t = *Tensor::Create(DataType::kFloat, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

inline std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

// A tf.Example with float features.
inline tfproto::Example MakeExample(const std::vector<std::pair<std::string, float>>& features) {
  tfproto::Example example;
  for (const auto& [name, value] : features) {
    (*example.mutable_features()->mutable_feature())[name].mutable_float_list()->add_value(value);
  }
  return example;
}

inline tensorflow::serving::Input ExampleListInput(const std::vector<float>& xs) {
  tensorflow::serving::Input input;
  for (float x : xs) *input.mutable_example_list()->add_examples() = MakeExample({{"x", x}});
  return input;
}

}  // namespace smrt::serve::testing

#endif  // SMRT_TESTS_SERVE_SERVE_TEST_UTIL_H_
