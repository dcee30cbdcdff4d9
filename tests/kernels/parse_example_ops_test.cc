// ParseExample / ParseExampleV2 against TensorFlow goldens
// (tests/generators/kernel_goldens/parse_example.py) and hand-written edge cases.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "loader/saved_model_reader.h"
#include "loader/tensor_proto.h"
#include "smrt/tfproto/example.pb.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

constexpr char kGoldenDir[] = "kernels/parse_example/";

// ---------------------------------------------------------------------------
// Golden files.

// A file of (4-byte little-endian length, bytes) records.
std::vector<std::string> ReadLengthPrefixed(const std::string& relative) {
  absl::StatusOr<std::vector<std::string>> records = ::smrt::testing::ReadLengthPrefixed(
      absl::StrCat(::smrt::testing::TestDataDir(), "/", kGoldenDir, relative, ".bin"));
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? *records : std::vector<std::string>();
}

// The serialized examples of a case, as a vector (or a scalar for V2).
Tensor SerializedInput(const std::string& name, bool scalar = false) {
  std::vector<std::string> examples = ReadLengthPrefixed(name + "_serialized");
  if (scalar) {
    EXPECT_EQ(examples.size(), 1u);
    return Scalar<std::string>(examples.empty() ? "" : examples[0]);
  }
  return MakeTensor<std::string>({static_cast<int64_t>(examples.size())}, examples);
}

// Expected output k of a case: .npy for numbers, a length-prefixed file and
// its shape for strings.
Tensor Expected(const std::string& name, int k, DataType dtype) {
  std::string stem = absl::StrCat(name, "_out", k);
  if (dtype != DataType::kString) return ReadGolden(kGoldenDir + stem);
  Tensor shape = ReadGolden(absl::StrCat(kGoldenDir, stem, "_shape"));
  return MakeTensor<std::string>(Values<int64_t>(shape), ReadLengthPrefixed(stem));
}

void ExpectOutputs(const std::string& name, const std::vector<Tensor>& got,
                   const std::vector<DataType>& dtypes) {
  ASSERT_EQ(got.size(), dtypes.size());
  for (size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(TensorsNear(got[k], Expected(name, static_cast<int>(k), dtypes[k]), 0, 0))
        << name << " output " << k;
  }
}

