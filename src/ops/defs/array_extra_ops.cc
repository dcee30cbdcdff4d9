// Array, index and image-geometry ops of older and rarer graphs: TopK (V1),
// Reverse (V1), Roll, LinSpace, InTopK{,V2}, Diag, DiagPart,
// InvertPermutation, UnravelIndex, LowerBound, UpperBound, NthElement, Cross,
// Empty, GuaranteeConst, BiasAddV1, DataFormatDimMap, DataFormatVecPermute,
// LRN, ExtractImagePatches, ExtractVolumePatches, Dilation2D,
// MaxPoolWithArgmax, HistogramFixedWidth, FractionalMaxPool, FractionalAvgPool,
// Inplace{Add,Sub,Update},
// ParallelConcat, TensorStridedSliceUpdate and Fingerprint.
//
// Shape inference here only derives what follows from well-formed inputs and
// otherwise leaves dims unknown: the kernels check their inputs and refuse
// them with TensorFlow's messages.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/array_shapes.h"
#include "ops/conv_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

using Attrs = std::vector<std::pair<std::string, AttrValue>>;

NumOutputsFn Outputs(int n) {
  return [n](const AttrMap&, int) -> absl::StatusOr<int> { return n; };
}

void SetOutput(InferenceContext& ctx, int i, DataType dtype, PartialShape shape) {
  ctx.set_output(i, ValueInfo{dtype, std::move(shape)});
}

// Output 0: input 0's dims with the last replaced by `last` (-1 unknown);
// dropped when `last` is nullopt.
PartialShape ReplaceLast(const PartialShape& in, std::optional<int64_t> last) {
  if (!in.known_rank || in.rank() < 1) return PartialShape::Unknown();
  PartialShape out = in;
  if (last.has_value()) {
    out.dims.back() = *last;
  } else {
    out.dims.pop_back();
  }
  return out;
}

absl::Status InferTopK(InferenceContext& ctx) {
  absl::StatusOr<int64_t> k = ctx.attrs().Get<int64_t>("k");
  if (!k.ok()) return k.status();
  const PartialShape out = ReplaceLast(ctx.input(0).shape, *k);
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), out);
  SetOutput(ctx, 1, DataType::kInt32, out);
  return absl::OkStatus();
}

absl::Status InferLinSpace(InferenceContext& ctx) {
  int64_t num = -1;
  if (std::optional<std::vector<int64_t>> n = KnownInts(ctx, 2); n.has_value() && n->size() == 1) {
    num = (*n)[0];
  }
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), PartialShape::Known({num}));
  return absl::OkStatus();
}

absl::Status InferInTopK(InferenceContext& ctx) {
  const PartialShape& p = ctx.input(0).shape;
  SetOutput(ctx, 0, DataType::kBool,
            PartialShape::Known({p.known_rank && p.rank() == 2 ? p.dims[0] : -1}));
  return absl::OkStatus();
}

absl::Status InferDiag(InferenceContext& ctx) {
  PartialShape in = ctx.input(0).shape;
  if (in.known_rank) in.dims.insert(in.dims.end(), in.dims.begin(), in.dims.end());
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), in);
  return absl::OkStatus();
}

absl::Status InferDiagPart(InferenceContext& ctx) {
  PartialShape in = ctx.input(0).shape;
  if (in.known_rank && in.rank() % 2 == 0) {
    in.dims.resize(in.dims.size() / 2);
  } else {
    in = PartialShape::Unknown();
  }
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), in);
  return absl::OkStatus();
}

absl::Status InferUnravelIndex(InferenceContext& ctx) {
  const PartialShape& indices = ctx.input(0).shape;
  const int64_t ndims = KnownVectorLength(ctx, 1);
  PartialShape out = PartialShape::Unknown();
  if (indices.known_rank && indices.rank() == 0) out = PartialShape::Known({ndims});
  if (indices.known_rank && indices.rank() == 1)
    out = PartialShape::Known({ndims, indices.dims[0]});
  SetOutput(ctx, 0, InputDType(ctx, 0, "Tidx"), out);
  return absl::OkStatus();
}

