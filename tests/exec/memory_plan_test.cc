// The static arena plan: offsets worked out by hand for known lifetimes,
// reuse of memory across disjoint lifetimes, 64-byte alignment, and
// data-dependent shapes left unplanned.
#include "exec/memory_plan.h"

#include <array>
#include <map>

#include "exec/compile_graph.h"
#include "exec/program.h"
#include "gtest/gtest.h"

namespace smrt::exec {
namespace {

TEST(PlanArenaTest, DisjointLifetimesShareMemory) {
  // b (largest) goes first at 0; a overlaps b, so above it at 256 (200
  // aligned up); c overlaps b but not a, so it takes a's place.
  ArenaPlan plan = PlanArena({{100, 0, 1}, {200, 1, 2}, {100, 2, 3}});
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{256, 0, 256}));
  EXPECT_EQ(plan.peak_bytes, 356);
}

TEST(PlanArenaTest, BestFitTakesTheSmallestGapAndAlignsOffsets) {
  // Placed by size: a [0,0] at 0; b [0,9] above a at 384; c [0,0] at 704;
  // d [0,9] at 960, not at c's end 954 (alignment). e [5,6] overlaps only b
  // and d: the gaps are [0,384) and [704,960); best fit takes the smaller.
  ArenaPlan plan = PlanArena({{384, 0, 0}, {320, 0, 9}, {250, 0, 0}, {192, 0, 9}, {128, 5, 6}});
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 384, 704, 960, 704}));
  EXPECT_EQ(plan.peak_bytes, 1152);
  // Everything live at once stacks, each offset aligned.
  ArenaPlan stacked = PlanArena({{10, 0, 1}, {10, 0, 1}, {10, 1, 1}});
  EXPECT_EQ(stacked.offsets, (std::vector<int64_t>{0, 64, 128}));
  EXPECT_EQ(stacked.peak_bytes, 138);
  EXPECT_EQ(PlanArena({}).peak_bytes, 0);
}

using testing::Compile;

// x -> a=Relu -> b=Neg -> c=Relu(b) -> d=AddV2(c, a) -> out=Neg(d).
const char kChain[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    SMRT_FLOAT_OP("a", "Relu", "input: 'x'")
    SMRT_FLOAT_OP("b", "Neg", "input: 'a'")
    SMRT_FLOAT_OP("c", "Relu", "input: 'b'")
    SMRT_FLOAT_OP("d", "AddV2", "input: 'c' input: 'a'")
    SMRT_FLOAT_OP("out", "Neg", "input: 'd'");

TEST(PlanMemoryTest, ChainReusesDeadTensorsAndSkipsFeedsAndFetches) {
  std::unique_ptr<Program> p = Compile(kChain, {"x:0"}, "out:0");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<MemoryPlan> plan = PlanMemory(*p, {{4, 16}});  // 256-byte tensors
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->steps.size(), 5u);  // the fed placeholder does not run
  std::map<std::string, const PlannedValue*> by_name;
  for (const PlannedValue& v : plan->planned) by_name[p->graph().node(v.value.node).name] = &v;
  ASSERT_EQ(by_name.size(), 4u);  // a b c d: not x (feed), not out (fetched)
  // Lifetimes [first, last]: a [0,3], b [1,2], c [2,3], d [3,4]. All 256
  // bytes, placed in order of first use: a 0, b 256, c 512; d overlaps a and
  // c but not b, so it reuses b's block.
  const std::map<std::string, std::array<int64_t, 3>> expected = {
      {"a", {0, 3, 0}}, {"b", {1, 2, 256}}, {"c", {2, 3, 512}}, {"d", {3, 4, 256}}};
  for (const auto& [name, want] : expected) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(by_name.count(name));
    const PlannedValue& v = *by_name[name];
    EXPECT_EQ(v.lifetime.bytes, 256);
    EXPECT_EQ(v.shape, (Shape{4, 16}));
    EXPECT_EQ(v.lifetime.first, want[0]);
    EXPECT_EQ(v.lifetime.last, want[1]);
    EXPECT_EQ(v.offset, want[2]);
  }
  EXPECT_EQ(plan->peak_bytes, 768);
  EXPECT_EQ(plan->naive_bytes, 1024);
  EXPECT_TRUE(plan->unplanned.empty());

  // Another batch: the same offsets scaled (shapes come from these feeds).
  absl::StatusOr<MemoryPlan> big = PlanMemory(*p, {{8, 16}});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->peak_bytes, 1536);
  EXPECT_FALSE(PlanMemory(*p, {}).ok());  // one shape per feed
}

TEST(PlanMemoryTest, DataDependentShapesAreUnplanned) {
  const char kWhere[] =
      "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_BOOL } } }\n"
      "node { name: 'w' op: 'Where' input: 'p' attr { key: 'T' value { type: DT_BOOL } } }\n"
      "node { name: 'n' op: 'Neg' input: 'w' attr { key: 'T' value { type: DT_INT64 } } }\n"
      "node { name: 's' op: 'Shape' input: 'n' attr { key: 'T' value { type: DT_INT64 } } "
      "       attr { key: 'out_type' value { type: DT_INT32 } } }\n";
  std::unique_ptr<Program> p = Compile(kWhere, {"p:0"}, "s:0");
  ASSERT_NE(p, nullptr);
  absl::StatusOr<MemoryPlan> plan = PlanMemory(*p, {{8}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->unplanned.size(), 2u);  // Where's output and Neg of it
  EXPECT_TRUE(plan->planned.empty());     // the Shape output is fetched
  EXPECT_EQ(plan->peak_bytes, 0);
}

}  // namespace
}  // namespace smrt::exec