// The status is an error whose message contains `text`.
::testing::AssertionResult Mentions(const absl::Status& status, const std::string& text) {
  if (status.ok()) return ::testing::AssertionFailure() << "status is OK";
  if (std::string(status.message()).find(text) == std::string::npos) {
    return ::testing::AssertionFailure() << "'" << status.message() << "' lacks '" << text << "'";
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Building inputs.

Tensor Str(const std::string& s) { return Scalar<std::string>(s); }
Tensor StrVec(const std::vector<std::string>& v) {
  return MakeTensor<std::string>({static_cast<int64_t>(v.size())}, v);
}
Tensor EmptyFloat() { return MakeTensor<float>({0}, {}); }

AttrMap V1Attrs(const std::vector<DataType>& sparse_types, const std::vector<DataType>& tdense,
                const std::vector<PartialShape>& dense_shapes) {
  AttrMap a;
  a.Set("Nsparse", static_cast<int64_t>(sparse_types.size()));
  a.Set("Ndense", static_cast<int64_t>(tdense.size()));
  if (sparse_types.empty()) {
    a.Set("sparse_types", EmptyList{});
  } else {
    a.Set("sparse_types", sparse_types);
  }
  a.Set("Tdense", tdense);
  a.Set("dense_shapes", dense_shapes);
  return a;
}

AttrMap V2Attrs(const std::vector<DataType>& sparse_types, const std::vector<DataType>& tdense,
                const std::vector<PartialShape>& dense_shapes,
                const std::vector<DataType>& ragged_values = {},
                const std::vector<DataType>& ragged_splits = {}) {
  AttrMap a;
  a.Set("num_sparse", static_cast<int64_t>(sparse_types.size()));
  a.Set("sparse_types", sparse_types);
  a.Set("Tdense", tdense);
  a.Set("dense_shapes", dense_shapes);
  a.Set("ragged_value_types", ragged_values);
  a.Set("ragged_split_types", ragged_splits);
  return a;
}

PartialShape S(Shape dims) { return PartialShape::Known(std::move(dims)); }

// Inputs of a V1 node: serialized, names, one scalar per key, the defaults.
std::vector<Tensor> V1Inputs(Tensor serialized, Tensor names,
                             const std::vector<std::string>& sparse_keys,
                             const std::vector<std::string>& dense_keys,
                             const std::vector<Tensor>& defaults) {
  std::vector<Tensor> in = {std::move(serialized), std::move(names)};
  for (const std::string& k : sparse_keys) in.push_back(Str(k));
  for (const std::string& k : dense_keys) in.push_back(Str(k));
  in.insert(in.end(), defaults.begin(), defaults.end());
  return in;
}

std::vector<Tensor> V2Inputs(Tensor serialized, Tensor names,
                             const std::vector<std::string>& sparse_keys,
                             const std::vector<std::string>& dense_keys,
                             const std::vector<std::string>& ragged_keys,
                             const std::vector<Tensor>& defaults) {
  std::vector<Tensor> in = {std::move(serialized), std::move(names), StrVec(sparse_keys),
                            StrVec(dense_keys), StrVec(ragged_keys)};
  in.insert(in.end(), defaults.begin(), defaults.end());
  return in;
}

// A serialized Example from (key, Feature) pairs.
std::string Serialize(const std::vector<std::pair<std::string, tfproto::Feature>>& features) {
  tfproto::Example ex;
  auto& map = *ex.mutable_features()->mutable_feature();
  for (const auto& [key, f] : features) map[key] = f;
  return ex.SerializeAsString();
}

tfproto::Feature Floats(const std::vector<float>& v) {
  tfproto::Feature f;
  for (float x : v) f.mutable_float_list()->add_value(x);
  if (v.empty()) f.mutable_float_list();
  return f;
}
tfproto::Feature Ints(const std::vector<int64_t>& v) {
  tfproto::Feature f;
  for (int64_t x : v) f.mutable_int64_list()->add_value(x);
  if (v.empty()) f.mutable_int64_list();
  return f;
}
tfproto::Feature Bytes(const std::vector<std::string>& v) {
  tfproto::Feature f;
  for (const std::string& x : v) f.mutable_bytes_list()->add_value(x);
  if (v.empty()) f.mutable_bytes_list();
  return f;
}

// One required float feature "x" of shape (n,) over these examples.
absl::StatusOr<std::vector<Tensor>> ParseRequiredX(const std::vector<std::string>& examples,
                                                   int64_t n = 1) {
  return RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({n})}),
               V1Inputs(StrVec(examples), StrVec({}), {}, {"x"}, {EmptyFloat()}));
}

// ---------------------------------------------------------------------------
// TensorFlow goldens.

const std::vector<DataType> kMixedSparse = {DataType::kInt64, DataType::kFloat, DataType::kString};
const std::vector<DataType> kMixedDense = {DataType::kFloat, DataType::kInt64, DataType::kString,
                                           DataType::kFloat};
const std::vector<PartialShape> kMixedShapes = {S({3}), S({2, 2}), S({2}), S({1})};
const std::vector<std::string> kMixedSparseKeys = {"s_int", "s_float", "s_str"};
const std::vector<std::string> kMixedDenseKeys = {"d_float", "d_int", "d_str", "d_req"};

std::vector<Tensor> MixedDefaults() {
  return {MakeTensor<float>({3}, {0.5f, -1.0f, 2.0f}), MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}),
          StrVec({"x", "y"}), EmptyFloat()};
}

std::vector<DataType> OutputTypes(const std::vector<DataType>& sparse,
                                  const std::vector<DataType>& dense,
                                  const std::vector<DataType>& ragged_values = {},
                                  const std::vector<DataType>& ragged_splits = {}) {
  std::vector<DataType> out(sparse.size(), DataType::kInt64);
  out.insert(out.end(), sparse.begin(), sparse.end());
  out.insert(out.end(), sparse.size(), DataType::kInt64);
  out.insert(out.end(), dense.begin(), dense.end());
  out.insert(out.end(), ragged_values.begin(), ragged_values.end());
  out.insert(out.end(), ragged_splits.begin(), ragged_splits.end());
  return out;
}

TEST(ParseExampleOpsTest, V1SparseAndDenseMatchTensorFlow) {
  auto out = RunOp("ParseExample", V1Attrs(kMixedSparse, kMixedDense, kMixedShapes),
                   V1Inputs(SerializedInput("v1_mixed"), StrVec({}), kMixedSparseKeys,
                            kMixedDenseKeys, MixedDefaults()));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectOutputs("v1_mixed", *out, OutputTypes(kMixedSparse, kMixedDense));
}

