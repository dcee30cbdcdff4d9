// The allow_tf32 pass (LoadOptions::precision "tf32"): on a GPU load it marks
// the float32 products, and only them, for TF32; on the CPU it changes
// nothing. A marked graph run on the CPU gives float32's bits.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/fused_ops.h"
#include "passes/pass_test_util.h"
#include "passes/passes.h"

namespace smrt::passes {
namespace {

// Sets what a load with precision "tf32" gives the passes.
class Tf32Load : public Pass {
 public:
  explicit Tf32Load(std::string device_type) : device_type_(std::move(device_type)) {}
  absl::string_view name() const override { return "tf32_load"; }
  absl::Status Run(PassContext& ctx) const override {
    ctx.device_type = device_type_;
    ctx.tf32 = true;
    return absl::OkStatus();
  }

 private:
  std::string device_type_;
};

// x -> MatMul(w) -> Relu -> y; x -> Cast(half) -> MatMul(w16) -> z; and a
// float32 Einsum.
std::string Graph() {
  return Placeholder("x") + FloatConst("w", RandomFloats({8, 4}, 1)) +
         Op("mm", "MatMul", {"x", "w"}) + Op("y", "Relu", {"mm"}) +
         "node { name: \"x16\" op: \"Cast\" input: \"x\" attr { key: \"SrcT\" value { type: "
         "DT_FLOAT } } attr { key: \"DstT\" value { type: DT_HALF } } }\n"
         "node { name: \"w16\" op: \"Cast\" input: \"w\" attr { key: \"SrcT\" value { type: "
         "DT_FLOAT } } attr { key: \"DstT\" value { type: DT_HALF } } }\n" +
         Op("z", "MatMul", {"x16", "w16"}, "", "DT_HALF") +
         Op("e", "Einsum", {"x", "w"},
            "attr { key: \"equation\" value { s: \"ab,bc->ac\" } } "
            "attr { key: \"N\" value { i: 2 } }");
}

std::vector<std::string> Marked(const testing::Optimized& o) {
  std::vector<std::string> marked;
  for (const graph::Node& n : o.program->graph().nodes()) {
    if (n.attrs.GetOr<bool>(ops::kAllowTf32Attr, false).value_or(false)) {
      marked.push_back(n.op);
    }
  }
  return marked;
}

absl::StatusOr<testing::Optimized> Build(const std::string& device_type) {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<Tf32Load>(device_type));
  passes.push_back(MakeAllowTf32Pass());
  return testing::BuildWithPasses(Graph(), {{"x:0", DataType::kFloat, PartialShape::Known({3, 8})}},
                                  {"y:0", "z:0", "e:0"}, std::move(passes));
}

TEST(AllowTf32Test, AGpuLoadMarksTheFloat32ProductsOnly) {
  absl::StatusOr<testing::Optimized> gpu = Build("CUDA");
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_EQ(absl::StrJoin(Marked(*gpu), ","), "MatMul,Einsum");
  EXPECT_EQ(absl::StrJoin(gpu->log, "\n"),
            "allow_tf32: 2 float32 products may use TF32 tensor cores");
  // The CPU kernels ignore the mark: float32's bits.
  absl::StatusOr<testing::Optimized> plain = testing::Build(
      Graph(), {{"x:0", DataType::kFloat, PartialShape::Known({3, 8})}}, {"y:0", "z:0", "e:0"},
      nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const Tensor x = RandomFloats({3, 8}, 2);
  absl::StatusOr<std::vector<Tensor>> marked_out = gpu->program->Run({x});
  absl::StatusOr<std::vector<Tensor>> plain_out = plain->program->Run({x});
  ASSERT_TRUE(marked_out.ok()) << marked_out.status();
  ASSERT_TRUE(plain_out.ok()) << plain_out.status();
  for (size_t i = 0; i < plain_out->size(); ++i) {
    const Tensor& a = (*marked_out)[i];
    const Tensor& b = (*plain_out)[i];
    ASSERT_EQ(a.byte_size(), b.byte_size());
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()), 0) << i;
  }
}

TEST(AllowTf32Test, ACpuLoadIsLeftAsItIs) {
  absl::StatusOr<testing::Optimized> cpu = Build("");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_TRUE(Marked(*cpu).empty());
  EXPECT_EQ(absl::StrJoin(cpu->log, "\n"),
            "allow_tf32: the CPU has no TF32: float32 products compute in float32");
}

}  // namespace
}  // namespace smrt::passes
