// NonMaxSuppression (V1..V5, WithOverlaps), CombinedNonMaxSuppression and
// CropAndResize, as TensorFlow's CPU kernels
// (core/kernels/image/non_max_suppression_op.cc, crop_and_resize_op.cc).
//
// Which boxes NMS keeps, and in which order, must be TensorFlow's exactly, so
// the arithmetic and the data structures are its own: IoU in float in its
// order of operations (a box at the threshold is kept or dropped alike),
// scores compared in T (float or half, so half ties are its ties), the same
// std::priority_queue over the same comparators (ties between equal scores
// go by box index in V1..V5; in CombinedNonMaxSuppression by the heap's
// order, and the final std::sort is over the same array of candidates), and
// soft-NMS's Gaussian decay exp(-0.5 / sigma * iou^2) in T.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "ops/detection_shapes.h"

namespace smrt::kernels {
namespace {

PartialShape Known(const Tensor& t) { return PartialShape::Known(t.shape()); }

// A scalar float or half input as T (TensorFlow's GetScalar: a half
// threshold for float boxes widens exactly; a float one for half boxes
// rounds to half).
template <typename T>
absl::StatusOr<T> ThresholdScalar(const Tensor& t, absl::string_view name) {
  switch (t.dtype()) {
    case DataType::kFloat:
      return static_cast<T>(t.data<float>()[0]);
    case DataType::kHalf:
      return static_cast<T>(t.data<Eigen::half>()[0]);
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be float32 or float16, got ", DataTypeName(t.dtype())));
}

absl::StatusOr<int> Int32Scalar(const Tensor& t, absl::string_view name) {
  if (t.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be int32, got ", DataTypeName(t.dtype())));
  }
  return t.data<int32_t>()[0];
}

// Scalar checks for inputs first.. named `names`.
absl::Status CheckScalars(const KernelContext& ctx, int first,
                          const std::vector<const char*>& names) {
  for (size_t k = 0; k < names.size(); ++k) {
    const absl::Status s =
        ops::CheckDetectionScalar(names[k], Known(ctx.input(first + static_cast<int>(k))));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// ----- NonMaxSuppression V1..V5 and WithOverlaps

// TensorFlow's IOU: corners in either order, in float.
template <typename T>
float Iou(const T* boxes, int i, int j) {
  const T* a = boxes + static_cast<int64_t>(i) * 4;
  const T* b = boxes + static_cast<int64_t>(j) * 4;
  const float ymin_i = std::min(static_cast<float>(a[0]), static_cast<float>(a[2]));
  const float xmin_i = std::min(static_cast<float>(a[1]), static_cast<float>(a[3]));
  const float ymax_i = std::max(static_cast<float>(a[0]), static_cast<float>(a[2]));
  const float xmax_i = std::max(static_cast<float>(a[1]), static_cast<float>(a[3]));
  const float ymin_j = std::min(static_cast<float>(b[0]), static_cast<float>(b[2]));
  const float xmin_j = std::min(static_cast<float>(b[1]), static_cast<float>(b[3]));
  const float ymax_j = std::max(static_cast<float>(b[0]), static_cast<float>(b[2]));
  const float xmax_j = std::max(static_cast<float>(b[1]), static_cast<float>(b[3]));
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  const float intersection_ymin = std::max(ymin_i, ymin_j);
  const float intersection_xmin = std::max(xmin_i, xmin_j);
  const float intersection_ymax = std::min(ymax_i, ymax_j);
  const float intersection_xmax = std::min(xmax_i, xmax_j);
  const float intersection_area = std::max(intersection_ymax - intersection_ymin, 0.0f) *
                                  std::max(intersection_xmax - intersection_xmin, 0.0f);
  return intersection_area / (area_i + area_j - intersection_area);
}

template <typename T>
struct NmsResult {
  std::vector<int> selected;
  std::vector<T> selected_scores;
  int num_valid = 0;
};

// TensorFlow's DoNonMaxSuppressionOp.
template <typename T>
absl::StatusOr<NmsResult<T>> DoNms(const T* scores, int num_boxes, int output_size,
                                   T similarity_threshold, T score_threshold, T soft_nms_sigma,
                                   const std::function<float(int, int)>& similarity_fn,
                                   bool pad_to_max_output_size) {
  if (output_size < 0) return absl::InvalidArgumentError("output size must be non-negative");
  struct Candidate {
    int box_index;
    T score;
    int suppress_begin_index;
  };
  auto cmp = [](const Candidate bs_i, const Candidate bs_j) {
    return ((bs_i.score == bs_j.score) && (bs_i.box_index > bs_j.box_index)) ||
           bs_i.score < bs_j.score;
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(cmp)> queue(cmp);
  for (int i = 0; i < num_boxes; ++i) {
    if (scores[i] > score_threshold) queue.emplace(Candidate({i, scores[i], 0}));
  }
  T scale = static_cast<T>(0.0);
  const bool is_soft_nms = soft_nms_sigma > static_cast<T>(0.0);
  if (is_soft_nms) scale = static_cast<T>(-0.5) / soft_nms_sigma;
  auto suppress_weight = [similarity_threshold, scale, is_soft_nms](const T sim) {
    const T weight = Eigen::numext::exp<T>(scale * sim * sim);
    return is_soft_nms || sim <= similarity_threshold ? weight : static_cast<T>(0.0);
  };

  NmsResult<T> r;
  while (r.selected.size() < static_cast<size_t>(output_size) && !queue.empty()) {
    Candidate next = queue.top();
    const T original_score = next.score;
    queue.pop();
    // Against the boxes selected since this candidate was last compared,
    // newest first (a candidate is suppressed by each box at most once).
    bool should_hard_suppress = false;
    for (int j = static_cast<int>(r.selected.size()) - 1; j >= next.suppress_begin_index; --j) {
      const float similarity = similarity_fn(next.box_index, r.selected[j]);
      next.score *= suppress_weight(static_cast<T>(similarity));
      if (!is_soft_nms && static_cast<T>(similarity) > similarity_threshold) {
        should_hard_suppress = true;
        break;
      }
      if (next.score <= score_threshold) break;
    }
    next.suppress_begin_index = static_cast<int>(r.selected.size());
    if (!should_hard_suppress) {
      if (next.score == original_score) {
        r.selected.push_back(next.box_index);
        r.selected_scores.push_back(next.score);
        continue;
      }
      // Decayed but still above the threshold: back in the queue.
      if (next.score > score_threshold) queue.push(next);
    }
  }
  r.num_valid = static_cast<int>(r.selected.size());
  if (pad_to_max_output_size) {
    r.selected.resize(static_cast<size_t>(output_size), 0);
    r.selected_scores.resize(static_cast<size_t>(output_size), static_cast<T>(0));
  }
  return r;
}

// Which NMS op, and so which inputs and outputs it has.
enum class NmsVersion { kV1, kV2, kV3, kV4, kV5, kOverlaps };

template <typename T>
absl::Status ComputeNmsTyped(KernelContext& ctx, NmsVersion v) {
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  std::vector<const char*> names = {"max_output_size"};
  if (v == NmsVersion::kOverlaps) {
    names.insert(names.end(), {"overlap_threshold", "score_threshold"});
  } else if (v != NmsVersion::kV1) {
    names.push_back("iou_threshold");
    if (v != NmsVersion::kV2) names.push_back("score_threshold");
    if (v == NmsVersion::kV5) names.push_back("soft_nms_sigma");
  }
  if (absl::Status s = CheckScalars(ctx, 2, names); !s.ok()) return s;
  absl::StatusOr<int> output_size = Int32Scalar(ctx.input(2), "max_output_size");
  if (!output_size.ok()) return output_size.status();

  T iou_threshold = static_cast<T>(0.0f);
  if (v == NmsVersion::kV1) {
    absl::StatusOr<float> t = ctx.attrs().GetOr<float>("iou_threshold", 0.5f);
    if (!t.ok()) return t.status();
    iou_threshold = static_cast<T>(*t);
  } else {
    absl::StatusOr<T> t = ThresholdScalar<T>(ctx.input(3), names[1]);
    if (!t.ok()) return t.status();
    iou_threshold = *t;
  }
  // WithOverlaps takes any overlap threshold.
  if (v != NmsVersion::kOverlaps &&
      !(iou_threshold >= static_cast<T>(0.0f) && iou_threshold <= static_cast<T>(1.0f))) {
    return absl::InvalidArgumentError("iou_threshold must be in [0, 1]");
  }
  T score_threshold = std::numeric_limits<T>::lowest();
  if (v != NmsVersion::kV1 && v != NmsVersion::kV2) {
    absl::StatusOr<T> t = ThresholdScalar<T>(ctx.input(4), "score_threshold");
    if (!t.ok()) return t.status();
    score_threshold = *t;
  }
  T sigma = static_cast<T>(0.0f);
  if (v == NmsVersion::kV5) {
    absl::StatusOr<T> t = ThresholdScalar<T>(ctx.input(5), "soft_nms_sigma");
    if (!t.ok()) return t.status();
    sigma = *t;
    if (!(sigma >= static_cast<T>(0.0f))) {
      return absl::InvalidArgumentError("soft_nms_sigma_val must be >= 0");
    }
  }
  if (absl::Status s = v == NmsVersion::kOverlaps
                           ? ops::CheckNmsOverlapsAndScores(Known(boxes), Known(scores))
                           : ops::CheckNmsBoxesAndScores(Known(boxes), Known(scores));
      !s.ok()) {
    return s;
  }
  const int num_boxes = static_cast<int>(boxes.shape()[0]);
  std::function<float(int, int)> similarity;
  if (v == NmsVersion::kOverlaps) {
    const float* overlaps = boxes.data<float>();
    similarity = [overlaps, num_boxes](int i, int j) {
      return overlaps[static_cast<int64_t>(i) * num_boxes + j];
    };
  } else {
    const T* b = boxes.data<T>();
    similarity = [b](int i, int j) { return Iou<T>(b, i, j); };
  }
  absl::StatusOr<bool> pad = ctx.attrs().GetOr<bool>("pad_to_max_output_size", false);
  if (!pad.ok()) return pad.status();
  absl::StatusOr<NmsResult<T>> r =
      DoNms<T>(scores.data<T>(), num_boxes, *output_size, iou_threshold, score_threshold, sigma,
               similarity, (v == NmsVersion::kV4 || v == NmsVersion::kV5) && *pad);
  if (!r.ok()) return r.status();

  const int64_t n = static_cast<int64_t>(r->selected.size());
  absl::StatusOr<Tensor*> indices = ctx.allocate_output(0, DataType::kInt32, {n});
  if (!indices.ok()) return indices.status();
  std::copy(r->selected.begin(), r->selected.end(), (*indices)->data<int32_t>());
  int valid_output = 1;
  if (v == NmsVersion::kV5) {
    absl::StatusOr<Tensor*> out_scores = ctx.allocate_output(1, scores.dtype(), {n});
    if (!out_scores.ok()) return out_scores.status();
    std::copy(r->selected_scores.begin(), r->selected_scores.end(), (*out_scores)->data<T>());
    valid_output = 2;
  }
  if (v == NmsVersion::kV4 || v == NmsVersion::kV5) {
    absl::StatusOr<Tensor*> valid = ctx.allocate_output(valid_output, DataType::kInt32, {});
    if (!valid.ok()) return valid.status();
    (*valid)->data<int32_t>()[0] = r->num_valid;
  }
  return absl::OkStatus();
}

ComputeFn Nms(NmsVersion v) {
  return [v](KernelContext& ctx) -> absl::Status {
    const DataType t = ctx.input(0).dtype();
    if (ctx.input(1).dtype() != t) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.op(), ": boxes and scores must have the same dtype, got ",
                       DataTypeName(t), " and ", DataTypeName(ctx.input(1).dtype())));
    }
    if (t == DataType::kFloat) return ComputeNmsTyped<float>(ctx, v);
    if (t == DataType::kHalf && v != NmsVersion::kV1 && v != NmsVersion::kOverlaps) {
      return ComputeNmsTyped<Eigen::half>(ctx, v);
    }
    return absl::UnimplementedError(
        absl::StrCat(ctx.op(), " does not support boxes of type ", DataTypeName(t)));
  };
}

// ----- CombinedNonMaxSuppression

struct ResultCandidate {
  int box_index;
  float score;
  int class_idx;
  float box_coord[4];
};

// TensorFlow's DoNMSPerClass: class `class_idx` of one batch element into
// its slots of `result` (size_per_class of them per class, best first).
void NmsPerClass(int class_idx, const float* boxes, const float* scores, int num_boxes, int q,
                 int num_classes, int size_per_class, float score_threshold, float iou_threshold,
                 std::vector<ResultCandidate>& result) {
  struct Candidate {
    int box_index;
    float score;
  };
  // Equal scores leave the heap in std::priority_queue's own order, as in
  // TensorFlow (which builds the same queue).
  auto cmp = [](const Candidate bs_i, const Candidate bs_j) { return bs_i.score < bs_j.score; };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(cmp)> queue(cmp);
  for (int i = 0; i < num_boxes; ++i) {
    const float s = scores[static_cast<int64_t>(i) * num_classes + class_idx];
    if (s > score_threshold) queue.emplace(Candidate({i, s}));
  }
  std::vector<int> selected;
  const int class_box_idx = q > 1 ? class_idx : 0;
  while (selected.size() < static_cast<size_t>(size_per_class) && !queue.empty()) {
    const Candidate next = queue.top();
    queue.pop();
    const int candidate_box = next.box_index * q + class_box_idx;
    bool should_select = true;
    for (int j = static_cast<int>(selected.size()) - 1; j >= 0; --j) {
      if (Iou<float>(boxes, candidate_box, selected[j] * q + class_box_idx) > iou_threshold) {
        should_select = false;
        break;
      }
    }
    if (should_select) {
      const float* b = boxes + static_cast<int64_t>(candidate_box) * 4;
      result[selected.size() + static_cast<size_t>(size_per_class) * class_idx] = {
          next.box_index, next.score, class_idx, {b[0], b[1], b[2], b[3]}};
      selected.push_back(next.box_index);
    }
  }
}

absl::Status ComputeCombinedNms(KernelContext& ctx) {
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (boxes.dtype() != DataType::kFloat || scores.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError("CombinedNonMaxSuppression takes float32 boxes and scores");
  }
  if (absl::Status s = ops::CheckCombinedNmsShapes(Known(boxes), Known(scores)); !s.ok()) return s;
  if (absl::Status s = CheckScalars(ctx, 2, {"max_size_per_class", "max_total_size"}); !s.ok()) {
    return s;
  }
  absl::StatusOr<int> max_size_per_class = Int32Scalar(ctx.input(2), "max_size_per_class");
  if (!max_size_per_class.ok()) return max_size_per_class.status();
  if (*max_size_per_class <= 0) {
    return absl::InvalidArgumentError("max_size_per_class must be positive");
  }
  absl::StatusOr<int> max_total_size = Int32Scalar(ctx.input(3), "max_total_size");
  if (!max_total_size.ok()) return max_total_size.status();
  if (*max_total_size <= 0) return absl::InvalidArgumentError("max_total_size must be > 0");
  if (absl::Status s = CheckScalars(ctx, 4, {"iou_threshold", "score_threshold"}); !s.ok()) {
    return s;
  }
  absl::StatusOr<float> iou_threshold = ThresholdScalar<float>(ctx.input(4), "iou_threshold");
  if (!iou_threshold.ok()) return iou_threshold.status();
  absl::StatusOr<float> score_threshold = ThresholdScalar<float>(ctx.input(5), "score_threshold");
  if (!score_threshold.ok()) return score_threshold.status();
  if (!(*iou_threshold >= 0 && *iou_threshold <= 1)) {
    return absl::InvalidArgumentError("iou_threshold must be in [0, 1]");
  }
  absl::StatusOr<bool> pad_per_class = ctx.attrs().GetOr<bool>("pad_per_class", false);
  if (!pad_per_class.ok()) return pad_per_class.status();
  absl::StatusOr<bool> clip_boxes = ctx.attrs().GetOr<bool>("clip_boxes", true);
  if (!clip_boxes.ok()) return clip_boxes.status();

  const int num_batches = static_cast<int>(boxes.shape()[0]);
  const int num_boxes = static_cast<int>(boxes.shape()[1]);
  const int q = static_cast<int>(boxes.shape()[2]);
  const int num_classes = static_cast<int>(scores.shape()[2]);
  const int size_per_class = std::min(*max_size_per_class, num_boxes);
  const int64_t candidates = static_cast<int64_t>(size_per_class) * num_classes;
  if (candidates > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError("size_per_class * num_classes causes overflow");
  }
  // Every batch element's output is padded to per_batch_size.
  const int max_total = static_cast<int>(std::min<int64_t>(
      std::numeric_limits<int>::max(), static_cast<int64_t>(*max_size_per_class) * num_classes));
  const int per_batch_size =
      *pad_per_class ? std::min(*max_total_size, max_total) : *max_total_size;

  const int64_t b = num_batches, p = per_batch_size;
  absl::StatusOr<Tensor*> out_boxes = ctx.allocate_output(0, DataType::kFloat, {b, p, 4});
  if (!out_boxes.ok()) return out_boxes.status();
  absl::StatusOr<Tensor*> out_scores = ctx.allocate_output(1, DataType::kFloat, {b, p});
  if (!out_scores.ok()) return out_scores.status();
  absl::StatusOr<Tensor*> out_classes = ctx.allocate_output(2, DataType::kFloat, {b, p});
  if (!out_classes.ok()) return out_classes.status();
  absl::StatusOr<Tensor*> out_valid = ctx.allocate_output(3, DataType::kInt32, {b});
  if (!out_valid.ok()) return out_valid.status();

  const int64_t boxes_per_batch = static_cast<int64_t>(num_boxes) * q * 4;
  const int64_t scores_per_batch = static_cast<int64_t>(num_boxes) * num_classes;
  for (int batch = 0; batch < num_batches; ++batch) {
    std::vector<ResultCandidate> result(
        static_cast<size_t>(candidates),
        {-1, -std::numeric_limits<float>::infinity(), -1, {0.0f, 0.0f, 0.0f, 0.0f}});
    for (int c = 0; c < num_classes; ++c) {
      NmsPerClass(c, boxes.data<float>() + boxes_per_batch * batch,
                  scores.data<float>() + scores_per_batch * batch, num_boxes, q, num_classes,
                  size_per_class, *score_threshold, *iou_threshold, result);
    }
    // TensorFlow's SelectResultPerBatch: the same (unstable) sort of the same
    // array, so equal scores across classes come out in its order.
    std::sort(result.begin(), result.end(),
              [](const ResultCandidate rc_i, const ResultCandidate rc_j) {
                return rc_j.score < rc_i.score;
              });
    const int found = static_cast<int>(std::count_if(
        result.begin(), result.end(), [](const ResultCandidate& rc) { return rc.box_index > -1; }));
    const int detections = std::min(found, *pad_per_class ? per_batch_size : *max_total_size);
    (*out_valid)->data<int32_t>()[batch] = detections;
    // Outputs past `detections` stay zero (allocate_output zero-fills).
    float* ob = (*out_boxes)->data<float>() + static_cast<int64_t>(batch) * p * 4;
    float* os = (*out_scores)->data<float>() + static_cast<int64_t>(batch) * p;
    float* oc = (*out_classes)->data<float>() + static_cast<int64_t>(batch) * p;
    for (int k = 0; k < detections && k < per_batch_size; ++k) {
      const ResultCandidate& rc = result[k];
      for (int d = 0; d < 4; ++d) {
        ob[k * 4 + d] =
            *clip_boxes ? std::max(std::min(rc.box_coord[d], 1.0f), 0.0f) : rc.box_coord[d];
      }
      os[k] = rc.score;
      oc[k] = static_cast<float>(rc.class_idx);
    }
  }
  return absl::OkStatus();
}

// ----- CropAndResize

// TensorFlow's CropAndResize<CPUDevice, T> for one box, in its arithmetic:
// the source row and column in float (the centre, for a crop size of 1, in
// double), a sample outside [0, size - 1] gets extrapolation_value.
template <typename T>
void CropOneBox(const T* image, int image_height, int image_width, int depth, const float* box,
                int crop_height, int crop_width, bool bilinear, float extrapolation_value,
                float* crops) {
  const float y1 = box[0], x1 = box[1], y2 = box[2], x2 = box[3];
  const float height_scale =
      (crop_height > 1) ? (y2 - y1) * (image_height - 1) / (crop_height - 1) : 0;
  const float width_scale = (crop_width > 1) ? (x2 - x1) * (image_width - 1) / (crop_width - 1) : 0;
  auto at = [&](int y, int x, int d) {
    return static_cast<float>(image[(static_cast<int64_t>(y) * image_width + x) * depth + d]);
  };
  for (int y = 0; y < crop_height; ++y) {
    float* row = crops + static_cast<int64_t>(y) * crop_width * depth;
    const float in_y = (crop_height > 1) ? y1 * (image_height - 1) + y * height_scale
                                         : 0.5 * (y1 + y2) * (image_height - 1);
    if (in_y < 0 || in_y > image_height - 1) {
      std::fill(row, row + static_cast<int64_t>(crop_width) * depth, extrapolation_value);
      continue;
    }
    for (int x = 0; x < crop_width; ++x) {
      float* out = row + static_cast<int64_t>(x) * depth;
      const float in_x = (crop_width > 1) ? x1 * (image_width - 1) + x * width_scale
                                          : 0.5 * (x1 + x2) * (image_width - 1);
      if (in_x < 0 || in_x > image_width - 1) {
        std::fill(out, out + depth, extrapolation_value);
        continue;
      }
      if (bilinear) {
        const int top_y_index = static_cast<int>(std::floor(in_y));
        const int bottom_y_index = static_cast<int>(std::ceil(in_y));
        const float y_lerp = in_y - top_y_index;
        const int left_x_index = static_cast<int>(std::floor(in_x));
        const int right_x_index = static_cast<int>(std::ceil(in_x));
        const float x_lerp = in_x - left_x_index;
        for (int d = 0; d < depth; ++d) {
          const float top_left = at(top_y_index, left_x_index, d);
          const float top_right = at(top_y_index, right_x_index, d);
          const float bottom_left = at(bottom_y_index, left_x_index, d);
          const float bottom_right = at(bottom_y_index, right_x_index, d);
          const float top = top_left + (top_right - top_left) * x_lerp;
          const float bottom = bottom_left + (bottom_right - bottom_left) * x_lerp;
          out[d] = top + (bottom - top) * y_lerp;
        }
      } else {
        const int closest_x_index = static_cast<int>(std::round(in_x));
        const int closest_y_index = static_cast<int>(std::round(in_y));
        for (int d = 0; d < depth; ++d) out[d] = at(closest_y_index, closest_x_index, d);
      }
    }
  }
}

absl::Status ComputeCropAndResize(KernelContext& ctx) {
  const Tensor& image = ctx.input(0);
  const Tensor& boxes = ctx.input(1);
  const Tensor& box_ind = ctx.input(2);
  const Tensor& crop_size = ctx.input(3);
  absl::StatusOr<std::string> method = ctx.attrs().GetOr<std::string>("method", "bilinear");
  if (!method.ok()) return method.status();
  if (*method != "bilinear" && *method != "nearest") {
    return absl::InvalidArgumentError(
        absl::StrCat("method must be 'bilinear' or 'nearest'", *method));
  }
  absl::StatusOr<float> extrapolation_value = ctx.attrs().GetOr<float>("extrapolation_value", 0);
  if (!extrapolation_value.ok()) return extrapolation_value.status();
  if (boxes.dtype() != DataType::kFloat || box_ind.dtype() != DataType::kInt32 ||
      crop_size.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        "CropAndResize takes float32 boxes, int32 box_ind and int32 crop_size");
  }
  if (absl::Status s = ops::CheckCropAndResizeShapes(Known(image), Known(boxes), Known(box_ind),
                                                     Known(crop_size));
      !s.ok()) {
    return s;
  }
  const int batch_size = static_cast<int>(image.shape()[0]);
  const int image_height = static_cast<int>(image.shape()[1]);
  const int image_width = static_cast<int>(image.shape()[2]);
  const int depth = static_cast<int>(image.shape()[3]);
  const int num_boxes = boxes.num_elements() == 0 && box_ind.num_elements() == 0
                            ? 0
                            : static_cast<int>(boxes.shape()[0]);
  const int crop_height = crop_size.data<int32_t>()[0];
  const int crop_width = crop_size.data<int32_t>()[1];
  if (crop_height <= 0 || crop_width <= 0) {
    return absl::InvalidArgumentError("crop dimensions must be positive");
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(
      0, DataType::kFloat, {num_boxes, crop_height, crop_width, depth});
  if (!out.ok()) return out.status();
  const int32_t* ind = box_ind.data<int32_t>();
  for (int b = 0; b < num_boxes; ++b) {
    if (ind[b] < 0 || ind[b] >= batch_size) {
      return absl::OutOfRangeError("box_index has values outside [0, batch_size)");
    }
  }
  const float* box = boxes.data<float>();
  for (int64_t i = 0; i < static_cast<int64_t>(num_boxes) * 4; ++i) {
    if (!std::isfinite(box[i])) {
      return absl::InvalidArgumentError("Boxes contains at least one element that is not finite");
    }
  }
  const int64_t crop_elements = static_cast<int64_t>(crop_height) * crop_width * depth;
  const int64_t image_elements = static_cast<int64_t>(image_height) * image_width * depth;
  const bool bilinear = *method == "bilinear";
  return misc::VisitRealType(image.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int b = 0; b < num_boxes; ++b) {
      CropOneBox<T>(image.data<T>() + ind[b] * image_elements, image_height, image_width, depth,
                    box + static_cast<int64_t>(b) * 4, crop_height, crop_width, bilinear,
                    *extrapolation_value, (*out)->data<float>() + b * crop_elements);
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterDetectionOps(KernelRegistry& r) {
  const std::vector<DataType> nms_types = {DataType::kFloat, DataType::kHalf};
  r.AddKernel({"NonMaxSuppression", kCpu, "", {}, Nms(NmsVersion::kV1)});
  r.AddKernel({"NonMaxSuppressionV2", kCpu, "T", nms_types, Nms(NmsVersion::kV2)});
  r.AddKernel({"NonMaxSuppressionV3", kCpu, "T", nms_types, Nms(NmsVersion::kV3)});
  r.AddKernel({"NonMaxSuppressionV4", kCpu, "T", nms_types, Nms(NmsVersion::kV4)});
  r.AddKernel({"NonMaxSuppressionV5", kCpu, "T", nms_types, Nms(NmsVersion::kV5)});
  r.AddKernel({"NonMaxSuppressionWithOverlaps", kCpu, "", {}, Nms(NmsVersion::kOverlaps)});
  r.AddKernel({"CombinedNonMaxSuppression", kCpu, "", {}, ComputeCombinedNms});
  // TensorFlow's CPU kernels: its real number types that the op allows.
  r.AddKernel(
      {"CropAndResize",
       kCpu,
       "T",
       {DataType::kUInt8, DataType::kUInt16, DataType::kInt8, DataType::kInt16, DataType::kInt32,
        DataType::kInt64, DataType::kHalf, DataType::kFloat, DataType::kDouble},
       ComputeCropAndResize});
}

}  // namespace smrt::kernels
