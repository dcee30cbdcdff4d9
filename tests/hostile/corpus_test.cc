// The hostile-input corpus (tests/data/bad, made by scripts/make_bad_models.sh):
// every malformed model fails to load, and every hostile value fails to run,
// with a specific code and a message that names what is wrong.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/paths.h"

namespace smrt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Bad(const std::string& name) { return testing::TestDataDir() + "/bad/" + name; }

struct LoadCase {
  const char* name;
  absl::StatusCode code;
  const char* fragment;
};

// Cases that must fail at load.
constexpr LoadCase kLoadCases[] = {
    {"truncated_pb", absl::StatusCode::kInvalidArgument, "is not a valid SavedModel protobuf"},
    {"garbage_pb", absl::StatusCode::kInvalidArgument, "is not a valid SavedModel protobuf"},
    {"empty_pb", absl::StatusCode::kNotFound, "MetaGraphDef"},
    {"attr_wrong_type", absl::StatusCode::kInvalidArgument, "DstT"},
    {"const_no_value", absl::StatusCode::kInvalidArgument, "value"},
    {"const_size_mismatch", absl::StatusCode::kInvalidArgument, "tensor_content has 12 bytes"},
    {"const_too_many_values", absl::StatusCode::kInvalidArgument, "3 values in float_val"},
    {"negative_dim", absl::StatusCode::kInvalidArgument, "-5"},
    {"placeholder_bad_dim", absl::StatusCode::kInvalidArgument, "input 'x' (node 'x'): shape has an invalid dim -7"},
    {"overflowing_dims", absl::StatusCode::kInvalidArgument, "more elements than fit in int64"},
    {"huge_const_splat", absl::StatusCode::kResourceExhausted, "max_tensor_bytes"},
    {"huge_string_splat", absl::StatusCode::kResourceExhausted, "max_tensor_bytes"},
    {"graph_cycle", absl::StatusCode::kInvalidArgument, "cycle"},
    {"recursive_function", absl::StatusCode::kInvalidArgument, "recursive function"},
    {"inlining_bomb", absl::StatusCode::kResourceExhausted, "max_nodes"},
    {"long_names", absl::StatusCode::kUnimplemented, "...(5000 bytes)"},
    {"dangling_input", absl::StatusCode::kInvalidArgument,
     "node 'nowhere' is referenced but not defined"},
    {"bad_output_index", absl::StatusCode::kInvalidArgument, "output 7 is referenced"},
    {"duplicate_node_names", absl::StatusCode::kInvalidArgument, "two nodes named 'y'"},
    {"wrong_input_count", absl::StatusCode::kInvalidArgument, "has 1 inputs, but the op needs input 1"},
    {"switch_one_input", absl::StatusCode::kInvalidArgument,
     "node 's' (Switch) has 1 data inputs, but Switch takes 2"},
    {"missing_signature_tensor", absl::StatusCode::kInvalidArgument, "not_a_node"},
    {"missing_shard", absl::StatusCode::kNotFound, "variables.data-00001-of-00002 is missing"},
    {"shard_out_of_range", absl::StatusCode::kDataLoss, "is in shard 3 but the bundle has 1 shards"},
    {"data_crc_mismatch", absl::StatusCode::kDataLoss, "checksum mismatch for tensor 'w'"},
    {"index_crc_mismatch", absl::StatusCode::kDataLoss, "variables.index"},
    {"index_truncated", absl::StatusCode::kDataLoss, "variables.index"},
    {"variable_wrong_dtype", absl::StatusCode::kInvalidArgument, "holds DT_INT32"},
    {"second_variable_wrong_dtype", absl::StatusCode::kInvalidArgument,
     "variable 'v' is DT_FLOAT but checkpoint key 'v' holds DT_INT32"},
    {"read_file_op", absl::StatusCode::kUnimplemented, "ReadFile (1 node, e.g. 'contents'"},
    {"write_file_op", absl::StatusCode::kUnimplemented, "WriteFile (1 node, e.g. 'write'"},
    {"py_func_op", absl::StatusCode::kUnimplemented, "PyFunc (1 node, e.g. 'y'"},
    {"print_to_file", absl::StatusCode::kUnimplemented, "PrintV2 (1 node, e.g. 'print': prints to a file"},
    {"table_file_outside", absl::StatusCode::kPermissionDenied,
     "'/etc/hostname' is outside the model directory"},
    {"asset_parent_path", absl::StatusCode::kInvalidArgument, "leads outside"},
    {"asset_absolute_path", absl::StatusCode::kInvalidArgument, "is an absolute path"},
    // Found by semantic_mutator_fuzzer (read as strings, past a float buffer).
    {"saver_slices_not_strings", absl::StatusCode::kInvalidArgument,
     "restore op 'save/RestoreV2': its shape_and_slices constant "
     "'save/RestoreV2/shape_and_slices' is DT_FLOAT, not DT_STRING"},
};

