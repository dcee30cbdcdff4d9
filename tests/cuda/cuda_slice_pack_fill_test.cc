// Slice, StridedSlice, ReverseV2, Split, SplitV, Tile, Pack, Fill and
// MirrorPad on CUDA. Without a GPU: what is registered, the index arithmetic
// the kernels run (PlanSliceGather and its Reverse/Split/Tile forms +
// TransposeSourceOffset, PadSourceOffset) evaluated on the host against the
// CPU kernels' outputs, and the checks made before any device work. With a
// GPU: each kernel against the CPU kernel, byte for byte.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/strided_slice_util.h"
#include "kernels/cuda/pad.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/slice_plan.h"
#include "kernels/cuda/transpose.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

struct Registered {
  const char* op;
  std::vector<int> host_memory_inputs;
};

TEST(CudaSlicePackFillTest, RegisteredWithTheirHostInputs) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const Registered& e : std::vector<Registered>{{"Slice", {1, 2}},
                                                     {"StridedSlice", {1, 2, 3}},
                                                     {"Pack", {}},
                                                     {"Fill", {0, 1}},
                                                     {"MirrorPad", {1}},
                                                     {"ReverseV2", {1}},
                                                     {"Split", {0}},
                                                     {"SplitV", {1, 2}},
                                                     {"Tile", {1}},
                                                     {"BroadcastTo", {1}}}) {
    SCOPED_TRACE(e.op);
    for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kInt32, DataType::kInt64,
                       DataType::kInt8, DataType::kBool}) {
      absl::StatusOr<const KernelSpec*> k = r.FindKernel(e.op, kCudaDevice, TypeAttr(t));
      ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
      EXPECT_EQ((*k)->backend, "cuda");
      EXPECT_EQ((*k)->host_memory_inputs, e.host_memory_inputs);
    }
    EXPECT_FALSE(r.FindKernel(e.op, kCudaDevice, TypeAttr(DataType::kString)).ok());
  }
}

// A StridedSlice spec: x[begin:end:strides] with masks.
struct SliceCase {
  const char* what;
  Shape shape;
  std::vector<int64_t> begin, end, strides;
  StridedSliceMasks masks;
};

AttrMap StridedSliceAttrs(const StridedSliceMasks& m, DataType t = DataType::kFloat) {
  AttrMap a = TypeAttr(t);
  a.Set("Index", DataType::kInt64);
  a.Set("begin_mask", int64_t{m.begin});
  a.Set("end_mask", int64_t{m.end});
  a.Set("ellipsis_mask", int64_t{m.ellipsis});
  a.Set("new_axis_mask", int64_t{m.new_axis});
  a.Set("shrink_axis_mask", int64_t{m.shrink_axis});
  return a;
}

StridedSliceMasks Masks(uint32_t begin, uint32_t end, uint32_t ellipsis = 0,
                        uint32_t new_axis = 0, uint32_t shrink_axis = 0) {
  StridedSliceMasks m;
  m.begin = begin;
  m.end = end;
  m.ellipsis = ellipsis;
  m.new_axis = new_axis;
  m.shrink_axis = shrink_axis;
  return m;
}

Tensor Int64s(const std::vector<int64_t>& v) {
  return MakeTensor<int64_t>({static_cast<int64_t>(v.size())}, v);
}

// What the GPU kernel copies, computed on the host: the gather the plan
// describes, applied to the input's bytes.
std::vector<float> GatherOnHost(const Tensor& in, const SliceGather& g, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    out[i] = in.data<float>()[g.base + TransposeSourceOffset(g.plan, i)];
  }
  return out;
}

const std::vector<SliceCase>& SliceCases() {
  static const std::vector<SliceCase> cases = {
      {"BERT's first token, x[:, 0, :]", {2, 5, 8}, {0, 0, 0}, {0, 1, 0}, {1, 1, 1},
       Masks(5, 5, 0, 0, 2)},
      {"everything: one flat copy", {3, 4, 5}, {0, 0, 0}, {3, 4, 5}, {1, 1, 1}, {}},
      {"reversed, x[::-1, :, ::-2]", {3, 4, 5}, {0, 0, 0}, {0, 0, 0}, {-1, 1, -2},
       Masks(7, 7)},
      {"x[1:-1:2, ..., None, 3]", {6, 3, 4, 7}, {1, 0, 0, 3}, {-1, 0, 0, 4}, {2, 1, 1, 1},
       Masks(0, 0, 2, 4, 8)},
      {"clamped ends and stride 3", {10, 4}, {-100, 1}, {100, 3}, {3, 1}, {}},
      {"an empty box", {4, 4}, {2, 0}, {2, 4}, {1, 1}, {}},
      {"the inner dims of an NHWC image", {2, 6, 6, 3}, {0, 1, 2, 0}, {2, 5, 6, 3},
       {1, 1, 2, 1}, {}},
  };
  return cases;
}

TEST(CudaSlicePackFillTest, StridedSliceGatherIsTheCpuKernelsBox) {
  for (const SliceCase& c : SliceCases()) {
    SCOPED_TRACE(c.what);
    const Tensor x = RandomFloats(c.shape, 1);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("StridedSlice", StridedSliceAttrs(c.masks),
              {x, Int64s(c.begin), Int64s(c.end), Int64s(c.strides)});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<StridedSlicePlan> plan =
        PlanStridedSlice(c.shape, c.begin, c.end, c.strides, c.masks);
    ASSERT_TRUE(plan.ok()) << plan.status();
    absl::StatusOr<SliceGather> g =
        PlanSliceGather(c.shape, plan->begin, plan->strides, plan->processing_shape);
    ASSERT_TRUE(g.ok()) << g.status();
    const Tensor& want = (*cpu)[0];
    ASSERT_EQ(want.shape(), plan->final_shape);
    const std::vector<float> got = GatherOnHost(x, *g, want.num_elements());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      ASSERT_EQ(got[i], want.data<float>()[i]) << "element " << i;
    }
  }
  // The whole tensor, and the first token of BERT's hidden state: one run
  // each, however many dims.
  absl::StatusOr<SliceGather> whole = PlanSliceGather({3, 4, 5}, {0, 0, 0}, {1, 1, 1}, {3, 4, 5});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->plan.rank, 1);
  EXPECT_EQ(whole->plan.out_dims[0], 60);
  absl::StatusOr<SliceGather> token = PlanSliceGather({2, 5, 8}, {0, 0, 0}, {1, 1, 1}, {2, 1, 8});
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(token->plan.rank, 2);
  EXPECT_EQ(token->plan.in_strides[0], 40);
}

TEST(CudaSlicePackFillTest, SliceGatherIsTheCpuKernelsBox) {
  const Tensor x = RandomFloats({4, 5, 6}, 2);
  for (const auto& [begin, size] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{1, 0, 2}, {2, -1, 3}}, {{0, 0, 0}, {4, 5, 6}}, {{3, 4, 5}, {1, 1, 1}},
           {{2, 2, 0}, {0, 3, 6}}}) {
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("Index", DataType::kInt64);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("Slice", attrs, {x, Int64s(begin), Int64s(size)});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<Shape> sizes = SliceSizes(x.shape(), begin, size);
    ASSERT_TRUE(sizes.ok()) << sizes.status();
    absl::StatusOr<SliceGather> g =
        PlanSliceGather(x.shape(), begin, std::vector<int64_t>(3, 1), *sizes);
    ASSERT_TRUE(g.ok()) << g.status();
    const Tensor& want = (*cpu)[0];
    const std::vector<float> got = GatherOnHost(x, *g, want.num_elements());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      ASSERT_EQ(got[i], want.data<float>()[i]) << "element " << i;
    }
  }
}

AttrMap ReverseAttrs() {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("Tidx", DataType::kInt32);
  return a;
}

AttrMap SplitAttrs(int64_t num_split) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("num_split", num_split);
  return a;
}

AttrMap SplitVAttrs(int64_t num_split) {
  AttrMap a = SplitAttrs(num_split);
  a.Set("Tlen", DataType::kInt64);
  return a;
}

TEST(CudaSlicePackFillTest, ReverseGatherIsTheCpuKernels) {
  for (const auto& [shape, axes] : std::vector<std::pair<Shape, std::vector<int32_t>>>{
           {{3, 4, 5}, {0}}, {{3, 4, 5}, {1, 2}}, {{3, 4, 5}, {-1}}, {{3, 4, 5}, {0, 1, 2}},
           {{3, 4, 5}, {}}, {{7}, {0}}, {{2, 0, 3}, {1}}}) {
    SCOPED_TRACE(ShapeToString(shape) + " axes " + std::to_string(axes.size()));
    const Tensor x = RandomFloats(shape, 12);
    const Tensor axis = MakeTensor<int32_t>({static_cast<int64_t>(axes.size())}, axes);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("ReverseV2", ReverseAttrs(), {x, axis});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<std::vector<bool>> flip = ReversedAxes(axis, x.rank());
    ASSERT_TRUE(flip.ok()) << flip.status();
    absl::StatusOr<SliceGather> g = PlanReverseGather(shape, *flip);
    ASSERT_TRUE(g.ok()) << g.status();
    const Tensor& want = (*cpu)[0];
    const std::vector<float> got = GatherOnHost(x, *g, want.num_elements());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      ASSERT_EQ(got[i], want.data<float>()[i]) << "element " << i;
    }
  }
}

