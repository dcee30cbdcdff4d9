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
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {

namespace {

struct BlockSpec {
  std::vector<int64_t> block;                       // M positive sizes
  std::vector<std::pair<int64_t, int64_t>> amount;  // paddings or crops, (before, after)
  int64_t block_product = 1;
};

// Reads block_shape (1-D, positive) and the (M, 2) paddings/crops matrix
// (non-negative). `what` is "paddings" or "crops".
absl::StatusOr<BlockSpec> ReadBlockSpec(absl::string_view op, const Tensor& block_shape,
                                        const Tensor& amounts, absl::string_view what) {
  if (block_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": block_shape must be one-dimensional, got shape ",
                     ShapeToString(block_shape.shape())));
  }
  const int64_t m = block_shape.dim(0);
  if (amounts.rank() != 2 || amounts.dim(0) != m || amounts.dim(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " must have shape [", m,
                                                   ", 2] for block_shape of length ", m, ", got ",
                                                   ShapeToString(amounts.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> b = IntValues(block_shape, "block_shape");
  if (!b.ok()) return b.status();
  absl::StatusOr<std::vector<int64_t>> a = IntValues(amounts, what);
  if (!a.ok()) return a.status();
  BlockSpec s;
  s.block = *b;
  for (int64_t i = 0; i < m; ++i) {
    if (s.block[i] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": block_shape must be positive, got [",
                                                     absl::StrJoin(s.block, ", "), "]"));
    }
    if (__builtin_mul_overflow(s.block_product, s.block[i], &s.block_product)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": the product of block_shape [", absl::StrJoin(s.block, ", "), "] overflows int64"));
    }
    const int64_t before = (*a)[2 * i], after = (*a)[2 * i + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": ", what, " must be non-negative, got (",
                                                     before, ", ", after, ") for block dim ", i));
    }
    s.amount.emplace_back(before, after);
  }
  return s;
}

// Output shape of SpaceToBatchND (to_batch) or BatchToSpaceND. Input dims may
// be -1 (unknown) during inference; they give -1.
absl::StatusOr<Shape> BlockOutputShape(absl::string_view op, const Shape& in, const BlockSpec& s,
                                       bool to_batch) {
  const int m = static_cast<int>(s.block.size());
  if (static_cast<int>(in.size()) < 1 + m) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": input rank must be at least ", 1 + m,
                                                   " for block_shape of length ", m,
                                                   ", got input shape ", ShapeToString(in)));
  }
  Shape out = in;
  if (in[0] >= 0) {
    if (to_batch) {
      if (__builtin_mul_overflow(in[0], s.block_product, &out[0])) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": output batch size overflows int64"));
      }
    } else {
      if (in[0] % s.block_product != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": input batch dimension ", in[0],
                         " is not divisible by the product of block_shape [",
                         absl::StrJoin(s.block, ", "), "] (", s.block_product, ")"));
      }
      out[0] = in[0] / s.block_product;
    }
  }
  for (int i = 0; i < m; ++i) {
    const int64_t dim = in[1 + i];
    if (dim < 0) continue;
    const auto [before, after] = s.amount[i];
    if (to_batch) {
      int64_t padded;
      if (__builtin_add_overflow(dim, before, &padded) ||
          __builtin_add_overflow(padded, after, &padded)) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": padded dimension overflows int64"));
      }
      if (padded % s.block[i] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            op, ": padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i,
            "]=", s.block[i], " (input shape ", ShapeToString(in), ")"));
      }
      out[1 + i] = padded / s.block[i];
    } else {
      int64_t full;
      if (__builtin_mul_overflow(dim, s.block[i], &full)) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": uncropped dimension overflows int64"));
      }
      if (before > full - after) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": crops (", before, ", ", after,
                                                       ") for dimension ", i + 1,
                                                       " are larger than the uncropped size ", full,
                                                       " (input shape ", ShapeToString(in), ")"));
      }
      out[1 + i] = full - before - after;
    }
  }
  return out;
}

// The ND ops take block_shape and paddings/crops as inputs 1 and 2; the TF1
// SpaceToBatch / BatchToSpace take paddings/crops as input 1 and a square
// block_size attr over a 4-D (NHWC) input. `block` is null for those.
bool IsNd(absl::string_view op) { return op == "SpaceToBatchND" || op == "BatchToSpaceND"; }