TEST(ParseExampleOpsTest, V2BatchWithRaggedAndNamesMatchesTensorFlow) {
  const std::vector<DataType> ragged_values = {DataType::kInt64, DataType::kString};
  const std::vector<DataType> ragged_splits = {DataType::kInt64, DataType::kInt32};
  auto out =
      RunOp("ParseExampleV2",
            V2Attrs(kMixedSparse, kMixedDense, kMixedShapes, ragged_values, ragged_splits),
            V2Inputs(SerializedInput("v2_batch"), StrVec({"first", "second", "third"}),
                     kMixedSparseKeys, kMixedDenseKeys, {"r_int", "r_str"}, MixedDefaults()));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectOutputs("v2_batch", *out,
                OutputTypes(kMixedSparse, kMixedDense, ragged_values, ragged_splits));
}

TEST(ParseExampleOpsTest, V2ScalarInputHasNoBatchDimension) {
  auto out = RunOp("ParseExampleV2",
                   V2Attrs({DataType::kInt64}, {DataType::kFloat, DataType::kInt64},
                           {S({3}), S({2, 2})}, {DataType::kFloat}, {DataType::kInt64}),
                   V2Inputs(SerializedInput("v2_scalar", /*scalar=*/true), StrVec({}), {"s_int"},
                            {"d_float", "d_int"}, {"r_float"},
                            {EmptyFloat(), MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectOutputs("v2_scalar", *out,
                OutputTypes({DataType::kInt64}, {DataType::kFloat, DataType::kInt64},
                            {DataType::kFloat}, {DataType::kInt64}));
  EXPECT_EQ((*out)[0].shape(), (Shape{4, 1}));  // sparse indices have rank 1
  EXPECT_EQ((*out)[3].shape(), (Shape{3}));
  EXPECT_EQ((*out)[6].shape(), (Shape{0}));  // TensorFlow: no row splits for a scalar
}

TEST(ParseExampleOpsTest, V1VariableLengthDenseIsPaddedWithTheDefault) {
  auto out =
      RunOp("ParseExample",
            V1Attrs({}, {DataType::kFloat, DataType::kString, DataType::kInt64},
                    {S({-1, 2}), S({-1}), S({-1})}),
            V1Inputs(SerializedInput("v1_varlen"), StrVec({}), {}, {"v_float", "v_str", "v_int"},
                     {Scalar<float>(-1.0f), Str("pad"), MakeTensor<int64_t>({1}, {7})}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectOutputs("v1_varlen", *out, {DataType::kFloat, DataType::kString, DataType::kInt64});
}

// ---------------------------------------------------------------------------
// TF Serving's half_plus_two (saved_model_half_plus_two_cpu): its ParseExample
// node has Nsparse 0, Ndense 2, Tdense [float, float], dense_shapes [(1), (1)],
// empty names, keys "x" and "x2", defaults: empty (x is required) and [0.0].

AttrMap HalfPlusTwoAttrs() {
  return V1Attrs({}, {DataType::kFloat, DataType::kFloat}, {S({1}), S({1})});
}

std::vector<Tensor> HalfPlusTwoInputs(Tensor serialized) {
  return V1Inputs(std::move(serialized), StrVec({}), {}, {"x", "x2"},
                  {EmptyFloat(), MakeTensor<float>({1}, {0.0f})});
}

TEST(ParseExampleOpsTest, HalfPlusTwoMatchesTheRealGraph) {
  auto out = RunOp("ParseExample", HalfPlusTwoAttrs(),
                   HalfPlusTwoInputs(SerializedInput("half_plus_two")));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  // Goldens come from running the SavedModel itself in TensorFlow.
  EXPECT_TRUE(TensorsNear((*out)[0], Expected("half_plus_two", 0, DataType::kFloat), 0, 0));
  EXPECT_TRUE(TensorsNear((*out)[1], Expected("half_plus_two", 1, DataType::kFloat), 0, 0));
  // y = 0.5 * x + 2, as the graph computes it from output 0.
  Tensor y = Expected("half_plus_two", 2, DataType::kFloat);
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    EXPECT_FLOAT_EQ(y.data<float>()[i], 0.5f * (*out)[0].data<float>()[i] + 2.0f);
  }
}

TEST(ParseExampleOpsTest, HalfPlusTwoMissingXNamesFeatureAndIndex) {
  std::string with_x = Serialize({{"x", Floats({1})}});
  std::string only_x2 = Serialize({{"x2", Floats({3})}});
  auto out =
      RunOp("ParseExample", HalfPlusTwoAttrs(), HalfPlusTwoInputs(StrVec({with_x, only_x2})));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "Feature: x (data type: float32) is required"));
  EXPECT_TRUE(Mentions(out.status(), "Index: 1"));
}

TEST(ParseExampleOpsTest, HalfPlusTwoInferenceWithUnknownRankInput) {
  // The graph feeds tf_example, a placeholder of unknown rank.
  std::vector<ValueInfo> in = {{DataType::kString, PartialShape::Unknown()},
                               {DataType::kString, S({0})},
                               {DataType::kString, S({})},
                               {DataType::kString, S({})},
                               {DataType::kFloat, S({0})},
                               {DataType::kFloat, S({1})}};
  auto info = InferOp("ParseExample", HalfPlusTwoAttrs(), in);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->size(), 2u);
  for (const ValueInfo& v : *info) {
    EXPECT_EQ(v.dtype, DataType::kFloat);
    EXPECT_EQ(v.shape, S({-1, 1}));
  }
  in[0].shape = S({7});
  info = InferOp("ParseExample", HalfPlusTwoAttrs(), in);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[1].shape, S({7, 1}));
}