// Cases that load (their hostile part is the values fed at run time, or
// they are legal oddities).
constexpr const char* kLoadingCases[] = {
    "good_variables", "extra_shard", "asset_ok", "gather_indices", "gather_nd_indices",
    "one_hot", "scatter_nd_indices", "strided_slice", "reshape_input", "fill_input",
    "tile_input", "string_tile_input", "range_input", "broadcast_to_input", "numerics", "zero_size",
    "while_forever", "reshape_impossible", "variable_missing_from_checkpoint",
    "read_variable_control_input"};

class LoadCorpusTest : public ::testing::TestWithParam<LoadCase> {};

TEST_P(LoadCorpusTest, FailsWithCodeAndMessage) {
  const LoadCase& c = GetParam();
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Bad(c.name));
  ASSERT_FALSE(model.ok()) << c.name << " loaded";
  EXPECT_EQ(model.status().code(), c.code) << model.status();
  EXPECT_THAT(std::string(model.status().message()), HasSubstr(c.fragment));
}

INSTANTIATE_TEST_SUITE_P(Bad, LoadCorpusTest, ::testing::ValuesIn(kLoadCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CorpusTest, ErrorsQuoteModelTextAtBoundedLength) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Bad("long_names"));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kUnimplemented) << model.status();
  const std::string message(model.status().message());
  EXPECT_LT(message.size(), 1500u) << message;
  EXPECT_THAT(message, HasSubstr("...(5000 bytes)"));
}

TEST(CorpusTest, EveryCaseHasATest) {
  std::set<std::string> known;
  for (const LoadCase& c : kLoadCases) known.insert(c.name);
  for (const char* c : kLoadingCases) known.insert(c);
  std::set<std::string> found;
  for (const auto& e : fs::directory_iterator(testing::TestDataDir() + "/bad")) {
    if (e.is_directory()) found.insert(e.path().filename().string());
  }
  EXPECT_EQ(found, known) << "tests/data/bad and this test disagree: rerun "
                             "scripts/make_bad_models.sh or add the case here";
}

std::unique_ptr<Model> LoadOk(const std::string& name, const LoadOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Bad(name), options);
  EXPECT_TRUE(model.ok()) << name << ": " << model.status();
  return model.ok() ? *std::move(model) : nullptr;
}

template <typename T>
Tensor Make(DataType dtype, Shape shape, std::vector<T> values) {
  Tensor t = *Tensor::Create(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

Tensor I32(Shape shape, std::vector<int32_t> v) { return Make(DataType::kInt32, shape, v); }
Tensor I64(Shape shape, std::vector<int64_t> v) { return Make(DataType::kInt64, shape, v); }
Tensor F32(Shape shape, std::vector<float> v) { return Make(DataType::kFloat, shape, v); }

void ExpectRunError(const Model& model, const NamedTensors& inputs, absl::StatusCode code,
                    const std::string& fragment) {
  absl::StatusOr<NamedTensors> out = model.Run("serving_default", inputs);
  ASSERT_FALSE(out.ok()) << "ran; expected " << fragment;
  EXPECT_EQ(out.status().code(), code) << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr(fragment));
}

TEST(CorpusTest, LegalOdditiesLoad) {
  for (const char* name : {"good_variables", "extra_shard", "asset_ok"}) {
    std::unique_ptr<Model> m = LoadOk(name);
    if (m == nullptr) continue;
    if (std::string(name) != "asset_ok") {
      absl::StatusOr<NamedTensors> y = m->Run("serving_default", {{"x", F32({2}, {3, 4})}});
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ(y->at("y").data<float>()[1], 8.0f);
    }
  }
}

TEST(CorpusTest, VariableMissingFromCheckpointFailsAtRun) {
  std::unique_ptr<Model> m = LoadOk("variable_missing_from_checkpoint");
  ASSERT_NE(m, nullptr);
  ExpectRunError(*m, {{"x", F32({2}, {1, 2})}}, absl::StatusCode::kFailedPrecondition,
                 "uninitialized");
}

// Found by semantic_mutator_fuzzer: ReadVariableOp's shape function never
// looks at its resource input, so a graph without one loads; the kernel must
// then fail the run, not read past the node's inputs.
TEST(CorpusTest, ReadVariableWithoutItsInputFailsAtRun) {
  std::unique_ptr<Model> m = LoadOk("read_variable_control_input");
  ASSERT_NE(m, nullptr);
  ExpectRunError(*m, {{"x", F32({2}, {1, 2})}}, absl::StatusCode::kInvalidArgument,
                 "node 'w/read' (ReadVariableOp) has 0 inputs, but the op needs input 0");
}

TEST(CorpusTest, GatherIndicesOutOfRange) {
  std::unique_ptr<Model> m = LoadOk("gather_indices");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<NamedTensors> ok = m->Run("serving_default", {{"indices", I32({2}, {3, 0})}});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->at("y").data<float>()[0], 6.0f);
  ExpectRunError(*m, {{"indices", I32({2}, {1, 4})}}, absl::StatusCode::kInvalidArgument, "4");
  ExpectRunError(*m, {{"indices", I32({1}, {-1})}}, absl::StatusCode::kInvalidArgument, "-1");
  ExpectRunError(*m, {{"indices", I32({1}, {std::numeric_limits<int32_t>::max()})}},
                 absl::StatusCode::kInvalidArgument, "2147483647");
}