absl::StatusOr<BlockSpec> ReadSpec(absl::string_view op, const AttrMap& attrs, const Tensor* block,
                                   const Tensor& amounts, int input_rank, bool to_batch) {
  const char* what = to_batch ? "paddings" : "crops";
  if (IsNd(op)) return ReadBlockSpec(op, *block, amounts, what);
  absl::StatusOr<int64_t> size = attrs.Get<int64_t>("block_size");
  if (!size.ok()) return size.status();
  if (*size < 2) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": block_size should be > 1, got ", *size));
  }
  if (input_rank != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be 4-dimensional, got rank ", input_rank));
  }
  Tensor square = *Tensor::Create(DataType::kInt64, {2});
  square.data<int64_t>()[0] = square.data<int64_t>()[1] = *size;
  return ReadBlockSpec(op, square, amounts, what);
}

absl::Status InferBlockOp(InferenceContext& ctx, bool to_batch) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const bool nd = IsNd(ctx.op());
  const Tensor* block = nd ? ctx.input_value(1) : nullptr;
  const Tensor* amounts = ctx.input_value(nd ? 2 : 1);
  if (in.known_rank && (block != nullptr || !nd) && amounts != nullptr) {
    absl::StatusOr<BlockSpec> s =
        ReadSpec(ctx.op(), ctx.attrs(), block, *amounts, in.rank(), to_batch);
    if (!s.ok()) return s.status();
    absl::StatusOr<Shape> dims = BlockOutputShape(ctx.op(), in.dims, *s, to_batch);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (in.known_rank) {
    // The batch and spatial dims change; dims after the spatial ones do not.
    Shape dims(in.dims.size(), -1);
    const int64_t m = nd ? KnownVectorLength(ctx, 1) : 2;
    if (m >= 0 && m + 1 <= in.rank()) {
      for (int d = static_cast<int>(m) + 1; d < in.rank(); ++d) dims[d] = in.dims[d];
    }
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// Calls fn(out_index, in_index) for each run of `inner` contiguous elements.
// Output and input runs are given as run indices (element offset / inner).
template <typename Fn>
void ForEachBlockRun(const Shape& in, const Shape& out, const BlockSpec& s, bool to_batch,
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
  const bool nd = IsNd(ctx.op());
  absl::StatusOr<BlockSpec> s = ReadSpec(ctx.op(), ctx.attrs(), nd ? &ctx.input(1) : nullptr,
                                         ctx.input(nd ? 2 : 1), input.rank(), to_batch);
  if (!s.ok()) return s.status();
  absl::StatusOr<Shape> dims = BlockOutputShape(ctx.op(), input.shape(), *s, to_batch);
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

// SpaceToDepth / DepthToSpace (depth_space_util.h plans their shapes).

absl::Status InferDepthOp(InferenceContext& ctx, bool to_depth) {
  absl::StatusOr<int64_t> b = ReadBlockSize(ctx.attrs(), ctx.op());
  if (!b.ok()) return b.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    absl::StatusOr<Shape> dims = DepthOutputShape(ctx.op(), in.dims, *b, to_depth);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else {
    out.shape = UnknownDims(4);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
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
  r.AddOp(ArrayOp("SpaceToBatchND",
                  {{"Tblock_shape", DataType::kInt32}, {"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/true); }));
  r.AddOp(ArrayOp("BatchToSpaceND",
                  {{"Tblock_shape", DataType::kInt32}, {"Tcrops", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/false); }));
  AddArrayKernel(r, "SpaceToBatchND", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/true); });
  AddArrayKernel(r, "BatchToSpaceND", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/false); });
  r.AddOp(ArrayOp("SpaceToBatch", {{"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/true); }));
  r.AddOp(ArrayOp("BatchToSpace", {{"Tidx", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/false); }));
  AddArrayKernel(r, "SpaceToBatch", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/true); });
  AddArrayKernel(r, "BatchToSpace", "T",
                 [](KernelContext& ctx) { return ComputeBlockOp(ctx, /*to_batch=*/false); });

  r.AddOp(ArrayOp("SpaceToDepth", {{"data_format", std::string("NHWC")}},
                  [](InferenceContext& ctx) { return InferDepthOp(ctx, /*to_depth=*/true); }));
  r.AddOp(ArrayOp("DepthToSpace", {{"data_format", std::string("NHWC")}},
                  [](InferenceContext& ctx) { return InferDepthOp(ctx, /*to_depth=*/false); }));
  AddArrayKernel(r, "SpaceToDepth", "T",
                 [](KernelContext& ctx) { return ComputeDepthOp(ctx, /*to_depth=*/true); });
  AddArrayKernel(r, "DepthToSpace", "T",
                 [](KernelContext& ctx) { return ComputeDepthOp(ctx, /*to_depth=*/false); });
}

}  // namespace smrt::kernels
