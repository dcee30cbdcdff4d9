// The op definitions moved from the reference backend to src/ops/defs
// (issue 38), checked with no backend linked: each family's shape inference
// gives TensorFlow's dtypes and shapes, its attr defaults and output counts,
// and refuses a bad input with TensorFlow's message (naming the node where
// the shape function does).
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/fused_ops.h"
#include "ops/standard_ops.h"

namespace smrt::ops {
namespace {

// One node's inference: its inputs' dtypes and shapes, and the values of
// those known before running (constants).
struct Node {
  std::vector<ValueInfo> inputs;
  AttrMap attrs;
  std::vector<const Tensor*> values;
};

// Runs op's shape function as the graph does: attr defaults applied, then
// as many outputs as the op's num_outputs says.
absl::StatusOr<std::vector<ValueInfo>> Infer(const std::string& op, Node node) {
  const OpSpec* spec = StandardOps().FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(op);
  ApplyAttrDefaults(*spec, node.attrs);
  int num_outputs = 1;
  if (spec->num_outputs) {
    absl::StatusOr<int> n = spec->num_outputs(node.attrs, static_cast<int>(node.inputs.size()));
    if (!n.ok()) return n.status();
    num_outputs = *n;
  }
  InferenceContext ctx("n", op, node.attrs, std::move(node.inputs), std::move(node.values),
                       num_outputs);
  if (absl::Status s = spec->infer(ctx); !s.ok()) return s;
  return ctx.outputs();
}

ValueInfo Of(DataType t, std::vector<int64_t> dims) { return {t, PartialShape::Known(dims)}; }
ValueInfo F32(std::vector<int64_t> dims) { return Of(DataType::kFloat, std::move(dims)); }
ValueInfo I32(std::vector<int64_t> dims) { return Of(DataType::kInt32, std::move(dims)); }
ValueInfo Unknown(DataType t) { return {t, PartialShape::Unknown()}; }

// "(2, 3)" / "unknown_rank", for messages that show both sides.
std::string S(const PartialShape& s) { return s.ToString(); }
std::string S(std::vector<int64_t> dims) { return PartialShape::Known(std::move(dims)).ToString(); }

template <typename T>
Tensor Make(DataType t, std::vector<int64_t> shape, std::vector<T> values) {
  absl::StatusOr<Tensor> out = Tensor::Create(t, shape);
  EXPECT_TRUE(out.ok());
  std::memcpy(out->raw_data(), values.data(), values.size() * sizeof(T));
  return *std::move(out);
}
Tensor Ints(std::vector<int64_t> shape, std::vector<int32_t> v) {
  return Make(DataType::kInt32, std::move(shape), std::move(v));
}
Tensor Int(int32_t v) { return Ints({}, {v}); }

void ExpectPartial(const absl::StatusOr<std::vector<ValueInfo>>& out, size_t i, DataType t,
                   const PartialShape& shape) {
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_LT(i, out->size());
  EXPECT_EQ((*out)[i].dtype, t) << "output " << i;
  EXPECT_EQ(S((*out)[i].shape), S(shape)) << "output " << i;
}
void ExpectOutput(const absl::StatusOr<std::vector<ValueInfo>>& out, size_t i, DataType t,
                  std::vector<int64_t> dims) {
  ExpectPartial(out, i, t, PartialShape::Known(std::move(dims)));
}
void ExpectError(const absl::StatusOr<std::vector<ValueInfo>>& out, const std::string& text) {
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find(text), std::string::npos) << out.status();
}

AttrMap Attrs(std::vector<std::pair<std::string, AttrValue>> values) {
  AttrMap a;
  for (auto& [k, v] : values) a.Set(k, std::move(v));
  return a;
}

TEST(DefsATest, BasicOps) {
  Tensor value = Ints({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectOutput(Infer("Const", {{}, Attrs({{"value", value}}), {}}), 0, DataType::kInt32, {2, 3});
  // Placeholder's shape defaults to unknown rank, as TensorFlow's.
  absl::StatusOr<std::vector<ValueInfo>> out =
      Infer("Placeholder", {{}, Attrs({{"dtype", DataType::kHalf}}), {}});
  ExpectPartial(out, 0, DataType::kHalf, PartialShape::Unknown());
  out = Infer("PlaceholderWithDefault",
              {{F32({4})}, Attrs({{"shape", PartialShape::Known({-1})}}), {}});
  ExpectOutput(out, 0, DataType::kFloat, {-1});
  out = Infer("IdentityN", {{F32({2}), I32({}), Unknown(DataType::kString)}, {}, {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  ExpectOutput(out, 1, DataType::kInt32, {});
  ExpectPartial(out, 2, DataType::kString, PartialShape::Unknown());
  ExpectOutput(Infer(kToDeviceOp, {{F32({5, 1})}, {}, {}}), 0, DataType::kFloat, {5, 1});
  out = Infer("NoOp", {});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
  EXPECT_FALSE(Infer("Const", {}).ok());  // no value attr
}

TEST(DefsATest, BincountOps) {
  Tensor size = Int(5);
  ExpectOutput(Infer("Bincount", {{I32({-1}), Of(DataType::kInt32, {}), F32({0})},
                                  Attrs({{"T", DataType::kFloat}}),
                                  {nullptr, &size, nullptr}}),
               0, DataType::kFloat, {5});
  ExpectOutput(Infer("DenseBincount", {{I32({3, 4}), I32({}), Of(DataType::kInt64, {0})},
                                       Attrs({{"T", DataType::kInt64}}),
                                       {nullptr, &size, nullptr}}),
               0, DataType::kInt64, {3, 5});
  ExpectOutput(Infer("DenseBincount",
                     {{I32({3, 4}), I32({}), F32({0})}, Attrs({{"T", DataType::kFloat}}), {}}),
               0, DataType::kFloat, {3, -1});
  ExpectError(Infer("DenseBincount",
                    {{I32({2, 3, 4}), I32({}), F32({0})}, Attrs({{"T", DataType::kFloat}}), {}}),
              "input must be 1-D or 2-D, got shape " + S({2, 3, 4}));
  Tensor negative = Int(-1);
  ExpectError(Infer("Bincount", {{I32({3}), I32({}), F32({0})},
                                 Attrs({{"T", DataType::kFloat}}),
                                 {nullptr, &negative, nullptr}}),
              "size (-1) must be non-negative");
}

TEST(DefsATest, BroadcastOps) {
  Tensor shape = Ints({3}, {2, 3, 4});
  ExpectOutput(Infer("BroadcastTo", {{F32({3, 1}), I32({3})}, {}, {nullptr, &shape}}), 0,
               DataType::kFloat, {2, 3, 4});
  // An unknown shape value of known length: known input dims other than 1
  // fix the output's.
  ExpectOutput(Infer("BroadcastTo", {{F32({3, 1}), I32({3})}, {}, {}}), 0, DataType::kFloat,
               {-1, 3, -1});
  Tensor bad = Ints({2}, {2, 4});
  ExpectError(Infer("BroadcastTo", {{F32({3}), I32({2})}, {}, {nullptr, &bad}}),
              "Incompatible shapes: [3] vs. [2,4]");

  Tensor a = Ints({2}, {2, 1});
  Tensor b = Ints({3}, {7, 1, 5});
  ExpectOutput(Infer("BroadcastArgs", {{I32({2}), I32({3})}, {}, {&a, &b}}), 0, DataType::kInt32,
               {3});
  ExpectOutput(Infer("BroadcastArgs", {{I32({2}), I32({4})}, {}, {}}), 0, DataType::kInt32, {4});
  Tensor c = Ints({2}, {3, 1});
  ExpectError(Infer("BroadcastArgs", {{I32({2}), I32({2})}, {}, {&a, &c}}),
              "Incompatible shapes: [2,1] vs. [3,1]");
}

TEST(DefsATest, CastSelectOps) {
  ExpectOutput(Infer("Cast", {{F32({2, -1})}, Attrs({{"DstT", DataType::kInt32}}), {}}), 0,
               DataType::kInt32, {2, -1});
  ASSERT_FALSE(
      Infer("Cast",
            {{F32({2})}, Attrs({{"DstT", DataType::kInt32}, {"SrcT", DataType::kInt64}}), {}})
          .ok());
  const ValueInfo cond = Of(DataType::kBool, {2});
  // Select with a vector condition picks rows of 'then' / 'else'.
  ExpectOutput(Infer("Select", {{cond, F32({2, -1}), F32({-1, 3})}, {}, {}}), 0, DataType::kFloat,
               {2, 3});
  absl::StatusOr<std::vector<ValueInfo>> out =
      Infer("Select", {{Of(DataType::kBool, {4}), F32({2, 3}), F32({2, 3})}, {}, {}});
  ExpectError(out,
              "Select node 'n': Number of batches of 'then' must match size of 'cond', but "
              "saw: 2 vs. 4");
  ExpectOutput(Infer("SelectV2", {{Of(DataType::kBool, {2, 1}), F32({3}), F32({})}, {}, {}}), 0,
               DataType::kFloat, {2, 3});
  ExpectError(Infer("SelectV2", {{F32({2}), F32({2}), F32({2})}, {}, {}}),
              "SelectV2 node 'n': condition must be bool, got DT_FLOAT");
  const OpSpec* cast = StandardOps().FindOp("Cast");
  ASSERT_NE(cast, nullptr);
  AttrMap attrs;
  ApplyAttrDefaults(*cast, attrs);
  EXPECT_EQ(attrs.GetOr<bool>("Truncate", true).value(), false);
}

TEST(DefsATest, ClipOps) {
  ExpectOutput(Infer("ClipByValue", {{F32({2, 3}), F32({}), F32({2, 3})}, {}, {}}), 0,
               DataType::kFloat, {2, 3});
  ExpectError(Infer("ClipByValue", {{F32({2, 3}), F32({3}), F32({})}, {}, {}}),
              "clip_value_min and clip_value_max must be either of the same shape as input, or a "
              "scalar.");
}

TEST(DefsATest, ConcatSplitOps) {
  Tensor axis1 = Int(1);
  ExpectOutput(
      Infer("ConcatV2", {{F32({2, 3}), F32({2, 5}), I32({})}, {}, {nullptr, nullptr, &axis1}}), 0,
      DataType::kFloat, {2, 8});
  ExpectOutput(Infer("ConcatV2", {{F32({2, 3}), F32({-1, 5}), I32({})}, {}, {}}), 0,
               DataType::kFloat, {-1, -1});
  ExpectError(
      Infer("ConcatV2", {{F32({2, 3}), F32({3, 3}), I32({})}, {}, {nullptr, nullptr, &axis1}}),
      "ConcatV2: dimension 0 in both shapes must be equal");
  Tensor axis0 = Int(0);
  ExpectOutput(Infer("Concat", {{I32({}), F32({2, 3}), F32({4, 3})}, {}, {&axis0}}), 0,
               DataType::kFloat, {6, 3});

  ExpectOutput(Infer("Pack", {{F32({2}), F32({2}), F32({-1})}, Attrs({{"axis", int64_t{1}}}), {}}),
               0, DataType::kFloat, {2, 3});
  ExpectError(Infer("Pack", {{F32({2}), F32({3})}, {}, {}}),
              "Pack: shapes of all inputs must match");

  absl::StatusOr<std::vector<ValueInfo>> out =
      Infer("Unpack", {{F32({3, 4})}, Attrs({{"num", int64_t{3}}}), {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  ExpectOutput(out, 2, DataType::kFloat, {4});
  ExpectError(Infer("Unpack", {{F32({2, 4})}, Attrs({{"num", int64_t{3}}}), {}}),
              "Unpack: input dimension 0 must equal num = 3");

  out = Infer("Split",
              {{I32({}), F32({4, 6})}, Attrs({{"num_split", int64_t{2}}}), {&axis1, nullptr}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  ExpectOutput(out, 1, DataType::kFloat, {4, 3});
  ExpectError(
      Infer("Split",
            {{I32({}), F32({4, 5})}, Attrs({{"num_split", int64_t{2}}}), {&axis1, nullptr}}),
      "Split: number of ways to split should evenly divide the split dimension");
  Tensor sizes = Ints({2}, {1, -1});
  out = Infer("SplitV", {{F32({2, 5}), I32({2}), I32({})},
                         Attrs({{"num_split", int64_t{2}}}),
                         {nullptr, &sizes, &axis1}});
  ExpectOutput(out, 0, DataType::kFloat, {2, 1});
  ExpectOutput(out, 1, DataType::kFloat, {2, 4});
}

TEST(DefsATest, ControlFlowOps) {
  AttrMap shapes = Attrs({{"output_shapes", std::vector<PartialShape>{PartialShape::Known({}),
                                                                      PartialShape::Unknown()}}});
  absl::StatusOr<std::vector<ValueInfo>> out = Infer("While", {{I32({}), F32({2})}, shapes, {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);  // one per loop var
  ExpectOutput(out, 0, DataType::kInt32, {});
  ExpectPartial(out, 1, DataType::kFloat, PartialShape::Unknown());
  const OpSpec* loop = StandardOps().FindOp("While");
  const OpSpec* stateless = StandardOps().FindOp("StatelessWhile");
  ASSERT_NE(loop, nullptr);
  ASSERT_NE(stateless, nullptr);
  EXPECT_TRUE(loop->stateful && loop->calls_functions);
  EXPECT_TRUE(!stateless->stateful && stateless->calls_functions);

  out = Infer("StatelessIf",
              {{Of(DataType::kBool, {}), F32({3})},
               Attrs({{"Tout", std::vector<DataType>{DataType::kFloat, DataType::kInt64}}}),
               {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  ExpectPartial(out, 1, DataType::kInt64, PartialShape::Unknown());
  EXPECT_FALSE(Infer("Case", {{I32({}), F32({3})}, {}, {}}).ok());  // no Tout

  // Merge: the shape both inputs agree with, and value_index.
  out = Infer("Merge", {{F32({2, 3}), F32({2, 4})}, {}, {}});
  ExpectOutput(out, 0, DataType::kFloat, {2, -1});
  ExpectOutput(out, 1, DataType::kInt32, {});
  out = Infer("Switch", {{F32({5}), Of(DataType::kBool, {})}, {}, {}});
  ExpectOutput(out, 0, DataType::kFloat, {5});
  ExpectOutput(out, 1, DataType::kFloat, {5});
  out = Infer("ControlTrigger", {});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());
}

TEST(DefsATest, GatherTileOps) {
  Tensor multiples = Ints({2}, {2, 1});
  ExpectOutput(Infer("Tile", {{F32({2, 3}), I32({2})}, {}, {nullptr, &multiples}}), 0,
               DataType::kFloat, {4, 3});
  Tensor negative = Ints({2}, {2, -1});
  ExpectError(Infer("Tile", {{F32({2, 3}), I32({2})}, {}, {nullptr, &negative}}),
              "Tile: expected multiples[1] >= 0, but got -1");

  Tensor axis1 = Int(1);
  ExpectOutput(
      Infer("GatherV2", {{F32({5, 6}), I32({2, 3}), I32({})}, {}, {nullptr, nullptr, &axis1}}), 0,
      DataType::kFloat, {5, 2, 3});
  Tensor axis2 = Int(2);
  ExpectOutput(Infer("GatherV2", {{F32({2, 5, 6}), I32({2, 3}), I32({})},
                                  Attrs({{"batch_dims", int64_t{1}}}),
                                  {nullptr, nullptr, &axis2}}),
               0, DataType::kFloat, {2, 5, 3});
  Tensor axis3 = Int(3);
  ExpectError(Infer("GatherV2", {{F32({5, 6}), I32({2}), I32({})}, {}, {nullptr, nullptr, &axis3}}),
              "GatherV2: expected axis in the range [-2, 2), but got 3");
  ExpectOutput(Infer("Gather", {{F32({5, 6}), I32({4})}, {}, {}}), 0, DataType::kFloat, {4, 6});

  Tensor dims = Ints({2}, {2, 3});
  ExpectOutput(Infer("Fill", {{I32({2}), F32({})}, {}, {&dims, nullptr}}), 0, DataType::kFloat,
               {2, 3});
  Tensor bad_dims = Ints({2}, {2, -3});
  ExpectError(Infer("Fill", {{I32({2}), F32({})}, {}, {&bad_dims, nullptr}}),
              "Fill: dims[1] = -3 must be >= 0");

  Tensor start = Int(0), limit = Int(10), delta = Int(3);
  ExpectOutput(Infer("Range", {{I32({}), I32({}), I32({})}, {}, {&start, &limit, &delta}}), 0,
               DataType::kInt32, {4});
  // float16 (1, 2, 0.25): the size is computed in float16, as TensorFlow does.
  Tensor h1 = Make<uint16_t>(DataType::kHalf, {}, {0x3C00});
  Tensor h2 = Make<uint16_t>(DataType::kHalf, {}, {0x4000});
  Tensor hq = Make<uint16_t>(DataType::kHalf, {}, {0x3400});
  ExpectOutput(
      Infer("Range", {{Of(DataType::kHalf, {}), Of(DataType::kHalf, {}), Of(DataType::kHalf, {})},
                      Attrs({{"Tidx", DataType::kHalf}}),
                      {&h1, &h2, &hq}}),
      0, DataType::kHalf, {4});
  ExpectOutput(Infer("Range", {{I32({}), I32({}), I32({})}, {}, {}}), 0, DataType::kInt32, {-1});
  Tensor zero = Int(0);
  ExpectError(Infer("Range", {{I32({}), I32({}), I32({})}, {}, {&start, &limit, &zero}}),
              "Range: requires delta != 0");
}

TEST(DefsATest, ImageOps) {
  Tensor size = Ints({2}, {8, 6});
  const ValueInfo images = Of(DataType::kUInt8, {1, 4, 4, 3});
  ExpectOutput(Infer("ResizeBilinear", {{images, I32({2})}, {}, {nullptr, &size}}), 0,
               DataType::kFloat, {1, 8, 6, 3});
  ExpectOutput(Infer("ResizeNearestNeighbor", {{images, I32({2})}, {}, {nullptr, &size}}), 0,
               DataType::kUInt8, {1, 8, 6, 3});
  ExpectOutput(Infer("ResizeBicubic", {{images, I32({2})}, {}, {}}), 0, DataType::kFloat,
               {1, -1, -1, 3});
  ExpectError(
      Infer(
          "ResizeBilinear",
          {{images, I32({2})}, Attrs({{"align_corners", true}, {"half_pixel_centers", true}}), {}}),
      "If half_pixel_centers is True, align_corners must be False.");
  Tensor zero = Ints({2}, {0, 6});
  ExpectError(Infer("ResizeBilinear", {{images, I32({2})}, {}, {nullptr, &zero}}),
              "output dimensions must be positive, got size [0, 6]");
}

TEST(DefsATest, IndexOps) {
  Tensor depth = Int(5);
  const std::vector<ValueInfo> one_hot = {I32({2, 3}), I32({}), F32({}), F32({})};
  ExpectOutput(Infer("OneHot", {one_hot, {}, {nullptr, &depth}}), 0, DataType::kFloat, {2, 3, 5});
  ExpectOutput(Infer("OneHot", {one_hot, Attrs({{"axis", int64_t{1}}}), {nullptr, &depth}}), 0,
               DataType::kFloat, {2, 5, 3});
  ExpectError(Infer("OneHot", {one_hot, Attrs({{"axis", int64_t{-2}}}), {nullptr, &depth}}),
              "Expected axis to be -1 or between [0, 3).  But received: -2");

  Tensor k = Int(4);
  absl::StatusOr<std::vector<ValueInfo>> out =
      Infer("TopKV2", {{F32({3, 10}), I32({})}, {}, {nullptr, &k}});
  ExpectOutput(out, 0, DataType::kFloat, {3, 4});
  ExpectOutput(out, 1, DataType::kInt32, {3, 4});
  Tensor k11 = Int(11);
  ExpectError(Infer("TopKV2", {{F32({3, 10}), I32({})}, {}, {nullptr, &k11}}),
              "input must have at least k columns. Had 10, needed 11");

  ExpectOutput(Infer("GatherNd", {{F32({4, 5, 6}), I32({2, 2})}, {}, {}}), 0, DataType::kFloat,
               {2, 6});
  ExpectError(Infer("GatherNd", {{F32({4, 5}), I32({2, 3})}, {}, {}}),
              "index innermost dimension length must be <= params rank; saw: 3 vs. 2");

  // Where counts the true elements of a constant input.
  Tensor mask = Make<uint8_t>(DataType::kBool, {2, 3}, {1, 0, 1, 1, 0, 1});
  ExpectOutput(Infer("Where", {{Of(DataType::kBool, {2, 3})}, {}, {&mask}}), 0, DataType::kInt64,
               {4, 2});
  Tensor halves = Make<uint16_t>(DataType::kHalf, {3}, {0x8000, 0x3C00, 0x7E00});  // -0, 1, NaN
  ExpectOutput(
      Infer("Where", {{Of(DataType::kHalf, {3})}, Attrs({{"T", DataType::kHalf}}), {&halves}}), 0,
      DataType::kInt64, {2, 1});
  ExpectOutput(Infer("Where", {{F32({-1, 2, 2})}, {}, {}}), 0, DataType::kInt64, {-1, 3});
}

TEST(DefsATest, LookupTableOps) {
  const OpSpec* table = StandardOps().FindOp("HashTableV2");
  ASSERT_NE(table, nullptr);
  EXPECT_TRUE(table->stateful);
  ASSERT_TRUE(static_cast<bool>(table->make_resource));
  absl::StatusOr<std::unique_ptr<Resource>> made = table->make_resource(
      Attrs({{"key_dtype", DataType::kInt64}, {"value_dtype", DataType::kString}}));
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_NE(*made, nullptr);
  made = table->make_resource(
      Attrs({{"key_dtype", DataType::kFloat}, {"value_dtype", DataType::kString}}));
  EXPECT_EQ(made.status().code(), absl::StatusCode::kUnimplemented);
  ExpectOutput(Infer("HashTableV2", {}), 0, DataType::kResource, {});

  absl::StatusOr<std::vector<ValueInfo>> out = Infer(
      "LookupTableFindV2", {{Unknown(DataType::kResource), Of(DataType::kInt64, {5, 2}), F32({})},
                            Attrs({{"Tout", DataType::kFloat}}),
                            {}});
  ExpectOutput(out, 0, DataType::kFloat, {5, 2});
  out = Infer("LookupTableExportV2",
              {{Unknown(DataType::kResource)},
               Attrs({{"Tkeys", DataType::kString}, {"Tvalues", DataType::kInt64}}),
               {}});
  ExpectOutput(out, 0, DataType::kString, {-1});
  ExpectOutput(out, 1, DataType::kInt64, {-1});
  out = Infer("InitializeTableV2",
              {{Unknown(DataType::kResource), Of(DataType::kInt64, {2, 2}), F32({4})}, {}, {}});
  ExpectError(out, "keys must be a vector, got shape " + S({2, 2}));
  out = Infer("InitializeTableV2",
              {{Unknown(DataType::kResource), Of(DataType::kInt64, {4}), F32({4})}, {}, {}});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->empty());

  const OpSpec* text = StandardOps().FindOp("InitializeTableFromTextFileV2");
  ASSERT_NE(text, nullptr);
  AttrMap attrs;
  ApplyAttrDefaults(*text, attrs);
  EXPECT_EQ(attrs.GetOr<std::string>("delimiter", "").value(), "\t");
  EXPECT_EQ(attrs.GetOr<int64_t>("vocab_size", 0).value(), -1);
}

TEST(DefsATest, PadOps) {
  Tensor paddings = Ints({2, 2}, {1, 1, 2, 0});
  ExpectOutput(Infer("Pad", {{F32({2, 3}), I32({2, 2})}, {}, {nullptr, &paddings}}), 0,
               DataType::kFloat, {4, 5});
  ExpectOutput(Infer("PadV2", {{F32({2, 3}), I32({2, 2}), F32({})}, {}, {}}), 0, DataType::kFloat,
               {-1, -1});
  Tensor two = Ints({2, 2}, {2, 0, 0, 0});
  ExpectOutput(Infer("MirrorPad", {{F32({2, 3}), I32({2, 2})},
                                   Attrs({{"mode", std::string("SYMMETRIC")}}),
                                   {nullptr, &two}}),
               0, DataType::kFloat, {4, 3});
  // REFLECT takes at most dim - 1 on each side.
  ASSERT_FALSE(Infer("MirrorPad", {{F32({2, 3}), I32({2, 2})},
                                   Attrs({{"mode", std::string("REFLECT")}}),
                                   {nullptr, &two}})
                   .ok());
  ExpectError(
      Infer("MirrorPad", {{F32({2, 3}), I32({2, 2})}, Attrs({{"mode", std::string("EDGE")}}), {}}),
      "MirrorPad: mode must be REFLECT or SYMMETRIC, got \"EDGE\"");
}

TEST(DefsATest, ParseExampleOps) {
  AttrMap attrs = Attrs({{"num_sparse", int64_t{1}},
                         {"sparse_types", std::vector<DataType>{DataType::kInt64}},
                         {"Tdense", std::vector<DataType>{DataType::kFloat}},
                         {"dense_shapes", std::vector<PartialShape>{PartialShape::Known({3})}},
                         {"ragged_value_types", std::vector<DataType>{DataType::kString}},
                         {"ragged_split_types", std::vector<DataType>{DataType::kInt32}}});
  const ValueInfo keys = Of(DataType::kString, {1});
  absl::StatusOr<std::vector<ValueInfo>> out =
      Infer("ParseExampleV2",
            {{Of(DataType::kString, {4}), Of(DataType::kString, {0}), keys, keys, keys, F32({3})},
             attrs,
             {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 6u);  // sparse indices, values, shapes; dense; ragged values, splits
  ExpectOutput(out, 0, DataType::kInt64, {-1, 2});
  ExpectOutput(out, 1, DataType::kInt64, {-1});
  ExpectOutput(out, 2, DataType::kInt64, {2});
  ExpectOutput(out, 3, DataType::kFloat, {4, 3});
  ExpectOutput(out, 4, DataType::kString, {-1});
  ExpectOutput(out, 5, DataType::kInt32, {5});
  out = Infer("ParseExampleV2", {{Of(DataType::kString, {4}), Of(DataType::kString, {0}), keys,
                                  keys, keys, Of(DataType::kInt64, {3})},
                                 attrs,
                                 {}});
  ExpectError(out, "dense_defaults[0] is DT_INT64 but Tdense[0] is DT_FLOAT");
  out = Infer("ParseExampleV2", {{Of(DataType::kString, {4})}, attrs, {}});
  ExpectError(out, "ParseExampleV2 with 1 sparse and 1 dense features takes 6 inputs, got 1");
}

AttrMap ConvAttrs(std::vector<int64_t> strides, const std::string& padding) {
  return Attrs({{"strides", std::move(strides)}, {"padding", padding}});
}

TEST(DefsATest, ConvOps) {
  const ValueInfo filter = F32({3, 3, 3, 8});
  ExpectOutput(Infer("Conv2D", {{F32({1, 5, 5, 3}), filter}, ConvAttrs({1, 2, 2, 1}, "SAME"), {}}),
               0, DataType::kFloat, {1, 3, 3, 8});
  ExpectOutput(Infer("Conv2D", {{F32({1, 5, 5, 3}), filter}, ConvAttrs({1, 1, 1, 1}, "VALID"), {}}),
               0, DataType::kFloat, {1, 3, 3, 8});
  AttrMap nchw = ConvAttrs({1, 1, 2, 2}, "SAME");
  nchw.Set("data_format", std::string("NCHW"));
  ExpectOutput(Infer("Conv2D", {{F32({1, 3, 5, 5}), filter}, nchw, {}}), 0, DataType::kFloat,
               {1, 8, 3, 3});
  // Explicit paddings (NHWC order): 1 above and below, 2 left and right.
  AttrMap explicit_pads = ConvAttrs({1, 1, 1, 1}, "EXPLICIT");
  explicit_pads.Set("explicit_paddings", std::vector<int64_t>{0, 0, 1, 1, 2, 2, 0, 0});
  ExpectOutput(Infer("Conv2D", {{F32({1, 5, 5, 3}), filter}, explicit_pads, {}}), 0,
               DataType::kFloat, {1, 5, 7, 8});
  // Grouped: input depth 4 over filter depth 2 is two groups.
  ExpectOutput(Infer("Conv2D",
                     {{F32({1, 5, 5, 4}), F32({3, 3, 2, 6})}, ConvAttrs({1, 1, 1, 1}, "SAME"), {}}),
               0, DataType::kFloat, {1, 5, 5, 6});
  ExpectError(Infer("Conv2D",
                    {{F32({1, 5, 5, 5}), F32({3, 3, 2, 6})}, ConvAttrs({1, 1, 1, 1}, "SAME"), {}}),
              "input depth must be evenly divisible by filter depth: 5 vs 2");
  const OpSpec* conv = StandardOps().FindOp("Conv2D");
  ASSERT_NE(conv, nullptr);
  AttrMap defaults;
  ApplyAttrDefaults(*conv, defaults);
  EXPECT_EQ(defaults.GetOr<std::string>("data_format", "").value(), "NHWC");
  EXPECT_EQ(defaults.GetOr<std::vector<int64_t>>("dilations", {}).value(),
            (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_TRUE(defaults.GetOr<bool>("use_cudnn_on_gpu", false).value());

  ExpectOutput(
      Infer("DepthwiseConv2dNative",
            {{F32({2, 7, 7, 4}), F32({3, 3, 4, 2})}, ConvAttrs({1, 1, 1, 1}, "VALID"), {}}),
      0, DataType::kFloat, {2, 5, 5, 8});
  ExpectError(Infer("DepthwiseConv2dNative",
                    {{F32({2, 7, 7, 4}), F32({3, 3, 3, 2})}, ConvAttrs({1, 1, 1, 1}, "VALID"), {}}),
              "input and filter must have the same depth: 4 vs 3");
}

TEST(DefsATest, ConvBackpropOps) {
  Tensor sizes = Ints({4}, {1, 6, 6, 3});
  const std::vector<ValueInfo> inputs = {I32({4}), F32({3, 3, 3, 8}), F32({1, 3, 3, 8})};
  ExpectOutput(Infer("Conv2DBackpropInput", {inputs, ConvAttrs({1, 2, 2, 1}, "SAME"), {&sizes}}), 0,
               DataType::kFloat, {1, 6, 6, 3});
  // Unknown input_sizes: batch from out_backprop, depth from the filter.
  ExpectOutput(Infer("Conv2DBackpropInput", {inputs, ConvAttrs({1, 2, 2, 1}, "SAME"), {}}), 0,
               DataType::kFloat, {1, -1, -1, 3});
  Tensor three = Ints({3}, {1, 6, 6});
  ExpectError(Infer("Conv2DBackpropInput", {inputs, ConvAttrs({1, 2, 2, 1}, "SAME"), {&three}}),
              "Conv2DBackpropInput: input_sizes must have 4 elements (or 2 spatial ones), got "
              "[1, 6, 6]");
}

TEST(DefsATest, MatMulOps) {
  ExpectOutput(Infer("MatMul", {{F32({2, 3}), F32({3, 4})}, {}, {}}), 0, DataType::kFloat, {2, 4});
  ExpectOutput(Infer("MatMul", {{F32({3, 2}), F32({3, 4})}, Attrs({{"transpose_a", true}}), {}}), 0,
               DataType::kFloat, {2, 4});
  ExpectOutput(Infer("MatMul", {{Unknown(DataType::kFloat), F32({3, 4})}, {}, {}}), 0,
               DataType::kFloat, {-1, 4});
  ExpectError(Infer("MatMul", {{F32({2, 3}), F32({4, 5})}, {}, {}}),
              "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  ExpectOutput(Infer("BatchMatMulV2", {{F32({5, 1, 2, 3}), F32({4, 3, 6})}, {}, {}}), 0,
               DataType::kFloat, {5, 4, 2, 6});
  ExpectError(Infer("BatchMatMul", {{F32({2, 2, 3}), F32({3, 3, 4})}, {}, {}}),
              "In[0].dim(0) and In[1].dim(0) must be the same");
  ExpectOutput(Infer("BatchMatMulV3", {{Of(DataType::kInt8, {2, 3}), Of(DataType::kInt8, {3, 4})},
                                       Attrs({{"Tout", DataType::kInt32}}),
                                       {}}),
               0, DataType::kInt32, {2, 4});
}

TEST(DefsATest, BatchNormOps) {
  const ValueInfo c3 = F32({3});
  AttrMap inference = Attrs({{"is_training", false}});
  absl::StatusOr<std::vector<ValueInfo>> out =
      Infer("FusedBatchNormV3", {{F32({2, 4, 4, 3}), c3, c3, c3, c3}, inference, {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 6u);
  ExpectOutput(out, 0, DataType::kFloat, {2, 4, 4, 3});
  ExpectOutput(out, 4, DataType::kFloat, {3});
  ExpectPartial(out, 5, DataType::kFloat, PartialShape::Unknown());
  AttrMap nchw = Attrs({{"is_training", false}, {"data_format", std::string("NCHW")}});
  out = Infer("FusedBatchNorm", {{F32({2, 3, 4, 4}), c3, c3, F32({-1}), c3}, nchw, {}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 5u);
  ExpectOutput(out, 1, DataType::kFloat, {3});
  ExpectError(Infer("FusedBatchNormV3", {{F32({2, 4, 4, 3}), F32({4}), c3, c3, c3}, inference, {}}),
              "FusedBatchNormV3: scale must have the same number of elements as the channels of "
              "x, got 4 and 3");
  // Training (the default) with factor 1 does not read mean and variance.
  out = Infer("FusedBatchNormV3", {{F32({2, 4, 4, 3}), c3, c3, F32({0}), F32({0})}, {}, {}});
  ExpectOutput(out, 3, DataType::kFloat, {3});
  const OpSpec* bn = StandardOps().FindOp("FusedBatchNormV3");
  ASSERT_NE(bn, nullptr);
  AttrMap defaults;
  ApplyAttrDefaults(*bn, defaults);
  EXPECT_TRUE(defaults.GetOr<bool>("is_training", false).value());
  EXPECT_EQ(defaults.GetOr<float>("epsilon", 0.0f).value(), 1e-4f);
}

TEST(DefsATest, EinsumOps) {
  auto eq = [](const char* e) { return Attrs({{"equation", std::string(e)}}); };
  ExpectOutput(Infer("Einsum", {{F32({2, 3}), F32({3, 5})}, eq("ij,jk->ik"), {}}), 0,
               DataType::kFloat, {2, 5});
  ExpectOutput(Infer("Einsum", {{F32({7, 2, 3}), F32({3, 5})}, eq("...ij,...jk->...ik"), {}}), 0,
               DataType::kFloat, {7, 2, 5});
  ExpectOutput(Infer("Einsum", {{F32({3, 3})}, eq("ii->i"), {}}), 0, DataType::kFloat, {3});
  ExpectOutput(Infer("Einsum", {{Unknown(DataType::kFloat)}, eq("ij->ji"), {}}), 0,
               DataType::kFloat, {-1, -1});
  ExpectError(Infer("Einsum", {{F32({2, 3, 4}), F32({5, 4, 6})}, eq("bij,bjk->bik"), {}}),
              "Expected dimension 2 at axis 0 of the input shaped [5,4,6] but got dimension 5");
  ExpectError(Infer("Einsum", {{F32({2, 3}), F32({3, 5})}, eq("ij,jk"), {}}),
              "Expecting exactly one '->' in einsum equation: ij,jk");
}

TEST(DefsATest, FusedOps) {
  AttrMap conv = ConvAttrs({1, 1, 1, 1}, "SAME");
  conv.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  ExpectOutput(Infer(kFusedConv2D, {{F32({1, 5, 5, 3}), F32({3, 3, 3, 8}), F32({8})}, conv, {}}), 0,
               DataType::kFloat, {1, 5, 5, 8});
  conv.Set("data_format", std::string("NCHW"));
  ExpectError(Infer(kFusedConv2D, {{F32({1, 3, 5, 5}), F32({3, 3, 3, 8}), F32({8})}, conv, {}}),
              "_SmrtFusedConv2D computes NHWC only, got data_format=NCHW");
  AttrMap dense = Attrs({{"fused_ops", std::vector<std::string>{"BiasAdd"}}});
  ExpectOutput(Infer(kFusedMatMul, {{F32({2, 3}), F32({3, 4}), F32({4})}, dense, {}}), 0,
               DataType::kFloat, {2, 4});
  EXPECT_FALSE(Infer(kFusedMatMul, {{F32({2, 3}), F32({3, 4})}, dense, {}}).ok());  // no bias
  ExpectOutput(Infer("_SmrtGeluTanh", {{F32({-1, 7})}, {}, {}}), 0, DataType::kFloat, {-1, 7});
  ExpectOutput(Infer(kLayerNorm, {{F32({2, 9}), F32({9}), F32({9})}, {}, {}}), 0, DataType::kFloat,
               {2, 9});
  const OpSpec* ln = StandardOps().FindOp(kLayerNorm);
  ASSERT_NE(ln, nullptr);
  AttrMap defaults;
  ApplyAttrDefaults(*ln, defaults);
  EXPECT_EQ(defaults.GetOr<float>("epsilon", 0.0f).value(), 0.001f);

  ExpectOutput(
      Infer(kAttention, {{F32({2, 5, 4, 8}), F32({2, 7, 4, 8}), F32({2, 7, 4, 16})}, {}, {}}), 0,
      DataType::kFloat, {2, 5, 4, 16});
  ExpectError(Infer(kAttention, {{F32({2, 5, 4, 8}), F32({2, 7, 4, 8}), F32({2, 7, 4, 16})},
                                 Attrs({{"mask", std::string("select")}}),
                                 {}}),
              "mask \"select\" takes 4 inputs, got 3");
  ExpectError(Infer(kAttention, {{F32({2, 5, 32}), F32({2, 7, 4, 8}), F32({2, 7, 4, 16})}, {}, {}}),
              "query, key and value must be [batch, seq, heads, depth], got " + S({2, 5, 32}));
}

}  // namespace
}  // namespace smrt::ops