TEST(CorpusTest, GatherNdIndicesOutOfRange) {
  std::unique_ptr<Model> m = LoadOk("gather_nd_indices");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<NamedTensors> ok = m->Run("serving_default", {{"indices", I32({1, 2}, {1, 0})}});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->at("y").data<float>()[0], 2.0f);
  ExpectRunError(*m, {{"indices", I32({1, 2}, {0, 2})}}, absl::StatusCode::kInvalidArgument,
                 "indices[0] = [0, 2] does not index into param shape [2,2]");
  ExpectRunError(*m, {{"indices", I32({1, 2}, {-3, 0})}}, absl::StatusCode::kInvalidArgument,
                 "indices[0] = [-3, 0] does not index into param shape");
}

TEST(CorpusTest, OneHotDepthAndIndices) {
  std::unique_ptr<Model> m = LoadOk("one_hot");
  ASSERT_NE(m, nullptr);
  // Out-of-range indices give all-off rows, as in TensorFlow.
  absl::StatusOr<NamedTensors> ok =
      m->Run("serving_default", {{"indices", I32({2}, {5, -1})}, {"depth", I32({}, {3})}});
  ASSERT_TRUE(ok.ok()) << ok.status();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(ok->at("y").data<float>()[i], 0.0f);
  ExpectRunError(*m, {{"indices", I32({1}, {0})}, {"depth", I32({}, {-2})}},
                 absl::StatusCode::kInvalidArgument, "depth");
  ExpectRunError(*m,
                 {{"indices", I32({4}, {0, 1, 2, 3})},
                  {"depth", I32({}, {std::numeric_limits<int32_t>::max()})}},
                 absl::StatusCode::kResourceExhausted, "max_tensor_bytes");
}

