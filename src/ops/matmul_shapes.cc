#include "ops/matmul_shapes.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops::matmul {
namespace {

std::string DimsText(const Shape& dims) { return absl::StrCat("[", absl::StrJoin(dims, ","), "]"); }

// Broadcasts two batch dims that may be unknown (-1). False when they cannot.
bool BroadcastDim(int64_t a, int64_t b, int64_t& out) {
  if (a == 1) {
    out = b;
  } else if (b == 1) {
    out = a;
  } else if (a < 0) {
    out = b;  // a unknown: it is 1 or b, either way the result is b (or unknown)
  } else if (b < 0) {
    out = a;
  } else if (a == b) {
    out = a;
  } else {
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<MatMulOpts> ReadOpts(const AttrMap& attrs, BatchMode mode) {
  const char* a_name = mode == BatchMode::kNone ? "transpose_a" : "adj_x";
  const char* b_name = mode == BatchMode::kNone ? "transpose_b" : "adj_y";
  absl::StatusOr<bool> a = attrs.GetOr<bool>(a_name, false);
  if (!a.ok()) return a.status();
  absl::StatusOr<bool> b = attrs.GetOr<bool>(b_name, false);
  if (!b.ok()) return b.status();
  return MatMulOpts{*a, *b};
}

absl::Status SizeMismatch(const Shape& a, const Shape& b) {
  return absl::InvalidArgumentError(
      absl::StrCat("Matrix size-incompatible: In[0]: ", DimsText(a), ", In[1]: ", DimsText(b)));
}

absl::StatusOr<Shape> BatchDims(const Shape& x, const Shape& y, BatchMode mode) {
  const size_t xr = x.size() - 2;
  const size_t yr = y.size() - 2;
  if (mode == BatchMode::kSame) {
    if (xr != yr) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] and In[1] has different ndims: ", DimsText(x), " vs. ", DimsText(y)));
    }
    Shape out(xr);
    for (size_t i = 0; i < xr; ++i) {
      if (x[i] >= 0 && y[i] >= 0 && x[i] != y[i]) {
        return absl::InvalidArgumentError(absl::StrCat("In[0].dim(", i, ") and In[1].dim(", i,
                                                       ") must be the same: ", DimsText(x), " vs ",
                                                       DimsText(y)));
      }
      out[i] = x[i] >= 0 ? x[i] : y[i];
    }
    return out;
  }
  const size_t r = std::max(xr, yr);
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t a = i + xr >= r ? x[i + xr - r] : 1;
    int64_t b = i + yr >= r ? y[i + yr - r] : 1;
    if (!BroadcastDim(a, b, out[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] and In[1] must have compatible batch dimensions: ", DimsText(x),
                       " vs. ", DimsText(y)));
    }
  }
  return out;
}

absl::Status InferMatMul(InferenceContext& ctx, BatchMode mode) {
  absl::StatusOr<MatMulOpts> o = ReadOpts(ctx.attrs(), mode);
  if (!o.ok()) return o.status();
  const ValueInfo& x = ctx.input(0);
  const ValueInfo& y = ctx.input(1);
  DataType out_type = x.dtype;
  if (ctx.op() == "BatchMatMulV3") {
    absl::StatusOr<DataType> tout = ctx.attrs().Get<DataType>("Tout");
    if (!tout.ok()) return tout.status();
    out_type = *tout;
  } else if (x.dtype != DataType::kInvalid && y.dtype != DataType::kInvalid && x.dtype != y.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": operands have different types ",
                                                   DataTypeName(x.dtype), " and ",
                                                   DataTypeName(y.dtype)));
  }
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) continue;
    if (mode == BatchMode::kNone && s.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("MatMul operands must be matrices: In[", i, "] has shape ", s.ToString()));
    }
    if (s.rank() < 2) {
      return absl::InvalidArgumentError(absl::StrCat("In[", i, "] ndims must be >= 2: ", s.rank(),
                                                     " (shape ", s.ToString(), ")"));
    }
  }
  if (!x.shape.known_rank || !y.shape.known_rank) {
    if (mode == BatchMode::kNone) {
      int64_t m = -1, n = -1;
      if (x.shape.known_rank) m = x.shape.dims[o->adj_a ? 1 : 0];
      if (y.shape.known_rank) n = y.shape.dims[o->adj_b ? 0 : 1];
      ctx.set_output(0, ValueInfo{out_type, PartialShape::Known({m, n})});
    } else {
      ctx.set_output(0, ValueInfo{out_type, PartialShape::Unknown()});
    }
    return absl::OkStatus();
  }
  const Shape& xs = x.shape.dims;
  const Shape& ys = y.shape.dims;
  const size_t xr = xs.size();
  const size_t yr = ys.size();
  const int64_t m = o->adj_a ? xs[xr - 1] : xs[xr - 2];
  const int64_t k = o->adj_a ? xs[xr - 2] : xs[xr - 1];
  const int64_t k2 = o->adj_b ? ys[yr - 1] : ys[yr - 2];
  const int64_t n = o->adj_b ? ys[yr - 2] : ys[yr - 1];
  if (k >= 0 && k2 >= 0 && k != k2) return SizeMismatch(xs, ys);
  Shape out;
  if (mode != BatchMode::kNone) {
    absl::StatusOr<Shape> batch = BatchDims(xs, ys, mode);
    if (!batch.ok()) return batch.status();
    out = *std::move(batch);
  }
  out.push_back(m);
  out.push_back(n);
  ctx.set_output(0, ValueInfo{out_type, PartialShape::Known(out)});
  return absl::OkStatus();
}

}  // namespace smrt::ops::matmul
