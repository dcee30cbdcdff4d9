// Reading real TensorFlow-written SavedModels: protos, tag sets, signatures,
// variables and assets.
#include <filesystem>
#include <string>

#include "core/crc32c.h"
#include "core/file.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "loader/asset_resolver.h"
#include "loader/meta_graph_select.h"
#include "loader/saved_model_bundle.h"
#include "loader/saved_model_reader.h"
#include "testing/paths.h"

namespace smrt::loader {
namespace {

using ::smrt::testing::SharedModel;

const char kTf1[] = "tf-serving/saved_model_half_plus_two_cpu/00000123";
const char kTf2[] = "tf-serving/saved_model_half_plus_two_tf2_cpu/00000123";

TEST(TagSetTest, ParseNormalizes) {
  EXPECT_EQ(ParseTagSet("serve"), (TagSet{"serve"}));
  EXPECT_EQ(ParseTagSet(" serve, gpu,serve"), (TagSet{"gpu", "serve"}));
  EXPECT_EQ(ParseTagSet(""), TagSet{});
  EXPECT_EQ(TagSetToString({"gpu", "serve"}), "'gpu, serve'");
}

TEST(SavedModelReaderTest, ReadsTf1AndTf2Models) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  for (const char* rel : {kTf1, kTf2}) {
    absl::StatusOr<tfproto::SavedModel> model = ReadSavedModelProto(SharedModel(rel));
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_EQ(model->meta_graphs_size(), 1) << rel;
    EXPECT_EQ(TagSets(*model), (std::vector<TagSet>{{"serve"}})) << rel;
    EXPECT_GT(model->meta_graphs(0).graph_def().node_size(), 0) << rel;
  }
}

TEST(SavedModelReaderTest, SelectsByTagsAndListsThemOnError) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<tfproto::SavedModel> model = ReadSavedModelProto(SharedModel(kTf1));
  ASSERT_TRUE(model.ok());
  absl::StatusOr<const tfproto::MetaGraphDef*> mg = SelectMetaGraph(*model, {"serve"}, "m");
  ASSERT_TRUE(mg.ok());
  EXPECT_EQ((*mg)->signature_def().count("serving_default"), 1u);

  absl::StatusOr<const tfproto::MetaGraphDef*> missing =
      SelectMetaGraph(*model, {"serve", "gpu"}, "m");
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("'gpu, serve'"), std::string::npos);
  EXPECT_NE(missing.status().message().find("it has 'serve'"), std::string::npos)
      << missing.status();
}

TEST(SavedModelReaderTest, MissingDirAndFilesAreNotFound) {
  absl::StatusOr<tfproto::SavedModel> none = ReadSavedModelProto("/no/such/dir");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  std::string empty = testing::MakeTempDir();
  absl::StatusOr<tfproto::SavedModel> nofile = ReadSavedModelProto(empty);
  EXPECT_EQ(nofile.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(nofile.status().message().find("saved_model.pb"), std::string::npos);
}

TEST(SavedModelReaderTest, GarbageAndTruncatedPbAreInvalidArgument) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::string dir = testing::MakeTempDir();
  ASSERT_TRUE(file::WriteAll(file::JoinPath(dir, "saved_model.pb"),
                             "\xff\xff\xff\xff garbage that is not a proto")
                  .ok());
  absl::StatusOr<tfproto::SavedModel> garbage = ReadSavedModelProto(dir);
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(garbage.status().message().find(file::JoinPath(dir, "saved_model.pb")),
            std::string::npos);

  absl::StatusOr<std::string> real =
      file::ReadAll(file::JoinPath(SharedModel(kTf1), "saved_model.pb"));
  ASSERT_TRUE(real.ok());
  ASSERT_TRUE(file::WriteAll(file::JoinPath(dir, "saved_model.pb"),
                             real->substr(0, real->size() / 2))
                  .ok());
  EXPECT_EQ(ReadSavedModelProto(dir).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SavedModelReaderTest, ReadsTextFormat) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<tfproto::SavedModel> model = ReadSavedModelProto(SharedModel(kTf1));
  ASSERT_TRUE(model.ok());
  std::string dir = testing::MakeTempDir();
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(*model, &text));
  ASSERT_TRUE(file::WriteAll(file::JoinPath(dir, "saved_model.pbtxt"), text).ok());
  absl::StatusOr<tfproto::SavedModel> parsed = ReadSavedModelProto(dir);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*parsed, *model));

  ASSERT_TRUE(file::WriteAll(file::JoinPath(dir, "saved_model.pbtxt"),
                             "meta_graphs { bogus_field: 1 }")
                  .ok());
  absl::StatusOr<tfproto::SavedModel> bad = ReadSavedModelProto(dir);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos) << bad.status();
}

