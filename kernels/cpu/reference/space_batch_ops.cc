// SpaceToBatchND / BatchToSpaceND (what Keras dilated convolutions export),
// their TF1 4-D forms SpaceToBatch / BatchToSpace (square block_size attr),
// and SpaceToDepth / DepthToSpace (NHWC).
//
// SpaceToBatchND pads the M spatial dims after the batch dim, then moves each
// block offset into the batch dim: output batch index is
// offset * batch + b, with the offset row-major over block_shape.
// BatchToSpaceND is the inverse followed by cropping. Dims after the spatial
// ones move as one contiguous run of elements.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/depth_space_util.h"
#include "ops/space_batch_shapes.h"
#include "kernels/registry.h"

namespace smrt::kernels {

namespace {

// Calls fn(out_index, in_index) for each run of `inner` contiguous elements.
// Output and input runs are given as run indices (element offset / inner).
template <typename Fn>
void ForEachBlockRun(const Shape& in, const Shape& out, const ops::BlockSpec& s, bool to_batch,
                     Fn&& fn) {
  const int m = static_cast<int>(s.block.size());
  // `big` is the side with the larger batch (the space-to-batch output).
  const Shape& big = to_batch ? out : in;
  const Shape& small = to_batch ? in : out;
  const int64_t small_batch = small[0];
  std::vector<int64_t> offset(m), pos(m);
  const Shape big_strides = RowMajorStrides(Shape(big.begin(), big.begin() + 1 + m));
  const Shape small_strides = RowMajorStrides(Shape(small.begin(), small.begin() + 1 + m));
  for (int64_t ob = 0; ob < big[0]; ++ob) {
    const int64_t b = ob % small_batch;
    int64_t rest = ob / small_batch;
    for (int i = m - 1; i >= 0; --i) {
      offset[i] = rest % s.block[i];
      rest /= s.block[i];
    }
    std::fill(pos.begin(), pos.end(), 0);
    bool empty = false;
    for (int i = 0; i < m; ++i) empty = empty || big[1 + i] == 0;
    if (empty) continue;
    while (true) {
      // pos indexes the big side's spatial dims; the small side's index is
      // pos * block + offset - before.
      int64_t big_run = ob * big_strides[0];
      int64_t small_run = b * small_strides[0];
      bool inside = true;
      for (int i = 0; i < m; ++i) {
        const int64_t j = pos[i] * s.block[i] + offset[i] - s.amount[i].first;
        if (j < 0 || j >= small[1 + i]) {
          inside = false;
          break;
        }
        big_run += pos[i] * big_strides[1 + i];
        small_run += j * small_strides[1 + i];
      }
      if (inside) {
        if (to_batch) {
          fn(big_run, small_run);
        } else {
          fn(small_run, big_run);
        }
      }
      int i = m - 1;
      for (; i >= 0; --i) {
        if (++pos[i] < big[1 + i]) break;
        pos[i] = 0;
      }
      if (i < 0) break;
    }
  }
}

absl::Status ComputeBlockOp(KernelContext& ctx, bool to_batch) {
  const Tensor& input = ctx.input(0);
  const bool nd = ops::IsBlockNdOp(ctx.op());
  absl::StatusOr<ops::BlockSpec> s =
      ops::ReadBlockSpec(ctx.op(), ctx.attrs(), nd ? &ctx.input(1) : nullptr, ctx.input(nd ? 2 : 1),
                         input.rank(), to_batch);
  if (!s.ok()) return s.status();
  absl::StatusOr<Shape> dims = ops::BlockOutputShape(ctx.op(), input.shape(), *s, to_batch);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0 || input.num_elements() == 0) return absl::OkStatus();
  const int m = static_cast<int>(s->block.size());
  const int64_t inner = DimProduct(input.shape(), 1 + m, input.rank());
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = input.data<T>();
    T* dst = result->data<T>();
    ForEachBlockRun(input.shape(), *dims, *s, to_batch, [&](int64_t out_run, int64_t in_run) {
      std::copy_n(src + in_run * inner, inner, dst + out_run * inner);
    });
    return absl::OkStatus();
  });
}

absl::Status ComputeDepthOp(KernelContext& ctx, bool to_depth) {
  absl::StatusOr<int64_t> bs = ReadBlockSize(ctx.attrs(), ctx.op());
  if (!bs.ok()) return bs.status();
  const Tensor& input = ctx.input(0);
  absl::StatusOr<Shape> dims = DepthOutputShape(ctx.op(), input.shape(), *bs, to_depth);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  // In the space-side shape (n, h*b, w*b, c) and the depth-side shape
  // (n, h, w, b*b*c): depth index (by * b + bx) * c + ci.
  const Shape& space = to_depth ? input.shape() : *dims;
  const int64_t b = *bs;
  const int64_t n = space[0], h = space[1] / b, w = space[2] / b, c = space[3];
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = input.data<T>();
    T* dst = result->data<T>();
    for (int64_t ni = 0; ni < n; ++ni) {
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          for (int64_t by = 0; by < b; ++by) {
            for (int64_t bx = 0; bx < b; ++bx) {
              const int64_t space_off = ((ni * h * b + y * b + by) * w * b + x * b + bx) * c;
              const int64_t depth_off = (((ni * h + y) * w + x) * b * b + by * b + bx) * c;
              if (to_depth) {
                std::copy_n(src + space_off, c, dst + depth_off);
              } else {
                std::copy_n(src + depth_off, c, dst + space_off);
              }
            }
          }
        }
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterSpaceBatchOps(KernelRegistry& r) {
  AddArrayKernel(r, "SpaceToBatchND", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/true); });
  AddArrayKernel(r, "BatchToSpaceND", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/false); });
  AddArrayKernel(r, "SpaceToBatch", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/true); });
  AddArrayKernel(r, "BatchToSpace", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/false); });
  AddArrayKernel(r, "SpaceToDepth", "T",
                 [](KernelContext& ctx) { return ComputeDepthOp(ctx, /*to_depth=*/true); });
  AddArrayKernel(r, "DepthToSpace", "T",
                 [](KernelContext& ctx) { return ComputeDepthOp(ctx, /*to_depth=*/false); });
}

}  // namespace smrt::kernels
