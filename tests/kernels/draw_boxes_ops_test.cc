// DrawBoundingBoxes and DrawBoundingBoxesV2 against TensorFlow 2.21
// (tests/generators/kernel_goldens/draw_boxes.py), bit for bit: boxes inside, across every
// edge, outside, inverted, degenerate, on rows float rounding decides, NaN; the default color
// table wrapping, V2's colors (none, more channels than the image), 1, 3 and 4 channels,
// float and half; and TensorFlow's messages for what it refuses.
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(
      smrt::testing::TestDataDir() + "/kernels/draw_boxes/draw_boxes.rec");
  return *goldens;
}

Tensor Convert(const Tensor& t, DataType to) {
  Tensor out = *Tensor::Create(to, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (to == DataType::kHalf) {
      out.data<Eigen::half>()[i] = static_cast<Eigen::half>(t.data<float>()[i]);
    } else {
      out.data<float>()[i] = static_cast<float>(t.data<Eigen::half>()[i]);
    }
  }
  return out;
}

TEST(DrawBoxesOpsTest, DrawsAsTensorFlow) {
  int drawn = 0;
  int refused = 0;
  for (const auto& [name, t] : Goldens().All()) {
    if (!absl::EndsWith(name, ".images")) continue;
    const std::string c = name.substr(0, name.size() - 7);
    SCOPED_TRACE(c);
    const bool half = Goldens().Has(c + ".half");
    Tensor images = Goldens().Get(c + ".images");
    if (half) images = Convert(images, DataType::kHalf);
    std::vector<Tensor> inputs = {images, Goldens().Get(c + ".boxes")};
    const bool v2 = Goldens().Has(c + ".colors");
    if (v2) inputs.push_back(Goldens().Get(c + ".colors"));
    AttrMap a;
    a.Set("T", images.dtype());
    const std::string op = v2 ? "DrawBoundingBoxesV2" : "DrawBoundingBoxes";
    absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, a);
    ASSERT_TRUE(k.ok()) << k.status();
    // The kernel alone: TensorFlow's kernel checks ranks with its own messages.
    absl::StatusOr<Tensor> out = RunKernel(**k, a, inputs);
    if (Goldens().IsError(c)) {
      Goldens().ExpectError(c, out.status());
      ++refused;
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor got = half ? Convert(*out, DataType::kFloat) : *out;
    EXPECT_TRUE(::smrt::testing::BitIdentical(got, Goldens().Get(c + ".out")));
    ++drawn;
  }
  EXPECT_EQ(drawn, 11);
  EXPECT_EQ(refused, 7);
}

}  // namespace
}  // namespace smrt::kernels