// Takes the node's attrs and constant inputs from the SavedModel itself.
TEST(ParseExampleOpsTest, HalfPlusTwoNodeFromTheSavedModel) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  auto model = loader::ReadSavedModelProto(
      smrt::testing::SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"));
  ASSERT_TRUE(model.ok()) << model.status();
  const tfproto::GraphDef& graph = model->meta_graphs(0).graph_def();
  std::map<std::string, const tfproto::NodeDef*> nodes;
  for (const tfproto::NodeDef& n : graph.node()) nodes[n.name()] = &n;
  ASSERT_TRUE(nodes.count("ParseExample/ParseExample"));
  const tfproto::NodeDef& node = *nodes["ParseExample/ParseExample"];
  ASSERT_EQ(node.op(), "ParseExample");

  AttrMap attrs;
  const auto& a = node.attr();
  attrs.Set("Nsparse", a.at("Nsparse").i());
  attrs.Set("Ndense", a.at("Ndense").i());
  std::vector<DataType> tdense;
  for (int t : a.at("Tdense").list().type()) tdense.push_back(DataTypeFromProto(t));
  attrs.Set("Tdense", tdense);
  std::vector<DataType> sparse_types;
  for (int t : a.at("sparse_types").list().type()) sparse_types.push_back(DataTypeFromProto(t));
  attrs.Set("sparse_types", sparse_types);
  std::vector<PartialShape> shapes;
  for (const auto& s : a.at("dense_shapes").list().shape()) {
    auto shape = loader::PartialShapeFromProto(s);
    ASSERT_TRUE(shape.ok()) << shape.status();
    shapes.push_back(*shape);
  }
  attrs.Set("dense_shapes", shapes);
  // The attrs mirrored by hand above are the node's.
  const AttrMap mirrored = HalfPlusTwoAttrs();
  EXPECT_EQ(*attrs.Get<int64_t>("Nsparse"), *mirrored.Get<int64_t>("Nsparse"));
  EXPECT_EQ(*attrs.Get<int64_t>("Ndense"), *mirrored.Get<int64_t>("Ndense"));
  EXPECT_EQ(tdense, *mirrored.Get<std::vector<DataType>>("Tdense"));
  EXPECT_EQ(sparse_types, *mirrored.Get<std::vector<DataType>>("sparse_types"));
  EXPECT_EQ(shapes, *mirrored.Get<std::vector<PartialShape>>("dense_shapes"));

  // Inputs 1.. are Consts, except a Reshape of a Const (the x2 default).
  std::vector<Tensor> inputs = {SerializedInput("half_plus_two")};
  for (int i = 1; i < node.input_size(); ++i) {
    const tfproto::NodeDef* in = nodes[node.input(i)];
    ASSERT_NE(in, nullptr) << node.input(i);
    Shape reshape;
    if (in->op() == "Reshape") {
      auto shape = loader::TensorFromProto(nodes[in->input(1)]->attr().at("value").tensor());
      ASSERT_TRUE(shape.ok()) << shape.status();
      for (int64_t d : Values<int32_t>(*shape)) reshape.push_back(d);
      in = nodes[in->input(0)];
    }
    ASSERT_EQ(in->op(), "Const") << in->name();
    auto value = loader::TensorFromProto(in->attr().at("value").tensor());
    ASSERT_TRUE(value.ok()) << value.status();
    if (!reshape.empty()) {
      auto reshaped = value->Reshaped(reshape);
      ASSERT_TRUE(reshaped.ok()) << reshaped.status();
      value = *reshaped;
    }
    inputs.push_back(*value);
  }
  auto out = RunOp("ParseExample", attrs, inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Expected("half_plus_two", 0, DataType::kFloat), 0, 0));
  EXPECT_TRUE(TensorsNear((*out)[1], Expected("half_plus_two", 1, DataType::kFloat), 0, 0));
}

