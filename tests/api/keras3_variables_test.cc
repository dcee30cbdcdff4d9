// Keras 3 layers saved with tf.saved_model.save keep two handles per
// variable: the signature reads `dense/kernel`, the restore function assigns
// `Variable`. smrt binds the signature's handles through the SavedObjectGraph,
// as TensorFlow does (issue 35); `smrt check` reports variables that nothing
// binds. The numbers against TensorFlow are checked by the committed zoo
// (keras3_* models, ZooModelsTest).
#include <filesystem>

#include "core/file.h"
#include "graph/variable_keys.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "loader/saved_model_bundle.h"
#include "smrt/check.h"
#include "smrt/model.h"
#include "testing/paths.h"

namespace smrt {
namespace {

std::string ZooModel(const std::string &name) {
  return testing::TestDataDir() + "/zoo/" + name + "/saved_model";
}

TEST(Keras3VariablesTest, TheObjectGraphBindsWhatTheRestoreFunctionDoesNot) {
  absl::StatusOr<std::unique_ptr<loader::SavedModelBundle>> bundle =
      loader::LoadSavedModelBundle(ZooModel("keras3_dense_in_module"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const tfproto::MetaGraphDef &mg = *(*bundle)->meta_graph;
  const kernels::KernelRegistry &registry = kernels::KernelRegistry::Default();
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> saver =
      graph::CheckpointKeysFromSaver(mg, registry);
  ASSERT_TRUE(saver.ok()) << saver.status();
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> keys =
      graph::CheckpointKeys(mg, registry, (*bundle)->variables.get());
  ASSERT_TRUE(keys.ok()) << keys.status();
  // The signature's call node captures four handles (two Dense layers).
  int captured = 0;
  for (const tfproto::NodeDef &n : mg.graph_def().node()) {
    if (n.op() != "VarHandleOp") continue;
    const std::string &id = n.attr().at("shared_name").s();
    if (id.rfind("Variable", 0) == 0) {
      EXPECT_TRUE(saver->contains(id)) << id;  // the restore function's copies
      continue;
    }
    ++captured;
    EXPECT_FALSE(saver->contains(id)) << id;
    ASSERT_TRUE(keys->contains(id)) << id;
    const std::string &key = keys->at(id);
    EXPECT_NE(key.find("/.ATTRIBUTES/VARIABLE_VALUE"), std::string::npos) << key;
    EXPECT_NE((*bundle)->variables->Find(key), nullptr) << key;
  }
  EXPECT_EQ(captured, 4);
  // A checkpoint object graph that does not parse is an error, not a guess.
  EXPECT_EQ(graph::CheckpointKeysFromObjectGraph(mg, "\xff\xff\xff").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The same model with its object graph's bound inputs removed: the
// signature's variables have no value, as they had before smrt read the
// object graph. check says so; Run fails naming the read.
TEST(Keras3VariablesTest, CheckReportsVariablesNothingBinds) {
  const std::string dir = testing::MakeTempDir() + "/unbound";
  std::filesystem::copy(ZooModel("keras3_dense_in_module"), dir,
                        std::filesystem::copy_options::recursive);
  absl::StatusOr<std::string> bytes = file::ReadAll(dir + "/saved_model.pb");
  ASSERT_TRUE(bytes.ok());
  tfproto::SavedModel proto;
  ASSERT_TRUE(proto.ParseFromString(*bytes));
  for (auto &[name, fn] :
       *proto.mutable_meta_graphs(0)->mutable_object_graph_def()->mutable_concrete_functions()) {
    fn.clear_bound_inputs();
  }
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", proto.SerializeAsString()).ok());

  absl::StatusOr<ModelCheck> good = CheckModel(ZooModel("keras3_dense_in_module"));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->ok());
  absl::StatusOr<ModelCheck> bad = CheckModel(dir);
  ASSERT_TRUE(bad.ok()) << bad.status();
  EXPECT_FALSE(bad->ok());
  const SignatureCheck *serving = nullptr;
  for (const SignatureCheck &s : bad->signatures) {
    if (s.key == "serving_default") serving = &s;
  }
  ASSERT_NE(serving, nullptr);
  EXPECT_EQ(serving->unbound_variables.size(), 4u);

  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, {1, 4});
  ASSERT_TRUE(x.ok());
  absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"x", *x}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("uninitialized"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace smrt
