// Model::LoadFromMemory gives the same model as Model::Load on the same
// files, variables and assets included; and SetLoadOption's text interface.
#include <filesystem>

#include "core/file.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/paths.h"

namespace smrt {
namespace {

using kernels::testing::TensorsNear;

// Every regular file under dir, by relative path.
ModelFiles ReadTree(const std::string& dir) {
  ModelFiles files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    absl::StatusOr<std::string> bytes = file::ReadAll(entry.path().string());
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    files[std::filesystem::relative(entry.path(), dir).string()] = *bytes;
  }
  return files;
}

std::string DigitsDir() { return testing::TestDataDir() + "/../../examples/models/digits"; }

TEST(LoadFromMemoryTest, DigitsGiveTensorFlowsAnswers) {
  ModelFiles files = ReadTree(DigitsDir());
  files.erase("samples/inputs.npy");  // not part of the SavedModel
  ASSERT_EQ(files.count("saved_model.pb"), 1u);
  ASSERT_EQ(files.count("variables/variables.index"), 1u);
  absl::StatusOr<std::unique_ptr<Model>> model = Model::LoadFromMemory(std::move(files));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->dir().rfind("mem://", 0), 0u) << (*model)->dir();
  absl::StatusOr<Tensor> x = npy::Read(DigitsDir() + "/samples/inputs.npy");
  absl::StatusOr<Tensor> want = npy::Read(DigitsDir() + "/samples/expected_probabilities.npy");
  ASSERT_TRUE(x.ok() && want.ok());
  absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"pixels", *x}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear(out->at("probabilities"), *want, 1e-5, 1e-4));
}

TEST(LoadFromMemoryTest, AssetTableReadsTheInMemoryAsset) {
  const std::string dir = testing::TestDataDir() + "/kernels/strings/asset_model";
  absl::StatusOr<std::unique_ptr<Model>> from_disk = Model::Load(dir);
  if (!from_disk.ok()) GTEST_SKIP() << "asset_model does not load from disk: " << from_disk.status();
  ModelFiles files = ReadTree(dir);
  ASSERT_EQ(files.count("assets/labels.txt"), 1u);
  absl::StatusOr<std::unique_ptr<Model>> model = Model::LoadFromMemory(files);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> ids = Tensor::Create(DataType::kInt64, {5});
  ASSERT_TRUE(ids.ok());
  const int64_t v[] = {0, 11, 12, -1, 3};
  for (int i = 0; i < 5; ++i) ids->data<int64_t>()[i] = v[i];
  absl::StatusOr<NamedTensors> want = (*from_disk)->Run("serving_default", {{"ids", *ids}});
  absl::StatusOr<NamedTensors> got = (*model)->Run("serving_default", {{"ids", *ids}});
  ASSERT_TRUE(want.ok() && got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear(got->at("labels"), want->at("labels")));

  // Without the asset the table cannot be initialised; the error names it.
  files.erase("assets/labels.txt");
  absl::StatusOr<std::unique_ptr<Model>> broken = Model::LoadFromMemory(files);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("labels.txt"), std::string::npos) << broken.status();
}

TEST(LoadFromMemoryTest, MissingFilesAreNamed) {
  ModelFiles files = ReadTree(DigitsDir());
  files.erase("saved_model.pb");
  absl::StatusOr<std::unique_ptr<Model>> no_graph = Model::LoadFromMemory(files);
  EXPECT_EQ(no_graph.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(no_graph.status().message().find("saved_model.pb"), std::string::npos)
      << no_graph.status();

  files = ReadTree(DigitsDir());
  files.erase("variables/variables.data-00000-of-00001");
  absl::StatusOr<std::unique_ptr<Model>> no_data = Model::LoadFromMemory(files);
  EXPECT_EQ(no_data.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(no_data.status().message().find("variables.data-00000-of-00001"), std::string::npos)
      << no_data.status();

  absl::StatusOr<std::unique_ptr<Model>> bad_path = Model::LoadFromMemory({{"../x", ""}});
  EXPECT_EQ(bad_path.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(LoadOptionsTextTest, SetsListsAndRejectsUnknownKeys) {
  LoadOptions options;
  ASSERT_TRUE(SetLoadOption(&options, "tags", "serve, gpu").ok());
  EXPECT_EQ(options.tags, (std::vector<std::string>{"serve", "gpu"}));
  ASSERT_TRUE(SetLoadOption(&options, "signatures", "").ok());
  EXPECT_TRUE(options.signatures.empty());
  ASSERT_TRUE(SetLoadOption(&options, "signatures", "serving_default").ok());
  EXPECT_EQ(options.signatures, (std::vector<std::string>{"serving_default"}));
  EXPECT_EQ(SetLoadOption(&options, "tags", "a,,b").code(), absl::StatusCode::kInvalidArgument);

  absl::Status unknown = SetLoadOption(&options, "colour", "blue");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("unknown load option 'colour'"), std::string::npos) << unknown;
  for (const LoadOptionKey& k : LoadOptionKeys()) {
    EXPECT_NE(unknown.message().find(k.key), std::string::npos) << k.key;
    EXPECT_FALSE(k.help.empty()) << k.key;
  }
}

TEST(LoadOptionsTextTest, SetsPassesLimitsAndSafetyFields) {
  LoadOptions options;
  ASSERT_TRUE(SetLoadOption(&options, "disabled_passes", "fuse_conv,prune").ok());
  EXPECT_EQ(options.disabled_passes, (std::vector<std::string>{"fuse_conv", "prune"}));
  ASSERT_TRUE(SetLoadOption(&options, "check_numerics", "true").ok());
  EXPECT_TRUE(options.check_numerics);
  ASSERT_TRUE(SetLoadOption(&options, "allowed_ops", "ReadFile").ok());
  EXPECT_EQ(options.allowed_ops, (std::vector<std::string>{"ReadFile"}));
  ASSERT_TRUE(SetLoadOption(&options, "max_tensor_bytes", "1048576").ok());
  EXPECT_EQ(options.limits.max_tensor_bytes, 1048576u);
  ASSERT_TRUE(SetLoadOption(&options, "max_nodes", "1000").ok());
  EXPECT_EQ(options.limits.max_nodes, 1000);
  ASSERT_TRUE(SetLoadOption(&options, "max_while_iterations", "50").ok());
  EXPECT_EQ(options.limits.max_while_iterations, 50);
  EXPECT_EQ(SetLoadOption(&options, "max_nodes", "-x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SetLoadOption(&options, "max_tensor_bytes", "-1").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SetLoadOption(&options, "check_numerics", "maybe").code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt
