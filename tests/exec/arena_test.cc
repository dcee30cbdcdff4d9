// The activation arena: groups of shared buffers laid out as one region,
// Take refusing a region that a live tensor still uses, and Programs that
// run from the arena, learn which outputs were views or in place, and keep
// handing out correct values.
#include "exec/arena.h"

#include <algorithm>
#include <map>

#include "exec/compile_graph.h"
#include "exec/program.h"
#include "gtest/gtest.h"

namespace smrt::exec {
namespace {

SlotValue Planned(int64_t elements, int first, int last) {
  SlotValue v;
  v.kind = SlotValue::kPlanned;
  v.dtype = DataType::kFloat;
  v.shape = {elements};
  v.lifetime = {elements * 4, first, last};
  return v;
}

TEST(LayoutArenaTest, SharedBuffersAreOneRegionAndGroupsWithOutsidersStayOut) {
  // 0 [0,1] and 1 [1,3] share (1 is a view of 0); 2 [2,3] lives with the
  // group, 3 [4,5] after it; 4 is a feed and 5 a view of it.
  std::vector<SlotValue> slots = {Planned(16, 0, 1), Planned(16, 1, 3), Planned(16, 2, 3),
                                  Planned(32, 4, 5), SlotValue(), Planned(16, 5, 5)};
  std::shared_ptr<const ArenaLayout> alone = LayoutArena(slots, {});
  EXPECT_EQ(alone->values.size(), 5u);
  std::shared_ptr<const ArenaLayout> layout = LayoutArena(slots, {{1, 0}, {5, 4}});
  ASSERT_EQ(layout->value_of_slot.size(), 6u);
  EXPECT_EQ(layout->value_of_slot[4], -1);
  EXPECT_EQ(layout->value_of_slot[5], -1);  // its group has a feed in it
  const ArenaLayout::Value& v0 = layout->values[layout->value_of_slot[0]];
  const ArenaLayout::Value& v1 = layout->values[layout->value_of_slot[1]];
  const ArenaLayout::Value& v2 = layout->values[layout->value_of_slot[2]];
  const ArenaLayout::Value& v3 = layout->values[layout->value_of_slot[3]];
  EXPECT_EQ(v0.group, v1.group);
  EXPECT_NE(v0.group, v2.group);
  ASSERT_EQ(layout->groups.size(), 3u);
  // The group lives [0,3] and so does 2: two regions of 64; 3 (128 bytes,
  // placed first) lives after both and takes their place.
  const int64_t a = layout->groups[v0.group].offset, b = layout->groups[v2.group].offset;
  EXPECT_TRUE(a + 64 <= b || b + 64 <= a) << a << " " << b;
  EXPECT_EQ(layout->groups[v3.group].offset, 0);
  EXPECT_EQ(layout->bytes, 128);
  EXPECT_LT(layout->bytes, alone->bytes + 1);
}

std::shared_ptr<const ArenaLayout> TwoSlotLayout() {
  // Slot 0 and slot 1 overlap in time, slot 2 comes after both and reuses 0.
  return LayoutArena({Planned(16, 0, 1), Planned(16, 1, 2), Planned(16, 2, 3)}, {});
}

TEST(RunArenaTest, TakesPlannedPlacesAndRefusesBusyOrDifferentOnes) {
  std::shared_ptr<const ArenaLayout> layout = TwoSlotLayout();
  ASSERT_EQ(layout->bytes, 128);
  absl::StatusOr<std::unique_ptr<RunArena>> arena = RunArena::Create(layout);
  ASSERT_TRUE(arena.ok()) << arena.status();
  RunArena& r = **arena;
  r.BeginStep(0);
  Tensor t0 = r.Take(0, DataType::kFloat, {16}, /*zero=*/true, /*on_device=*/false);
  ASSERT_TRUE(t0.valid());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(t0.data<float>()[i], 0.0f);
  EXPECT_TRUE(t0.sole_owner());  // kernels may write in place at its last use
  r.BeginStep(1);
  EXPECT_FALSE(r.Take(0, DataType::kInt32, {16}, false, /*on_device=*/false).valid());  // not the planned dtype
  EXPECT_FALSE(r.Take(0, DataType::kFloat, {4, 4}, false, /*on_device=*/false).valid());  // nor shape
  EXPECT_EQ(r.not_as_planned(), 2);
  Tensor t1 = r.Take(0, DataType::kFloat, {16}, false, /*on_device=*/false);
  ASSERT_TRUE(t1.valid());
  EXPECT_NE(t1.raw_data(), t0.raw_data());
  // Slot 2's region is slot 0's, which t0 (and a copy of it) still holds.
  Tensor copy = t0;
  t0 = Tensor();
  r.BeginStep(2);
  EXPECT_FALSE(r.Take(0, DataType::kFloat, {16}, false, /*on_device=*/false).valid());
  EXPECT_EQ(r.region_busy(), 1);
  const void* region = copy.raw_data();
  copy.data<float>()[3] = 7.0f;
  copy = Tensor();
  Tensor t2 = r.Take(0, DataType::kFloat, {16}, false, /*on_device=*/false);
  ASSERT_TRUE(t2.valid());
  EXPECT_EQ(t2.raw_data(), region);
  EXPECT_EQ(r.taken(), 3);
  // Tensors outlive the arena that made them.
  t1.data<float>()[15] = 5.0f;
  arena->reset();
  EXPECT_EQ(t1.data<float>()[15], 5.0f);
  EXPECT_EQ(t2.num_elements(), 16);
}

TEST(RunArenaTest, UnplannedSlotsAreLeftToTheCaller) {
  std::shared_ptr<const ArenaLayout> layout = LayoutArena({Planned(16, 0, 0), SlotValue()}, {});
  absl::StatusOr<std::unique_ptr<RunArena>> arena = RunArena::Create(layout);
  ASSERT_TRUE(arena.ok());
  (*arena)->BeginStep(1);
  EXPECT_FALSE((*arena)->Take(0, DataType::kFloat, {16}, false, /*on_device=*/false).valid());
  EXPECT_EQ((*arena)->not_as_planned(), 0);
}

using testing::Compile;

// x -> a=Relu -> r=Reshape(a, [2, 32]) -> b=Neg(r) -> c=AddV2(b, r) ->
// d=Relu(c) -> out=Sum(d): Reshape is a view of a, and the unary and binary
// kernels write in place into an input handed over at its last use.
const char kGraph[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'shape' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
    "  attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } "
    "  int_val: 2 int_val: -1 } } } }\n"
    "node { name: 'axes' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
    "  attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } "
    "  int_val: 1 } } } }\n"
    SMRT_FLOAT_OP("a", "Relu", "input: 'x'")
    "node { name: 'r' op: 'Reshape' input: 'a' input: 'shape' "
    "  attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } }\n"
    SMRT_FLOAT_OP("b", "Neg", "input: 'r'")
    SMRT_FLOAT_OP("c", "AddV2", "input: 'b' input: 'r'")
    SMRT_FLOAT_OP("d", "Relu", "input: 'c'")
    "node { name: 'out' op: 'Sum' input: 'd' input: 'axes' attr { key: 'T' value { type: DT_FLOAT } } "
    "  attr { key: 'Tidx' value { type: DT_INT32 } } attr { key: 'keep_dims' value { b: false } } }\n"
    "node { name: 'view' op: 'Reshape' input: 'a' input: 'shape' "
    "  attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } }\n";

Tensor Input(float scale) {
  Tensor x = *Tensor::Create(DataType::kFloat, {4, 16});
  for (int i = 0; i < 64; ++i) x.data<float>()[i] = scale * static_cast<float>(i % 9 - 4);
  return x;
}

TEST(ArenaRunTest, ProgramsLearnViewsAndInPlaceResultsAndStayCorrect) {
  std::unique_ptr<Program> p = Compile(kGraph, {"x:0"}, "out:0");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<MemoryPlan> before = PlanMemory(*p, {{4, 16}});
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->planned.size(), 5u);  // a r b c d (out is fetched)
  EXPECT_TRUE(p->LearnedShares({{4, 16}}).empty());
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    // c = -r + r is 0 only if b never overwrote r, which c still reads.
    absl::StatusOr<std::vector<Tensor>> out = p->Run({Input(1.0f + run)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    ASSERT_EQ((*out)[0].shape(), (Shape{2}));
    EXPECT_EQ((*out)[0].data<float>()[0], 0.0f);
    EXPECT_EQ((*out)[0].data<float>()[1], 0.0f);
  }
  const std::vector<SharedBuffer> shares = p->LearnedShares({{4, 16}});
  // r is a's buffer; b is not in r's (c reads r after b); d is c's.
  EXPECT_FALSE(shares.empty());
  absl::StatusOr<MemoryPlan> after = PlanMemory(*p, {{4, 16}});
  ASSERT_TRUE(after.ok());
  std::map<std::string, int> buffer;
  for (const PlannedValue& v : after->planned) buffer[p->graph().node(v.value.node).name] = v.buffer;
  ASSERT_TRUE(buffer.count("a") && buffer.count("r") && buffer.count("c") && buffer.count("d"));
  EXPECT_EQ(buffer["a"], buffer["r"]);
  EXPECT_EQ(buffer["c"], buffer["d"]);
  EXPECT_NE(buffer["b"], buffer["r"]);
  EXPECT_LT(after->peak_bytes, before->peak_bytes);
}

TEST(ArenaRunTest, AFetchedViewOfAnArenaTensorOutlivesLaterRuns) {
  // view is a Reshape of a (in the arena on the first run): the caller keeps
  // it while later runs write their own values.
  std::unique_ptr<Program> p = Compile(kGraph, {"x:0"}, "view:0");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<std::vector<Tensor>> first = p->Run({Input(1.0f)});
  ASSERT_TRUE(first.ok()) << first.status();
  const Tensor kept = (*first)[0];
  std::vector<float> want(kept.data<float>(), kept.data<float>() + 64);
  for (int run = 0; run < 3; ++run) {
    absl::StatusOr<std::vector<Tensor>> again = p->Run({Input(-3.0f - run)});
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_NE((*again)[0].raw_data(), kept.raw_data());
  }
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(kept.data<float>()[i], want[i]) << i;
    EXPECT_EQ(want[i], std::max(0.0f, static_cast<float>(i % 9 - 4)));
  }
}

}  // namespace
}  // namespace smrt::exec
