// _SmrtAttention: softmax(scale * Q Kᵀ, masked) V per batch and head, read
// from and written to the [batch, seq, heads, depth] layout of the
// projections around it, so that the four transposes, the batched matmuls,
// the mask selects and the softmax of a multi-head attention block become one
// op (fuse_attention makes it; ops/fused_ops.h states its contract).
//
// Per (batch, head) the scores are one GEMM into a per-thread scratch block,
// each row is scaled, masked and softmaxed in the unfused ops' order, and the
// context is a second GEMM written straight into the output's strided rows.
// The softmax is the backend's (attention.h): the reference kernel's
// (kernels/cpu/reference/attention_ops.cc), or oneDNN's
// (kernels/cpu/onednn/attention.cc).
#include "kernels/cpu/attention.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/shared/kernel_util.h"
#include "ops/attention_attrs.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {

using ops::AttentionAttrs;
using ops::ReadAttentionAttrs;

namespace {

// Strides of a mask of rank <= 4 broadcast against [batch, heads, query, key]
// (right-aligned, a dim of 1 repeats); InvalidArgument when it does not
// broadcast.
absl::StatusOr<std::vector<int64_t>> MaskStrides(const Tensor& mask, const Shape& scores) {
  if (mask.rank() > 4) {
    return absl::InvalidArgumentError(absl::StrCat("the mask must broadcast against the scores ",
                                                   ShapeToString(scores), ", got ",
                                                   ShapeToString(mask.shape())));
  }
  std::vector<int64_t> strides(4, 0);
  int64_t stride = 1;
  for (int d = 3, m = mask.rank() - 1; m >= 0; --d, --m) {
    const int64_t size = mask.dim(m);
    if (size != 1 && size != scores[d]) {
      return absl::InvalidArgumentError(absl::StrCat("the mask must broadcast against the scores ",
                                                     ShapeToString(scores), ", got ",
                                                     ShapeToString(mask.shape())));
    }
    strides[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  return strides;
}

// row[j] = fill where mask[j * stride] is false, for j in [0, n): a select
// the compiler vectorizes for a contiguous mask row (Keras's [batch, query,
// key] masks vary along the query: one row per score row). gcc vectorizes
// it only over bytes, not bools, and with the row element read
// unconditionally.
SMRT_TARGET_CLONES
void FillMasked(const bool* mask, int64_t stride, int64_t n, float fill, float* row) {
  const auto* m = reinterpret_cast<const uint8_t*>(mask);
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) {
      const float r = row[j];
      row[j] = m[j] ? r : fill;
    }
  } else if (stride == 0) {
    if (!m[0]) std::fill_n(row, n, fill);
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const float r = row[j];
      row[j] = m[j * stride] ? r : fill;
    }
  }
}

}  // namespace