// TensorFlow writes saved_model.pbtxt (as_text=True) with its Any values
// expanded under TensorFlow's type names.
TEST(SavedModelReaderTest, ReadsTextFormatAnyExpansions) {
  const std::string dir = testing::MakeTempDir();
  ASSERT_TRUE(file::WriteAll(file::JoinPath(dir, "saved_model.pbtxt"), R"pb(
                saved_model_schema_version: 1
                meta_graphs {
                  meta_info_def { tags: "serve" }
                  collection_def {
                    key: "saved_model_assets"
                    value {
                      any_list {
                        value {
                          [type.googleapis.com/tensorflow.AssetFileDef] {
                            tensor_info { name: "Const:0" }
                            filename: "foo.txt"
                          }
                        }
                      }
                    }
                  }
                }
              )pb")
                  .ok());
  absl::StatusOr<tfproto::SavedModel> model = ReadSavedModelProto(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  const tfproto::CollectionDef& assets =
      model->meta_graphs(0).collection_def().at("saved_model_assets");
  ASSERT_EQ(assets.any_list().value_size(), 1);
  EXPECT_EQ(assets.any_list().value(0).type_url(), "type.googleapis.com/tensorflow.AssetFileDef");
  absl::StatusOr<std::vector<Asset>> resolved = ResolveAssets(model->meta_graphs(0), dir);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  ASSERT_EQ(resolved->size(), 1u);
  EXPECT_EQ((*resolved)[0].tensor_name, "Const:0");
  EXPECT_EQ((*resolved)[0].filename, "foo.txt");
  EXPECT_FALSE((*resolved)[0].exists);
}

TEST(SavedModelBundleTest, EveryTfServingModelLoads) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  int loaded = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(SharedModel("tf-serving"))) {
    if (entry.path().filename() != "saved_model.pb") continue;
    std::string dir = entry.path().parent_path().string();
    absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle = LoadSavedModelBundle(dir);
    ASSERT_TRUE(bundle.ok()) << dir << ": " << bundle.status();
    EXPECT_FALSE((*bundle)->meta_graph->signature_def().empty()) << dir;
    ++loaded;
  }
  EXPECT_EQ(loaded, 11);
}

TEST(SavedModelBundleTest, ModelWithoutVariablesFolder) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle =
      LoadSavedModelBundle(SharedModel("tf-serving/matrix_half_plus_two/1"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->variables, nullptr);
  EXPECT_TRUE((*bundle)->assets.empty());
}

// Caches key on the graph file's checksum, taken from the bytes read once.
TEST(SavedModelBundleTest, ChecksumsTheGraphFileAsRead) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const std::string dir = SharedModel(kTf2);
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle = LoadSavedModelBundle(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  absl::StatusOr<std::string> bytes = file::ReadAll(dir + "/saved_model.pb");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((*bundle)->graph_checksum.size, bytes->size());
  EXPECT_EQ((*bundle)->graph_checksum.crc32c, crc32c::Value(bytes->data(), bytes->size()));
}

TEST(SavedModelBundleTest, VariablesReadThroughTheBundle) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle =
      LoadSavedModelBundle(SharedModel(kTf1));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  ASSERT_NE((*bundle)->variables, nullptr);
  const std::pair<const char*, float> expected[] = {{"a", 0.5f}, {"b", 2.0f}, {"c", 3.0f}};
  for (const auto& [key, value] : expected) {
    absl::StatusOr<Tensor> t = (*bundle)->variables->Read(key);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_EQ(t->dtype(), DataType::kFloat);
    EXPECT_EQ(t->num_elements(), 1);
    EXPECT_EQ(t->data<float>()[0], value) << key;
  }
}

