// NonMaxSuppression (V1..V5, WithOverlaps), CombinedNonMaxSuppression and
// CropAndResize against TensorFlow 2.21 (tests/generators/kernel_goldens/
// detection.py): the selected indices and their order exactly (ties of equal
// scores, IoU thresholds one float step either side of a pair's IoU), the
// soft-NMS scores, the crops (boxes partly outside the image, flipped, crop
// size 1), and TensorFlow's messages for what it refuses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() +
                                                               "/kernels/detection/detection.rec");
  return *goldens;
}

// Input `key` of case `c`; cases that share an input name the case that
// stored it (<c>.<key>.from).
Tensor In(const std::string& c, const std::string& key) {
  const std::string from = c + "." + key + ".from";
  if (Goldens().Has(from)) return Goldens().Get(Goldens().GetString(from) + "." + key);
  return Goldens().Get(c + "." + key);
}

Tensor ToHalf(const Tensor& f) {
  Tensor h = *Tensor::Create(DataType::kHalf, f.shape());
  for (int64_t i = 0; i < f.num_elements(); ++i) {
    h.data<Eigen::half>()[i] = static_cast<Eigen::half>(f.data<float>()[i]);
  }
  return h;
}

Tensor ToFloat(const Tensor& t) {
  if (t.dtype() == DataType::kFloat) return t;
  Tensor f = *Tensor::Create(DataType::kFloat, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    f.data<float>()[i] = static_cast<float>(t.data<Eigen::half>()[i]);
  }
  return f;
}

// The case names of op `prefix`* in the goldens.
std::vector<std::string> Cases(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& [name, tensor] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op") || absl::StartsWith(name, "message.")) continue;
    if (absl::StartsWith(Goldens().GetString(name), prefix)) {
      out.push_back(name.substr(0, name.size() - 3));
    }
  }
  return out;
}

float MaxAbsDiff(const Tensor& a, const Tensor& b) {
  float m = 0;
  if (a.num_elements() != b.num_elements()) return INFINITY;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const float x = a.data<float>()[i], y = b.data<float>()[i];
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (!std::isnan(x)) m = std::max(m, std::abs(x - y));
  }
  return m;
}

TEST(DetectionOpsTest, NonMaxSuppressionMatchesTensorFlow) {
  int cases = 0, soft = 0;
  float soft_err = 0;
  for (const std::string& c : Cases("NonMaxSuppression")) {
    SCOPED_TRACE(c);
    const std::string op = Goldens().GetString(c + ".op");
    const bool half = Goldens().GetString(c + ".T") == "half";
    auto typed = [&](const Tensor& t) { return half ? ToHalf(t) : t; };
    AttrMap a;
    std::vector<Tensor> in = {typed(In(c, "boxes")), typed(In(c, "scores")),
                              Goldens().Get(c + ".max_output_size")};
    if (op == "NonMaxSuppressionWithOverlaps") in[0] = In(c, "boxes");
    if (op == "NonMaxSuppression") {
      a.Set("iou_threshold", Goldens().Get(c + ".iou_threshold").data<float>()[0]);
    } else {
      in.push_back(typed(Goldens().Get(c + ".iou_threshold")));
      if (Goldens().Has(c + ".score_threshold")) {
        in.push_back(typed(Goldens().Get(c + ".score_threshold")));
      }
      if (Goldens().Has(c + ".soft_nms_sigma")) {
        in.push_back(typed(Goldens().Get(c + ".soft_nms_sigma")));
      }
    }
    if (op != "NonMaxSuppressionWithOverlaps") {
      a.Set("T", half ? DataType::kHalf : DataType::kFloat);
    }
    if (op == "NonMaxSuppressionV2" || op == "NonMaxSuppressionV3" || op == "NonMaxSuppressionV4") {
      a.Set("T_threshold", half ? DataType::kHalf : DataType::kFloat);
    }
    if (Goldens().Has(c + ".pad_to_max_output_size")) {
      a.Set("pad_to_max_output_size", Goldens().Get(c + ".pad_to_max_output_size").data<bool>()[0]);
    }
    absl::StatusOr<std::vector<Tensor>> y = RunOp(op, a, in);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Goldens().Get(c + ".selected_indices"), 0, 0)) << op;
    if (op == "NonMaxSuppressionV4") {
      EXPECT_TRUE(TensorsNear((*y)[1], Goldens().Get(c + ".valid_outputs"), 0, 0));
    }
    if (op == "NonMaxSuppressionV5") {
      EXPECT_EQ((*y)[1].dtype(), half ? DataType::kHalf : DataType::kFloat);
      const Tensor want = Goldens().Get(c + ".selected_scores");
      const Tensor got = ToFloat((*y)[1]);
      const bool decayed = Goldens().Get(c + ".soft_nms_sigma").data<float>()[0] > 0;
      // Hard NMS copies the scores; soft-NMS multiplies them by exp(), in T.
      EXPECT_TRUE(TensorsNear(got, want, 0, decayed && !half ? 1e-6 : 0));
      if (decayed) {
        soft_err = std::max(soft_err, MaxAbsDiff(got, want));
        ++soft;
      }
      EXPECT_TRUE(TensorsNear((*y)[2], Goldens().Get(c + ".valid_outputs"), 0, 0));
    }
    ++cases;
  }
  EXPECT_GE(cases, 300);
  EXPECT_GE(soft, 50);
  std::cout << cases << " NMS cases; soft-NMS scores within " << soft_err << " of TensorFlow's\n";
}

