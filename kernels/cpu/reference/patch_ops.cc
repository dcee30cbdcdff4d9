// Image-geometry ops of older vision graphs, as TensorFlow's CPU kernels
// compute them, with their checks and messages: DataFormatDimMap,
// DataFormatVecPermute, LRN (TensorFlow's formula: in / (bias + alpha *
// sum of squares over depth_radius neighbours) ^ beta), ExtractImagePatches,
// ExtractVolumePatches, Dilation2D (grayscale dilation: a max of input +
// filter), MaxPoolWithArgmax (ties to the first in row-major order),
// HistogramFixedWidth and FractionalMaxPool / FractionalAvgPool.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/philox.h"
#include "ops/conv_shapes.h"

namespace smrt::kernels {
namespace {

using ops::Padding;
using ops::ParsePadding;
using ops::WindowedOutputSize;
using ops::WindowedSize;

// ---------------------------------------------------------------------------
// DataFormatDimMap / DataFormatVecPermute

struct Formats {
  std::string src;
  std::string dst;
};

// TensorFlow's checks of src_format and dst_format: 4 or 5 letters each,
// every letter of src once, and dst a permutation of it.
absl::StatusOr<Formats> ReadFormats(const AttrMap& attrs) {
  absl::StatusOr<std::string> src = attrs.GetOr<std::string>("src_format", "NHWC");
  if (!src.ok()) return src.status();
  absl::StatusOr<std::string> dst = attrs.GetOr<std::string>("dst_format", "NCHW");
  if (!dst.ok()) return dst.status();
  if (src->size() != 4 && src->size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("Source format must be of length 4 or 5, received src_format = ", *src));
  }
  if (dst->size() != 4 && dst->size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("Destination format must be of length 4 or 5, received dst_format = ", *dst));
  }
  bool valid = src->size() == dst->size();
  std::array<bool, 256> seen{};
  for (char c : *src) {
    const auto i = static_cast<uint8_t>(c);
    valid = valid && !seen[i];
    seen[i] = true;
  }
  for (char c : *dst) {
    const auto i = static_cast<uint8_t>(c);
    valid = valid && seen[i];
    seen[i] = false;
  }
  if (!valid) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Destination and source format must determine a permutation, got ", *src, " and ", *dst));
  }
  return Formats{*src, *dst};
}

absl::Status ComputeDimMap(KernelContext& ctx) {
  absl::StatusOr<Formats> f = ReadFormats(ctx.attrs());
  if (!f.ok()) return f.status();
  const Tensor& x = ctx.input(0);
  const auto n = static_cast<int64_t>(f->src.size());
  absl::StatusOr<std::vector<int64_t>> v = IntValues(x, "x");
  if (!v.ok()) return v.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const char c = f->src[static_cast<size_t>(((*v)[i] % n + n) % n)];
    const auto j = static_cast<int64_t>(f->dst.find(c));
    if (x.dtype() == DataType::kInt32) {
      (*out)->data<int32_t>()[i] = static_cast<int32_t>(j);
    } else {
      (*out)->data<int64_t>()[i] = j;
    }
  }
  return absl::OkStatus();
}

// The letters of `format` that name spatial dims (H, W and, in 5-D
// formats, D).
std::string Spatial(const std::string& format, int spatial_dims) {
  std::string s;
  for (char c : format) {
    if (c == 'H' || c == 'W' || (spatial_dims == 3 && c == 'D')) s.push_back(c);
  }
  return s;
}

