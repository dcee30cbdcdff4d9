// `smrt check` on SavedModels that cannot load: the variables' data shards
// missing (a copy made without them, a partial download), or no signatures
// at all (tracker issue 35, item 4).
#include <filesystem>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "smrt/check.h"
#include "smrt/check_command.h"
#include "smrt/model.h"
#include "smrt/run_command.h"
#include "smrt/show_command.h"
#include "smrt/tfproto/saved_model.pb.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

// A copy of the committed tf_module zoo model (TF2, variables, an object
// graph in the data shard) in a temp dir.
std::string CopyOfTfModule() {
  const std::string dir = testing::MakeTempDir() + "/model";
  testing::CopyTree(testing::TestDataDir() + "/zoo/tf_module/saved_model", dir);
  return dir;
}

tfproto::SavedModel ReadProto(const std::string& dir) {
  tfproto::SavedModel proto;
  absl::StatusOr<std::string> bytes = file::ReadAll(dir + "/saved_model.pb");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(bytes.ok() && proto.ParseFromString(*bytes));
  return proto;
}

void WriteProto(const std::string& dir, const tfproto::SavedModel& proto) {
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", proto.SerializeAsString()).ok());
}

TEST(CheckWithoutDataTest, ListsOpsWhenTheDataShardsAreMissing) {
  const std::string dir = CopyOfTfModule();
  const std::string shard = dir + "/variables/variables.data-00000-of-00001";
  ASSERT_TRUE(std::filesystem::remove(shard));
  // An op smrt has no kernel for in place of Cumsum (in every function that
  // has one), so the check has a missing op to list.
  tfproto::SavedModel proto = ReadProto(dir);
  bool renamed = false;
  for (auto& f :
       *proto.mutable_meta_graphs(0)->mutable_graph_def()->mutable_library()->mutable_function()) {
    for (auto& n : *f.mutable_node_def()) {
      if (n.op() == "Cumsum") {
        n.set_op("SmrtTestOpWithoutKernel");
        renamed = true;
      }
    }
  }
  ASSERT_TRUE(renamed);
  WriteProto(dir, proto);

  std::ostringstream out;
  absl::Status s = RunCheck({"--dir", dir}, out);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  const std::string text = out.str();
  EXPECT_TRUE(absl::StrContains(text, "signature serving_default")) << text;
  EXPECT_TRUE(absl::StrContains(text, "MISSING SmrtTestOpWithoutKernel")) << text;
  EXPECT_TRUE(absl::StrContains(text, "1 data shard(s) missing: " + shard)) << text;
  EXPECT_FALSE(absl::StrContains(text, "UNBOUND")) << text;  // cannot be told
  EXPECT_TRUE(absl::StrContains(s.message(), "SmrtTestOpWithoutKernel")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "variables data missing: " + shard)) << s;

  absl::StatusOr<ModelCheck> c = CheckModel(dir);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->missing_variable_data, std::vector<std::string>{shard});
  EXPECT_FALSE(c->ok());
  // Loading still needs the data, and says which file.
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(absl::StrContains(model.status().message(), shard)) << model.status();
}

TEST(CheckWithoutDataTest, WithTheDataTheSameModelPasses) {
  std::ostringstream out;
  absl::Status s = RunCheck({"--dir", CopyOfTfModule()}, out);
  EXPECT_TRUE(s.ok()) << s << out.str();
  EXPECT_FALSE(absl::StrContains(out.str(), "missing")) << out.str();
}

TEST(NoSignaturesTest, SaysSoInWords) {
  const std::string dir = CopyOfTfModule();
  tfproto::SavedModel proto = ReadProto(dir);
  auto* sigs = proto.mutable_meta_graphs(0)->mutable_signature_def();
  for (auto it = sigs->begin(); it != sigs->end();) {
    it = it->first == "__saved_model_init_op" ? std::next(it) : sigs->erase(it);
  }
  WriteProto(dir, proto);

  std::ostringstream out;
  absl::Status s = RunCheck({"--dir", dir}, out);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "the SavedModel has no signatures")) << s;
  EXPECT_TRUE(absl::StrContains(out.str(), "has no signatures")) << out.str();

  s = RunCheck({"--dir", dir, "--signature_def", "serving_default"}, out);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "it has no signatures")) << s;

  s = RunShow({"--dir", dir, "--tag_set", "serve", "--signature_def", "serving_default"}, out);
  ASSERT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "the SavedModel has no signatures")) << s;
  EXPECT_FALSE(absl::StrContains(s.message(), "has: ")) << s;

  s = RunRun({"--dir", dir, "--signature_def", "serving_default", "--input_exprs", "x=[1]"}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "no signatures")) << s;
}

}  // namespace
}  // namespace smrt::cli