// Each output's gather, on the host, against the CPU kernel's outputs.
void ExpectSplitGathersLikeCpu(const std::string& op, const AttrMap& attrs,
                               const std::vector<Tensor>& inputs, int axis,
                               const std::vector<int64_t>& sizes) {
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, attrs, inputs);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_EQ(cpu->size(), sizes.size());
  const Tensor& x = op == "Split" ? inputs[1] : inputs[0];
  int64_t offset = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    SCOPED_TRACE("output " + std::to_string(k));
    absl::StatusOr<SliceGather> g = PlanSplitPieceGather(x.shape(), axis, offset, sizes[k]);
    ASSERT_TRUE(g.ok()) << g.status();
    const Tensor& want = (*cpu)[k];
    ASSERT_EQ(want.dim(axis), sizes[k]);
    const std::vector<float> got = GatherOnHost(x, *g, want.num_elements());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      ASSERT_EQ(got[i], want.data<float>()[i]) << "element " << i;
    }
    offset += sizes[k];
  }
}

TEST(CudaSlicePackFillTest, SplitGathersAreTheCpuKernels) {
  const Tensor x = RandomFloats({4, 6, 5}, 13);
  // An LSTM cell's gates: Split(axis=1, num_split=4)-style pieces of one dim.
  ExpectSplitGathersLikeCpu("Split", SplitAttrs(3), {MakeTensor<int32_t>({}, {1}), x}, 1,
                            {2, 2, 2});
  ExpectSplitGathersLikeCpu("Split", SplitAttrs(5), {MakeTensor<int32_t>({}, {-1}), x}, 2,
                            {1, 1, 1, 1, 1});
  ExpectSplitGathersLikeCpu("Split", SplitAttrs(2), {MakeTensor<int32_t>({}, {0}), x}, 0, {2, 2});
  ExpectSplitGathersLikeCpu("SplitV", SplitVAttrs(3),
                            {x, Int64s({1, -1, 2}), MakeTensor<int32_t>({}, {0})}, 0, {1, 1, 2});
  ExpectSplitGathersLikeCpu("SplitV", SplitVAttrs(3),
                            {x, Int64s({0, 6, 0}), MakeTensor<int32_t>({}, {1})}, 1, {0, 6, 0});
}

AttrMap TileAttrs(DataType t = DataType::kFloat) {
  AttrMap a = TypeAttr(t);
  a.Set("Tmultiples", DataType::kInt32);
  return a;
}

// Tile's gather repeats the input with step-0 dims; on the host against the
// CPU kernel. A UNet's Tile of a mask, a batch tile, zero copies, rank 4.
TEST(CudaSlicePackFillTest, TileGatherIsTheCpuKernels) {
  for (const auto& [shape, multiples] : std::vector<std::pair<Shape, std::vector<int32_t>>>{
           {{2, 3}, {2, 3}}, {{1, 4, 4, 1}, {2, 1, 1, 8}}, {{3}, {1}}, {{2, 3}, {0, 2}},
           {{2, 1, 3, 2}, {2, 3, 2, 2}}, {{5, 1}, {1, 4}}}) {
    SCOPED_TRACE(ShapeToString(shape));
    const Tensor x = RandomFloats(shape, 16);
    const Tensor m = MakeTensor<int32_t>({static_cast<int64_t>(multiples.size())}, multiples);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("Tile", TileAttrs(), {x, m});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<SliceGather> g =
        PlanTileGather(shape, std::vector<int64_t>(multiples.begin(), multiples.end()));
    ASSERT_TRUE(g.ok()) << g.status();
    const Tensor& want = (*cpu)[0];
    const std::vector<float> got = GatherOnHost(x, *g, want.num_elements());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      ASSERT_EQ(got[i], want.data<float>()[i]) << "element " << i;
    }
  }
}

// BroadcastTo's gather reads stretched dims with step 0; on the host against
// the CPU kernel: leading dims, inner and outer stretches, a scalar, an empty
// target, the same shape.
TEST(CudaSlicePackFillTest, BroadcastToGatherIsTheCpuKernels) {
  for (const auto& [shape, target] : std::vector<std::pair<Shape, std::vector<int32_t>>>{
           {{3}, {2, 3}}, {{2, 1}, {2, 5}}, {{1, 3}, {4, 2, 3}}, {{}, {2, 2}},
           {{2, 1, 3, 1}, {3, 2, 4, 3, 2}}, {{2, 3}, {2, 3}}, {{1}, {0, 3}}, {{1, 1}, {1, 1}}}) {
    SCOPED_TRACE(ShapeToString(shape));
    const Tensor x = RandomFloats(shape, 17);
    const Tensor t = MakeTensor<int32_t>({static_cast<int64_t>(target.size())}, target);
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("Tidx", DataType::kInt32);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("BroadcastTo", attrs, {x, t});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const Shape dims(target.begin(), target.end());
    ASSERT_TRUE(CheckBroadcastTo(shape, dims).ok());
    absl::StatusOr<SliceGather> g = PlanBroadcastToGather(shape, dims);
    ASSERT_TRUE(g.ok()) << g.status();
    const Tensor& want = (*cpu)[0];
    ASSERT_EQ(want.shape(), dims);
    const std::vector<float> got = GatherOnHost(x, *g, want.num_elements());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      ASSERT_EQ(got[i], want.data<float>()[i]) << "element " << i;
    }
  }
  EXPECT_EQ(CheckBroadcastTo({2, 3}, {4, 3}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckBroadcastTo({2, 3}, {3}).code(), absl::StatusCode::kInvalidArgument);
  // A scalar to a scalar; rank 10 that merges into the gather's 8 dims; 9
  // runs that do not merge are Unimplemented (an error, not a launch).
  absl::StatusOr<SliceGather> scalar = PlanBroadcastToGather({}, {});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->plan.rank, 1);
  Shape ten(10, 2);
  ten.back() = 3;
  EXPECT_TRUE(PlanBroadcastToGather({3}, ten).ok());
  absl::StatusOr<SliceGather> nine =
      PlanBroadcastToGather({2, 1, 2, 1, 2, 1, 2, 1, 2}, {2, 3, 2, 3, 2, 3, 2, 3, 2});
  ASSERT_FALSE(nine.ok());
  EXPECT_EQ(nine.status().code(), absl::StatusCode::kUnimplemented) << nine.status();
}

TEST(CudaSlicePackFillTest, BoxesOfMoreThanEightUnmergedDimsAreUnimplemented) {
  const Shape dims(9, 3);
  absl::StatusOr<SliceGather> g =
      PlanSliceGather(dims, std::vector<int64_t>(9, 0), std::vector<int64_t>(9, 2), Shape(9, 2));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented) << g.status();
  // The same rank with contiguous neighbours merges and is served.
  EXPECT_TRUE(PlanSliceGather(dims, std::vector<int64_t>(9, 0), std::vector<int64_t>(9, 1),
                              Shape(9, 3))
                  .ok());
}

// What the pad kernel reads, computed on the host, against the CPU kernel.
void ExpectPadIndexLikeCpu(const std::string& mode, const Shape& shape,
                           const std::vector<int32_t>& paddings) {
  SCOPED_TRACE(mode);
  const Tensor x = RandomFloats(shape, 3);
  const int rank = static_cast<int>(shape.size());
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("Tpaddings", DataType::kInt32);
  std::string op = "Pad";
  PadPlan plan;
  plan.rank = rank;
  if (!mode.empty()) {
    op = "MirrorPad";
    attrs.Set("mode", mode);
    plan.fill = mode == "REFLECT" ? PadFill::kReflect : PadFill::kSymmetric;
  }
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunOp(op, attrs, {x, MakeTensor<int32_t>({rank, 2}, paddings)});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  const Tensor& want = (*cpu)[0];
  for (int d = 0; d < rank; ++d) {
    plan.in_dims[d] = shape[d];
    plan.before[d] = paddings[2 * d];
    plan.out_dims[d] = want.dim(d);
  }
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const int64_t offset = PadSourceOffset(plan, i);
    ASSERT_EQ(offset >= 0 ? x.data<float>()[offset] : 0.0f, want.data<float>()[i])
        << "element " << i;
  }
}

