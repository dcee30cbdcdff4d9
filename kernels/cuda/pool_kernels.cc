// MaxPool and AvgPool float32, float16 and bfloat16, NHWC, spatial windows
// (pool.cu). Window
// checks and messages as the CPU kernels'; NCHW nodes and MaxPool across
// depth are not served here (supports), so they stay on the CPU.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/conv_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/pool.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<PoolWindow> ReadWindow(const KernelContext& ctx, bool allow_explicit) {
  absl::StatusOr<Layout> layout = ParseLayout(ctx.attrs());
  if (!layout.ok()) return AtNode(ctx, layout.status());
  if (*layout != Layout::kNhwc) {
    return AtNode(ctx, absl::UnimplementedError("CUDA pooling takes data_format NHWC only, got NCHW"));
  }
  absl::StatusOr<Padding> padding = ParsePadding(ctx.attrs(), allow_explicit);
  if (!padding.ok()) return AtNode(ctx, padding.status());
  absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> pads =
      ReadExplicitPaddings(ctx.attrs(), *padding, *layout);
  if (!pads.ok()) return AtNode(ctx, pads.status());
  absl::StatusOr<std::array<int64_t, 4>> ksize = ReadFourInts(ctx.attrs(), "ksize", *layout);
  if (!ksize.ok()) return AtNode(ctx, ksize.status());
  absl::StatusOr<std::array<int64_t, 4>> strides = ReadFourInts(ctx.attrs(), "strides", *layout);
  if (!strides.ok()) return AtNode(ctx, strides.status());
  for (int i = 0; i < 4; ++i) {
    if ((*ksize)[i] <= 0) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Sliding window ksize must be positive, got ksize (NHWC) [",
                             absl::StrJoin(*ksize, ", "), "]")));
    }
    if ((*strides)[i] <= 0) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Sliding window strides must be positive, got strides (NHWC) [",
                             absl::StrJoin(*strides, ", "), "]")));
    }
  }
  if ((*ksize)[0] != 1 || (*strides)[0] != 1) {
    return AtNode(ctx, absl::UnimplementedError(
                           "Pooling is not yet supported on the batch dimension."));
  }
  if ((*ksize)[3] != 1) {
    return AtNode(ctx, absl::UnimplementedError(
                           "CUDA pooling takes spatial windows only (ksize's depth entry is 1)"));
  }
  for (int d = 0; d < 2; ++d) {
    static constexpr const char* kBefore[] = {"Top", "Left"};
    static constexpr const char* kAfter[] = {"Bottom", "Right"};
    if ((*pads)[d][0] >= (*ksize)[1 + d]) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             kBefore[d], " padding ", (*pads)[d][0],
                             " needs to be smaller than the window size ", (*ksize)[1 + d])));
    }
    if ((*pads)[d][1] >= (*ksize)[1 + d]) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             kAfter[d], " padding ", (*pads)[d][1],
                             " needs to be smaller than the window size ", (*ksize)[1 + d])));
    }
  }
  const Tensor& input = ctx.input(0);
  if (input.rank() != 4) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           ctx.op(), " input must be 4-dimensional, got ",
                           ShapeToString(input.shape()))));
  }
  PoolWindow w;
  w.batch = input.dim(0);
  w.in_h = input.dim(1);
  w.in_w = input.dim(2);
  w.depth = input.dim(3);
  w.k_h = (*ksize)[1];
  w.k_w = (*ksize)[2];
  w.stride_h = (*strides)[1];
  w.stride_w = (*strides)[2];
  absl::StatusOr<WindowedSize> rows =
      WindowedOutputSize(w.in_h, w.k_h, 1, w.stride_h, *padding, (*pads)[0][0], (*pads)[0][1]);
  if (!rows.ok()) return AtNode(ctx, rows.status());
  absl::StatusOr<WindowedSize> cols =
      WindowedOutputSize(w.in_w, w.k_w, 1, w.stride_w, *padding, (*pads)[1][0], (*pads)[1][1]);
  if (!cols.ok()) return AtNode(ctx, cols.status());
  w.out_h = rows->size;
  w.out_w = cols->size;
  w.pad_top = rows->pad_before;
  w.pad_left = cols->pad_before;
  return w;
}

template <typename T>
cudaError_t LaunchPool(bool max, const Tensor& in, Tensor& out, const PoolWindow& w,
                       cudaStream_t stream) {
  return max ? LaunchMaxPool(in.data<T>(), out.data<T>(), w, stream)
             : LaunchAvgPool(in.data<T>(), out.data<T>(), w, stream);
}

absl::Status Pool(KernelContext& ctx, bool max) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<DataType> dtype = CommonFloatingType(ctx, 1);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<PoolWindow> w = ReadWindow(ctx, /*allow_explicit=*/max);
  if (!w.ok()) return w.status();
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out =
      ctx.allocate_device_output(0, *dtype, {w->batch, w->out_h, w->out_w, w->depth});
  if (!out.ok()) return out.status();
  const Tensor& in = ctx.input(0);
  cudaError_t launched = cudaErrorInvalidValue;
  switch (*dtype) {
    case DataType::kHalf: launched = LaunchPool<__half>(max, in, **out, *w, *stream); break;
    case DataType::kBFloat16:
      launched = LaunchPool<__nv_bfloat16>(max, in, **out, *w, *stream);
      break;
    default: launched = LaunchPool<float>(max, in, **out, *w, *stream); break;
  }
  return CudaStatus(launched, ctx.op(), ctx.node_name(), "launching the pooling kernel");
}

// The registry picks kernels before shapes: NCHW nodes and MaxPool across
// depth stay on the CPU.
bool Supported(const AttrMap& attrs) {
  absl::StatusOr<std::string> f = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!f.ok() || *f != "NHWC") return false;
  absl::StatusOr<std::vector<int64_t>> ksize = attrs.GetOr<std::vector<int64_t>>("ksize", {});
  return ksize.ok() && (ksize->size() != 4 || (*ksize)[3] == 1);
}

KernelSpec PoolKernel(const char* op, bool max) {
  KernelSpec k = CudaKernel(op, "T", {std::begin(kFloatingTypes), std::end(kFloatingTypes)},
                            [max](KernelContext& ctx) { return Pool(ctx, max); });
  k.supports = Supported;
  return k;
}

}  // namespace

std::vector<KernelSpec> PoolKernels() {
  return {PoolKernel("MaxPool", /*max=*/true), PoolKernel("AvgPool", /*max=*/false)};
}

}  // namespace smrt::kernels::cuda
