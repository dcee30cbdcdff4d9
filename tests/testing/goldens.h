// TensorFlow goldens under tests/data/goldens (written by
// scripts/make_goldens.py): per model and signature, inputs/ and outputs/
// holding .npy files, or .examples / .strings files for string tensors
// (each element: 4-byte little-endian length, then the bytes).
#ifndef SMRT_TESTS_TESTING_GOLDENS_H_
#define SMRT_TESTS_TESTING_GOLDENS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::testing {

struct GoldenCase {
  std::string model_dir;   // absolute path of the SavedModel in shared/models
  std::string model;       // "tf-serving/saved_model_half_plus_two_cpu/00000123"
  std::string signature;
  std::string case_dir;    // tests/data/goldens/<model>/<signature>
  std::map<std::string, std::string> input_files;   // input name -> file
  std::map<std::string, std::string> output_files;  // output name -> .npy file
};

// Every golden case whose model path starts with `prefix` and whose inputs are
// all stored as files (cases with generated inputs are left out).
std::vector<GoldenCase> ListGoldenCases(const std::string& prefix);

// Reads a golden tensor file (.npy, .examples or .strings; the latter two as
// a 1-D string tensor).
absl::StatusOr<Tensor> ReadGoldenTensor(const std::string& path);

}  // namespace smrt::testing

#endif  // SMRT_TESTS_TESTING_GOLDENS_H_
