#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/scatter/" + name); }

AttrMap Attrs(DataType t, DataType tindices) {
  AttrMap a;
  a.Set("T", t);
  a.Set("Tindices", tindices);
  return a;
}

Tensor ShapeTensor(DataType t, const std::vector<int64_t>& dims) {
  if (t == DataType::kInt64) return MakeTensor<int64_t>({static_cast<int64_t>(dims.size())}, dims);
  return MakeTensor<int32_t>({static_cast<int64_t>(dims.size())},
                             std::vector<int32_t>(dims.begin(), dims.end()));
}

TEST(ScatterOpsTest, MatchesTensorFlow) {
  for (const char* name : {"elements", "rows", "batched"}) {
    const std::string n = name;
    Tensor idx = Golden(n + "_indices");
    Tensor upd = Golden(n + "_updates");
    Tensor base = Golden(n + "_tensor");
    AttrMap a = Attrs(upd.dtype(), idx.dtype());
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("ScatterNd", a, {idx, upd, ShapeTensor(idx.dtype(), base.shape())});
    ASSERT_TRUE(out.ok()) << n << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(n + "_scatter_nd"), 1e-6, 1e-6)) << n;
    out = RunOp("TensorScatterAdd", a, {base, idx, upd});
    ASSERT_TRUE(out.ok()) << n << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(n + "_add"), 1e-6, 1e-6)) << n;
    out = RunOp("TensorScatterUpdate", a, {base, Golden(n + "_uindices"), Golden(n + "_uupdates")});
    ASSERT_TRUE(out.ok()) << n << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(n + "_update"), 0, 0)) << n;
  }
}

TEST(ScatterOpsTest, BadIndicesAndShapes) {
  AttrMap a = Attrs(DataType::kFloat, DataType::kInt32);
  Tensor upd = MakeTensor<float>({1}, {1});
  Tensor shape = ShapeTensor(DataType::kInt32, {2, 3});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ScatterNd", a, {MakeTensor<int32_t>({1, 2}, {1, 3}), upd, shape});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "indices[0] = [1, 3]")) << out.status();
  out = RunOp("ScatterNd", a, {MakeTensor<int32_t>({1, 2}, {-1, 0}), upd, shape});
  EXPECT_TRUE(absl::StrContains(out.status().message(), "[-1, 0]")) << out.status();
  // bad_indices_policy IGNORE drops the row instead.
  AttrMap ignore = a;
  ignore.Set("bad_indices_policy", std::string("IGNORE"));
  out = RunOp("ScatterNd", ignore,
              {MakeTensor<int32_t>({2, 2}, {1, 3, 0, 2}), MakeTensor<float>({2}, {5, 7}), shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2, 3}, {0, 0, 7, 0, 0, 0}), 0, 0));
  // Updates of the wrong shape, index vectors longer than the rank.
  out = RunOp("ScatterNd", a, {MakeTensor<int32_t>({1, 1}, {0}), upd, shape});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  out = RunOp("ScatterNd", a, {MakeTensor<int32_t>({1, 3}, {0, 0, 0}), upd, shape});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  out = RunOp("TensorScatterUpdate", a,
              {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<int32_t>({1, 1}, {3}), upd});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  // No rows: the output is zeros (ScatterNd) or the input (TensorScatter*).
  out = RunOp("ScatterNd", a, {MakeTensor<int32_t>({0, 1}, {}), MakeTensor<float>({0, 3}, {}),
                               shape});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2, 3}, std::vector<float>(6, 0)), 0, 0));
}

TEST(ScatterOpsTest, UpdateServesStrings) {
  AttrMap a = Attrs(DataType::kString, DataType::kInt64);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("TensorScatterUpdate", a,
            {MakeTensor<std::string>({3}, {"a", "b", "c"}), MakeTensor<int64_t>({1, 1}, {2}),
             MakeTensor<std::string>({1}, {"z"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<std::string>({3}, {"a", "b", "z"}), 0, 0));
}

}  // namespace
}  // namespace smrt::kernels
