// LoadOptions::limits, allowed_ops and check_numerics, and assets that try to
// lead outside the model directory.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "smrt/check.h"
#include "smrt/model.h"
#include "smrt/tfproto/saved_model.pb.h"
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

TEST(LimitsTest, MemoryStatsFollowTensorsTheModelHolds) {
  LoadOptions o;
  o.limits.memory_limit_bytes = 1 << 20;
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Bad("fill_input"), o);
  ASSERT_TRUE(m.ok()) << m.status();
  const MemoryStats loaded = (*m)->GetMemoryStats();
  EXPECT_EQ(loaded.limit_bytes, uint64_t{1} << 20);
  EXPECT_GE(loaded.peak_bytes_in_use, loaded.bytes_in_use);
  Tensor dims = *Tensor::Create(DataType::kInt64, {1});
  dims.data<int64_t>()[0] = 1000;  // a float output of 4000 bytes
  absl::StatusOr<NamedTensors> out = (*m)->Run("serving_default", {{"dims", dims}});
  ASSERT_TRUE(out.ok()) << out.status();
  const MemoryStats held = (*m)->GetMemoryStats();
  EXPECT_EQ(held.bytes_in_use, loaded.bytes_in_use + 4000);
  EXPECT_GE(held.peak_bytes_in_use, held.bytes_in_use);
  EXPECT_GT(held.allocation_count, loaded.allocation_count);
  out->clear();
  const MemoryStats freed = (*m)->GetMemoryStats();
  EXPECT_EQ(freed.bytes_in_use, loaded.bytes_in_use);
  EXPECT_EQ(freed.peak_bytes_in_use, held.peak_bytes_in_use);
  (*m)->ResetPeakMemoryStats();
  EXPECT_EQ((*m)->GetMemoryStats().peak_bytes_in_use, loaded.bytes_in_use);
  // A refused allocation leaves no trace.
  dims.data<int64_t>()[0] = 1 << 19;
  EXPECT_FALSE((*m)->Run("serving_default", {{"dims", dims}}).ok());
  EXPECT_EQ((*m)->GetMemoryStats().bytes_in_use, loaded.bytes_in_use);
}

TEST(LimitsTest, StringContentsCountAgainstTheLimits) {
  LoadOptions o;
  o.limits.memory_limit_bytes = 1 << 20;
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Bad("string_tile_input"), o);
  ASSERT_TRUE(m.ok()) << m.status();
  const uint64_t loaded = (*m)->GetMemoryStats().bytes_in_use;
  Tensor x = *Tensor::Create(DataType::kString, {1});
  x.data<std::string>()[0] = std::string(10000, 'x');
  Tensor multiples = *Tensor::Create(DataType::kInt64, {1});
  multiples.data<int64_t>()[0] = 50;  // 500 KB of strings: fine
  absl::StatusOr<NamedTensors> out =
      (*m)->Run("serving_default", {{"x", x}, {"multiples", multiples}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->at("y").num_elements(), 50);
  EXPECT_EQ(out->at("y").data<std::string>()[49], x.data<std::string>()[0]);
  // The output holds its elements and their contents.
  EXPECT_EQ((*m)->GetMemoryStats().bytes_in_use, loaded + 50 * (sizeof(std::string) + 10000));
  out->clear();
  EXPECT_EQ((*m)->GetMemoryStats().bytes_in_use, loaded);
  multiples.data<int64_t>()[0] = 200;  // 2 MB of strings in 6.4 KB of elements: over
  ExpectStatus((*m)->Run("serving_default", {{"x", x}, {"multiples", multiples}}).status(),
               absl::StatusCode::kResourceExhausted, "memory_limit_bytes");
  EXPECT_EQ((*m)->GetMemoryStats().bytes_in_use, loaded);
  o.limits.memory_limit_bytes = 0;
  o.limits.max_tensor_bytes = 100000;
  m = Model::Load(Bad("string_tile_input"), o);
  ASSERT_TRUE(m.ok()) << m.status();
  multiples.data<int64_t>()[0] = 20;  // 200 KB of strings in one tensor
  ExpectStatus((*m)->Run("serving_default", {{"x", x}, {"multiples", multiples}}).status(),
               absl::StatusCode::kResourceExhausted, "max_tensor_bytes");
}

// Peak resident bytes since the last ResetPeakRss(), from /proc (Linux).
int64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

bool ResetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