TEST(CudaSlicePackFillTest, PadIndexIsTheCpuKernels) {
  for (const std::string mode : {"REFLECT", "SYMMETRIC"}) {
    ExpectPadIndexLikeCpu(mode, {5}, {2, 3});
    ExpectPadIndexLikeCpu(mode, {3, 4}, {2, 2, 3, 3});  // REFLECT's most: dim - 1
    ExpectPadIndexLikeCpu(mode, {2, 3, 4}, {0, 1, 1, 0, 2, 1});
  }
  ExpectPadIndexLikeCpu("SYMMETRIC", {3, 4}, {3, 3, 4, 4});  // SYMMETRIC's most: dim
  ExpectPadIndexLikeCpu("", {2, 3, 4}, {1, 0, 0, 2, 3, 1});
}


TEST(CudaSlicePackFillTest, ChecksComeBeforeAnyDeviceWork) {
  const Tensor x = FakeDeviceTensor(DataType::kFloat, {4, 5});
  const AttrMap ss = StridedSliceAttrs({});
  ExpectFakeDeviceError("StridedSlice", ss, {x, Int64s({0, 0}), Int64s({1, 1}), Int64s({1, 0})},
              absl::StatusCode::kInvalidArgument, "strides[1] must be non-zero");
  ExpectFakeDeviceError("StridedSlice", ss,
              {x, FakeDeviceTensor(DataType::kInt64, {2}), Int64s({1, 1}), Int64s({1, 1})},
              absl::StatusCode::kFailedPrecondition, "host memory");
  ExpectFakeDeviceError("StridedSlice", ss, {MakeTensor<float>({2}, {1, 2}), Int64s({0}), Int64s({1}),
                                   Int64s({1})},
              absl::StatusCode::kFailedPrecondition, "host memory");

  AttrMap slice = TypeAttr(DataType::kFloat);
  slice.Set("Index", DataType::kInt64);
  ExpectFakeDeviceError("Slice", slice, {x, Int64s({1, 0}), Int64s({4, -1})},
              absl::StatusCode::kInvalidArgument, "expected size[0] in [0, 3]");
  ExpectFakeDeviceError("Slice", slice, {x, Int64s({0}), Int64s({1})}, absl::StatusCode::kInvalidArgument,
              "1-D tensors of size 2");

  AttrMap mirror = TypeAttr(DataType::kFloat);
  mirror.Set("Tpaddings", DataType::kInt32);
  mirror.Set("mode", std::string("REFLECT"));
  ExpectFakeDeviceError("MirrorPad", mirror, {x, MakeTensor<int32_t>({2, 2}, {0, 4, 0, 0})},
              absl::StatusCode::kInvalidArgument, "must be no greater than 3 in REFLECT");
  mirror.Set("mode", std::string("EDGE"));
  ExpectFakeDeviceError("MirrorPad", mirror, {x, MakeTensor<int32_t>({2, 2}, {0, 1, 0, 0})},
              absl::StatusCode::kInvalidArgument, "REFLECT or SYMMETRIC");

  AttrMap fill = TypeAttr(DataType::kFloat);
  fill.Set("index_type", DataType::kInt32);
  ExpectFakeDeviceError("Fill", fill, {MakeTensor<int32_t>({2}, {3, -1}), MakeTensor<float>({}, {1.5f})},
              absl::StatusCode::kInvalidArgument, "dims[1] = -1 must be >= 0");
  ExpectFakeDeviceError("Fill", fill, {MakeTensor<int32_t>({1}, {3}), MakeTensor<float>({2}, {1, 2})},
              absl::StatusCode::kInvalidArgument, "value must be a scalar");

  AttrMap pack = TypeAttr(DataType::kFloat);
  pack.Set("N", int64_t{2});
  pack.Set("axis", int64_t{0});
  ExpectFakeDeviceError("Pack", pack, {x, FakeDeviceTensor(DataType::kFloat, {5, 4})},
              absl::StatusCode::kInvalidArgument, "must match");
  pack.Set("axis", int64_t{3});
  ExpectFakeDeviceError("Pack", pack, {x, x}, absl::StatusCode::kInvalidArgument, "axis = 3 not in [-3, 3)");

  AttrMap broadcast = TypeAttr(DataType::kFloat);
  broadcast.Set("Tidx", DataType::kInt32);
  ExpectFakeDeviceError("BroadcastTo", broadcast, {x, MakeTensor<int32_t>({2}, {4, 3})},
                        absl::StatusCode::kInvalidArgument, "Incompatible shapes");
  ExpectFakeDeviceError("BroadcastTo", broadcast, {x, MakeTensor<int32_t>({1, 2}, {2, 3})},
                        absl::StatusCode::kInvalidArgument, "shape must be a vector");
  AttrMap depth = TypeAttr(DataType::kFloat);
  depth.Set("block_size", int64_t{2});
  const Tensor image = FakeDeviceTensor(DataType::kFloat, {1, 3, 4, 8});
  ExpectFakeDeviceError("SpaceToDepth", depth, {image}, absl::StatusCode::kInvalidArgument,
                        "should be divisible by block_size");
  ExpectFakeDeviceError("DepthToSpace", depth, {FakeDeviceTensor(DataType::kFloat, {1, 3, 4, 6})},
                        absl::StatusCode::kInvalidArgument, "should be divisible by: 4");
  ExpectFakeDeviceError("DepthToSpace", depth, {FakeDeviceTensor(DataType::kFloat, {3, 4, 8})},
                        absl::StatusCode::kInvalidArgument, "must be 4-dimensional");
  AttrMap one = depth;
  one.Set("block_size", int64_t{1});
  ExpectFakeDeviceError("DepthToSpace", one, {image}, absl::StatusCode::kInvalidArgument,
                        "block_size should be > 1");
  AttrMap nchw = depth;
  nchw.Set("data_format", std::string("NCHW"));
  ExpectFakeDeviceError("SpaceToDepth", nchw, {image}, absl::StatusCode::kUnimplemented,
                        "only data_format NHWC");
  ExpectFakeDeviceError("Tile", TileAttrs(), {x, MakeTensor<int32_t>({1}, {2})},
              absl::StatusCode::kInvalidArgument, "expected multiples to be a vector of length 2");
  ExpectFakeDeviceError("Tile", TileAttrs(), {x, MakeTensor<int32_t>({2}, {1, -2})},
              absl::StatusCode::kInvalidArgument, "expected multiples[1] >= 0");
  ExpectFakeDeviceError("ReverseV2", ReverseAttrs(), {x, MakeTensor<int32_t>({2}, {1, -1})},
              absl::StatusCode::kInvalidArgument, "axis -1 is given more than once");
  ExpectFakeDeviceError("ReverseV2", ReverseAttrs(), {x, FakeDeviceTensor(DataType::kInt32, {1})},
              absl::StatusCode::kFailedPrecondition, "host memory");
  ExpectFakeDeviceError("Split", SplitAttrs(3), {MakeTensor<int32_t>({}, {1}), x},
              absl::StatusCode::kInvalidArgument, "evenly divide", 3);
  ExpectFakeDeviceError("Split", SplitAttrs(2), {MakeTensor<int32_t>({}, {2}), x},
              absl::StatusCode::kInvalidArgument, "axis 2 is out of range", 2);
  ExpectFakeDeviceError("SplitV", SplitVAttrs(2), {x, Int64s({1, 1}), MakeTensor<int32_t>({}, {0})},
              absl::StatusCode::kInvalidArgument, "must sum to the size of the split dimension",
              2);
  ExpectFakeDeviceError("SplitV", SplitVAttrs(2),
              {x, Int64s({2, 2}), FakeDeviceTensor(DataType::kInt32, {})},
              absl::StatusCode::kFailedPrecondition, "host memory", 2);
}