TEST(SavedModelBundleTest, AssetsResolvedFromTf1CollectionAndTf2AssetFileDef) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  for (const char* rel : {kTf1, kTf2}) {
    absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle =
        LoadSavedModelBundle(SharedModel(rel));
    ASSERT_TRUE(bundle.ok()) << bundle.status();
    ASSERT_EQ((*bundle)->assets.size(), 1u) << rel;
    const Asset& a = (*bundle)->assets[0];
    EXPECT_EQ(a.filename, "foo.txt");
    EXPECT_EQ(a.path, file::JoinPath(SharedModel(rel), "assets/foo.txt"));
    EXPECT_FALSE(a.tensor_name.empty());
    EXPECT_TRUE(a.exists);
    EXPECT_TRUE(file::Exists(a.path));
  }
}

TEST(SavedModelBundleTest, AssetsExtraListed) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle = LoadSavedModelBundle(
      SharedModel("tf-serving/saved_model_half_plus_two_cpu_with_saved_model_config/00000123"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->extra_assets, std::vector<std::string>{"saved_model_config.pb"});
}

// Copies a model and rewrites its single AssetFileDef filename.
std::string ModelWithAssetName(const std::string& name) {
  std::string dir = testing::MakeTempDir();
  testing::CopyTree(SharedModel(kTf2), dir);
  absl::StatusOr<tfproto::SavedModel> model = ReadSavedModelProto(dir);
  EXPECT_TRUE(model.ok());
  model->mutable_meta_graphs(0)->mutable_asset_file_def(0)->set_filename(name);
  EXPECT_TRUE(file::WriteAll(file::JoinPath(dir, "saved_model.pb"),
                             model->SerializeAsString())
                  .ok());
  return dir;
}

TEST(SavedModelBundleTest, AssetsMustStayInsideTheModel) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  // TensorFlow loads a model whose asset file is missing (TF Serving's
  // half_plus_two_cpu_with_saved_model_config has no assets/ folder).
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> missing =
      LoadSavedModelBundle(ModelWithAssetName("nope.txt"));
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_FALSE((*missing)->assets[0].exists);

  EXPECT_EQ(LoadSavedModelBundle(ModelWithAssetName("../saved_model.pb")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadSavedModelBundle(ModelWithAssetName("/etc/passwd")).status().code(),
            absl::StatusCode::kInvalidArgument);

  std::string dir = ModelWithAssetName("link.txt");
  std::filesystem::create_symlink(file::JoinPath(dir, "saved_model.pb"),
                                  file::JoinPath(dir, "assets/link.txt"));
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> escaped = LoadSavedModelBundle(dir);
  EXPECT_EQ(escaped.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(escaped.status().message().find("outside"), std::string::npos);
}

}  // namespace
}  // namespace smrt::loader

namespace smrt::loader {
namespace {

// A TensorFlow Serving model base path: numbered version folders; the highest
// number (not the last in text order) is read, other folders are ignored.
TEST(ModelVersionTest, ABasePathLoadsItsHighestVersion) {
  namespace fs = std::filesystem;
  const std::string base = testing::MakeTempDir() + "/served";
  const std::string model = testing::TestDataDir() + "/zoo/keras3_dense_in_module/saved_model";
  fs::create_directories(base);
  for (const char* v : {"1", "2", "10"}) {
    fs::copy(model, base + "/" + v, fs::copy_options::recursive);
  }
  fs::create_directories(base + "/tmp_upload");
  ASSERT_TRUE(file::WriteAll(base + "/11.pb", "not a version folder").ok());
  absl::StatusOr<std::string> v = ResolveModelVersion(base, *Env::Default());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, base + "/10");
  absl::StatusOr<std::unique_ptr<SavedModelBundle>> bundle = LoadSavedModelBundle(base);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->dir, base + "/10");
  ASSERT_NE((*bundle)->variables, nullptr);
  // A version folder itself, and a SavedModel directory, are what they are.
  EXPECT_EQ(*ResolveModelVersion(base + "/2", *Env::Default()), base + "/2");
  EXPECT_EQ(*ResolveModelVersion(model, *Env::Default()), model);
  // No version folder: the directory, whose read says what is missing.
  const std::string empty = testing::MakeTempDir() + "/empty_base";
  fs::create_directories(empty + "/tmp_upload");
  EXPECT_EQ(*ResolveModelVersion(empty, *Env::Default()), empty);
  EXPECT_EQ(LoadSavedModelBundle(empty).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace smrt::loader