absl::Status ComputeVecPermute(KernelContext& ctx) {
  absl::StatusOr<Formats> f = ReadFormats(ctx.attrs());
  if (!f.ok()) return f.status();
  const Tensor& x = ctx.input(0);
  if (x.rank() != 1 && x.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be a vector or 2D tensor, but got shape ", Brackets(x.shape())));
  }
  const auto full = static_cast<int64_t>(f->src.size());
  const int64_t spatial = full - 2;
  if (x.rank() == 1 && x.dim(0) != spatial && x.dim(0) != full) {
    return absl::InvalidArgumentError(absl::StrCat("1D input must be of size ", spatial, " or ",
                                                   full, ", but got shape ", Brackets(x.shape())));
  }
  if (x.rank() == 2) {
    if (x.dim(0) != spatial && x.dim(0) != full) {
      return absl::InvalidArgumentError(absl::StrCat("First dimension of 2D input must be of size ",
                                                     spatial, " or ", full, ", but got shape ",
                                                     Brackets(x.shape())));
    }
    if (x.dim(1) != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Second dimension of 2D input must be of size 2, but got shape ", Brackets(x.shape())));
    }
  }
  std::string src = f->src, dst = f->dst;
  if (x.dim(0) == spatial) {
    src = Spatial(src, static_cast<int>(spatial));
    dst = Spatial(dst, static_cast<int>(spatial));
    if (static_cast<int64_t>(src.size()) != spatial ||
        static_cast<int64_t>(dst.size()) != spatial) {
      return absl::InvalidArgumentError(spatial == 3
                                            ? "Format specifier must contain D, H and W for 3D case"
                                            : "Format specifier must contain H and W for 2D case");
    }
  }
  const int64_t inner = x.rank() == 2 ? 2 : 1;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  return VisitElementType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < src.size(); ++i) {
      const auto j = static_cast<int64_t>(dst.find(src[i]));
      for (int64_t k = 0; k < inner; ++k) {
        result->data<T>()[j * inner + k] = x.data<T>()[static_cast<int64_t>(i) * inner + k];
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// LRN

template <typename T>
void LrnTyped(const Tensor& in, int64_t radius, float bias, float alpha, float beta, Tensor* out) {
  const int64_t depth = in.dim(3);
  const int64_t rows = in.num_elements() / std::max<int64_t>(depth, 1);
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = in.data<T>() + r * depth;
    T* y = out->data<T>() + r * depth;
    for (int64_t d = 0; d < depth; ++d) {
      float sum = 0;
      const int64_t lo = std::max<int64_t>(0, d - radius);
      const int64_t hi = std::min<int64_t>(depth - 1, d + radius);
      for (int64_t j = lo; j <= hi; ++j) {
        const float v = static_cast<float>(x[j]);
        sum += v * v;
      }
      const float t = sum * alpha + bias;
      const float v = static_cast<float>(x[d]);
      float result;
      if (beta == 1.0f) {
        result = v / t;
      } else if (beta == 0.5f) {
        result = v / std::sqrt(t);
      } else {
        result = v * std::exp(std::log(t) * -beta);
      }
      y[d] = static_cast<T>(result);
    }
  }
}

absl::Status ComputeLrn(KernelContext& ctx) {
  absl::StatusOr<int64_t> radius = ctx.attrs().GetOr<int64_t>("depth_radius", 5);
  if (!radius.ok()) return radius.status();
  if (*radius < 0 || *radius > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("depth_radius = ", *radius, " larger than int max"));
  }
  absl::StatusOr<float> bias = ctx.attrs().GetOr<float>("bias", 1.0f);
  if (!bias.ok()) return bias.status();
  absl::StatusOr<float> alpha = ctx.attrs().GetOr<float>("alpha", 1.0f);
  if (!alpha.ok()) return alpha.status();
  absl::StatusOr<float> beta = ctx.attrs().GetOr<float>("beta", 0.5f);
  if (!beta.ok()) return beta.status();
  const Tensor& in = ctx.input(0);
  if (in.rank() != 4) return absl::InvalidArgumentError("in must be 4-dimensional");
  if (in.num_elements() > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError("argument to LRN too large");
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  switch (in.dtype()) {
    case DataType::kFloat:
      LrnTyped<float>(in, *radius, *bias, *alpha, *beta, *out);
      return absl::OkStatus();
    case DataType::kHalf:
      LrnTyped<Eigen::half>(in, *radius, *bias, *alpha, *beta, *out);
      return absl::OkStatus();
    case DataType::kBFloat16:
      LrnTyped<Eigen::bfloat16>(in, *radius, *bias, *alpha, *beta, *out);
      return absl::OkStatus();
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("LRN does not support tensors of type ", DataTypeName(in.dtype())));
}

// ---------------------------------------------------------------------------
// ExtractImagePatches / ExtractVolumePatches: each output position holds the
// window's elements (spatial dims in order, then depth), zeros where the
// window leaves the input.

// A list(int) attr of `n` values whose first and last are 1 (the window
// spans space only).
absl::StatusOr<std::vector<int64_t>> SpatialAttr(const AttrMap& attrs, const std::string& name,
                                                 size_t n, const std::string& what) {
  absl::StatusOr<std::vector<int64_t>> v = attrs.Get<std::vector<int64_t>>(name);
  if (!v.ok()) return v.status();
  if (v->size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("Length for attr '", name, "' of ", v->size(), " must be ", n));
  }
  if ((*v)[0] != 1 || v->back() != 1) {
    return absl::UnimplementedError(absl::StrCat("Only support ", what, " across space."));
  }
  for (int64_t x : *v) {
    if (x < 1) {
      return absl::InvalidArgumentError(absl::StrCat(name, " must be positive, got ", x));
    }
  }
  return v;
}