// Tile used to build an int64 index table per output dim: twice a 1-D
// float output, allocated outside every limit.
TEST(LimitsTest, TileNeedsNoScratchBeyondItsOutput) {
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Bad("tile_input"));
  ASSERT_TRUE(m.ok()) << m.status();
  if (!ResetPeakRss() || PeakRssBytes() < 0) GTEST_SKIP() << "no /proc/self/clear_refs";
  const int64_t before = PeakRssBytes();
  Tensor multiples = *Tensor::Create(DataType::kInt64, {2});
  multiples.data<int64_t>()[0] = 1;
  multiples.data<int64_t>()[1] = int64_t{1} << 26;  // 256 MiB of float32
  absl::StatusOr<NamedTensors> out =
      (*m)->Run("serving_default", {{"x", F32({1, 1}, {3})}, {"multiples", multiples}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& y = out->at("y");
  ASSERT_EQ(y.num_elements(), int64_t{1} << 26);
  EXPECT_EQ(y.data<float>()[0], 3);
  EXPECT_EQ(y.data<float>()[y.num_elements() - 1], 3);
  const int64_t grew = PeakRssBytes() - before;
  EXPECT_LT(grew, int64_t{384} << 20) << "peak RSS grew by " << (grew >> 20) << " MiB";
}

TEST(LimitsTest, CheckAppliesTheLoadLimits) {
  // 8 GiB of float constant: check reports the limit instead of allocating it.
  absl::StatusOr<ModelCheck> check = CheckModel(Bad("huge_const_splat"));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_FALSE(check->ok());
  ASSERT_FALSE(check->signatures.empty());
  EXPECT_THAT(check->signatures.back().error, HasSubstr("max_tensor_bytes"));
  absl::StatusOr<ModelCheck> strings = CheckModel(Bad("huge_string_splat"));
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_FALSE(strings->ok());
  LoadOptions o;
  o.limits.max_nodes = 2;
  absl::StatusOr<ModelCheck> small = CheckModel(Digits(), o);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_FALSE(small->ok());
  EXPECT_THAT(small->signatures.back().error, HasSubstr("more than 2 nodes"));
}

TEST(LimitsTest, DeepGraphsAreImportedWithoutOverflowingTheStack) {
  // A chain of 30000 Neg nodes: the importer recurses along inputs.
  tfproto::SavedModel sm;
  tfproto::MetaGraphDef* mg = sm.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  tfproto::GraphDef* g = mg->mutable_graph_def();
  tfproto::NodeDef* x = g->add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tfproto::DT_FLOAT);
  (*x->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(1);
  constexpr int kDepth = 30000;
  std::string prev = "x";
  for (int i = 0; i < kDepth; ++i) {
    tfproto::NodeDef* n = g->add_node();
    n->set_name("n" + std::to_string(i));
    n->set_op("Neg");
    n->add_input(prev);
    (*n->mutable_attr())["T"].set_type(tfproto::DT_FLOAT);
    prev = n->name();
  }
  auto& sig = (*mg->mutable_signature_def())["serving_default"];
  (*sig.mutable_inputs())["x"].set_name("x:0");
  (*sig.mutable_inputs())["x"].set_dtype(tfproto::DT_FLOAT);
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

TEST(AssetsTest, GraphAndCheckpointLinksLeadingOutAreRefused) {
  const std::string base = testing::MakeTempDir();
  const std::string dir = base + "/model";
  testing::CopyTree(Digits(), dir);
  // The directory itself may be a link, and so may files that stay inside.
  fs::create_directory_symlink(dir, base + "/latest");
  EXPECT_TRUE(Model::Load(base + "/latest").ok());
  fs::rename(dir + "/saved_model.pb", dir + "/graph.pb");
  fs::create_symlink("graph.pb", dir + "/saved_model.pb");
  EXPECT_TRUE(Model::Load(dir).ok());
  // saved_model.pb leads out of the model.
  const std::string outside = testing::MakeTempDir();
  fs::remove(dir + "/saved_model.pb");
  fs::rename(dir + "/graph.pb", outside + "/saved_model.pb");
  fs::create_symlink(outside + "/saved_model.pb", dir + "/saved_model.pb");
  ExpectStatus(Model::Load(dir).status(), absl::StatusCode::kPermissionDenied,
               "outside the model directory");
  fs::remove(dir + "/saved_model.pb");
  fs::rename(outside + "/saved_model.pb", dir + "/saved_model.pb");
  // A checkpoint file, then the whole variables folder.
  const std::string index = dir + "/variables/variables.index";
  fs::rename(index, outside + "/variables.index");
  fs::create_symlink(outside + "/variables.index", index);
  ExpectStatus(Model::Load(dir).status(), absl::StatusCode::kPermissionDenied, "variables.index");
  fs::remove(index);
  fs::rename(outside + "/variables.index", index);
  fs::rename(dir + "/variables", outside + "/variables");
  fs::create_directory_symlink(outside + "/variables", dir + "/variables");
  ExpectStatus(Model::Load(dir).status(), absl::StatusCode::kPermissionDenied,
               "outside the model directory");
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
  tfproto::SavedModel sm;
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