class CudaGpuSlicePackFillTest : public testing::GpuTest {};

TEST_F(CudaGpuSlicePackFillTest, StridedSliceAndSliceMatchTheCpu) {
  for (const SliceCase& c : SliceCases()) {
    SCOPED_TRACE(c.what);
    ExpectSameBytesAsCpu("StridedSlice", StridedSliceAttrs(c.masks),
                         {RandomFloats(c.shape, 4), Int64s(c.begin), Int64s(c.end),
                          Int64s(c.strides)},
                         {1, 2, 3});
  }
  // 1-, 2- and 8-byte elements.
  ExpectSameBytesAsCpu("StridedSlice", StridedSliceAttrs({}, DataType::kBool),
                       {MakeTensor<bool>({2, 3}, {true, false, true, false, false, true}),
                        Int64s({0, 2}), Int64s({2, -4}), Int64s({1, -1})},
                       {1, 2, 3});
  ExpectSameBytesAsCpu("StridedSlice", StridedSliceAttrs({}, DataType::kInt64),
                       {MakeTensor<int64_t>({5}, {1, -2, 3, -4, 5}), Int64s({4}), Int64s({0}),
                        Int64s({-2})},
                       {1, 2, 3});
  AttrMap slice = TypeAttr(DataType::kFloat);
  slice.Set("Index", DataType::kInt64);
  ExpectSameBytesAsCpu("Slice", slice,
                       {RandomFloats({4, 5, 6}, 5), Int64s({1, 0, 2}), Int64s({2, -1, 3})},
                       {1, 2});
}

