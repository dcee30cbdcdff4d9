// The op definitions moved from the CPU reference backend into src/ops/defs
// (issue 38, second half): run through ops::StandardOps() with no backend
// linked, each family infers TensorFlow's dtypes and shapes and refuses bad
// inputs with the messages the backend gave.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/random_state.h"
#include "ops/reduction_shapes.h"
#include "ops/standard_ops.h"

namespace smrt::ops {
namespace {

// Runs op's definition on inputs of these dtypes and partial shapes (and
// these constant values, by input index): attr defaults applied, as many
// outputs as the op declares.
absl::StatusOr<std::vector<ValueInfo>> Infer(const std::string& op, std::vector<ValueInfo> inputs,
                                             AttrMap attrs = {},
                                             std::vector<const Tensor*> values = {}) {
  const OpSpec* spec = StandardOps().FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(op);
  ApplyAttrDefaults(*spec, attrs);
  int outputs = 1;
  if (spec->num_outputs) {
    absl::StatusOr<int> n = spec->num_outputs(attrs, static_cast<int>(inputs.size()));
    if (!n.ok()) return n.status();
    outputs = *n;
  }
  InferenceContext ctx("n", op, attrs, std::move(inputs), std::move(values), outputs);
  if (absl::Status s = spec->infer(ctx); !s.ok()) return s;
  return ctx.outputs();
}

ValueInfo Of(DataType dtype, std::vector<int64_t> dims) {
  return {dtype, PartialShape::Known(std::move(dims))};
}
ValueInfo F32(std::vector<int64_t> dims) { return Of(DataType::kFloat, std::move(dims)); }
ValueInfo Unknown(DataType dtype) { return {dtype, PartialShape::Unknown()}; }

// An int32 vector (or scalar, with scalar = true) holding `v`.
Tensor Ints(const std::vector<int32_t>& v, bool scalar = false) {
  Shape shape;
  if (!scalar) shape = {static_cast<int64_t>(v.size())};
  Tensor t = *Tensor::Create(DataType::kInt32, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = v[i];
  return t;
}

// "dtype shape" of each output, e.g. "DT_FLOAT (2, -1)".
std::string Describe(const absl::StatusOr<std::vector<ValueInfo>>& out) {
  if (!out.ok()) return std::string(out.status().ToString());
  std::string s;
  for (const ValueInfo& v : *out) {
    if (!s.empty()) s += "; ";
    s += std::string(DataTypeName(v.dtype)) + " " + v.shape.ToString();
  }
  return s;
}

std::string Message(const absl::StatusOr<std::vector<ValueInfo>>& out) {
  return out.ok() ? "ok" : std::string(out.status().message());
}

std::string Shaped(DataType dtype, std::vector<int64_t> dims) {
  return std::string(DataTypeName(dtype)) + " " + PartialShape::Known(std::move(dims)).ToString();
}

TEST(DefsBTest, ReverseAndRoundKeepTheInput) {
  EXPECT_EQ(Describe(Infer("ReverseV2", {F32({2, -1, 3}), Of(DataType::kInt32, {1})})),
            Shaped(DataType::kFloat, {2, -1, 3}));
  EXPECT_EQ(Describe(Infer("_SmrtRoundTo", {F32({4})})), Shaped(DataType::kFloat, {4}));
  AttrMap attrs;
  ApplyAttrDefaults(*StandardOps().FindOp("ReverseV2"), attrs);
  EXPECT_EQ(attrs.Get<DataType>("Tidx").value(), DataType::kInt32);
}

TEST(DefsBTest, SoftmaxNeedsADimension) {
  EXPECT_EQ(Describe(Infer("LogSoftmax", {F32({2, 5})})), Shaped(DataType::kFloat, {2, 5}));
  EXPECT_EQ(Message(Infer("Softmax", {F32({})})),
            "Softmax: logits must have >= 1 dimension, got ()");
}

TEST(DefsBTest, TensorArraysThreadAHandleAndAFlow) {
  AttrMap attrs;
  attrs.Set("dtype", DataType::kFloat);
  EXPECT_EQ(Describe(Infer("TensorArrayV3", {Of(DataType::kInt32, {})}, attrs)),
            Shaped(DataType::kResource, {}) + "; " + Shaped(DataType::kFloat, {}));
  attrs.Set("element_shape", PartialShape::Known({3, 4}));
  EXPECT_EQ(
      Describe(Infer("TensorArrayGatherV3",
                     {Of(DataType::kResource, {2}), Of(DataType::kInt32, {-1}), F32({})}, attrs)),
      Shaped(DataType::kFloat, {-1, 3, 4}));
  EXPECT_EQ(Describe(Infer("TensorArrayConcatV3", {Of(DataType::kResource, {2}), F32({})}, attrs)),
            "DT_FLOAT unknown_rank; " + Shaped(DataType::kInt64, {-1}));
  EXPECT_EQ(Describe(Infer("TensorArrayCloseV3", {Of(DataType::kResource, {2})})), "");
  EXPECT_TRUE(StandardOps().FindOp("TensorArrayWriteV3")->stateful);
  EXPECT_FALSE(Infer("TensorArrayReadV3", {Of(DataType::kResource, {2})}).ok());  // no dtype
}

TEST(DefsBTest, TensorListsAreScalarVariants) {
  EXPECT_EQ(
      Describe(Infer("TensorListReserve", {Of(DataType::kInt32, {2}), Of(DataType::kInt32, {})})),
      Shaped(DataType::kVariant, {}));
  AttrMap attrs;
  attrs.Set("element_dtype", DataType::kInt32);
  EXPECT_EQ(Describe(Infer("TensorListStack",
                           {Of(DataType::kVariant, {}), Of(DataType::kInt32, {2})}, attrs)),
            "DT_INT32 unknown_rank");
  EXPECT_EQ(Describe(Infer("TensorListElementShape", {Of(DataType::kVariant, {})})),
            "DT_INT32 unknown_rank");
}

TEST(DefsBTest, TrainingOpsShapeGradientsAndLosses) {
  EXPECT_EQ(Describe(Infer("BiasAddGrad", {F32({8, 4, 4, 16})})), Shaped(DataType::kFloat, {16}));
  AttrMap nchw;
  nchw.Set("data_format", std::string("NCHW"));
  EXPECT_EQ(Describe(Infer("BiasAddGrad", {F32({8, 3, 4, 4})}, nchw)),
            Shaped(DataType::kFloat, {3}));
  AttrMap bad;
  bad.Set("data_format", std::string("NWHC"));
  EXPECT_EQ(Message(Infer("BiasAddGrad", {F32({8, 3})}, bad)), "unknown data_format NWHC");
  EXPECT_EQ(Message(Infer("BiasAddGrad", {F32({8})})),
            "BiasAddGrad: out_backprop must be at least 2-D, got (8)");
  EXPECT_EQ(Describe(Infer("SparseSoftmaxCrossEntropyWithLogits",
                           {F32({32, 10}), Of(DataType::kInt64, {32})})),
            Shaped(DataType::kFloat, {32}) + "; " + Shaped(DataType::kFloat, {32, 10}));
  EXPECT_EQ(Message(Infer("SoftmaxCrossEntropyWithLogits", {F32({2, 3, 4}), F32({2, 3, 4})})),
            "SoftmaxCrossEntropyWithLogits: logits must be 2-D, got (2, 3, 4)");
  EXPECT_EQ(Describe(Infer("ReluGrad", {F32({-1, 7}), F32({-1, 7})})),
            Shaped(DataType::kFloat, {-1, 7}));
}

TEST(DefsBTest, VariablesAreStatefulAndTyped) {
  AttrMap attrs;
  attrs.Set("dtype", DataType::kFloat);
  attrs.Set("shape", PartialShape::Known({3, 4}));
  EXPECT_EQ(Describe(Infer("VariableV2", {}, attrs)), Shaped(DataType::kFloat, {3, 4}));
  EXPECT_EQ(Describe(Infer("VarHandleOp", {}, attrs)), Shaped(DataType::kResource, {}));
  EXPECT_EQ(Describe(Infer("ReadVariableOp", {Of(DataType::kResource, {})}, attrs)),
            "DT_FLOAT unknown_rank");
  EXPECT_EQ(Describe(Infer("AssignVariableOp", {Of(DataType::kResource, {}), F32({3, 4})})), "");
  EXPECT_EQ(Describe(Infer("Assign", {Unknown(DataType::kFloat), F32({3, 4})})),
            Shaped(DataType::kFloat, {3, 4}));
  EXPECT_FALSE(Infer("VariableV2", {}).ok());  // no dtype attr
  for (const char* op : {"VariableV2", "ReadVariableOp", "AssignAddVariableOp", "ResourceGather"}) {
    EXPECT_TRUE(StandardOps().FindOp(op)->stateful) << op;
  }
  AttrMap defaults;
  ApplyAttrDefaults(*StandardOps().FindOp("Assign"), defaults);
  EXPECT_TRUE(defaults.Get<bool>("validate_shape").value());
}

TEST(DefsBTest, RandomOpsTakeTheirShapeInputAndOwnAStream) {
  const Tensor shape = Ints({2, 3});
  AttrMap attrs;
  attrs.Set("dtype", DataType::kHalf);
  EXPECT_EQ(Describe(Infer("RandomUniform", {Of(DataType::kInt32, {2})}, attrs, {&shape})),
            Shaped(DataType::kHalf, {2, 3}));
  // Without the values, the length of the shape vector gives the rank.
  EXPECT_EQ(Describe(Infer("TruncatedNormal", {Of(DataType::kInt32, {3})}, attrs)),
            Shaped(DataType::kHalf, {-1, -1, -1}));
  const Tensor samples = Ints({5}, /*scalar=*/true);
  EXPECT_EQ(Describe(Infer("Multinomial", {F32({4, 10}), Of(DataType::kInt32, {})}, {},
                           {nullptr, &samples})),
            Shaped(DataType::kInt64, {4, 5}));
  EXPECT_EQ(Message(Infer("Multinomial", {F32({4, 10, 2}), Of(DataType::kInt32, {})})),
            "logits should be a matrix, got shape (4, 10, 2)");

  const OpSpec* uniform = StandardOps().FindOp("RandomUniform");
  ASSERT_TRUE(uniform->stateful && uniform->make_resource);
  AttrMap seeded;
  seeded.Set("seed", int64_t{87654321});
  seeded.Set("seed2", int64_t{7});
  absl::StatusOr<std::unique_ptr<Resource>> r = uniform->make_resource(seeded);
  ASSERT_TRUE(r.ok()) << r.status();
  auto* stream = dynamic_cast<RandomStreamState*>(r->get());
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->seed(), 87654321u);
  EXPECT_EQ(stream->seed2(), 7u);
  EXPECT_EQ(stream->Reserve(256), 0u);
  EXPECT_EQ(stream->Reserve(256), 256u);
  EXPECT_EQ(stream->Reserve(1), 512u);
  // Unseeded: both seeds drawn afresh, never both 0.
  absl::StatusOr<std::unique_ptr<RandomStreamState>> fresh = MakeRandomStreamState(AttrMap{});
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE((*fresh)->seed() == 0 && (*fresh)->seed2() == 0);
}

TEST(DefsBTest, StatelessRandomOpsHaveNoState) {
  const Tensor shape = Ints({4});
  EXPECT_EQ(Describe(Infer("StatelessRandomNormal",
                           {Of(DataType::kInt32, {1}), Of(DataType::kInt64, {2})}, {}, {&shape})),
            Shaped(DataType::kFloat, {4}));  // dtype defaults to float
  EXPECT_EQ(Describe(Infer("StatelessRandomGetKeyCounterAlg", {Of(DataType::kInt64, {2})})),
            Shaped(DataType::kUInt64, {1}) + "; " + Shaped(DataType::kUInt64, {2}) + "; " +
                Shaped(DataType::kInt32, {}));
  AttrMap attrs;
  ApplyAttrDefaults(*StandardOps().FindOp("StatelessRandomUniformFullIntV2"), attrs);
  EXPECT_EQ(attrs.Get<DataType>("dtype").value(), DataType::kUInt64);
  for (const char* op : {"StatelessRandomUniform", "StatelessMultinomial"}) {
    EXPECT_FALSE(StandardOps().FindOp(op)->stateful) << op;
    EXPECT_FALSE(static_cast<bool>(StandardOps().FindOp(op)->make_resource)) << op;
  }
}

TEST(DefsBTest, ReductionsDropOrKeepTheirAxes) {
  const Tensor axes = Ints({1, -1});
  const ValueInfo axes_info = Of(DataType::kInt32, {2});
  EXPECT_EQ(Describe(Infer("Sum", {F32({2, 3, 4}), axes_info}, {}, {nullptr, &axes})),
            Shaped(DataType::kFloat, {2}));
  AttrMap keep;
  keep.Set("keep_dims", true);
  EXPECT_EQ(Describe(Infer("Mean", {F32({2, -1, 4}), axes_info}, keep, {nullptr, &axes})),
            Shaped(DataType::kFloat, {2, 1, 1}));
  // Axes unknown: with keep_dims only the rank is known.
  EXPECT_EQ(Describe(Infer("Max", {F32({2, 1, 4}), axes_info}, keep)),
            Shaped(DataType::kFloat, {-1, 1, -1}));
  const Tensor twice = Ints({1, -2});
  EXPECT_EQ(Message(Infer("Prod", {F32({2, 3, 4}), axes_info}, {}, {nullptr, &twice})),
            "Prod node 'n': Invalid reduction arguments: Axes contains duplicate dimension: 1");
  EXPECT_EQ(Message(Infer("All", {F32({2}), Of(DataType::kInt32, {})})),
            "All node 'n': input must be bool, got DT_FLOAT");
  EXPECT_EQ(Message(Infer("Sum", {F32({2}), Of(DataType::kFloat, {})})),
            "Sum node 'n': input 1 must be int32 or int64, got DT_FLOAT");

  const Tensor axis = Ints({-1}, /*scalar=*/true);
  EXPECT_EQ(
      Describe(Infer("ArgMax", {F32({5, 7}), Of(DataType::kInt32, {})}, {}, {nullptr, &axis})),
      Shaped(DataType::kInt64, {5}));
  AttrMap int32_out;
  int32_out.Set("output_type", DataType::kInt32);
  EXPECT_EQ(Describe(Infer("ArgMin", {F32({5, 7, 2}), Of(DataType::kInt32, {})}, int32_out)),
            Shaped(DataType::kInt32, {-1, -1}));
  const Tensor far = Ints({2}, /*scalar=*/true);
  EXPECT_EQ(Message(Infer("ArgMax", {F32({5, 7}), Of(DataType::kInt32, {})}, {}, {nullptr, &far})),
            "ArgMax node 'n': Expected dimension in the range [-2, 2), but got 2");
  EXPECT_EQ(ArgAxis(-2, 2).value(), 0);
  EXPECT_EQ(ReducedDims({0, 2}, 3).value(), (std::vector<bool>{true, false, true}));
}

TEST(DefsBTest, RaggedToTensorCombinesTheRequestedShapeWithTheValues) {
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("Tshape", DataType::kInt32);
  attrs.Set("row_partition_types", std::vector<std::string>{"ROW_SPLITS"});
  const Tensor unknown = Ints({-1}, /*scalar=*/true);
  const std::vector<ValueInfo> inputs = {Of(DataType::kInt32, {}), F32({-1, 5}), F32({}),
                                         Of(DataType::kInt64, {-1})};
  EXPECT_EQ(Describe(Infer("RaggedTensorToTensor", inputs, attrs, {&unknown})),
            Shaped(DataType::kFloat, {-1, -1, 5}));
  const Tensor shape = Ints({3, 4, -1});
  EXPECT_EQ(Describe(Infer("RaggedTensorToTensor", inputs, attrs, {&shape})),
            Shaped(DataType::kFloat, {3, 4, 5}));
  const Tensor too_long = Ints({3, 4, 5, 6});
  EXPECT_EQ(Message(Infer("RaggedTensorToTensor", inputs, attrs, {&too_long})),
            "rt_input.shape and shape=(3, 4, 5, 6) are incompatible: rt_input.rank = 3 but "
            "shape.rank = 4");
  attrs.Set("row_partition_types", std::vector<std::string>{"VALUE_ROWIDS"});
  EXPECT_EQ(Message(Infer("RaggedTensorToTensor", inputs, attrs)),
            "Cannot handle VALUE_ROWIDS in first dimension.");
}

}  // namespace
}  // namespace smrt::ops
