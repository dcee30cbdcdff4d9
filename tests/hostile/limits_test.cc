// LoadOptions::limits, allowed_ops and check_numerics, and assets that try to
// lead outside the model directory.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "core/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "tensorflow/saved_model.pb.h"
#include "testing/paths.h"

namespace smrt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Bad(const std::string& name) { return testing::TestDataDir() + "/bad/" + name; }
std::string Digits() { return testing::TestDataDir() + "/../../examples/models/digits"; }

Tensor F32(Shape shape, std::vector<float> v) {
  Tensor t = *Tensor::Create(DataType::kFloat, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

void ExpectStatus(const absl::Status& s, absl::StatusCode code, const std::string& fragment) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(fragment));
}

TEST(LimitsTest, DefaultsAreSafeAndGenerousEnoughForRealModels) {
  LoadOptions o;
  EXPECT_EQ(o.limits.max_tensor_bytes, uint64_t{4} << 30);
  EXPECT_GT(o.limits.max_model_bytes, o.limits.max_tensor_bytes);
  EXPECT_GT(o.limits.max_nodes, 100000);
  EXPECT_EQ(o.limits.max_function_depth, 32);
  EXPECT_FALSE(o.check_numerics);
  EXPECT_TRUE(o.allowed_ops.empty());
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Digits(), o);
  EXPECT_TRUE(m.ok()) << m.status();
}

TEST(LimitsTest, MaxModelBytes) {
  LoadOptions o;
  o.limits.max_model_bytes = 1000;  // digits: ~20 KB of graph, ~50 KB of variables
  ExpectStatus(Model::Load(Digits(), o).status(), absl::StatusCode::kResourceExhausted,
               "saved_model.pb is ");
  absl::StatusOr<uint64_t> pb = file::Size(Digits() + "/saved_model.pb");
  ASSERT_TRUE(pb.ok());
  o.limits.max_model_bytes = *pb + 100;
  ExpectStatus(Model::Load(Digits(), o).status(), absl::StatusCode::kResourceExhausted,
               "max_model_bytes");
}

TEST(LimitsTest, MaxTensorBytesCoversCheckpointTensors) {
  LoadOptions o;
  o.limits.max_tensor_bytes = 64;  // the variables of digits are larger
  ExpectStatus(Model::Load(Digits(), o).status(), absl::StatusCode::kResourceExhausted,
               "max_tensor_bytes");
}

TEST(LimitsTest, MaxNodes) {
  LoadOptions o;
  o.limits.max_nodes = 5;
  ExpectStatus(Model::Load(Digits(), o).status(), absl::StatusCode::kResourceExhausted,
               "more than 5 nodes");
}

TEST(LimitsTest, MaxFunctionDepth) {
  LoadOptions o;
  o.limits.max_function_depth = 0;
  // tf_module calls its functions through StatefulPartitionedCall.
  absl::Status s =
      Model::Load(testing::TestDataDir() + "/zoo/tf_module/saved_model", o).status();
  ExpectStatus(s, absl::StatusCode::kInvalidArgument, "nested deeper than 0");
}

TEST(LimitsTest, MemoryLimitCountsLiveTensors) {
  LoadOptions o;
  o.limits.memory_limit_bytes = 1 << 20;
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Bad("fill_input"), o);
  ASSERT_TRUE(m.ok()) << m.status();
  Tensor dims = *Tensor::Create(DataType::kInt64, {1});
  dims.data<int64_t>()[0] = 1000;  // 4 KB: fine
  absl::StatusOr<NamedTensors> small = (*m)->Run("serving_default", {{"dims", dims}});
  ASSERT_TRUE(small.ok()) << small.status();
  dims.data<int64_t>()[0] = 1 << 19;  // 2 MB: over
  ExpectStatus((*m)->Run("serving_default", {{"dims", dims}}).status(),
               absl::StatusCode::kResourceExhausted, "memory_limit_bytes");
  // Outputs the caller holds count until freed.
  dims.data<int64_t>()[0] = 100000;  // 400 KB each
  absl::StatusOr<NamedTensors> a = (*m)->Run("serving_default", {{"dims", dims}});
  absl::StatusOr<NamedTensors> b = (*m)->Run("serving_default", {{"dims", dims}});
  ASSERT_TRUE(a.ok() && b.ok());
  ExpectStatus((*m)->Run("serving_default", {{"dims", dims}}).status(),
               absl::StatusCode::kResourceExhausted, "memory_limit_bytes");
  a->clear();
  EXPECT_TRUE((*m)->Run("serving_default", {{"dims", dims}}).ok());
}

