// The segment, set and bitwise ops in whole graphs: their outputs named by
// arg inside function bodies (uwc:count:0, ld:out:0) import, and on
// constant inputs they fold at load and give what they give at run time.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "passes/pass_test_util.h"

namespace smrt::passes {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::Values;

const char kGraph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "call" op: "StatefulPartitionedCall" input: "x"
         attr { key: "f" value { func { name: "sets" } } }
         attr { key: "Tin" value { list { type: DT_INT32 } } }
         attr { key: "Tout" value { list { type: DT_INT32 type: DT_INT32 type: DT_INT32 } } } }
  node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
                tensor_shape { dim { size: 4 } dim { size: 2 } }
                float_val: 1 float_val: 2 float_val: 3 float_val: 4
                float_val: 5 float_val: 6 float_val: 7 float_val: 8 } } } }
  node { name: "ids" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } }
                int_val: 0 int_val: 0 int_val: 2 int_val: 2 } } } }
  node { name: "seg" op: "SegmentSum" input: "d" input: "ids"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tindices" value { type: DT_INT32 } } }
  node { name: "bits" op: "Bitcast" input: "seg"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "type" value { type: DT_INT32 } } }
  node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
  node { name: "shifted" op: "RightShift" input: "bits" input: "one"
         attr { key: "T" value { type: DT_INT32 } } }
  library {
    function {
      signature { name: "sets" input_arg { name: "a" type: DT_INT32 }
                  output_arg { name: "count" type: DT_INT32 }
                  output_arg { name: "idx" type: DT_INT32 }
                  output_arg { name: "rest" type: DT_INT32 } }
      node_def { name: "uwc" op: "UniqueWithCounts" input: "a"
                 attr { key: "T" value { type: DT_INT32 } }
                 attr { key: "out_idx" value { type: DT_INT32 } } }
      node_def { name: "drop" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32
                        tensor_shape { dim { size: 2 } } int_val: 1 int_val: 3 } } } }
      node_def { name: "ld" op: "ListDiff" input: "a" input: "drop:output:0"
                 attr { key: "T" value { type: DT_INT32 } }
                 attr { key: "out_idx" value { type: DT_INT32 } } }
      ret { key: "count" value: "uwc:count:0" }
      ret { key: "idx" value: "uwc:idx:0" }
      ret { key: "rest" value: "ld:out:0" }
    }
  }
)";

TEST(SegmentGraphTest, FunctionOutputsByNameAndConstantFolding) {
  const std::vector<graph::FeedSpec> feeds = {{"x:0", DataType::kInt32, PartialShape::Known({-1})}};
  const std::vector<std::string> fetches = {"call:0", "call:1", "call:2", "seg:0", "shifted:0"};
  Tensor x = MakeTensor<int32_t>({6}, {3, 1, 3, 2, 1, 5});
  absl::StatusOr<testing::Both> b = RunBoth(kGraph, feeds, fetches, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  // The constant chain SegmentSum -> Bitcast -> RightShift folds; the
  // set ops on the fed vector stay.
  EXPECT_EQ(b->plain.count("SegmentSum"), 1);
  EXPECT_EQ(b->fused.count("SegmentSum"), 0);
  EXPECT_EQ(b->fused.count("Bitcast"), 0);
  EXPECT_EQ(b->fused.count("RightShift"), 0);
  EXPECT_EQ(b->fused.count("UniqueWithCounts"), 1);
  EXPECT_EQ(b->fused.count("ListDiff"), 1);
  for (const std::vector<Tensor>* out : {&b->plain_out, &b->fused_out}) {
    ASSERT_EQ(out->size(), 5u);
    EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{2, 2, 1, 1}));
    EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{0, 1, 0, 2, 1, 3}));
    EXPECT_EQ(Values<int32_t>((*out)[2]), (std::vector<int32_t>{2, 5}));
    EXPECT_EQ(Values<float>((*out)[3]), (std::vector<float>{4, 6, 0, 0, 12, 14}));
    EXPECT_EQ((*out)[4].shape(), (Shape{3, 2}));
    // 4.0f is 0x40800000; shifted right by one.
    EXPECT_EQ(Values<int32_t>((*out)[4])[0], 0x40800000 >> 1);
  }
}

}  // namespace
}  // namespace smrt::passes