TEST(DetectionOpsTest, CombinedNonMaxSuppressionMatchesTensorFlow) {
  int cases = 0;
  for (const std::string& c : Cases("CombinedNonMaxSuppression")) {
    SCOPED_TRACE(c);
    AttrMap a;
    a.Set("pad_per_class", Goldens().Get(c + ".pad_per_class").data<bool>()[0]);
    a.Set("clip_boxes", Goldens().Get(c + ".clip_boxes").data<bool>()[0]);
    absl::StatusOr<std::vector<Tensor>> y =
        RunOp("CombinedNonMaxSuppression", a,
              {In(c, "boxes"), In(c, "scores"), Goldens().Get(c + ".max_output_size_per_class"),
               Goldens().Get(c + ".max_total_size"), Goldens().Get(c + ".iou_threshold"),
               Goldens().Get(c + ".score_threshold")});
    ASSERT_TRUE(y.ok()) << y.status();
    const char* names[] = {"nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"};
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(TensorsNear((*y)[i], Goldens().Get(c + "." + names[i]), 0, 0)) << names[i];
    }
    ++cases;
  }
  EXPECT_GE(cases, 90);
}

TEST(DetectionOpsTest, CropAndResizeMatchesTensorFlow) {
  int cases = 0;
  float err = 0;
  for (const std::string& c : Cases("CropAndResize")) {
    SCOPED_TRACE(c);
    const std::string t = Goldens().GetString(c + ".T");
    Tensor image = In(c, "image");
    if (t == "half") image = ToHalf(image);
    AttrMap a;
    a.Set("T", image.dtype());
    a.Set("method", Goldens().GetString(c + ".method"));
    a.Set("extrapolation_value", Goldens().Get(c + ".extrapolation_value").data<float>()[0]);
    absl::StatusOr<std::vector<Tensor>> y =
        RunOp("CropAndResize", a,
              {image, In(c, "boxes"), In(c, "box_ind"), Goldens().Get(c + ".crop_size")});
    ASSERT_TRUE(y.ok()) << y.status();
    const Tensor want = Goldens().Get(c + ".crops");
    // Same float arithmetic in the same order: exact.
    EXPECT_TRUE(TensorsNear((*y)[0], want, 0, 0)) << t;
    err = std::max(err, MaxAbsDiff((*y)[0], want));
    ++cases;
  }
  EXPECT_GE(cases, 30);
  std::cout << cases << " CropAndResize cases; crops within " << err << " of TensorFlow's\n";
}

// TensorFlow's message for `key`; smrt's says it, and may say more after it.
void ExpectTfMessage(const absl::StatusOr<std::vector<Tensor>>& r, const std::string& key,
                     absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  SCOPED_TRACE(key);
  ASSERT_FALSE(r.ok());
  const std::string want = Goldens().GetString("message." + key);
  EXPECT_EQ(r.status().code(), code) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), want)) << r.status() << "\nwant: " << want;
}

Tensor Zeros(Shape shape) { return *Tensor::Create(DataType::kFloat, std::move(shape)); }

absl::StatusOr<std::vector<Tensor>> V3(const Tensor& boxes, const Tensor& scores,
                                       const Tensor& max_out, const Tensor& iou,
                                       const Tensor& score) {
  return RunOp("NonMaxSuppressionV3", {}, {boxes, scores, max_out, iou, score});
}

