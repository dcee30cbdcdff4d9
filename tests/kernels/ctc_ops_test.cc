// CTCGreedyDecoder and CTCBeamSearchDecoder against TensorFlow 2.21
// (tests/generators/kernel_goldens/ctc.py): the decoded paths, their order and sparse layout
// exactly (greedy rows with ties and repeats, merge_repeated both ways, blank_index
// anywhere; beam widths 1 to 25, top_paths 1 to 5, logits at three temperatures, float and
// double, a zero sequence length) and the log probabilities to float rounding; and
// TensorFlow's messages for what it refuses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens =
      new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() + "/kernels/ctc/ctc.rec");
  return *goldens;
}

// "merge_repeated=1;top_paths=2" as attrs (merge_repeated a bool, the others ints).
AttrMap ParseAttrs(const std::string& text) {
  AttrMap a;
  for (absl::string_view kv : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(kv, '=');
    int64_t v = 0;
    EXPECT_TRUE(parts.size() == 2 && absl::SimpleAtoi(parts[1], &v)) << kv;
    if (parts[0] == "merge_repeated") {
      a.Set(parts[0], v != 0);
    } else {
      a.Set(parts[0], v);
    }
  }
  return a;
}

double Value(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kDouble ? t.data<double>()[i] : t.data<float>()[i];
}

TEST(CtcOpsTest, DecodesAsTensorFlow) {
  int cases = 0;
  double worst = 0;
  for (const auto& [name, tensor] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    const std::string op = Goldens().GetString(name);
    const Tensor x = Goldens().Get(c + ".inputs");
    AttrMap attrs = ParseAttrs(Goldens().GetString(c + ".attrs"));
    attrs.Set("T", x.dtype());
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(op, attrs, {x, Goldens().Get(c + ".sequence_length")});
    ASSERT_TRUE(out.ok()) << out.status();
    ++cases;
    for (size_t i = 0; i + 1 < out->size(); ++i) {
      EXPECT_TRUE(
          ::smrt::testing::BitIdentical((*out)[i], Goldens().Get(c + ".out" + std::to_string(i))))
          << "output " << i;
    }
    const Tensor& got = out->back();
    const Tensor want = Goldens().Get(c + ".out" + std::to_string(out->size() - 1));
    ASSERT_EQ(got.shape(), want.shape());
    ASSERT_EQ(got.dtype(), want.dtype());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      const double err = std::fabs(Value(got, i) - Value(want, i));
      worst = std::max(worst, err / std::max(1.0, std::fabs(Value(want, i))));
      EXPECT_NEAR(Value(got, i), Value(want, i), 2e-6 * std::max(1.0, std::fabs(Value(want, i))))
          << "log_probability " << i;
    }
  }
  EXPECT_EQ(cases, 37);
  std::cout << cases << " cases, largest relative log-probability error " << worst << "\n";
}

// The CPU kernel alone, without shape inference: TensorFlow's kernel checks the batch with
// its own message, which the tests compare. All outputs are requested (3 * top_paths + 1).
absl::Status KernelStatus(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs) {
  const OpSpec* spec = KernelRegistry::Default().FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(op);
  ApplyAttrDefaults(*spec, attrs);
  absl::StatusOr<int> outputs = spec->num_outputs(attrs, static_cast<int>(inputs.size()));
  if (!outputs.ok()) return outputs.status();
  absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, attrs);
  if (!k.ok()) return k.status();
  KernelContext ctx("test_node", op, attrs, std::move(inputs), *outputs);
  return (*k)->compute(ctx);
}

Tensor Zeros(int64_t t, int64_t b, int64_t c) {
  return *Tensor::Create(DataType::kFloat, {t, b, c});
}

TEST(CtcOpsTest, RefusesWhatTensorFlowRefuses) {
  auto greedy = [](const Tensor& x, std::vector<int32_t> lengths, int64_t blank = -1) {
    AttrMap a;
    a.Set("blank_index", blank);
    return KernelStatus("CTCGreedyDecoder", a,
                        {x, MakeTensor<int32_t>({static_cast<int64_t>(lengths.size())}, lengths)});
  };
  auto beam = [](const Tensor& x, std::vector<int32_t> lengths, int64_t width, int64_t paths) {
    AttrMap a;
    a.Set("beam_width", width);
    a.Set("top_paths", paths);
    return KernelStatus("CTCBeamSearchDecoder", a,
                        {x, MakeTensor<int32_t>({static_cast<int64_t>(lengths.size())}, lengths)});
  };
  const Tensor z = Zeros(3, 2, 4);
  const auto& g = Goldens();
  auto expect = [&g](const absl::Status& s, const std::string& key,
                     absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
    ASSERT_FALSE(s.ok()) << key;
    EXPECT_EQ(s.code(), code) << key << ": " << s;
    EXPECT_EQ(s.message(), g.GetString("message." + key));
  };
  expect(greedy(z, {3, 4}), "greedy_seq_len", absl::StatusCode::kFailedPrecondition);
  expect(greedy(z, {3, 3, 3}), "greedy_batch", absl::StatusCode::kFailedPrecondition);
  expect(greedy(z, {3, 3}, 4), "greedy_blank");
  expect(greedy(z, {3, 3}, -5), "greedy_blank_neg");
  expect(greedy(Zeros(3, 0, 4), {}), "greedy_empty");
  expect(beam(z, {3, 4}, 2, 1), "beam_seq_len", absl::StatusCode::kFailedPrecondition);
  expect(beam(z, {0, 3}, 2, 2), "beam_leaves");
  expect(beam(z, {3, 3}, 2, 3), "beam_paths");
}

TEST(CtcOpsTest, InfersListOutputs) {
  AttrMap a;
  a.Set("top_paths", int64_t{2});
  a.Set("beam_width", int64_t{4});
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("CTCBeamSearchDecoder", a,
              {{DataType::kDouble, PartialShape::Known({-1, 5, 7})},
               {DataType::kInt32, PartialShape::Known({-1})}});
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->size(), 7u);
  EXPECT_EQ((*info)[1].shape, PartialShape::Known({-1, 2}));
  EXPECT_EQ((*info)[3].dtype, DataType::kInt64);
  EXPECT_EQ((*info)[5].shape, PartialShape::Known({2}));
  EXPECT_EQ((*info)[6].dtype, DataType::kDouble);
  EXPECT_EQ((*info)[6].shape, PartialShape::Known({5, 2}));
}

}  // namespace
}  // namespace smrt::kernels