// ---------------------------------------------------------------------------
// Hand-written cases (TensorFlow's behaviour checked with tf.raw_ops).

TEST(ParseExampleOpsTest, NumOutputs) {
  const OpSpec* v1 = KernelRegistry::Default().FindOp("ParseExample");
  const OpSpec* v2 = KernelRegistry::Default().FindOp("ParseExampleV2");
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2, nullptr);
  auto n1 = v1->num_outputs(V1Attrs(kMixedSparse, kMixedDense, kMixedShapes), 13);
  ASSERT_TRUE(n1.ok()) << n1.status();
  EXPECT_EQ(*n1, 3 * 3 + 4);
  auto n2 = v2->num_outputs(
      V2Attrs(kMixedSparse, kMixedDense, kMixedShapes, {DataType::kFloat, DataType::kInt64},
              {DataType::kInt32, DataType::kInt64}),
      9);
  ASSERT_TRUE(n2.ok()) << n2.status();
  EXPECT_EQ(*n2, 3 * 3 + 4 + 2 * 2);
}

TEST(ParseExampleOpsTest, WrongValueCountNamesFeatureExpectedAndActual) {
  auto out =
      ParseRequiredX({Serialize({{"x", Floats({1})}}), Serialize({{"x", Floats({1, 2, 3})}})}, 2);
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "Key: x, Index: 0"));
  EXPECT_TRUE(Mentions(out.status(), "needs 2 values, the example has 1"));
  // A present but empty list is a count mismatch, not a missing feature.
  out = ParseRequiredX({Serialize({{"x", Floats({})}})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "needs 1 values, the example has 0"));
}

TEST(ParseExampleOpsTest, WrongListTypeIsAnErrorEvenWhenEmpty) {
  for (const tfproto::Feature& f : {Ints({1}), Ints({}), Bytes({"a"})}) {
    auto out = ParseRequiredX({Serialize({{"x", f}})});
    ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Mentions(out.status(), "Data types don't match"));
    EXPECT_TRUE(Mentions(out.status(), "Key: x"));
  }
  auto out = RunOp(
      "ParseExample", V1Attrs({DataType::kFloat}, {}, {}),
      V1Inputs(StrVec({Serialize({}), Serialize({{"s", Ints({})}})}), StrVec({}), {"s"}, {}, {}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "Index: 1"));
}

TEST(ParseExampleOpsTest, UnparsableExampleNamesIndex) {
  auto out = ParseRequiredX({Serialize({{"x", Floats({1})}}), std::string("\x0a\x05"
                                                                          "ab",
                                                                          4)});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "Could not parse example input at index 1"));
}

TEST(ParseExampleOpsTest, FeatureWithNoListCountsAsMissing) {
  tfproto::Feature no_list;
  auto out =
      RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({2})}),
            V1Inputs(StrVec({Serialize({{"x", no_list}}), "", Serialize({{"x", Floats({3, 4})}})}),
                     StrVec({}), {}, {"x"}, {MakeTensor<float>({2}, {5, 6})}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({3, 2}, {5, 6, 5, 6, 3, 4})));
  // Required: an empty list-less feature is still missing.
  auto req = ParseRequiredX({Serialize({{"x", no_list}})});
  EXPECT_EQ(req.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParseExampleOpsTest, RequiredZeroSizeFeatureMustStillBePresent) {
  // Matches TensorFlow: an empty default means required, even for shape (0).
  auto out = ParseRequiredX({Serialize({})}, 0);
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "is required"));
  out = ParseRequiredX({Serialize({{"x", Floats({})}})}, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 0}));
}

