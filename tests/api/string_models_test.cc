// Community models that use lookup tables and string ops, against
// TensorFlow's outputs in tests/data/goldens (string outputs included, which
// the generic community test leaves out), plus table behaviour that only
// shows through a loaded model: init once at load, concurrent lookups.
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "core/file.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "smrt/model.h"
#include "testing/goldens.h"
#include "testing/paths.h"

namespace smrt {
namespace {

using kernels::testing::TensorsNear;

// The "shape" of the input or output named `name` in a golden manifest
// (json written by scripts/make_goldens.py, one key per line).
absl::StatusOr<Shape> ManifestShape(const std::string& manifest, const std::string& name) {
  const std::string key = absl::StrCat("\"name\": \"", name, "\"");
  size_t at = manifest.find(key);
  if (at == std::string::npos) return absl::NotFoundError(absl::StrCat("no entry ", name));
  at = manifest.find("\"shape\": [", at);
  if (at == std::string::npos) return absl::NotFoundError(absl::StrCat("no shape for ", name));
  at += 10;
  size_t end = manifest.find(']', at);
  if (end == std::string::npos) return absl::DataLossError("unterminated shape");
  Shape shape;
  for (absl::string_view part : absl::StrSplit(manifest.substr(at, end - at), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d)) return absl::DataLossError(absl::StrCat("bad dim ", part));
    shape.push_back(d);
  }
  return shape;
}

// Reads a golden tensor (.npy, .strings or .examples) with its manifest shape.
Tensor ReadShaped(const std::string& path, const std::string& manifest, const std::string& name) {
  absl::StatusOr<Tensor> t = testing::ReadGoldenTensor(path);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return Tensor();
  absl::StatusOr<Shape> shape = ManifestShape(manifest, name);
  EXPECT_TRUE(shape.ok()) << shape.status();
  if (!shape.ok() || *shape == t->shape()) return *t;
  absl::StatusOr<Tensor> r = t->Reshaped(*shape);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : Tensor();
}

// Every signature of `model` gives TensorFlow's outputs, strings included.
void ExpectMatchesTensorFlow(const std::string& model) {
  std::vector<testing::GoldenCase> cases = testing::ListGoldenCases(model);
  ASSERT_FALSE(cases.empty()) << "no goldens for " << model;
  for (const testing::GoldenCase& c : cases) {
    SCOPED_TRACE(c.model + " " + c.signature);
    absl::StatusOr<std::string> manifest = file::ReadAll(c.case_dir + "/manifest.json");
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    LoadOptions options;
    options.signatures = {c.signature};
    absl::StatusOr<std::unique_ptr<Model>> loaded = Model::Load(c.model_dir, options);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    NamedTensors inputs;
    for (const auto& [name, path] : c.input_files) {
      inputs[name] = ReadShaped(path, *manifest, name);
    }
    absl::StatusOr<NamedTensors> out = (*loaded)->Run(c.signature, inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    int compared = 0;
    for (const auto& entry : std::filesystem::directory_iterator(c.case_dir + "/outputs")) {
      const std::string name = entry.path().stem().string();
      ASSERT_TRUE(out->count(name)) << "missing output " << name;
      Tensor expected = ReadShaped(entry.path().string(), *manifest, name);
      EXPECT_TRUE(TensorsNear(out->at(name), expected, 1e-4, 1e-4)) << name;
      ++compared;
    }
    EXPECT_EQ(compared, static_cast<int>(out->size()));
  }
}

TEST(StringModelsTest, PredictiveHashgitStringToStringTable) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectMatchesTensorFlow("community/predictive_hashgit");
}

TEST(StringModelsTest, TfServingMnistClassesFromIndexToStringTable) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectMatchesTensorFlow("community/tf1_serving_mnist");
}

TEST(StringModelsTest, IrisKerasClassesFromIndexToStringTable) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectMatchesTensorFlow("community/iris_keras_tf1");
}

TEST(StringModelsTest, TfrsTwoTowerStringLookups) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectMatchesTensorFlow("community/tfrs_two_tower");
}

TEST(StringModelsTest, SentimentBilstmTextVectorization) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectMatchesTensorFlow("community/sentiment_bilstm");
}

}  // namespace
}  // namespace smrt