TEST(DetectionOpsTest, NonMaxSuppressionRefusesWhatTensorFlowRefuses) {
  const Tensor b = Zeros({3, 4}), s = Zeros({3}), two = Scalar<int32_t>(2);
  const Tensor half = Scalar<float>(0.5f), zero = Scalar<float>(0.0f);
  ExpectTfMessage(V3(Zeros({3, 4, 1}), s, two, half, zero), "v3_boxes_rank");
  ExpectTfMessage(V3(Zeros({3, 5}), s, two, half, zero), "v3_boxes_cols");
  ExpectTfMessage(V3(b, Zeros({3, 1}), two, half, zero), "v3_scores_rank");
  ExpectTfMessage(V3(b, Zeros({4}), two, half, zero), "v3_scores_size");
  ExpectTfMessage(V3(b, s, two, Scalar<float>(1.5f), zero), "v3_iou_range");
  ExpectTfMessage(V3(b, s, two, Scalar<float>(-0.1f), zero), "v3_iou_negative");
  ExpectTfMessage(V3(b, s, MakeTensor<int32_t>({1}, {2}), half, zero), "v3_max_rank");
  ExpectTfMessage(V3(b, s, Scalar<int32_t>(-1), half, zero), "v3_max_negative");
  ExpectTfMessage(V3(b, s, two, MakeTensor<float>({1}, {0.5f}), zero), "v3_iou_rank");
  ExpectTfMessage(
      RunOp("NonMaxSuppressionV4", {}, {b, s, two, half, MakeTensor<float>({1}, {0.0f})}),
      "v4_score_rank");
  ExpectTfMessage(RunOp("NonMaxSuppressionV5", {}, {b, s, two, half, zero, Scalar<float>(-1.0f)}),
                  "v5_sigma_negative");
  ExpectTfMessage(
      RunOp("NonMaxSuppressionV5", {}, {b, s, two, half, zero, MakeTensor<float>({1}, {1.0f})}),
      "v5_sigma_rank");
  ExpectTfMessage(RunOp("NonMaxSuppressionWithOverlaps", {}, {Zeros({3, 4}), s, two, half, zero}),
                  "overlaps_square");
}

absl::StatusOr<std::vector<Tensor>> Combined(const Tensor& boxes, const Tensor& scores,
                                             int per_class = 2, int total = 4, float iou = 0.5f) {
  return RunOp("CombinedNonMaxSuppression", {},
               {boxes, scores, Scalar<int32_t>(per_class), Scalar<int32_t>(total),
                Scalar<float>(iou), Scalar<float>(0.0f)});
}

TEST(DetectionOpsTest, CombinedNonMaxSuppressionRefusesWhatTensorFlowRefuses) {
  const Tensor b = Zeros({1, 3, 1, 4}), s = Zeros({1, 3, 3});
  ExpectTfMessage(Combined(Zeros({1, 3, 4}), Zeros({1, 3, 2})), "comb_boxes_rank");
  ExpectTfMessage(Combined(Zeros({1, 3, 2, 4}), s), "comb_q");
  ExpectTfMessage(Combined(Zeros({1, 3, 1, 5}), s), "comb_cols");
  ExpectTfMessage(Combined(b, Zeros({1, 4, 3})), "comb_anchors");
  ExpectTfMessage(Combined(Zeros({2, 3, 1, 4}), s), "comb_batch");
  ExpectTfMessage(Combined(b, s, 0), "comb_per_class");
  ExpectTfMessage(Combined(b, s, 2, 0), "comb_total");
  ExpectTfMessage(Combined(b, s, 2, 4, 1.5f), "comb_iou");
  // Scores of rank 2 abort TensorFlow's process; smrt says what it wants.
  absl::StatusOr<std::vector<Tensor>> r = Combined(b, Zeros({1, 3}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(),
                                "scores must be 3-D[1,3] ([batch, num_boxes, num_classes])"))
      << r.status();
}

absl::StatusOr<std::vector<Tensor>> Crop(const Tensor& image, const Tensor& boxes,
                                         const Tensor& box_ind, const Tensor& crop_size) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  return RunOp("CropAndResize", a, {image, boxes, box_ind, crop_size});
}

TEST(DetectionOpsTest, CropAndResizeRefusesWhatTensorFlowRefuses) {
  const Tensor image = Zeros({1, 2, 2, 1}), boxes = Zeros({1, 4});
  const Tensor ind = MakeTensor<int32_t>({1}, {0}), size = MakeTensor<int32_t>({2}, {2, 2});
  ExpectTfMessage(Crop(Zeros({2, 2, 1}), boxes, ind, size), "crop_image_rank");
  ExpectTfMessage(Crop(Zeros({1, 0, 2, 1}), boxes, ind, size), "crop_image_empty");
  ExpectTfMessage(Crop(image, Zeros({4}), ind, size), "crop_boxes_rank");
  ExpectTfMessage(Crop(image, Zeros({1, 3}), ind, size), "crop_boxes_cols");
  ExpectTfMessage(Crop(image, boxes, MakeTensor<int32_t>({1, 1}, {0}), size), "crop_ind_rank");
  ExpectTfMessage(Crop(image, boxes, MakeTensor<int32_t>({2}, {0, 0}), size), "crop_ind_size");
  ExpectTfMessage(Crop(image, boxes, ind, MakeTensor<int32_t>({1, 2}, {2, 2})), "crop_size_rank");
  ExpectTfMessage(Crop(image, boxes, ind, MakeTensor<int32_t>({3}, {2, 2, 2})), "crop_size_len");
  ExpectTfMessage(Crop(image, boxes, ind, MakeTensor<int32_t>({2}, {0, 2})), "crop_size_positive");
  ExpectTfMessage(Crop(image, boxes, MakeTensor<int32_t>({1}, {1}), size), "crop_ind_range",
                  absl::StatusCode::kOutOfRange);
  ExpectTfMessage(Crop(image, MakeTensor<float>({1, 4}, {0, 0, NAN, 1}), ind, size),
                  "crop_not_finite");
}

