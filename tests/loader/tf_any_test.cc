// Any values that name TensorFlow's types, read into smrt's own messages.
#include "loader/tf_any.h"

#include "gtest/gtest.h"
#include "smrt/tfproto/meta_graph.pb.h"
#include "smrt/tfproto/xla/xla_data.pb.h"

namespace smrt::loader {
namespace {

google::protobuf::Any AnyOf(const std::string& url, const google::protobuf::Message& m) {
  google::protobuf::Any any;
  any.set_type_url(url);
  any.set_value(m.SerializeAsString());
  return any;
}

tfproto::AssetFileDef Asset() {
  tfproto::AssetFileDef def;
  def.mutable_tensor_info()->set_name("Const:0");
  def.set_filename("vocab.txt");
  return def;
}

TEST(TfAnyTest, NamesAreTensorFlows) {
  EXPECT_EQ(TensorFlowTypeName(*tfproto::AssetFileDef::descriptor()), "tensorflow.AssetFileDef");
  EXPECT_EQ(TensorFlowTypeName(*tfproto::MetaGraphDef::MetaInfoDef::descriptor()),
            "tensorflow.MetaGraphDef.MetaInfoDef");
  EXPECT_EQ(TensorFlowTypeName(*tfproto::xla::DotDimensionNumbers::descriptor()),
            "xla.DotDimensionNumbers");
  EXPECT_EQ(TensorFlowTypeName(*google::protobuf::Any::descriptor()), "google.protobuf.Any");
}

TEST(TfAnyTest, UnpacksTensorFlowsTypeUrl) {
  for (const char* url : {"type.googleapis.com/tensorflow.AssetFileDef", "tensorflow.AssetFileDef",
                          "example.com/a/b/tensorflow.AssetFileDef",
                          "type.googleapis.com/smrt.tfproto.AssetFileDef"}) {
    SCOPED_TRACE(url);
    const google::protobuf::Any any = AnyOf(url, Asset());
    EXPECT_TRUE(AnyIs(any, *tfproto::AssetFileDef::descriptor()));
    tfproto::AssetFileDef def;
    ASSERT_TRUE(UnpackAny(any, &def).ok());
    EXPECT_EQ(def.filename(), "vocab.txt");
    EXPECT_EQ(def.tensor_info().name(), "Const:0");
  }
}

TEST(TfAnyTest, RefusesAnotherType) {
  const google::protobuf::Any any =
      AnyOf("type.googleapis.com/tensorflow.SignatureDef", tfproto::SignatureDef());
  EXPECT_FALSE(AnyIs(any, *tfproto::AssetFileDef::descriptor()));
  tfproto::AssetFileDef def;
  absl::Status s = UnpackAny(any, &def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tensorflow.SignatureDef"), std::string::npos) << s;
  EXPECT_NE(s.message().find("tensorflow.AssetFileDef"), std::string::npos) << s;

  // A name that merely ends like it is another type.
  EXPECT_FALSE(AnyIs(AnyOf("type.googleapis.com/other.AssetFileDef", Asset()),
                     *tfproto::AssetFileDef::descriptor()));
}

TEST(TfAnyTest, RefusesBytesThatDoNotParse) {
  google::protobuf::Any any;
  any.set_type_url("type.googleapis.com/tensorflow.AssetFileDef");
  any.set_value("\x0a\xff", 2);  // field 1, length 255, then nothing
  tfproto::AssetFileDef def;
  absl::Status s = UnpackAny(any, &def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not a valid"), std::string::npos) << s;
}

TEST(TfAnyTest, FindsSmrtsMessageForTensorFlowsName) {
  EXPECT_EQ(FindTensorFlowType("tensorflow.AssetFileDef"), tfproto::AssetFileDef::descriptor());
  EXPECT_EQ(FindTensorFlowType("smrt.tfproto.AssetFileDef"), tfproto::AssetFileDef::descriptor());
  EXPECT_EQ(FindTensorFlowType("xla.DotDimensionNumbers"),
            tfproto::xla::DotDimensionNumbers::descriptor());
  EXPECT_EQ(FindTensorFlowType("tensorflow.NoSuchMessage"), nullptr);
  EXPECT_EQ(FindTensorFlowType("google.protobuf.Any"), nullptr);
}

}  // namespace
}  // namespace smrt::loader
