// Community models that use lookup tables and string ops, against
// TensorFlow's outputs in tests/data/goldens (string outputs included, which
// the generic community test leaves out), plus table behaviour that only
// shows through a loaded model: init once at load, concurrent lookups.
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
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

// Reads a golden tensor (.npy, .strings or .examples) with its manifest shape.
Tensor ReadShaped(const std::string& path, const std::string& manifest, const std::string& name) {
  absl::StatusOr<Tensor> t = testing::ReadGoldenTensor(path);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return Tensor();
  absl::StatusOr<Shape> shape = testing::ManifestShape(manifest, name);
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

// The ops of the string/table family; a load that lacks any of these is a
// failure here, one that lacks only other families' ops is reported and
// skipped (sentiment_bilstm also needs its Bidirectional LSTM's ops).
bool NamesStringOp(absl::string_view message) {
  for (const char* op :
       {"HashTable", "LookupTable", "InitializeTable", "StringLower", "StringSplit", "Regex",
        "RaggedTensorToTensor", "StringJoin", "StringToNumber", "AsString", "Substr"}) {
    if (message.find(op) != absl::string_view::npos) return true;
  }
  return false;
}

TEST(StringModelsTest, SentimentBilstmTextVectorization) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  LoadOptions options;
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::SharedModel("community/sentiment_bilstm"), options);
  if (!model.ok() && model.status().code() == absl::StatusCode::kUnimplemented &&
      !NamesStringOp(model.status().message())) {
    GTEST_SKIP() << "blocked by ops outside the string family: " << model.status();
  }
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectMatchesTensorFlow("community/sentiment_bilstm");
}

// ---------------------------------------------------------------------------
// Small TF2 SavedModels written by tests/generators/kernel_goldens/strings.py, with
// TensorFlow's outputs: text_model has TextVectorization's front end (lower,
// strip punctuation, split, StaticHashTable, ragged to dense) and an int64 ->
// string table; asset_model initializes its table from a text-file asset.

std::string StringsDir() { return testing::TestDataDir() + "/kernels/strings"; }

// Named tensors of a .rec golden file (format in testing/goldens.h).
std::map<std::string, Tensor> ReadRec(const std::string& path) {
  return testing::RecGoldens(path).All();
}

TEST(StringModelsTest, TextVectorizationModelMatchesTensorFlow) {
  std::map<std::string, Tensor> golden = ReadRec(StringsDir() + "/text_model_golden.rec");
  ASSERT_EQ(golden.count("text"), 1u);
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(StringsDir() + "/text_model");
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"text", golden["text"]}});
  ASSERT_TRUE(out.ok()) << out.status();
  for (const char* name : {"ids", "labels", "cleaned", "vocab_size"}) {
    ASSERT_TRUE(out->count(name)) << name;
    EXPECT_TRUE(TensorsNear(out->at(name), golden[name])) << name;
  }
  EXPECT_EQ(out->size(), 4u);
}

TEST(StringModelsTest, TablesAreSharedAcrossConcurrentRuns) {
  std::map<std::string, Tensor> golden = ReadRec(StringsDir() + "/text_model_golden.rec");
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(StringsDir() + "/text_model");
  ASSERT_TRUE(model.ok()) << model.status();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        absl::StatusOr<NamedTensors> out =
            (*model)->Run("serving_default", {{"text", golden["text"]}});
        if (!out.ok() || !TensorsNear(out->at("ids"), golden["ids"]) ||
            !TensorsNear(out->at("labels"), golden["labels"])) {
          ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(StringModelsTest, EmptyBatch) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(StringsDir() + "/text_model");
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> none = Tensor::Create(DataType::kString, {0});
  ASSERT_TRUE(none.ok());
  absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"text", *none}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->at("ids").shape(), (Shape{0, 8}));
  EXPECT_EQ(out->at("labels").shape(), (Shape{0, 8}));
}

// TF2 passes an asset's path to its initializer through a resource variable
// that the init op assigns (asset_path_initializer -> Variable/Assign ->
// ReadVariableOp with a control input on the Assign). The importer does not
// yet keep control inputs between stateful nodes, so the read can run first;
// until it does, this test reports the blocker instead of failing.
TEST(StringModelsTest, TextFileAssetTable) {
  std::map<std::string, Tensor> golden = ReadRec(StringsDir() + "/asset_model_golden.rec");
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(StringsDir() + "/asset_model");
  if (!model.ok() && model.status().code() == absl::StatusCode::kFailedPrecondition &&
      model.status().message().find("ReadVariableOp") != absl::string_view::npos) {
    GTEST_SKIP() << "blocked by control-input ordering in the init op: " << model.status();
  }
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"ids", golden["ids"]}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear(out->at("labels"), golden["labels"]));

  // Without its asset the table cannot be initialized: the load fails and
  // names the file.
  const std::string dir = testing::MakeTempDir();
  testing::CopyTree(StringsDir() + "/asset_model", dir);
  std::filesystem::remove(dir + "/assets/labels.txt");
  absl::StatusOr<std::unique_ptr<Model>> broken = Model::Load(dir);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("labels.txt"), std::string::npos) << broken.status();
}

}  // namespace
}  // namespace smrt
