#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

TEST(ReverseOpsTest, MatchesTensorFlow) {
  Tensor x = ReadGolden("kernels/reverse/x");
  const std::pair<const char*, std::vector<int32_t>> cases[] = {
      {"a0", {0}}, {"a1_2", {1, 2}}, {"neg1", {-1}}, {"none", {}}};
  for (const auto& [name, axes] : cases) {
    AttrMap attrs;
    attrs.Set("T", DataType::kFloat);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("ReverseV2", attrs,
              {x, MakeTensor<int32_t>({static_cast<int64_t>(axes.size())}, axes)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], ReadGolden(std::string("kernels/reverse/") + name), 0, 0))
        << name;
  }
}

TEST(ReverseOpsTest, StringsAndErrors) {
  AttrMap attrs;
  attrs.Set("T", DataType::kString);
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "ReverseV2", attrs,
      {MakeTensor<std::string>({3}, {"a", "b", "c"}), MakeTensor<int32_t>({1}, {0})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(testing::Values<std::string>((*out)[0]), (std::vector<std::string>{"c", "b", "a"}));
  EXPECT_FALSE(RunOp("ReverseV2", attrs,
                     {MakeTensor<std::string>({3}, {"a", "b", "c"}), MakeTensor<int32_t>({1}, {1})})
                   .ok());
  EXPECT_FALSE(RunOp("ReverseV2", attrs,
                     {MakeTensor<std::string>({3}, {"a", "b", "c"}),
                      MakeTensor<int32_t>({2}, {0, -1})})
                   .ok());
}

}  // namespace
}  // namespace smrt::kernels
