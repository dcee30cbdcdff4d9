// smrt beside TensorFlow's own protos in one process (issue 37). A program
// that links TensorFlow, or TF Serving's client protos, registers messages
// such as tensorflow.GraphDef from files such as
// "tensorflow/core/framework/graph.proto" in protobuf's generated pool; this
// program links a few of them (proto/ here) next to smrt, through the public
// API only: once with libsmrt.so (coexistence_test), once with the static
// libraries (coexistence_static_test). smrt's own copies of the wire format
// must claim neither those names nor those files: when they did, the first
// aborted before main() (descriptor.cc "Check failed:
// GeneratedDatabase()->Add") and the second did not link (multiple
// definitions of tensorflow::GraphDef's members), so reaching any test at all
// is half the check.
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"
#include "xla/xla_data.pb.h"

namespace smrt {
namespace {

const char kDigits[] = SMRT_SOURCE_DIR "/examples/models/digits";

// $SMRT_SHARED_DIR, else the build's "<repo>/../shared".
std::string SharedModel(const std::string& relative) {
  const char* dir = std::getenv("SMRT_SHARED_DIR");
  return std::string(dir != nullptr ? dir : SMRT_SHARED_DIR) + "/models/" + relative;
}

TEST(CoexistenceTest, TensorFlowsNamesBelongToTensorFlowsFiles) {
  // A message of each file, so that the linker keeps them all.
  EXPECT_EQ(tensorflow::SavedModel::descriptor()->file()->name(),
            "tensorflow/core/protobuf/saved_model.proto");
  EXPECT_EQ(xla::DotDimensionNumbers::descriptor()->file()->name(), "xla/xla_data.proto");
  const google::protobuf::DescriptorPool* pool = google::protobuf::DescriptorPool::generated_pool();
  const struct {
    const char* type;
    const char* file;
  } kTensorFlows[] = {
      {"tensorflow.GraphDef", "tensorflow/core/framework/graph.proto"},
      {"tensorflow.NodeDef", "tensorflow/core/framework/node_def.proto"},
      {"tensorflow.MetaGraphDef", "tensorflow/core/protobuf/meta_graph.proto"},
      {"tensorflow.AssetFileDef", "tensorflow/core/protobuf/meta_graph.proto"},
      {"tensorflow.SavedModel", "tensorflow/core/protobuf/saved_model.proto"},
      {"xla.DotDimensionNumbers", "xla/xla_data.proto"},
  };
  for (const auto& [type, file] : kTensorFlows) {
    const google::protobuf::Descriptor* d = pool->FindMessageTypeByName(type);
    ASSERT_NE(d, nullptr) << type;
    EXPECT_EQ(d->file()->name(), file) << type;
  }
}

TEST(CoexistenceTest, BothReadTheSameSavedModel) {
  std::ifstream in(std::string(kDigits) + "/saved_model.pb", std::ios::binary);
  ASSERT_TRUE(in.good());
  tensorflow::SavedModel tf_model;
  ASSERT_TRUE(tf_model.ParseFromIstream(&in));
  ASSERT_EQ(tf_model.meta_graphs_size(), 1);
  const tensorflow::MetaGraphDef& mg = tf_model.meta_graphs(0);
  ASSERT_EQ(mg.signature_def().count("serving_default"), 1u);
  const tensorflow::SignatureDef& sig = mg.signature_def().at("serving_default");
  ASSERT_EQ(sig.inputs().count("pixels"), 1u);
  EXPECT_EQ(sig.inputs().at("pixels").dtype(), tensorflow::DT_FLOAT);

  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(kDigits);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, {1, 64});
  ASSERT_TRUE(x.ok()) << x.status();
  for (int i = 0; i < 64; ++i) x->data<float>()[i] = ((i * 7919) % 1009) / 1008.0f;
  absl::StatusOr<NamedTensors> y = (*model)->Run("serving_default", {{"pixels", *x}});
  ASSERT_TRUE(y.ok()) << y.status();
  // TensorFlow's answer for this input (the README's example prints it).
  const float* p = y->at("probabilities").data<float>();
  EXPECT_NEAR(p[7], 0.9252f, 1e-4f);
  EXPECT_NEAR(p[4], 0.0722f, 1e-4f);
}

// A TF1 model whose "saved_model_assets" collection holds Any values typed
// "type.googleapis.com/tensorflow.AssetFileDef": smrt reads them by name even
// though tensorflow.AssetFileDef, in this process, is not smrt's message.
TEST(CoexistenceTest, ReadsTensorFlowTypedAnyValues) {
  const std::string dir = SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123");
  if (!std::ifstream(dir + "/saved_model.pb").good()) GTEST_SKIP() << dir << " is missing";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, {3, 1});
  ASSERT_TRUE(x.ok()) << x.status();
  for (int i = 0; i < 3; ++i) x->data<float>()[i] = static_cast<float>(i);
  absl::StatusOr<NamedTensors> y = (*model)->Run("serving_default", {{"x", *x}});
  ASSERT_TRUE(y.ok()) << y.status();
  const float* p = y->at("y").data<float>();
  for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(p[i], 0.5f * i + 2.0f);
}

}  // namespace
}  // namespace smrt