TEST(CorpusTest, ScatterNdIndicesOutOfRange) {
  absl::StatusOr<std::unique_ptr<Model>> loaded = Model::Load(Bad("scatter_nd_indices"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::unique_ptr<Model> m = *std::move(loaded);
  absl::StatusOr<NamedTensors> ok = m->Run(
      "serving_default", {{"indices", I32({2, 1}, {3, 3})}, {"updates", F32({2}, {1, 2})}});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->at("y").data<float>()[3], 3.0f);
  ExpectRunError(*m, {{"indices", I32({1, 1}, {4})}, {"updates", F32({1}, {1})}},
                 absl::StatusCode::kInvalidArgument, "4");
  ExpectRunError(*m, {{"indices", I32({1, 1}, {-1})}, {"updates", F32({1}, {1})}},
                 absl::StatusCode::kInvalidArgument, "-1");
}

TEST(CorpusTest, StridedSliceEdgeCases) {
  std::unique_ptr<Model> m = LoadOk("strided_slice");
  ASSERT_NE(m, nullptr);
  const Tensor x = F32({2, 3}, {0, 1, 2, 3, 4, 5});
  auto run = [&](std::vector<int64_t> b, std::vector<int64_t> e, std::vector<int64_t> s) {
    return m->Run("serving_default",
                  {{"x", x}, {"begin", I64({2}, b)}, {"end", I64({2}, e)}, {"strides", I64({2}, s)}});
  };
  // Huge begin/end clamp; dim 1 is shrunk (shrink_axis_mask = 2) at index 2.
  absl::StatusOr<NamedTensors> y = run({std::numeric_limits<int64_t>::min(), 2},
                                       {std::numeric_limits<int64_t>::max(), 3}, {1, 1});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->at("y").shape(), Shape({2}));
  EXPECT_EQ(y->at("y").data<float>()[1], 5.0f);
  // Negative strides walk backwards.
  y = run({1, -1}, {std::numeric_limits<int64_t>::min(), 0}, {-1, 1});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at("y").data<float>()[0], 5.0f);
  // Errors: a zero stride, a shrunk index out of range.
  absl::StatusOr<NamedTensors> bad = run({0, 0}, {2, 1}, {0, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("stride"));
  bad = run({0, 7}, {2, 8}, {1, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
}

TEST(CorpusTest, ReshapeToAnImpossibleShape) {
  // The constant target shape (4, -1) cannot hold 6 elements: known before running.
  absl::StatusOr<std::unique_ptr<Model>> constant = Model::Load(Bad("reshape_impossible"));
  absl::Status status = constant.ok() ? (*constant)->Run("serving_default",
                                                         {{"x", F32({2, 3}, {})}}).status()
                                      : constant.status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("6"));

  std::unique_ptr<Model> m = LoadOk("reshape_input");
  ASSERT_NE(m, nullptr);
  ExpectRunError(*m, {{"x", F32({6}, {})}, {"shape", I64({2}, {4, -1})}},
                 absl::StatusCode::kInvalidArgument, "6");
  ExpectRunError(*m, {{"x", F32({6}, {})}, {"shape", I64({2}, {-1, -1})}},
                 absl::StatusCode::kInvalidArgument, "-1");
  ExpectRunError(*m, {{"x", F32({6}, {})}, {"shape", I64({2}, {-5, 2})}},
                 absl::StatusCode::kInvalidArgument, "-5");
  ExpectRunError(*m, {{"x", F32({0}, {})}, {"shape", I64({3}, {int64_t{1} << 40, 1 << 30, 0})}},
                 absl::StatusCode::kInvalidArgument, "");
  ExpectRunError(*m,
                 {{"x", F32({6}, {})}, {"shape", I64({3}, {int64_t{1} << 40, int64_t{1} << 40, 6})}},
                 absl::StatusCode::kInvalidArgument, "");
}

TEST(CorpusTest, HugeShapesFromInputsHitTheTensorLimit) {
  const int64_t big = int64_t{1} << 20;
  std::unique_ptr<Model> fill = LoadOk("fill_input");
  ASSERT_NE(fill, nullptr);
  ExpectRunError(*fill, {{"dims", I64({2}, {big, big})}}, absl::StatusCode::kResourceExhausted,
                 "max_tensor_bytes");
  ExpectRunError(*fill, {{"dims", I64({3}, {big, big, big * big})}},
                 absl::StatusCode::kInvalidArgument, "");
  ExpectRunError(*fill, {{"dims", I64({2}, {-1, 3})}}, absl::StatusCode::kInvalidArgument, "-1");

  std::unique_ptr<Model> tile = LoadOk("tile_input");
  ASSERT_NE(tile, nullptr);
  ExpectRunError(*tile, {{"x", F32({2, 2}, {1, 2, 3, 4})}, {"multiples", I64({2}, {big, big})}},
                 absl::StatusCode::kResourceExhausted, "max_tensor_bytes");
  ExpectRunError(*tile, {{"x", F32({2, 2}, {1, 2, 3, 4})}, {"multiples", I64({2}, {-1, 1})}},
                 absl::StatusCode::kInvalidArgument, "");

  std::unique_ptr<Model> range = LoadOk("range_input");
  ASSERT_NE(range, nullptr);
  ExpectRunError(*range, {{"limit", I64({}, {int64_t{1} << 40})}, {"delta", I64({}, {1})}},
                 absl::StatusCode::kResourceExhausted, "max_tensor_bytes");
  ExpectRunError(*range, {{"limit", I64({}, {10})}, {"delta", I64({}, {0})}},
                 absl::StatusCode::kInvalidArgument, "");
  ExpectRunError(*range,
                 {{"limit", I64({}, {std::numeric_limits<int64_t>::max()})}, {"delta", I64({}, {1})}},
                 absl::StatusCode::kResourceExhausted, "");

  std::unique_ptr<Model> bcast = LoadOk("broadcast_to_input");
  ASSERT_NE(bcast, nullptr);
  ExpectRunError(*bcast, {{"x", F32({1}, {1})}, {"shape", I64({2}, {big, big})}},
                 absl::StatusCode::kResourceExhausted, "max_tensor_bytes");
  ExpectRunError(*bcast, {{"x", F32({2}, {1, 2})}, {"shape", I64({1}, {3})}},
                 absl::StatusCode::kInvalidArgument, "");
}

TEST(CorpusTest, ZeroSizeTensorsRun) {
  std::unique_ptr<Model> m = LoadOk("zero_size");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<NamedTensors> y = m->Run("serving_default", {{"x", F32({0, 3}, {})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at("mm").shape(), Shape({0, 2}));
  ASSERT_EQ(y->at("y").shape(), Shape({2}));
  EXPECT_EQ(y->at("y").data<float>()[0], 0.0f);  // empty sum
  EXPECT_EQ(y->at("z").data<float>()[0], -std::numeric_limits<float>::infinity());  // empty max
}

TEST(CorpusTest, NanAndInfInputsFlowThroughUnlessCheckNumerics) {
  std::unique_ptr<Model> m = LoadOk("numerics");
  ASSERT_NE(m, nullptr);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  absl::StatusOr<NamedTensors> y = m->Run("serving_default", {{"x", F32({3}, {nan, inf, 0})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(std::isnan(y->at("y").data<float>()[0]));
  EXPECT_EQ(y->at("y").data<float>()[1], inf);
  EXPECT_EQ(y->at("y").data<float>()[2], -inf);
}

TEST(CorpusTest, WhileIterationsAreBounded) {
  LoadOptions options;
  EXPECT_EQ(options.limits.max_while_iterations, 10'000'000);  // docs/options.md
  options.limits.max_while_iterations = 1000;
  std::unique_ptr<Model> m = LoadOk("while_forever", options);
  ASSERT_NE(m, nullptr);
  ExpectRunError(*m, {{"x", F32({}, {1})}}, absl::StatusCode::kResourceExhausted,
                 "max_while_iterations");
}

// TF1 while frames obey the same limit (tf1_while loops n times).
TEST(CorpusTest, TfOneLoopIterationsAreBounded) {
  LoadOptions options;
  options.limits.max_while_iterations = 100;
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/zoo/tf1_while/saved_model", options);
  ASSERT_TRUE(m.ok()) << m.status();
  const Tensor x = *Tensor::Create(DataType::kFloat, {3, 4});
  EXPECT_TRUE((*m)->Run("serving_default", {{"n", I32({}, {50})}, {"x", x}}).ok());
  ExpectRunError(**m, {{"n", I32({}, {2000000000})}, {"x", x}},
                 absl::StatusCode::kResourceExhausted, "max_while_iterations");
}

absl::Status RunWith(const Model& m, const NamedTensors& inputs, const RunOptions& options) {
  NamedTensors outputs;
  return m.Run("serving_default", inputs, &outputs, options);
}

TEST(CorpusTest, DeadlineStopsEndlessLoops) {
  LoadOptions options;
  options.limits.max_while_iterations = 0;  // no limit: only the deadline stops it
  std::unique_ptr<Model> m = LoadOk("while_forever", options);
  ASSERT_NE(m, nullptr);
  RunOptions run;
  run.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  absl::Status s = RunWith(*m, {{"x", F32({}, {1})}}, run);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("RunOptions::deadline"));
  // TF1 frames too.
  absl::StatusOr<std::unique_ptr<Model>> tf1 =
      Model::Load(testing::TestDataDir() + "/zoo/tf1_while/saved_model", options);
  ASSERT_TRUE(tf1.ok()) << tf1.status();
  run.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  s = RunWith(**tf1, {{"n", I32({}, {2000000000})}, {"x", *Tensor::Create(DataType::kFloat, {3, 4})}},
              run);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST(CorpusTest, CancellationStopsRunsFromAnotherThread) {
  LoadOptions options;
  options.limits.max_while_iterations = 0;
  std::unique_ptr<Model> m = LoadOk("while_forever", options);
  ASSERT_NE(m, nullptr);
  Cancellation cancel;
  RunOptions run;
  run.cancellation = &cancel;
  absl::Status s;
  std::thread caller([&] { s = RunWith(*m, {{"x", F32({}, {1})}}, run); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  cancel.Cancel();
  caller.join();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  // A cancelled handle stops the next Run before it starts.
  s = RunWith(*m, {{"x", F32({}, {1})}}, run);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  // Runs without it are unaffected.
  std::unique_ptr<Model> digits = LoadOk("numerics");
  ASSERT_NE(digits, nullptr);
  EXPECT_TRUE(RunWith(*digits, {{"x", F32({1}, {1})}}, RunOptions()).ok());
}

}  // namespace
}  // namespace smrt