absl::Status ComputeAttention(KernelContext& ctx, SoftmaxRowsFn softmax,
                              const AttentionGemms* gemms) {
  absl::StatusOr<AttentionAttrs> attrs = ReadAttentionAttrs(ctx.attrs(), ctx.num_inputs());
  if (!attrs.ok()) return attrs.status();
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  const DataType type = q.dtype();
  for (const Tensor* t : {&q, &k, &v}) {
    if (t->dtype() != type || (type != DataType::kFloat && gemms == nullptr) || t->rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query, key and value must be ", gemms == nullptr ? "float32" : "of one float type",
          " [batch, seq, heads, depth], got ", DataTypeName(t->dtype()), " ",
          ShapeToString(t->shape())));
    }
  }
  const int64_t batch = q.dim(0), tq = q.dim(1), heads = q.dim(2), depth = q.dim(3);
  const int64_t ts = k.dim(1), dv = v.dim(3);
  if (k.dim(0) != batch || v.dim(0) != batch || k.dim(2) != heads || v.dim(2) != heads ||
      k.dim(3) != depth || v.dim(1) != ts) {
    return absl::InvalidArgumentError(absl::StrCat(
        "query ", ShapeToString(q.shape()), ", key ", ShapeToString(k.shape()), " and value ",
        ShapeToString(v.shape()),
        " do not match: batch and heads must agree, key and query share depth, key and "
        "value share length"));
  }
  const Shape scores_shape = {batch, heads, tq, ts};
  const float* mask_f = nullptr;
  const bool* mask_b = nullptr;
  std::vector<int64_t> ms(4, 0);
  if (attrs->mask != "none") {
    const Tensor& mask = ctx.input(3);
    const DataType want = attrs->mask == "select" ? DataType::kBool : DataType::kFloat;
    if (mask.dtype() != want) {
      return absl::InvalidArgumentError(absl::StrCat("a \"", attrs->mask, "\" mask must be ",
                                                     DataTypeName(want), ", got ",
                                                     DataTypeName(mask.dtype())));
    }
    absl::StatusOr<std::vector<int64_t>> strides = MaskStrides(mask, scores_shape);
    if (!strides.ok()) return strides.status();
    ms = *strides;
    if (want == DataType::kBool) {
      mask_b = mask.data<bool>();
    } else {
      mask_f = mask.data<float>();
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, type, {batch, tq, heads, dv});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  if (ts == 0) {  // no keys: the context is an empty sum, as the batched matmul gives
    std::memset((*out)->raw_data(), 0, (*out)->byte_size());  // +0.0 in float and bfloat16
    return absl::OkStatus();
  }
  const AttentionAttrs& a = *attrs;
  // Scales, masks and softmaxes the [query, key] scores of (batch b, head h)
  // in place, in the unfused ops' order.
  auto probabilities = [&](int64_t b, int64_t h, float* s) {
    auto fill_masked = [&](int64_t t, float* row, float fill) {
      FillMasked(mask_b + b * ms[0] + h * ms[1] + t * ms[2], ms[3], ts, fill, row);
    };
    for (int64_t t = 0; t < tq; ++t) {
      float* row = s + t * ts;
      if (a.scale != 1.0f) {
        for (int64_t j = 0; j < ts; ++j) row[j] *= a.scale;
      }
      if (mask_b != nullptr) {
        fill_masked(t, row, a.mask_fill);
      } else if (mask_f != nullptr) {
        const float* m = mask_f + b * ms[0] + h * ms[1] + t * ms[2];
        if (ms[3] == 1) {
          for (int64_t j = 0; j < ts; ++j) row[j] += m[j];
        } else {
          for (int64_t j = 0; j < ts; ++j) row[j] += m[j * ms[3]];
        }
      }
    }
    softmax(s, tq, ts);
    if (mask_b != nullptr && a.fill_masked_probs) {
      for (int64_t t = 0; t < tq; ++t) fill_masked(t, s + t * ts, a.probs_fill);
    }
  };
  if (gemms != nullptr) {
    // A batch element at a time: the backend's products over all heads at
    // once (each spread over the threads), the rows in between by head.
    std::vector<float> scores(static_cast<size_t>(heads * tq * ts));
    for (int64_t b = 0; b < batch; ++b) {
      gemms->scores(b, scores.data());
      ParallelFor(heads, 1, 1, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h) probabilities(b, h, scores.data() + h * tq * ts);
      });
      gemms->context(b, scores.data());
    }
    return absl::OkStatus();
  }
  const float* qd = q.data<float>();
  const float* kd = k.data<float>();
  const float* vd = v.data<float>();
  float* od = (*out)->data<float>();
  // One (batch, head) per GEMM pair: heads spread over the threads when small.
  ForEachGemm(batch * heads, tq, ts, depth, [&](int64_t i) {
    const int64_t b = i / heads, h = i % heads;
    thread_local std::vector<float> scratch;
    scratch.resize(static_cast<size_t>(tq * ts));
    float* s = scratch.data();
    Gemm<float>(false, true, tq, ts, depth, qd + (b * tq * heads + h) * depth, heads * depth,
                kd + (b * ts * heads + h) * depth, heads * depth, s, ts);
    probabilities(b, h, s);
    Gemm<float>(false, false, tq, dv, ts, s, ts, vd + (b * ts * heads + h) * dv, heads * dv,
                od + (b * tq * heads + h) * dv, heads * dv);
  });
  return absl::OkStatus();
}

}  // namespace smrt::kernels
