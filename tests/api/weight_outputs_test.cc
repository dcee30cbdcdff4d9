// A signature that returns a weight: the memory plan counts it as mapped or
// read, and the caller's output is its own copy,
// whether the weight lives in the checkpoint's mapping (read-only: a write
// would fault) or in a copy the model keeps (a write would change the next
// run's answers).
#include <cstring>
#include <filesystem>
#include <string>

#include "core/file.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "smrt/tfproto/saved_model.pb.h"
#include "testing/bundle_writer.h"
#include "testing/paths.h"

namespace smrt {
namespace {

constexpr int kN = 16;  // 64 bytes of float32: the checkpoint entry is mapped

// y = x + w, and w itself, with w a TF1 variable restored from the bundle.
std::string WriteModel() {
  const std::string dir = testing::MakeTempDir() + "/weight_out";
  std::filesystem::create_directories(dir + "/variables");
  const std::string shape = absl::StrCat("shape { dim { size: ", kN, " } }");
  const std::string text = absl::StrCat(
      "saved_model_schema_version: 1 meta_graphs { meta_info_def { tags: 'serve' } graph_def {",
      " node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } }",
      "   attr { key: 'shape' value { ", shape, " } } }",
      " node { name: 'w' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }",
      "   attr { key: 'shape' value { ", shape, " } } }",
      " node { name: 'w_read' op: 'Identity' input: 'w' attr { key: 'T' value { type: DT_FLOAT } } }",
      " node { name: 'y' op: 'AddV2' input: 'x' input: 'w_read'",
      "   attr { key: 'T' value { type: DT_FLOAT } } } }",
      " signature_def { key: 'serving_default' value { method_name: 'tensorflow/serving/predict'",
      "   inputs { key: 'x' value { name: 'x:0' dtype: DT_FLOAT tensor_", shape, " } }",
      "   outputs { key: 'w' value { name: 'w_read:0' dtype: DT_FLOAT tensor_", shape, " } }",
      "   outputs { key: 'y' value { name: 'y:0' dtype: DT_FLOAT tensor_", shape, " } } } } }");
  tfproto::SavedModel proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto));
  EXPECT_TRUE(file::WriteAll(dir + "/saved_model.pb", proto.SerializeAsString()).ok());
  Tensor w = *Tensor::Create(DataType::kFloat, {kN});
  for (int i = 0; i < kN; ++i) w.data<float>()[i] = static_cast<float>(i);
  EXPECT_TRUE(testing::WriteBundle(dir + "/variables/variables", {{"w", w}}).ok());
  return dir;
}

TEST(WeightOutputsTest, AReturnedWeightIsTheCallersToWrite) {
  const std::string dir = WriteModel();
  for (bool map : {true, false}) {
    SCOPED_TRACE(map);
    LoadOptions options;
    options.map_variables = map;
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    // The variable is the signature's one weight: from the mapping, or read.
    absl::StatusOr<MemoryPlan> plan = (*model)->PlanMemory("serving_default", {{"x", {kN}}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->weight_bytes, kN * 4);
    EXPECT_EQ(plan->mapped_weight_bytes, map ? kN * 4 : 0);
    Tensor x = *Tensor::Create(DataType::kFloat, {kN});
    for (int call = 0; call < 2; ++call) {
      absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"x", x}});
      ASSERT_TRUE(out.ok()) << out.status();
      Tensor& w = out->at("w");
      ASSERT_EQ(w.num_elements(), kN);
      EXPECT_FALSE(w.mapped());
      EXPECT_TRUE(w.sole_owner());
      for (int i = 0; i < kN; ++i) {
        ASSERT_EQ(w.data<float>()[i], static_cast<float>(i)) << call;
        ASSERT_EQ(out->at("y").data<float>()[i], static_cast<float>(i)) << call;
      }
      std::memset(w.raw_data(), 0xff, w.byte_size());  // the caller's own buffer
    }
  }
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

}  // namespace
}  // namespace smrt