absl::Status InferBound(InferenceContext& ctx) {
  absl::StatusOr<DataType> out_type = ctx.attrs().Get<DataType>("out_type");
  if (!out_type.ok()) return out_type.status();
  SetOutput(ctx, 0, *out_type, ctx.input(1).shape);
  return absl::OkStatus();
}

absl::Status InferNthElement(InferenceContext& ctx) {
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), ReplaceLast(ctx.input(0).shape, std::nullopt));
  return absl::OkStatus();
}

absl::Status InferEmpty(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  const int64_t rank = KnownVectorLength(ctx, 0);
  PartialShape out = rank < 0 ? PartialShape::Unknown() : UnknownDims(static_cast<int>(rank));
  if (std::optional<std::vector<int64_t>> dims = KnownInts(ctx, 0); dims.has_value()) {
    bool valid = true;
    for (int64_t d : *dims) valid = valid && d >= 0;
    if (valid && ctx.input(0).shape.rank() == 1) out = PartialShape::Known(*dims);
  }
  SetOutput(ctx, 0, *dtype, out);
  return absl::OkStatus();
}

// Output 0 is input 0 as it is (dtype and shape).
absl::Status Unchanged(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

// The spatial output size of a window op for input dim `in` (-1 unknown).
int64_t WindowOut(int64_t in, int64_t k, int64_t rate, int64_t stride, Padding padding) {
  absl::StatusOr<int64_t> out = InferWindowedOutputSize(in, k, rate, stride, padding);
  return out.ok() ? *out : -1;
}

// ExtractImagePatches (rank 4) and ExtractVolumePatches (rank 5): the batch,
// the output's spatial dims, then the product of the window and depth.
absl::Status InferPatches(InferenceContext& ctx, int rank) {
  const PartialShape& in = ctx.input(0).shape;
  absl::StatusOr<std::vector<int64_t>> ks = ctx.attrs().Get<std::vector<int64_t>>("ksizes");
  absl::StatusOr<std::vector<int64_t>> st = ctx.attrs().Get<std::vector<int64_t>>("strides");
  absl::StatusOr<Padding> padding = ParsePadding(ctx.attrs(), /*allow_explicit=*/false);
  std::vector<int64_t> rates(static_cast<size_t>(rank), 1);
  if (ctx.attrs().Has("rates")) {
    absl::StatusOr<std::vector<int64_t>> r = ctx.attrs().Get<std::vector<int64_t>>("rates");
    if (r.ok()) rates = *r;
  }
  const auto n = static_cast<size_t>(rank);
  if (!in.known_rank || in.rank() != rank || !ks.ok() || !st.ok() || !padding.ok() ||
      ks->size() != n || st->size() != n || rates.size() != n) {
    SetOutput(ctx, 0, InputDType(ctx, 0, "T"), PartialShape::Unknown());
    return absl::OkStatus();
  }
  Shape dims = {in.dims[0]};
  int64_t window = 1;
  for (int d = 1; d + 1 < rank; ++d) {
    dims.push_back(WindowOut(in.dims[d], (*ks)[d], rates[d], (*st)[d], *padding));
    window *= (*ks)[d];
  }
  dims.push_back(in.dims.back() < 0 ? -1 : window * in.dims.back());
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

// Dilation2D and MaxPoolWithArgmax: [batch, out_rows, out_cols, depth].
absl::Status InferWindow4(InferenceContext& ctx, const char* window_attr, int outputs) {
  const PartialShape& in = ctx.input(0).shape;
  std::vector<int64_t> window(4, -1), rates(4, 1);
  absl::StatusOr<std::vector<int64_t>> st = ctx.attrs().Get<std::vector<int64_t>>("strides");
  absl::StatusOr<Padding> padding = ParsePadding(ctx.attrs(), /*allow_explicit=*/false);
  if (window_attr != nullptr) {
    absl::StatusOr<std::vector<int64_t>> w = ctx.attrs().Get<std::vector<int64_t>>(window_attr);
    if (w.ok()) window = *w;
  } else {
    const PartialShape& f = ctx.input(1).shape;
    if (f.known_rank && f.rank() == 3) window = {1, f.dims[0], f.dims[1], 1};
    absl::StatusOr<std::vector<int64_t>> r = ctx.attrs().Get<std::vector<int64_t>>("rates");
    if (r.ok()) rates = *r;
  }
  PartialShape out = UnknownDims(4);
  if (in.known_rank && in.rank() == 4 && st.ok() && padding.ok() && st->size() == 4 &&
      window.size() == 4 && rates.size() == 4) {
    out = PartialShape::Known(
        {in.dims[0], WindowOut(in.dims[1], window[1], rates[1], (*st)[1], *padding),
         WindowOut(in.dims[2], window[2], rates[2], (*st)[2], *padding), in.dims[3]});
  }
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), out);
  if (outputs == 2) {
    absl::StatusOr<DataType> targmax = ctx.attrs().Get<DataType>("Targmax");
    if (!targmax.ok()) return targmax.status();
    SetOutput(ctx, 1, *targmax, out);
  }
  return absl::OkStatus();
}

