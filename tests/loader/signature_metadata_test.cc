// Signature metadata read by smrt equals what TensorFlow Serving reports for
// the same models (the JSON files shipped beside them).
#include <string>

#include "core/file.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "loader/meta_graph_select.h"
#include "loader/saved_model_reader.h"
#include "testing/paths.h"

namespace smrt::loader {
namespace {

namespace pbu = google::protobuf::util;
using ::smrt::testing::SharedModel;

void ExpectSignaturesMatchJson(const std::string& json_file, const std::string& model_dir,
                               bool ignore_defaults = false) {
  absl::StatusOr<std::string> json = file::ReadAll(SharedModel(json_file));
  ASSERT_TRUE(json.ok()) << json.status();
  google::protobuf::Struct root;
  ASSERT_TRUE(pbu::JsonStringToMessage(*json, &root).ok());
  const auto& sigs = root.fields()
                         .at("metadata")
                         .struct_value()
                         .fields()
                         .at("signature_def")
                         .struct_value()
                         .fields()
                         .at("signature_def")
                         .struct_value();

  absl::StatusOr<tfproto::SavedModel> model = ReadSavedModelProto(SharedModel(model_dir));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<const tfproto::MetaGraphDef*> mg = SelectMetaGraph(*model, {"serve"}, model_dir);
  ASSERT_TRUE(mg.ok());
  ASSERT_EQ(static_cast<size_t>(sigs.fields().size()), (*mg)->signature_def().size());

  for (const auto& [key, value] : sigs.fields()) {
    std::string sig_json;
    ASSERT_TRUE(pbu::MessageToJsonString(value.struct_value(), &sig_json).ok());
    tfproto::SignatureDef expected;
    ASSERT_TRUE(pbu::JsonStringToMessage(sig_json, &expected).ok()) << sig_json;
    auto it = (*mg)->signature_def().find(key);
    ASSERT_NE(it, (*mg)->signature_def().end()) << "missing signature " << key;
    std::string diff;
    pbu::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    if (ignore_defaults) {
      differ.IgnoreField(tfproto::SignatureDef::descriptor()->FindFieldByName("defaults"));
    }
    EXPECT_TRUE(differ.Compare(expected, it->second)) << key << ": " << diff;
  }
}

TEST(SignatureMetadataTest, Tf1HalfPlusTwoMatchesServingMetadata) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectSignaturesMatchJson("tf-serving/half_plus_two_model_metadata.json",
                            "tf-serving/saved_model_half_plus_two_cpu/00000123");
}

TEST(SignatureMetadataTest, Tf2HalfPlusTwoMatchesServingMetadata) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  ExpectSignaturesMatchJson(
      "tf-serving/saved_model_half_plus_two_tf2_2_versions_metadata.json",
      "tf-serving/saved_model_half_plus_two_tf2_cpu/00000123",
      // The JSON was written for the 2_versions export, whose serving_default
      // carries no default value for x; ours has defaults[x] = 0.
      /*ignore_defaults=*/true);
}

}  // namespace
}  // namespace smrt::loader