// What a model's load-time shapes say: the padded NMS outputs have
// max_output_size rows when it is a constant, CombinedNonMaxSuppression's
// rows follow max_total_size (and pad_per_class), crops take crop_size.
TEST(DetectionOpsTest, InfersShapesFromConstantInputs) {
  const Tensor max_out = Scalar<int32_t>(7);
  AttrMap pad;
  pad.Set("pad_to_max_output_size", true);
  const ops::ValueInfo boxes{DataType::kFloat, PartialShape::Known({-1, 4})};
  const ops::ValueInfo scores{DataType::kFloat, PartialShape::Known({-1})};
  const ops::ValueInfo scalar_i{DataType::kInt32, PartialShape::Known({})};
  const ops::ValueInfo scalar_f{DataType::kFloat, PartialShape::Known({})};
  absl::StatusOr<std::vector<ops::ValueInfo>> v5 =
      InferOp("NonMaxSuppressionV5", pad, {boxes, scores, scalar_i, scalar_f, scalar_f, scalar_f},
              {nullptr, nullptr, &max_out});
  ASSERT_TRUE(v5.ok()) << v5.status();
  ASSERT_EQ(v5->size(), 3u);
  EXPECT_EQ((*v5)[0].shape, PartialShape::Known({7}));
  EXPECT_EQ((*v5)[1].shape, PartialShape::Known({7}));
  EXPECT_EQ((*v5)[1].dtype, DataType::kFloat);
  EXPECT_EQ((*v5)[2].shape, PartialShape::Known({}));
  absl::StatusOr<std::vector<ops::ValueInfo>> v4 =
      InferOp("NonMaxSuppressionV4", {}, {boxes, scores, scalar_i, scalar_f, scalar_f},
              {nullptr, nullptr, &max_out});
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_EQ((*v4)[0].shape, PartialShape::Known({-1}));

  const Tensor per_class = Scalar<int32_t>(2), total = Scalar<int32_t>(10);
  const ops::ValueInfo cboxes{DataType::kFloat, PartialShape::Known({3, -1, 1, 4})};
  const ops::ValueInfo cscores{DataType::kFloat, PartialShape::Known({-1, -1, 4})};
  for (bool pad_per_class : {false, true}) {
    AttrMap a;
    a.Set("pad_per_class", pad_per_class);
    absl::StatusOr<std::vector<ops::ValueInfo>> c = InferOp(
        "CombinedNonMaxSuppression", a, {cboxes, cscores, scalar_i, scalar_i, scalar_f, scalar_f},
        {nullptr, nullptr, &per_class, &total});
    ASSERT_TRUE(c.ok()) << c.status();
    const int64_t rows = pad_per_class ? 8 : 10;  // min(10, 2 * 4 classes)
    EXPECT_EQ((*c)[0].shape, PartialShape::Known({3, rows, 4}));
    EXPECT_EQ((*c)[2].shape, PartialShape::Known({3, rows}));
    EXPECT_EQ((*c)[3].shape, PartialShape::Known({3}));
    EXPECT_EQ((*c)[3].dtype, DataType::kInt32);
  }

  const Tensor crop_size = MakeTensor<int32_t>({2}, {5, 6});
  AttrMap a;
  a.Set("T", DataType::kUInt8);
  absl::StatusOr<std::vector<ops::ValueInfo>> crop =
      InferOp("CropAndResize", a,
              {{DataType::kUInt8, PartialShape::Known({-1, -1, -1, 3})},
               {DataType::kFloat, PartialShape::Known({-1, 4})},
               {DataType::kInt32, PartialShape::Known({9})},
               {DataType::kInt32, PartialShape::Known({2})}},
              {nullptr, nullptr, nullptr, &crop_size});
  ASSERT_TRUE(crop.ok()) << crop.status();
  EXPECT_EQ((*crop)[0].dtype, DataType::kFloat);
  EXPECT_EQ((*crop)[0].shape, PartialShape::Known({9, 5, 6, 3}));
}

}  // namespace
}  // namespace smrt::kernels