absl::Status InferHistogram(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  int64_t nbins = -1;
  if (std::optional<std::vector<int64_t>> n = KnownInts(ctx, 2); n.has_value() && n->size() == 1) {
    nbins = (*n)[0] > 0 ? (*n)[0] : -1;
  }
  SetOutput(ctx, 0, *dtype, PartialShape::Known({nbins}));
  return absl::OkStatus();
}

// FractionalMaxPool / FractionalAvgPool: floor(dim / ratio) per dim, and
// the row and column sequences (one more than the output's rows and cols).
absl::Status InferFractionalPool(InferenceContext& ctx) {
  const PartialShape& in = ctx.input(0).shape;
  absl::StatusOr<std::vector<float>> ratio = ctx.attrs().Get<std::vector<float>>("pooling_ratio");
  PartialShape out = UnknownDims(4);
  if (in.known_rank && in.rank() == 4 && ratio.ok() && ratio->size() == 4) {
    for (int d = 0; d < 4; ++d) {
      out.dims[d] =
          in.dims[d] < 0 || (*ratio)[d] < 1
              ? -1
              : static_cast<int64_t>(std::floor(static_cast<float>(in.dims[d]) / (*ratio)[d]));
    }
  }
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), out);
  for (int k = 1; k <= 2; ++k) {
    SetOutput(ctx, k, DataType::kInt64,
              PartialShape::Known({out.dims[k] < 0 ? -1 : out.dims[k] + 1}));
  }
  return absl::OkStatus();
}

absl::Status InferParallelConcat(InferenceContext& ctx) {
  absl::StatusOr<PartialShape> shape = ctx.attrs().Get<PartialShape>("shape");
  if (!shape.ok()) return shape.status();
  SetOutput(ctx, 0, InputDType(ctx, 0, "T"), *shape);
  return absl::OkStatus();
}