absl::Status ComputePatches(KernelContext& ctx) {
  const bool volume = ctx.op() == "ExtractVolumePatches";
  const int rank = volume ? 5 : 4;
  const int spatial = rank - 2;
  absl::StatusOr<std::vector<int64_t>> ks = SpatialAttr(ctx.attrs(), "ksizes", rank, "ksizes");
  if (!ks.ok()) return ks.status();
  absl::StatusOr<std::vector<int64_t>> st = SpatialAttr(ctx.attrs(), "strides", rank, "strides");
  if (!st.ok()) return st.status();
  std::vector<int64_t> rates(static_cast<size_t>(rank), 1);
  if (!volume) {
    absl::StatusOr<std::vector<int64_t>> r = SpatialAttr(ctx.attrs(), "rates", rank, "rates");
    if (!r.ok()) return r.status();
    rates = *r;
  }
  absl::StatusOr<Padding> padding = ParsePadding(ctx.attrs(), /*allow_explicit=*/false);
  if (!padding.ok()) return padding.status();
  const Tensor& in = ctx.input(0);
  if (in.rank() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be ", rank, "-dimensional", Brackets(in.shape())));
  }
  Shape out_dims = {in.dim(0)};
  std::vector<int64_t> pad_before;
  int64_t window = 1;
  for (int d = 1; d <= spatial; ++d) {
    const int64_t eff = (*ks)[d] + ((*ks)[d] - 1) * (rates[d] - 1);
    absl::StatusOr<WindowedSize> w = WindowedOutputSize(in.dim(d), eff, 1, (*st)[d], *padding);
    if (!w.ok()) return w.status();
    out_dims.push_back(w->size);
    pad_before.push_back(w->pad_before);
    window *= (*ks)[d];
  }
  const int64_t depth = in.dim(rank - 1);
  out_dims.push_back(window * depth);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), out_dims);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  const Shape in_strides = RowMajorStrides(in.shape());
  Tensor* result = *out;
  return VisitElementType(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = result->data<T>();
    // Output positions in row-major order (batch, spatial...), then the
    // window's offsets in row-major order, then depth.
    std::vector<int64_t> pos(static_cast<size_t>(spatial) + 1, 0);
    std::vector<int64_t> off(static_cast<size_t>(spatial), 0);
    const int64_t positions = result->num_elements() / (window * depth);
    for (int64_t p = 0; p < positions; ++p) {
      std::fill(off.begin(), off.end(), 0);
      for (int64_t w = 0; w < window; ++w) {
        int64_t base = pos[0] * in_strides[0];
        bool inside = true;
        for (int d = 0; d < spatial; ++d) {
          const int64_t at = pos[d + 1] * (*st)[d + 1] - pad_before[d] + off[d] * rates[d + 1];
          inside = inside && at >= 0 && at < in.dim(d + 1);
          base += at * in_strides[d + 1];
        }
        if (inside) std::copy_n(src + base, depth, dst);
        dst += depth;  // left zero outside the input
        for (int d = spatial - 1; d >= 0; --d) {
          if (++off[d] < (*ks)[d + 1]) break;
          off[d] = 0;
        }
      }
      for (int d = spatial; d >= 0; --d) {
        if (++pos[d] < out_dims[d]) break;
        pos[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// Dilation2D

absl::Status ComputeDilation(KernelContext& ctx) {
  absl::StatusOr<std::vector<int64_t>> st = SpatialAttr(ctx.attrs(), "strides", 4, "strides");
  if (!st.ok()) return st.status();
  absl::StatusOr<std::vector<int64_t>> rates = SpatialAttr(ctx.attrs(), "rates", 4, "rates");
  if (!rates.ok()) return rates.status();
  absl::StatusOr<Padding> padding = ParsePadding(ctx.attrs(), /*allow_explicit=*/false);
  if (!padding.ok()) return padding.status();
  const Tensor& in = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  if (in.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional", Brackets(in.shape())));
  }
  if (filter.rank() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter must be 3-dimensional: ", Brackets(filter.shape())));
  }
  const int64_t depth = in.dim(3);
  if (depth != filter.dim(2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("input and filter must have the same depth: ", depth, " vs ", filter.dim(2)));
  }
  const int64_t fr = filter.dim(0), fc = filter.dim(1);
  absl::StatusOr<WindowedSize> rows =
      WindowedOutputSize(in.dim(1), fr + (fr - 1) * ((*rates)[1] - 1), 1, (*st)[1], *padding);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<WindowedSize> cols =
      WindowedOutputSize(in.dim(2), fc + (fc - 1) * ((*rates)[2] - 1), 1, (*st)[2], *padding);
  if (!cols.ok()) return cols.status();
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, in.dtype(), {in.dim(0), rows->size, cols->size, depth});
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  return misc::VisitRealType(in.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = result->data<T>();
    for (int64_t b = 0; b < in.dim(0); ++b) {
      for (int64_t h = 0; h < rows->size; ++h) {
        for (int64_t w = 0; w < cols->size; ++w) {
          for (int64_t d = 0; d < depth; ++d) {
            T best = Eigen::NumTraits<T>::lowest();
            for (int64_t i = 0; i < fr; ++i) {
              const int64_t y = h * (*st)[1] - rows->pad_before + i * (*rates)[1];
              if (y < 0 || y >= in.dim(1)) continue;
              for (int64_t j = 0; j < fc; ++j) {
                const int64_t x = w * (*st)[2] - cols->pad_before + j * (*rates)[2];
                if (x < 0 || x >= in.dim(2)) continue;
                const T v =
                    misc::WrapAdd(in.data<T>()[((b * in.dim(1) + y) * in.dim(2) + x) * depth + d],
                                  filter.data<T>()[(i * fc + j) * depth + d]);
                if (v > best) best = v;
              }
            }
            *o++ = best;
          }
        }
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// MaxPoolWithArgmax: the argmax is ((b * height + y) * width + x) * channels
// + c, without the b term unless include_batch_in_index.

absl::Status ComputeMaxPoolWithArgmax(KernelContext& ctx) {
  absl::StatusOr<std::vector<int64_t>> ks = ctx.attrs().Get<std::vector<int64_t>>("ksize");
  if (!ks.ok()) return ks.status();
  absl::StatusOr<std::vector<int64_t>> st = ctx.attrs().Get<std::vector<int64_t>>("strides");
  if (!st.ok()) return st.status();
  if (ks->size() != 4) {
    return absl::InvalidArgumentError("Sliding window ksize field must specify 4 dimensions");
  }
  if (st->size() != 4) {
    return absl::InvalidArgumentError("Sliding window stride field must specify 4 dimensions");
  }
  if ((*ks)[0] != 1 || (*st)[0] != 1) {
    return absl::UnimplementedError("Pooling is not yet supported on the batch dimension.");
  }
  absl::StatusOr<Padding> padding = ParsePadding(ctx.attrs(), /*allow_explicit=*/false);
  if (!padding.ok()) return padding.status();
  absl::StatusOr<bool> with_batch = ctx.attrs().GetOr<bool>("include_batch_in_index", false);
  if (!with_batch.ok()) return with_batch.status();
  absl::StatusOr<DataType> targmax = ctx.attrs().GetOr<DataType>("Targmax", DataType::kInt64);
  if (!targmax.ok()) return targmax.status();
  if (*targmax != DataType::kInt32 && *targmax != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("Targmax must be int32 or int64, got ", DataTypeName(*targmax)));
  }
  const Tensor& in = ctx.input(0);
  if (in.rank() != 4) {
    return absl::InvalidArgumentError("tensor_in must be 4-dimensional (2)");
  }
  if ((*ks)[3] != 1 || (*st)[3] != 1) {
    return absl::UnimplementedError(
        "MaxPooling supports exactly one of pooling across depth or pooling across "
        "width/height.");
  }
  for (int d = 1; d < 3; ++d) {
    if ((*ks)[d] < 1 || (*st)[d] < 1) {
      return absl::InvalidArgumentError("Sliding window ksize and stride must be positive");
    }
  }
  const int64_t height = in.dim(1), width = in.dim(2), channels = in.dim(3);
  absl::StatusOr<WindowedSize> rows = WindowedOutputSize(height, (*ks)[1], 1, (*st)[1], *padding);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<WindowedSize> cols = WindowedOutputSize(width, (*ks)[2], 1, (*st)[2], *padding);
  if (!cols.ok()) return cols.status();
  const Shape dims = {in.dim(0), rows->size, cols->size, channels};
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), dims);
  if (!out.ok()) return out.status();
  absl::StatusOr<Tensor*> arg = ctx.allocate_output(1, *targmax, dims);
  if (!arg.ok()) return arg.status();
  Tensor* values = *out;
  Tensor* argmax = *arg;
  return misc::VisitRealType(in.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t o = 0;
    for (int64_t b = 0; b < in.dim(0); ++b) {
      for (int64_t h = 0; h < rows->size; ++h) {
        for (int64_t w = 0; w < cols->size; ++w) {
          for (int64_t c = 0; c < channels; ++c, ++o) {
            T best = Eigen::NumTraits<T>::lowest();
            int64_t best_at = -1;
            for (int64_t i = 0; i < (*ks)[1]; ++i) {
              const int64_t y = h * (*st)[1] - rows->pad_before + i;
              if (y < 0 || y >= height) continue;
              for (int64_t j = 0; j < (*ks)[2]; ++j) {
                const int64_t x = w * (*st)[2] - cols->pad_before + j;
                if (x < 0 || x >= width) continue;
                const int64_t at = ((b * height + y) * width + x) * channels + c;
                const T v = in.data<T>()[at];
                if (best_at < 0 || best < v) {
                  best = v;
                  best_at = *with_batch ? at : (y * width + x) * channels + c;
                }
              }
            }
            values->data<T>()[o] = best;
            if (*targmax == DataType::kInt32) {
              argmax->data<int32_t>()[o] = static_cast<int32_t>(best_at);
            } else {
              argmax->data<int64_t>()[o] = best_at;
            }
          }
        }
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// HistogramFixedWidth: bin = min(int((max(x, lo) - lo) / step), nbins - 1)
// with the difference taken in T and the division in double.

absl::Status ComputeHistogram(KernelContext& ctx) {
  const Tensor& values = ctx.input(0);
  const Tensor& range = ctx.input(1);
  const Tensor& nbins_t = ctx.input(2);
  if (range.rank() != 1) return absl::InvalidArgumentError("value_range should be a vector.");
  if (range.num_elements() != 2) {
    return absl::InvalidArgumentError("value_range should be a vector of 2 elements.");
  }
  if (nbins_t.rank() != 0) return absl::InvalidArgumentError("nbins should be a scalar.");
  absl::StatusOr<int64_t> nbins = IntScalar(nbins_t, "nbins");
  if (!nbins.ok()) return nbins.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("dtype", DataType::kInt32);
  if (!dtype.ok()) return dtype.status();
  if (*dtype != DataType::kInt32 && *dtype != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype must be int32 or int64, got ", DataTypeName(*dtype)));
  }
  auto run = [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    const T lo = range.data<T>()[0], hi = range.data<T>()[1];
    if (!(lo < hi)) {
      return absl::InvalidArgumentError(
          absl::StrCat("value_range should satisfy value_range[0] < value_range[1], but got '[", lo,
                       ", ", hi, "]'"));
    }
    if (*nbins <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("nbins should be a positive number, but got '", *nbins, "'"));
    }
    absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, {*nbins});
    if (!out.ok()) return out.status();
    const double step = static_cast<double>(hi - lo) / static_cast<double>(*nbins);
    const double last = static_cast<double>(*nbins - 1);
    for (int64_t i = 0; i < values.num_elements(); ++i) {
      const T v = std::max(values.data<T>()[i], lo);
      const auto bin = static_cast<int32_t>(std::min(static_cast<double>(v - lo) / step, last));
      if (*dtype == DataType::kInt32) {
        ++(*out)->data<int32_t>()[bin];
      } else {
        ++(*out)->data<int64_t>()[bin];
      }
    }
    return absl::OkStatus();
  };
  switch (values.dtype()) {
    case DataType::kFloat:
      return run(misc::Tag<float>{});
    case DataType::kDouble:
      return run(misc::Tag<double>{});
    case DataType::kInt32:
      return run(misc::Tag<int32_t>{});
    case DataType::kInt64:
      return run(misc::Tag<int64_t>{});
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("HistogramFixedWidth does not support ", DataTypeName(values.dtype())));
}

// ---------------------------------------------------------------------------
// FractionalMaxPool / FractionalAvgPool: pooling regions along rows and
// columns drawn from Philox(seed, seed2) as TensorFlow draws them (rows'
// sequence from the first block, columns' after the blocks it reserved),
// so that with deterministic=true and a seed the regions and results are
// TensorFlow's. Without seeds TensorFlow draws random ones, and so does smrt.

// TensorFlow's GeneratePoolingSequence: the cumulative region starts, from
// `gen`, which it advances past the blocks it reserves.
std::vector<int64_t> PoolingSequence(int64_t in, int64_t out, bool pseudo_random,
                                     random::Philox* gen) {
  std::vector<int64_t> diff(static_cast<size_t>(out), in / out);
  if (pseudo_random) {
    const double alpha = static_cast<double>(in) / static_cast<double>(out);
    const int64_t k = in / out;
    const double u_max1 = static_cast<double>(k + 2) / alpha - 1;
    const double u_max2 = static_cast<double>(in + 1 - k) / alpha - static_cast<double>(out - 1);
    random::Philox local = *gen;
    gen->Skip(1);  // two 32-bit samples
    random::SingleSample single(&local);
    const uint32_t hi = single();
    const uint32_t lo = single();
    const double u = random::Uint64ToDouble(hi, lo) * std::min(u_max1, u_max2);
    std::vector<int64_t> cum(static_cast<size_t>(out) + 1);
    cum[0] = 1;
    cum[out] = in + 1;
    for (int64_t i = 1; i < out; ++i) {
      cum[i] = static_cast<int>(std::ceil(alpha * (static_cast<double>(i) + u)));
    }
    for (int64_t i = 0; i < out; ++i) diff[i] = cum[i + 1] - cum[i];
  } else {
    for (int64_t i = 0; i < in % out; ++i) ++diff[i];
    random::Philox local = *gen;
    gen->Skip((static_cast<uint64_t>(out) + 3) / 4);
    random::SingleSample single(&local);
    for (int64_t i = 0; i + 1 < out; ++i) {
      const auto n = static_cast<uint32_t>(out - i);
      std::swap(diff[i], diff[i + single() % n]);
    }
  }
  std::vector<int64_t> cum(static_cast<size_t>(out) + 1, 0);
  for (int64_t i = 1; i <= out; ++i) cum[i] = cum[i - 1] + diff[i - 1];
  return cum;
}

absl::Status ComputeFractionalPool(KernelContext& ctx) {
  const bool max = ctx.op() == "FractionalMaxPool";
  absl::StatusOr<std::vector<float>> ratio = ctx.attrs().Get<std::vector<float>>("pooling_ratio");
  if (!ratio.ok()) return ratio.status();
  if (ratio->size() != 4) {
    return absl::InvalidArgumentError("pooling_ratio field must specify 4 dimensions");
  }
  for (float r : *ratio) {
    if (!(r >= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("pooling_ratio cannot be smaller than 1, got: ", r));
    }
  }
  if ((*ratio)[0] != 1 || (*ratio)[3] != 1) {
    return absl::UnimplementedError(
        absl::StrCat("Fractional ", max ? "max" : "average",
                     " pooling is not yet supported on the batch nor channel dimension."));
  }
  bool flags[3];
  const char* names[3] = {"pseudo_random", "overlapping", "deterministic"};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<bool> v = ctx.attrs().GetOr<bool>(names[i], false);
    if (!v.ok()) return v.status();
    flags[i] = *v;
  }
  const bool pseudo_random = flags[0], overlapping = flags[1], deterministic = flags[2];
  absl::StatusOr<int64_t> seed = ctx.attrs().GetOr<int64_t>("seed", 0);
  if (!seed.ok()) return seed.status();
  absl::StatusOr<int64_t> seed2 = ctx.attrs().GetOr<int64_t>("seed2", 0);
  if (!seed2.ok()) return seed2.status();
  if (!deterministic && (*seed != 0 || *seed2 != 0)) {
    return absl::InvalidArgumentError("Both seed and seed2 should be 0 if deterministic is false.");
  }
  const Tensor& in = ctx.input(0);
  if (in.rank() != 4) return absl::InvalidArgumentError("tensor_in must be 4-dimensional");
  Shape out_dims(4);
  for (int d = 0; d < 4; ++d) {
    if ((*ratio)[d] > static_cast<float>(in.dim(d))) {
      return absl::InvalidArgumentError(
          absl::StrCat("Pooling ratio is higher than input dimension size for dimension ", d,
                       ". Input dim size: ", in.dim(d), " pooling ratio: ", (*ratio)[d]));
    }
    out_dims[d] = static_cast<int>(std::floor(static_cast<float>(in.dim(d)) / (*ratio)[d]));
  }
  uint64_t s = static_cast<uint64_t>(*seed), s2 = static_cast<uint64_t>(*seed2);
  if (s == 0 && s2 == 0) {
    std::random_device device;
    s = (uint64_t{device()} << 32) | device();
    s2 = (uint64_t{device()} << 32) | device();
  }
  random::Philox gen(s, s2);
  const std::vector<int64_t> rows = PoolingSequence(in.dim(1), out_dims[1], pseudo_random, &gen);
  const std::vector<int64_t> cols = PoolingSequence(in.dim(2), out_dims[2], pseudo_random, &gen);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), out_dims);
  if (!out.ok()) return out.status();
  for (int k = 1; k <= 2; ++k) {
    const std::vector<int64_t>& seq = k == 1 ? rows : cols;
    absl::StatusOr<Tensor*> t =
        ctx.allocate_output(k, DataType::kInt64, {static_cast<int64_t>(seq.size())});
    if (!t.ok()) return t.status();
    std::copy(seq.begin(), seq.end(), (*t)->data<int64_t>());
  }
  const int64_t height = in.dim(1), width = in.dim(2), depth = in.dim(3);
  Tensor* result = *out;
  auto run = [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    T* o = result->data<T>();
    std::vector<T> count(static_cast<size_t>(depth));
    for (int64_t b = 0; b < in.dim(0); ++b) {
      for (int64_t hs = 0; hs < out_dims[1]; ++hs) {
        const int64_t h_end = std::min(overlapping ? rows[hs + 1] : rows[hs + 1] - 1, height - 1);
        for (int64_t ws = 0; ws < out_dims[2]; ++ws, o += depth) {
          const int64_t w_end = std::min(overlapping ? cols[ws + 1] : cols[ws + 1] - 1, width - 1);
          std::fill_n(o, depth, max ? Eigen::NumTraits<T>::lowest() : T(0));
          T n = T(0);
          for (int64_t h = rows[hs]; h <= h_end; ++h) {
            for (int64_t w = cols[ws]; w <= w_end; ++w) {
              const T* x = in.data<T>() + ((b * height + h) * width + w) * depth;
              for (int64_t d = 0; d < depth; ++d) {
                o[d] = max ? std::max(o[d], x[d]) : o[d] + x[d];
              }
              n += T(1);
            }
          }
          if (!max) {
            for (int64_t d = 0; d < depth; ++d) o[d] /= n;
          }
        }
      }
    }
    return absl::OkStatus();
  };
  switch (in.dtype()) {
    case DataType::kFloat:
      return run(misc::Tag<float>{});
    case DataType::kDouble:
      return run(misc::Tag<double>{});
    case DataType::kInt32:
      return run(misc::Tag<int32_t>{});
    case DataType::kInt64:
      return run(misc::Tag<int64_t>{});
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat(ctx.op(), " does not support tensors of type ", DataTypeName(in.dtype())));
}

}  // namespace

void RegisterPatchOps(KernelRegistry& r) {
  const std::vector<DataType> ints = {DataType::kInt32, DataType::kInt64};
  r.AddKernel({"DataFormatDimMap", kCpu, "T", ints, ComputeDimMap});
  r.AddKernel({"DataFormatVecPermute", kCpu, "T", ints, ComputeVecPermute});
  r.AddKernel(
      {"LRN", kCpu, "T", {DataType::kFloat, DataType::kHalf, DataType::kBFloat16}, ComputeLrn});
  std::vector<DataType> patch_types = misc::RealTypes();
  r.AddKernel({"ExtractVolumePatches", kCpu, "T", patch_types, ComputePatches});
  patch_types.push_back(DataType::kComplex64);
  patch_types.push_back(DataType::kComplex128);
  r.AddKernel({"ExtractImagePatches", kCpu, "T", patch_types, ComputePatches});
  r.AddKernel({"Dilation2D", kCpu, "T", misc::RealTypes(), ComputeDilation});
  r.AddKernel({"MaxPoolWithArgmax", kCpu, "T", misc::RealTypes(), ComputeMaxPoolWithArgmax});
  for (const char* op : {"FractionalMaxPool", "FractionalAvgPool"}) {
    r.AddKernel({op,
                 kCpu,
                 "T",
                 {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64},
                 ComputeFractionalPool});
  }
  r.AddKernel({"HistogramFixedWidth",
               kCpu,
               "T",
               {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64},
               ComputeHistogram});
}

}  // namespace smrt::kernels