TEST(LimitsTest, DeepGraphsAreImportedWithoutOverflowingTheStack) {
  // A chain of 30000 Neg nodes: the importer recurses along inputs.
  tensorflow::SavedModel sm;
  tensorflow::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tensorflow::GraphDef* g = mg->mutable_graph_def();
  tensorflow::NodeDef* x = g->add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  (*x->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(1);
  constexpr int kDepth = 30000;
  std::string prev = "x";
  for (int i = 0; i < kDepth; ++i) {
    tensorflow::NodeDef* n = g->add_node();
    n->set_name("n" + std::to_string(i));
    n->set_op("Neg");
    n->add_input(prev);
    (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    prev = n->name();
  }
  auto& sig = (*mg->mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_inputs())["x"].set_dtype(tensorflow::DT_FLOAT);
  (*sig.mutable_outputs())["y"].set_name(prev + ":0");
  const std::string dir = testing::MakeTempDir();
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", sm.SerializeAsString()).ok());
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(dir);
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<NamedTensors> y = (*m)->Run("serving_default", {{"x", F32({1}, {3})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at("y").data<float>()[0], 3.0f);  // an even number of negations
}

TEST(AllowedOpsTest, RefusedOpsNameTheOpAndNodeAndStayRefusedWithoutAKernel) {
  absl::Status refused = Model::Load(Bad("read_file_op")).status();
  ExpectStatus(refused, absl::StatusCode::kUnimplemented, "touches the file system");
  EXPECT_THAT(std::string(refused.message()), HasSubstr("allowed_ops"));
  LoadOptions o;
  o.allowed_ops = {"ReadFile"};
  // Allowed, but smrt has no ReadFile kernel: still not loadable, now for that reason.
  absl::Status no_kernel = Model::Load(Bad("read_file_op"), o).status();
  ExpectStatus(no_kernel, absl::StatusCode::kUnimplemented, "ReadFile (1 node, e.g. 'contents'");
  EXPECT_THAT(std::string(no_kernel.message()), ::testing::Not(HasSubstr("file system")));
}

TEST(AssetsTest, SymlinksLeadingOutAreRefused) {
  const std::string dir = testing::MakeTempDir() + "/model";
  testing::CopyTree(Bad("asset_ok"), dir);
  ASSERT_TRUE(Model::Load(dir).ok());
  // The asset file itself is a link out of the model.
  fs::remove(dir + "/assets/vocab.txt");
  fs::create_symlink("/etc/hostname", dir + "/assets/vocab.txt");
  ExpectStatus(Model::Load(dir).status(), absl::StatusCode::kInvalidArgument, "outside");
  // The assets folder is a link out of the model.
  fs::remove_all(dir + "/assets");
  const std::string outside = testing::MakeTempDir();
  ASSERT_TRUE(file::WriteAll(outside + "/vocab.txt", "a\n").ok());
  fs::create_directory_symlink(outside, dir + "/assets");
  ExpectStatus(Model::Load(dir).status(), absl::StatusCode::kInvalidArgument, "outside");
}

TEST(AssetsTest, TableFilesInsideTheModelAreRead) {
  // table_file_outside names /etc/hostname; the same graph naming a file of
  // the model loads.
  const std::string dir = testing::MakeTempDir() + "/model";
  testing::CopyTree(Bad("table_file_outside"), dir);
  fs::create_directories(dir + "/assets");
  ASSERT_TRUE(file::WriteAll(dir + "/assets/vocab.txt", "a\nb\n").ok());
  absl::StatusOr<std::string> pb = file::ReadAll(dir + "/saved_model.pb");
  ASSERT_TRUE(pb.ok());
  tensorflow::SavedModel sm;
  ASSERT_TRUE(sm.ParseFromString(*pb));
  for (auto& n : *sm.mutable_meta_graphs(0)->mutable_graph_def()->mutable_node()) {
    if (n.name() == "path") {
      (*n.mutable_attr())["value"].mutable_tensor()->set_string_val(0, dir + "/assets/vocab.txt");
    }
  }
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", sm.SerializeAsString()).ok());
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(dir);
  ASSERT_TRUE(m.ok()) << m.status();
  Tensor keys = *Tensor::Create(DataType::kString, {2});
  keys.data<std::string>()[0] = "b";
  keys.data<std::string>()[1] = "zzz";
  absl::StatusOr<NamedTensors> y = (*m)->Run("serving_default", {{"x", keys}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at("y").data<int64_t>()[0], 1);
  EXPECT_EQ(y->at("y").data<int64_t>()[1], -1);
  // A path that climbs out through the model's own directory is refused too.
  for (auto& n : *sm.mutable_meta_graphs(0)->mutable_graph_def()->mutable_node()) {
    if (n.name() == "path") {
      (*n.mutable_attr())["value"].mutable_tensor()->set_string_val(
          0, dir + "/assets/../../model/../../etc/hostname");
    }
  }
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", sm.SerializeAsString()).ok());
  ExpectStatus(Model::Load(dir).status(), absl::StatusCode::kPermissionDenied,
               "outside the model directory");
}

TEST(CheckNumericsTest, FirstNanOrInfNamesNodeAndOp) {
  LoadOptions o;
  o.check_numerics = true;
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Bad("numerics"), o);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE((*m)->Run("serving_default", {{"x", F32({2}, {1, 2})}}).ok());
  // log(-1) = NaN is produced by node 'log' (Log), before AddV2 sees it.
  ExpectStatus((*m)->Run("serving_default", {{"x", F32({2}, {1, -1})}}).status(),
               absl::StatusCode::kInvalidArgument,
               "check_numerics: node 'log' (Log) produced nan in output 0 (float32 (2)) at flat "
               "index 1");
  ExpectStatus((*m)->Run("serving_default", {{"x", F32({1}, {0})}}).status(),
               absl::StatusCode::kInvalidArgument, "node 'log' (Log) produced -inf");
}

TEST(CheckNumericsTest, EnvironmentVariableTurnsItOn) {
  setenv("SMRT_CHECK_NUMERICS", "1", 1);
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Bad("numerics"));
  unsetenv("SMRT_CHECK_NUMERICS");
  ASSERT_TRUE(m.ok()) << m.status();
  ExpectStatus((*m)->Run("serving_default", {{"x", F32({1}, {-3})}}).status(),
               absl::StatusCode::kInvalidArgument, "node 'log' (Log) produced nan");
  // Without it, the NaN is returned.
  absl::StatusOr<std::unique_ptr<Model>> plain = Model::Load(Bad("numerics"));
  ASSERT_TRUE(plain.ok());
  absl::StatusOr<NamedTensors> y = (*plain)->Run("serving_default", {{"x", F32({1}, {-3})}});
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(std::isnan(y->at("y").data<float>()[0]));
}

}  // namespace
}  // namespace smrt