absl::Status InferFingerprint(InferenceContext& ctx) {
  const PartialShape& in = ctx.input(0).shape;
  SetOutput(ctx, 0, DataType::kUInt8,
            PartialShape::Known({in.known_rank && in.rank() >= 1 ? in.dims[0] : -1, 8}));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayExtraOps(OpRegistry& r) {
  const Attrs nhwc_nchw = {{"src_format", std::string("NHWC")},
                           {"dst_format", std::string("NCHW")},
                           {"T", DataType::kInt32}};
  r.AddOp(ArrayOp("TopK", {{"sorted", true}}, InferTopK, Outputs(2)));
  r.AddOp(ArrayOp("Reverse", {}, Unchanged));
  r.AddOp(ArrayOp("Roll", {}, Unchanged));
  r.AddOp(ArrayOp("LinSpace", {{"Tidx", DataType::kInt32}}, InferLinSpace));
  r.AddOp(ArrayOp("InTopK", {{"T", DataType::kInt32}}, InferInTopK));
  r.AddOp(ArrayOp("InTopKV2", {{"T", DataType::kInt32}}, InferInTopK));
  r.AddOp(ArrayOp("Diag", {}, InferDiag));
  r.AddOp(ArrayOp("DiagPart", {}, InferDiagPart));
  r.AddOp(ArrayOp("InvertPermutation", {{"T", DataType::kInt32}}, Unchanged));
  r.AddOp(ArrayOp("UnravelIndex", {{"Tidx", DataType::kInt32}}, InferUnravelIndex));
  r.AddOp(ArrayOp("LowerBound", {{"out_type", DataType::kInt32}}, InferBound));
  r.AddOp(ArrayOp("UpperBound", {{"out_type", DataType::kInt32}}, InferBound));
  r.AddOp(ArrayOp("NthElement", {{"reverse", false}}, InferNthElement));
  r.AddOp(ArrayOp("Cross", {}, Unchanged));
  r.AddOp(ArrayOp("Empty", {{"init", false}}, InferEmpty));
  r.AddOp(ArrayOp("GuaranteeConst", {}, Unchanged));
  r.AddOp(ArrayOp("BiasAddV1", {}, Unchanged));
  r.AddOp(ArrayOp("DataFormatDimMap", nhwc_nchw, Unchanged));
  r.AddOp(ArrayOp("DataFormatVecPermute", nhwc_nchw, Unchanged));
  r.AddOp(ArrayOp("LRN",
                  {{"depth_radius", int64_t{5}},
                   {"bias", 1.0f},
                   {"alpha", 1.0f},
                   {"beta", 0.5f},
                   {"T", DataType::kFloat}},
                  Unchanged));
  r.AddOp(ArrayOp("ExtractImagePatches", {},
                  [](InferenceContext& ctx) { return InferPatches(ctx, 4); }));
  r.AddOp(ArrayOp("ExtractVolumePatches", {},
                  [](InferenceContext& ctx) { return InferPatches(ctx, 5); }));
  r.AddOp(ArrayOp("Dilation2D", {},
                  [](InferenceContext& ctx) { return InferWindow4(ctx, nullptr, 1); }));
  r.AddOp(ArrayOp(
      "MaxPoolWithArgmax", {{"Targmax", DataType::kInt64}, {"include_batch_in_index", false}},
      [](InferenceContext& ctx) { return InferWindow4(ctx, "ksize", 2); }, Outputs(2)));
  for (const char* op : {"FractionalMaxPool", "FractionalAvgPool"}) {
    r.AddOp(ArrayOp(op,
                    {{"pseudo_random", false},
                     {"overlapping", false},
                     {"deterministic", false},
                     {"seed", int64_t{0}},
                     {"seed2", int64_t{0}}},
                    InferFractionalPool, Outputs(3)));
  }
  r.AddOp(ArrayOp("HistogramFixedWidth", {{"dtype", DataType::kInt32}}, InferHistogram));
  for (const char* op : {"InplaceAdd", "InplaceSub", "InplaceUpdate"}) {
    r.AddOp(ArrayOp(op, {}, Unchanged));
  }
  r.AddOp(ArrayOp("ParallelConcat", {}, InferParallelConcat));
  r.AddOp(ArrayOp("TensorStridedSliceUpdate",
                  {{"begin_mask", int64_t{0}},
                   {"end_mask", int64_t{0}},
                   {"ellipsis_mask", int64_t{0}},
                   {"new_axis_mask", int64_t{0}},
                   {"shrink_axis_mask", int64_t{0}}},
                  Unchanged));
  r.AddOp(ArrayOp("Fingerprint", {}, InferFingerprint));
}

}  // namespace smrt::ops
