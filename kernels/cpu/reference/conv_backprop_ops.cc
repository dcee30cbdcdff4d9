// Conv2DBackpropInput (Keras Conv2DTranspose), as TensorFlow's CPU kernel.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/conv_util.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {
namespace {

using misc::Tag;

// ---------------------------------------------------------------------------
// Conv2DBackpropInput: the gradient of Conv2D with respect to its input, i.e.
// a transposed convolution. dx = col2im(dy * filter^T).

// Patch rows are built in blocks of about this many elements.
constexpr int64_t kColBlockElements = int64_t{1} << 20;

template <typename T>
void BackpropInputNhwc(const T* dy, const T* filter, int64_t batch, int64_t in_h, int64_t in_w,
                       int64_t in_c, int64_t k_h, int64_t k_w, int64_t out_h, int64_t out_w,
                       int64_t out_c, const std::array<int64_t, 4>& strides,
                       const std::array<int64_t, 4>& dilations, int64_t pad_top, int64_t pad_left,
                       T* cols, int64_t block, T* dx) {
  const int64_t m_total = batch * out_h * out_w;
  const int64_t cols_per_row = k_h * k_w * in_c;
  const int64_t pixels = out_h * out_w;
  for (int64_t m0 = 0; m0 < m_total; m0 += block) {
    const int64_t rows = std::min(block, m_total - m0);
    // cols (rows x KH*KW*IC) = dy rows (rows x OC) * filter^T, filter as (KH*KW*IC x OC).
    Gemm<T>(false, true, rows, cols_per_row, out_c, dy + m0 * out_c, out_c, filter, out_c, cols,
            cols_per_row);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t m = m0 + r;
      const int64_t b = m / pixels;
      const int64_t oy = (m % pixels) / out_w;
      const int64_t ox = m % out_w;
      const T* row = cols + r * cols_per_row;
      for (int64_t i = 0; i < k_h; ++i) {
        const int64_t iy = oy * strides[1] - pad_top + i * dilations[1];
        if (iy < 0 || iy >= in_h) continue;
        for (int64_t j = 0; j < k_w; ++j) {
          const int64_t ix = ox * strides[2] - pad_left + j * dilations[2];
          if (ix < 0 || ix >= in_w) continue;
          T* dst = dx + ((b * in_h + iy) * in_w + ix) * in_c;
          const T* src = row + (i * k_w + j) * in_c;
          for (int64_t c = 0; c < in_c; ++c) dst[c] += src[c];
        }
      }
    }
  }
}

absl::Status ComputeConv2DBackpropInput(KernelContext& ctx) {
  absl::StatusOr<BackpropInputPlan> plan = PlanBackpropInput(ctx);
  if (!plan.ok()) return plan.status();
  const BackpropAttrs* a = &plan->attrs;
  const Tensor& filter = ctx.input(1);
  Tensor dy = ctx.input(2);
  if (a->layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NchwToNhwc(dy);
    if (!t.ok()) return t.status();
    dy = *std::move(t);
  }
  const int64_t batch = plan->batch, in_h = plan->in_h, in_w = plan->in_w, in_c = plan->in_c;
  const int64_t k_h = plan->k_h, k_w = plan->k_w, out_c = plan->out_c;
  absl::StatusOr<Tensor> dx = NhwcOutput(ctx, a->layout == Layout::kNchw, filter.dtype(),
                                         {batch, in_h, in_w, in_c});
  if (!dx.ok()) return dx.status();
  const int64_t m_total = dy.dim(0) * dy.dim(1) * dy.dim(2);
  const int64_t cols_per_row = k_h * k_w * in_c;
  if (m_total > 0 && cols_per_row > 0 && dx->num_elements() > 0) {
    const int64_t block = std::max<int64_t>(1, std::min(m_total, kColBlockElements / cols_per_row));
    absl::StatusOr<Tensor> cols = Tensor::Create(filter.dtype(), {block, cols_per_row});
    if (!cols.ok()) return cols.status();
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      BackpropInputNhwc<T>(dy.data<T>(), filter.data<T>(), batch, in_h, in_w, in_c, k_h, k_w,
                           dy.dim(1), dy.dim(2), out_c, a->strides, a->dilations, plan->pad_top,
                           plan->pad_left, cols->template data<T>(), block,
                           dx->template data<T>());
      return absl::OkStatus();
    };
    absl::Status s;
    switch (filter.dtype()) {
      case DataType::kFloat: s = run(Tag<float>{}); break;
      case DataType::kDouble: s = run(Tag<double>{}); break;
      case DataType::kInt32: s = run(Tag<int32_t>{}); break;
      default:
        return absl::UnimplementedError(
            absl::StrCat("Conv2DBackpropInput does not support ", DataTypeName(filter.dtype())));
    }
    if (!s.ok()) return s;
  }
  if (a->layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NhwcToNchw(*dx);
    if (!t.ok()) return t.status();
    dx = *std::move(t);
  }
  ctx.set_output(0, *std::move(dx));
  return absl::OkStatus();
}


}  // namespace

void RegisterConvBackpropOps(KernelRegistry& r) {
  r.AddKernel({"Conv2DBackpropInput", kCpu, "T",
               {DataType::kFloat, DataType::kDouble, DataType::kInt32},
               ComputeConv2DBackpropInput});
}

}  // namespace smrt::kernels