TEST_F(CudaGpuSlicePackFillTest, PackMatchesTheCpu) {
  for (int64_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    AttrMap pack = TypeAttr(DataType::kFloat);
    pack.Set("N", int64_t{3});
    pack.Set("axis", axis);
    ExpectSameBytesAsCpu("Pack", pack,
                         {RandomFloats({2, 3}, 6), RandomFloats({2, 3}, 7),
                          RandomFloats({2, 3}, 8)});
  }
  AttrMap scalars = TypeAttr(DataType::kInt64);
  scalars.Set("N", int64_t{2});
  scalars.Set("axis", int64_t{0});
  ExpectSameBytesAsCpu("Pack", scalars,
                       {MakeTensor<int64_t>({}, {7}), MakeTensor<int64_t>({}, {-9})});
  AttrMap empty = TypeAttr(DataType::kFloat);
  empty.Set("N", int64_t{2});
  empty.Set("axis", int64_t{1});
  ExpectSameBytesAsCpu("Pack", empty, {RandomFloats({0, 3}, 9), RandomFloats({0, 3}, 10)});
}

TEST_F(CudaGpuSlicePackFillTest, FillAndMirrorPadMatchTheCpu) {
  AttrMap fill = TypeAttr(DataType::kFloat);
  fill.Set("index_type", DataType::kInt32);
  ExpectSameBytesAsCpu("Fill", fill,
                       {MakeTensor<int32_t>({3}, {2, 300, 7}), MakeTensor<float>({}, {-2.5f})},
                       {0, 1});
  ExpectSameBytesAsCpu("Fill", fill,
                       {MakeTensor<int32_t>({2}, {0, 4}), MakeTensor<float>({}, {1.0f})}, {0, 1});
  AttrMap fill8 = TypeAttr(DataType::kUInt8);
  fill8.Set("index_type", DataType::kInt64);
  ExpectSameBytesAsCpu("Fill", fill8,
                       {MakeTensor<int64_t>({1}, {1001}), MakeTensor<uint8_t>({}, {0xa5})},
                       {0, 1});
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    SCOPED_TRACE(mode);
    AttrMap mirror = TypeAttr(DataType::kFloat);
    mirror.Set("Tpaddings", DataType::kInt32);
    mirror.Set("mode", std::string(mode));
    // An NHWC image padded in H and W, as style-transfer and super-resolution
    // models do before their convolutions.
    ExpectSameBytesAsCpu("MirrorPad", mirror,
                         {RandomFloats({2, 9, 7, 3}, 11),
                          MakeTensor<int32_t>({4, 2}, {0, 0, 3, 3, 2, 1, 0, 0})},
                         {1});
  }
}

TEST_F(CudaGpuSlicePackFillTest, ReverseV2MatchesTheCpu) {
  for (const auto& [shape, axes] : std::vector<std::pair<Shape, std::vector<int32_t>>>{
           {{3, 4, 5}, {0, 2}}, {{2, 50, 7}, {1}}, {{1000}, {0}}, {{2, 0, 3}, {1}}}) {
    SCOPED_TRACE(ShapeToString(shape));
    ExpectSameBytesAsCpu(
        "ReverseV2", ReverseAttrs(),
        {RandomFloats(shape, 14), MakeTensor<int32_t>({static_cast<int64_t>(axes.size())}, axes)},
        {1});
  }
  // A Bidirectional LSTM's backward input: time reversed, int8 and int64 too.
  AttrMap bytes = ReverseAttrs();
  bytes.Set("T", DataType::kInt8);
  ExpectSameBytesAsCpu("ReverseV2", bytes,
                       {MakeTensor<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                        MakeTensor<int32_t>({1}, {-1})},
                       {1});
  AttrMap wide = ReverseAttrs();
  wide.Set("T", DataType::kInt64);
  ExpectSameBytesAsCpu("ReverseV2", wide,
                       {MakeTensor<int64_t>({3}, {1, -2, 3}), MakeTensor<int32_t>({1}, {0})}, {1});
}