TEST(ParseExampleOpsTest, DuplicateMapEntriesKeepTheLast) {
  // Concatenated serialized Examples merge; TensorFlow keeps the last value.
  std::string merged = Serialize({{"x", Floats({1})}}) + Serialize({{"x", Floats({2})}});
  auto out = ParseRequiredX({merged});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({1, 1}, {2})));
}

TEST(ParseExampleOpsTest, SpecialFloatsAndStringBytesPassThrough) {
  const float inf = std::numeric_limits<float>::infinity();
  auto out =
      RunOp("ParseExample", V1Attrs({}, {DataType::kFloat, DataType::kString}, {S({3}), S({1})}),
            V1Inputs(StrVec({Serialize({{"f", Floats({NAN, inf, -0.0f})},
                                        {"b", Bytes({std::string("\0\xff", 2)})}})}),
                     StrVec({}), {}, {"f", "b"}, {EmptyFloat(), StrVec({})}));
  ASSERT_TRUE(out.ok()) << out.status();
  const float* f = (*out)[0].data<float>();
  EXPECT_TRUE(std::isnan(f[0]));
  EXPECT_EQ(f[1], inf);
  EXPECT_TRUE(std::signbit(f[2]));
  EXPECT_EQ((*out)[1].data<std::string>()[0], std::string("\0\xff", 2));
}

TEST(ParseExampleOpsTest, EmptyBatch) {
  auto out =
      RunOp("ParseExample",
            V1Attrs({DataType::kInt64}, {DataType::kFloat, DataType::kFloat}, {S({3}), S({-1, 2})}),
            V1Inputs(StrVec({}), StrVec({}), {"s"}, {"d", "v"}, {EmptyFloat(), Scalar<float>(0)}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2}));
  EXPECT_EQ((*out)[1].shape(), (Shape{0}));
  EXPECT_EQ(Values<int64_t>((*out)[2]), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ((*out)[3].shape(), (Shape{0, 3}));
  EXPECT_EQ((*out)[4].shape(), (Shape{0, 0, 2}));
}

TEST(ParseExampleOpsTest, V2ScalarSparseAndMissingRequired) {
  auto out = RunOp("ParseExampleV2", V2Attrs({DataType::kInt64}, {}, {}),
                   V2Inputs(Str(Serialize({{"s", Ints({7, 8})}})), StrVec({}), {"s"}, {}, {}, {}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<int64_t>({2, 1}, {0, 1})));
  EXPECT_TRUE(TensorsNear((*out)[1], MakeTensor<int64_t>({2}, {7, 8})));
  EXPECT_TRUE(TensorsNear((*out)[2], MakeTensor<int64_t>({1}, {2})));

  auto missing = RunOp("ParseExampleV2", V2Attrs({}, {DataType::kFloat}, {S({1})}),
                       V2Inputs(Str(Serialize({})), Str("ex7"), {}, {"x"}, {}, {EmptyFloat()}));
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(missing.status(), "Name: ex7, Key: x, Index: 0"));
}

TEST(ParseExampleOpsTest, V2RaggedEmptyBatchHasOneSplit) {
  auto out = RunOp("ParseExampleV2", V2Attrs({}, {}, {}, {DataType::kFloat}, {DataType::kInt32}),
                   V2Inputs(StrVec({}), StrVec({}), {}, {}, {"r"}, {}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
  EXPECT_TRUE(TensorsNear((*out)[1], MakeTensor<int32_t>({1}, {0})));
}

TEST(ParseExampleOpsTest, InvalidInputShapes) {
  std::string ex = Serialize({{"x", Floats({1})}});
  // V1 takes only a vector.
  auto out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({1})}),
                   V1Inputs(Str(ex), StrVec({}), {}, {"x"}, {EmptyFloat()}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "serialized"));
  // V2 takes a scalar or a vector.
  out = RunOp(
      "ParseExampleV2", V2Attrs({}, {DataType::kFloat}, {S({1})}),
      V2Inputs(MakeTensor<std::string>({1, 1}, {ex}), StrVec({}), {}, {"x"}, {}, {EmptyFloat()}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "(1, 1)"));
  // names, when given, match serialized.
  out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({1})}),
              V1Inputs(StrVec({ex}), StrVec({"a", "b"}), {}, {"x"}, {EmptyFloat()}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "names.shape=(2)"));
}

TEST(ParseExampleOpsTest, InvalidDefaults) {
  std::string ex = Serialize({{"x", Floats({1})}});
  auto out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({1})}),
                   V1Inputs(StrVec({ex}), StrVec({}), {}, {"x"}, {MakeTensor<float>({2}, {1, 2})}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "dense_defaults[0] (feature x) has shape (2)"));
  // A variable-length feature needs a single padding element.
  out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({-1})}),
              V1Inputs(StrVec({ex}), StrVec({}), {}, {"x"}, {EmptyFloat()}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "single padding element"));
  // The default's dtype is Tdense's.
  out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({1})}),
              V1Inputs(StrVec({ex}), StrVec({}), {}, {"x"}, {MakeTensor<int64_t>({1}, {0})}));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParseExampleOpsTest, VariableLengthNotAMultipleOfTheRow) {
  auto out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({-1, 2})}),
                   V1Inputs(StrVec({Serialize({{"x", Floats({1, 2, 3})}})}), StrVec({}), {}, {"x"},
                            {Scalar<float>(0)}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "not a multiple of the row size 2"));
}

TEST(ParseExampleOpsTest, InvalidAttrsAndKeys) {
  std::string ex = Serialize({});
  // Unknown inner dims.
  auto out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({2, -1})}),
                   V1Inputs(StrVec({ex}), StrVec({}), {}, {"x"}, {Scalar<float>(0)}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "dense_shapes[0]"));
  // Unsupported feature type.
  out = RunOp("ParseExample", V1Attrs({}, {DataType::kDouble}, {S({1})}),
              V1Inputs(StrVec({ex}), StrVec({}), {}, {"x"}, {MakeTensor<double>({1}, {0})}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "DT_DOUBLE"));
  // Nsparse disagrees with sparse_types.
  AttrMap bad = V1Attrs({DataType::kFloat}, {}, {});
  bad.Set("Nsparse", int64_t{2});
  out = RunOp("ParseExample", bad, V1Inputs(StrVec({ex}), StrVec({}), {"a"}, {}, {}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "Nsparse"));
  // Wrong number of inputs.
  out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({1})}),
              {StrVec({ex}), StrVec({}), Str("x")});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "takes 4 inputs, got 3"));
  // V2 key count differs from the attrs.
  out = RunOp("ParseExampleV2", V2Attrs({}, {DataType::kFloat}, {S({1})}),
              V2Inputs(StrVec({ex}), StrVec({}), {}, {"x", "y"}, {}, {Scalar<float>(0)}));
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "len(dense_keys)"));
  // V1 keys are scalars.
  out = RunOp("ParseExample", V1Attrs({}, {DataType::kFloat}, {S({1})}),
              {StrVec({ex}), StrVec({}), StrVec({"x", "y"}), MakeTensor<float>({1}, {0})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(out.status(), "dense_keys[0]"));
}

TEST(ParseExampleOpsTest, V2Inference) {
  AttrMap attrs = V2Attrs({DataType::kString}, {DataType::kInt64}, {S({-1, 3})}, {DataType::kFloat},
                          {DataType::kInt32});
  std::vector<ValueInfo> in = {{DataType::kString, S({5})}, {DataType::kString, S({0})},
                               {DataType::kString, S({1})}, {DataType::kString, S({1})},
                               {DataType::kString, S({1})}, {DataType::kInt64, S({})}};
  auto info = InferOp("ParseExampleV2", attrs, in);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->size(), 6u);
  EXPECT_EQ((*info)[0].shape, S({-1, 2}));
  EXPECT_EQ((*info)[1].dtype, DataType::kString);
  EXPECT_EQ((*info)[2].shape, S({2}));
  EXPECT_EQ((*info)[3].shape, S({5, -1, 3}));
  EXPECT_EQ((*info)[4].shape, S({-1}));
  EXPECT_EQ((*info)[5].dtype, DataType::kInt32);
  EXPECT_EQ((*info)[5].shape, S({6}));

  in[0].shape = S({});
  info = InferOp("ParseExampleV2", attrs, in);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, S({-1, 1}));
  EXPECT_EQ((*info)[3].shape, S({-1, 3}));

  in[0].shape = PartialShape::Unknown();
  info = InferOp("ParseExampleV2", attrs, in);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, S({-1, -1}));
  EXPECT_FALSE((*info)[3].shape.known_rank);

  in[0].shape = S({2, 2});
  EXPECT_EQ(InferOp("ParseExampleV2", attrs, in).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt::kernels