TEST(CudaSlicePackFillTest, ZerosLikeIsRegisteredForEveryFixedSizeDtype) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : {DataType::kFloat, DataType::kInt64, DataType::kComplex128, DataType::kBool}) {
    absl::StatusOr<const KernelSpec*> k = r.FindKernel("ZerosLike", kCudaDevice, TypeAttr(t));
    ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
    EXPECT_TRUE((*k)->host_memory_inputs.empty());
  }
  EXPECT_FALSE(r.FindKernel("ZerosLike", kCudaDevice, TypeAttr(DataType::kString)).ok());
}

TEST_F(CudaGpuSlicePackFillTest, ZerosLikeMatchesTheCpu) {
  ExpectSameBytesAsCpu("ZerosLike", TypeAttr(DataType::kFloat), {RandomFloats({3, 5}, 20)});
  ExpectSameBytesAsCpu("ZerosLike", TypeAttr(DataType::kInt64),
                       {MakeTensor<int64_t>({2}, {7, -7})});
  ExpectSameBytesAsCpu("ZerosLike", TypeAttr(DataType::kFloat), {RandomFloats({0, 4}, 21)});
}

TEST_F(CudaGpuSlicePackFillTest, TileMatchesTheCpu) {
  ExpectSameBytesAsCpu("Tile", TileAttrs(),
                       {RandomFloats({2, 1, 3, 2}, 17), MakeTensor<int32_t>({4}, {2, 3, 2, 2})},
                       {1});
  ExpectSameBytesAsCpu("Tile", TileAttrs(),
                       {RandomFloats({1, 16, 16, 1}, 18), MakeTensor<int32_t>({4}, {4, 1, 1, 32})},
                       {1});
  ExpectSameBytesAsCpu("Tile", TileAttrs(DataType::kInt8),
                       {MakeTensor<int8_t>({3}, {1, -2, 3}), MakeTensor<int32_t>({1}, {5})}, {1});
  ExpectSameBytesAsCpu("Tile", TileAttrs(),
                       {RandomFloats({2, 3}, 19), MakeTensor<int32_t>({2}, {0, 2})}, {1});
}

// Every output of a Split or SplitV on the GPU, byte for byte against the CPU.
TEST_F(CudaGpuSlicePackFillTest, SplitAndSplitVMatchTheCpu) {
  const Tensor x = RandomFloats({3, 8, 5}, 15);
  struct Case {
    const char* op;
    AttrMap attrs;
    std::vector<Tensor> inputs;
    std::vector<int> host_inputs;
  };
  for (const Case& c : std::vector<Case>{
           {"Split", SplitAttrs(4), {MakeTensor<int32_t>({}, {1}), x}, {0}},
           {"Split", SplitAttrs(5), {MakeTensor<int32_t>({}, {-1}), x}, {0}},
           {"SplitV", SplitVAttrs(3), {x, Int64s({2, -1, 0}), MakeTensor<int32_t>({}, {1})},
            {1, 2}}}) {
    SCOPED_TRACE(c.op);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(c.op, c.attrs, c.inputs);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    std::vector<Tensor> args;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const bool host =
          std::find(c.host_inputs.begin(), c.host_inputs.end(), static_cast<int>(i)) !=
          c.host_inputs.end();
      if (host) {
        args.push_back(c.inputs[i]);
        continue;
      }
      absl::StatusOr<Tensor> d = testing::Upload(device_.get(), c.inputs[i]);
      ASSERT_TRUE(d.ok()) << d.status();
      args.push_back(*d);
    }
    absl::StatusOr<std::vector<Tensor>> gpu = RunCudaKernel(
        device_.get(), c.op, c.attrs, std::move(args), static_cast<int>(cpu->size()));
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    ASSERT_EQ(gpu->size(), cpu->size());
    for (size_t k = 0; k < cpu->size(); ++k) {
      absl::StatusOr<Tensor> got = testing::Download(device_.get(), (*gpu)[k]);
      ASSERT_TRUE(got.ok()) << got.status();
      const Tensor& want = (*cpu)[k];
      ASSERT_EQ(got->shape(), want.shape()) << "output " << k;
      EXPECT_TRUE(want.byte_size() == 0 ||
                  std::memcmp(got->raw_data(), want.raw_data(), want.byte_size()) == 0)
          << "output " << k;
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
