// StringToHashBucketStrong, StringToHashBucket, StringNGrams and EditDistance as TensorFlow
// computes them:
// - StringToHashBucketStrong: SipHash-2-4 keyed by the two 64-bit words of attr key
//   (TensorFlow's StrongKeyedHash, highwayhash's SipHash), modulo num_buckets;
// - StringToHashBucket: TensorFlow's Hash64 (a MurmurHash64A variant with seed
//   0xDECAFCAFFE), modulo num_buckets;
// - StringNGrams: string_ngrams_op.cc's n-grams per row of a ragged batch, padded with
//   left_pad / right_pad up to pad_width (-1: width - 1) on each side, joined by separator,
//   one n-gram of the whole padded row for rows too short when preserve_short_sequences;
// - EditDistance: Levenshtein distances between the rows of two sparse tensors grouped by
//   their leading coordinates, optionally divided by the truth's length (a row missing from
//   the truth gives inf, from the hypothesis 1), as edit_distance_op.cc;
// - StringFormat: the template with each placeholder replaced by the summary TensorFlow's
//   Tensor::SummarizeValue(summarize, print_v2=true) prints (kernels/shared/tensor_summary.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/registry.h"
#include "kernels/shared/tensor_summary.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

uint64_t Load64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

// SipHash-2-4 of `s` under the key (k0, k1).
uint64_t SipHash(uint64_t k0, uint64_t k1, const std::string& s) {
  uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
  uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
  uint64_t v3 = k1 ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1;
    v1 = Rotl(v1, 13) ^ v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16) ^ v2;
    v0 += v3;
    v3 = Rotl(v3, 21) ^ v0;
    v2 += v1;
    v1 = Rotl(v1, 17) ^ v2;
    v2 = Rotl(v2, 32);
  };
  const size_t n = s.size();
  const size_t whole = n - n % 8;
  for (size_t i = 0; i < whole; i += 8) {
    const uint64_t m = Load64(s.data() + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(n & 0xff) << 56;
  for (size_t i = whole; i < n; ++i) {
    last |= static_cast<uint64_t>(static_cast<unsigned char>(s[i])) << (8 * (i - whole));
  }
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// TensorFlow's Hash64(s) (core/lib/hash/hash.cc).
uint64_t TfHash64(const std::string& s) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0xDECAFCAFFEULL ^ (n * m);
  while (n >= 8) {
    uint64_t k = Load64(p);
    p += 8;
    n -= 8;
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;)
      h ^= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

absl::Status ComputeHash(KernelContext& ctx, bool strong) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " takes strings, got ", DataTypeName(in.dtype())));
  }
  absl::StatusOr<int64_t> buckets = ctx.attrs().GetOr<int64_t>("num_buckets", 0);
  if (!buckets.ok()) return buckets.status();
  if (*buckets < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Value for attr 'num_buckets' of ", *buckets, " must be at least minimum 1"));
  }
  uint64_t key[2] = {0, 0};
  if (strong) {
    absl::StatusOr<std::vector<int64_t>> k = ctx.attrs().GetOr<std::vector<int64_t>>("key", {});
    if (!k.ok()) return k.status();
    if (k->size() != 2) return absl::InvalidArgumentError("Key must have 2 elements");
    key[0] = static_cast<uint64_t>((*k)[0]);
    key[1] = static_cast<uint64_t>((*k)[1]);
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, DataType::kInt64, in.shape());
  if (!out.ok()) return out.status();
  const uint64_t n = static_cast<uint64_t>(*buckets);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const std::string& s = in.data<std::string>()[i];
    const uint64_t h = strong ? SipHash(key[0], key[1], s) : TfHash64(s);
    (*out)->data<int64_t>()[i] = static_cast<int64_t>(h % n);
  }
  return absl::OkStatus();
}

struct NGramAttrs {
  std::string separator;
  std::string left_pad;
  std::string right_pad;
  int64_t pad_width = 0;
  bool preserve_short = false;
  std::vector<int64_t> widths;

  int64_t Pad(int64_t width) const {
    return std::min(pad_width < 0 ? width - 1 : pad_width, width - 1);
  }
  int64_t Count(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * Pad(width) - width + 1);
  }
};

// `count` n-grams of `width` over tokens[0..], padded as TensorFlow's CreateNgrams.
void MakeNGrams(const NGramAttrs& a, const std::string* tokens, std::string* out, int64_t count,
                int64_t width) {
  const int64_t pad = a.Pad(width);
  for (int64_t g = 0; g < count; ++g) {
    const int64_t left = std::max<int64_t>(0, pad - g);
    const int64_t right = std::max<int64_t>(0, pad - (count - (g + 1)));
    const int64_t n = width - (left + right);
    const int64_t first = left > 0 ? 0 : g - pad;
    std::string& s = out[g];
    for (int64_t k = 0; k < left; ++k) {
      s += a.left_pad;
      s += a.separator;
    }
    for (int64_t k = 0; k + 1 < n; ++k) {
      s += tokens[first + k];
      s += a.separator;
    }
    if (n > 0) {
      s += tokens[first + n - 1];
      for (int64_t k = 0; k < right; ++k) {
        s += a.separator;
        s += a.right_pad;
      }
    } else {
      for (int64_t k = 0; k + 1 < right; ++k) {
        s += a.right_pad;
        s += a.separator;
      }
      s += a.right_pad;
    }
  }
}

template <typename S>
absl::Status NGrams(KernelContext& ctx, const NGramAttrs& a) {
  const Tensor& data = ctx.input(0);
  const Tensor& splits_t = ctx.input(1);
  const S* splits = splits_t.data<S>();
  const int64_t size = data.num_elements();
  const int64_t nsplits = splits_t.num_elements();
  if (nsplits > 0) {
    if (splits[0] != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("First split value must be 0, got ", splits[0]));
    }
    for (int64_t i = 1; i < nsplits; ++i) {
      if (splits[i] < splits[i - 1] || splits[i] > size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid split value ", splits[i], ", must be in [", splits[i - 1], ", ", size, "]"));
      }
    }
    if (splits[nsplits - 1] != size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Last split value must be data size. Expected ", size, ", got ", splits[nsplits - 1]));
    }
  }
  const int64_t rows = nsplits - 1;
  absl::StatusOr<Tensor*> out_splits = ctx.allocate_output(1, splits_t.dtype(), splits_t.shape());
  if (!out_splits.ok()) return out_splits.status();
  S* osplits = (*out_splits)->data<S>();
  if (size == 0 || nsplits == 0) {
    absl::StatusOr<Tensor*> empty = ctx.allocate_output(0, DataType::kString, data.shape());
    return empty.ok() ? absl::OkStatus() : empty.status();
  }
  osplits[0] = 0;
  for (int64_t i = 1; i <= rows; ++i) {
    const int64_t length = splits[i] - splits[i - 1];
    int64_t count = 0;
    for (int64_t w : a.widths) count += a.Count(length, w);
    if (a.preserve_short && length > 0 && count == 0) count = 1;
    osplits[i] = static_cast<S>(osplits[i - 1] + count);
  }
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, DataType::kString, {static_cast<int64_t>(osplits[rows])});
  if (!out.ok()) return out.status();
  std::string* grams = (*out)->data<std::string>();
  const std::string* tokens = data.data<std::string>();
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t length = splits[i + 1] - splits[i];
    int64_t at = osplits[i];
    for (int64_t w : a.widths) {
      const int64_t count = a.Count(length, w);
      MakeNGrams(a, tokens + splits[i], grams + at, count, w);
      at += count;
    }
    if (a.preserve_short && at == osplits[i] && length > 0) {
      if (a.pad_width < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Pad width should be >= 0 when preserve_short_sequences is True and ngram_widths "
            "are not provided, got ",
            a.pad_width));
      }
      MakeNGrams(a, tokens + splits[i], grams + at, 1, length + 2 * a.pad_width);
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeNGrams(KernelContext& ctx) {
  NGramAttrs a;
  const AttrMap& m = ctx.attrs();
  for (auto [name, field] : {std::pair<const char*, std::string*>{"separator", &a.separator},
                             {"left_pad", &a.left_pad},
                             {"right_pad", &a.right_pad}}) {
    absl::StatusOr<std::string> v = m.GetOr<std::string>(name, "");
    if (!v.ok()) return v.status();
    *field = *v;
  }
  absl::StatusOr<int64_t> pad = m.GetOr<int64_t>("pad_width", 0);
  if (!pad.ok()) return pad.status();
  a.pad_width = *pad;
  absl::StatusOr<bool> preserve = m.GetOr<bool>("preserve_short_sequences", false);
  if (!preserve.ok()) return preserve.status();
  a.preserve_short = *preserve;
  absl::StatusOr<std::vector<int64_t>> widths = m.GetOr<std::vector<int64_t>>("ngram_widths", {});
  if (!widths.ok()) return widths.status();
  a.widths = *widths;
  for (int64_t w : a.widths) {
    if (w <= 0) return absl::InvalidArgumentError("ngram_widths must contain positive values");
  }
  const Tensor& data = ctx.input(0);
  const Tensor& splits = ctx.input(1);
  if (data.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("StringNGrams takes strings, got ", DataTypeName(data.dtype())));
  }
  if (splits.dtype() == DataType::kInt32) return NGrams<int32_t>(ctx, a);
  if (splits.dtype() == DataType::kInt64) return NGrams<int64_t>(ctx, a);
  return absl::InvalidArgumentError(
      absl::StrCat("data_splits must be int32 or int64, got ", DataTypeName(splits.dtype())));
}

// ---- EditDistance ----

absl::Status CheckEditShapes(const Tensor& hi, const Tensor& hv, const Tensor& hs, const Tensor& ti,
                             const Tensor& tv, const Tensor& ts) {
  using ops::TfShapeText;
  for (const auto& [t, name] :
       {std::pair<const Tensor*, const char*>{&hi, "hypothesis_indices"}, {&ti, "truth_indices"}}) {
    if (t->rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " should be a matrix, but got shape: ", TfShapeText(t->shape())));
    }
  }
  for (const auto& [t, name] : {std::pair<const Tensor*, const char*>{&hv, "hypothesis_values"},
                                {&tv, "truth_values"},
                                {&hs, "hypothesis_shape"},
                                {&ts, "truth_shape"}}) {
    if (t->rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " should be a vector, but got shape: ", TfShapeText(t->shape())));
    }
  }
  if (hv.num_elements() != hi.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected hypothesis_values.NumElements == #rows(hypothesis_indices), their shapes are: ",
        TfShapeText(hv.shape()), " and ", TfShapeText(hi.shape())));
  }
  if (hs.num_elements() != hi.dim(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their shapes are: ",
        TfShapeText(hs.shape()), " and ", TfShapeText(hi.shape())));
  }
  if (ts.num_elements() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input SparseTensors must have rank at least 2, but truth_shape rank is: ",
                     ts.num_elements()));
  }
  if (tv.num_elements() != ti.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected truth_values.NumElements == #rows(truth_indices), their shapes are: ",
        TfShapeText(tv.shape()), " and ", TfShapeText(ti.shape())));
  }
  if (ts.num_elements() != ti.dim(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected truth_shape.NumElements == #cols(truth_indices), their shapes are: ",
                     TfShapeText(ts.shape()), " and ", TfShapeText(ti.shape())));
  }
  if (ts.num_elements() != hs.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected truth and hypothesis to have matching ranks, but their shapes are: ",
                     TfShapeText(ts.shape()), " and ", TfShapeText(hs.shape())));
  }
  if (hi.dtype() != DataType::kInt64 || ti.dtype() != DataType::kInt64 ||
      hs.dtype() != DataType::kInt64 || ts.dtype() != DataType::kInt64) {
    return absl::InvalidArgumentError("EditDistance takes int64 indices and shapes");
  }
  if (hv.dtype() != tv.dtype()) {
    return absl::InvalidArgumentError("hypothesis_values and truth_values must have one dtype");
  }
  return absl::OkStatus();
}

// Runs of entries with the same leading (rank - 1) coordinates, in the order given (TensorFlow
// assumes row-major sorted indices and groups consecutive entries alike).
struct Run {
  std::vector<int64_t> group;
  int64_t begin;
  int64_t end;
};

std::vector<Run> Runs(const Tensor& indices) {
  std::vector<Run> runs;
  const int64_t n = indices.dim(0);
  const int64_t rank = indices.dim(1);
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> g(idx + i * rank, idx + i * rank + rank - 1);
    if (runs.empty() || runs.back().group != g) {
      runs.push_back({std::move(g), i, i + 1});
    } else {
      runs.back().end = i + 1;
    }
  }
  return runs;
}

// Elements i of a and j of b are equal (floats as numbers: -0 == 0, NaN != NaN).
bool SameValue(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  switch (a.dtype()) {
    case DataType::kString:
      return a.data<std::string>()[i] == b.data<std::string>()[j];
    case DataType::kFloat:
      return a.data<float>()[i] == b.data<float>()[j];
    case DataType::kDouble:
      return a.data<double>()[i] == b.data<double>()[j];
    default: {
      const size_t w = a.byte_size() / static_cast<size_t>(std::max<int64_t>(1, a.num_elements()));
      return std::memcmp(static_cast<const char*>(a.raw_data()) + i * w,
                         static_cast<const char*>(b.raw_data()) + j * w, w) == 0;
    }
  }
}

// Levenshtein distance of truth[t0, t1) and hypothesis[h0, h1).
int64_t Levenshtein(const Tensor& tv, int64_t t0, int64_t t1, const Tensor& hv, int64_t h0,
                    int64_t h1) {
  const int64_t n = t1 - t0;
  const int64_t m = h1 - h0;
  if (n == 0) return m;
  if (m == 0) return n;
  std::vector<int64_t> row(static_cast<size_t>(m + 1));
  for (int64_t j = 0; j <= m; ++j) row[j] = j;
  for (int64_t i = 1; i <= n; ++i) {
    int64_t diagonal = row[0];
    row[0] = i;
    for (int64_t j = 1; j <= m; ++j) {
      const int64_t up = row[j];
      const int64_t cost = SameValue(tv, t0 + i - 1, hv, h0 + j - 1) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = up;
    }
  }
  return row[m];
}

absl::Status ComputeEditDistance(KernelContext& ctx) {
  const Tensor& hi = ctx.input(0);
  const Tensor& hv = ctx.input(1);
  const Tensor& hs = ctx.input(2);
  const Tensor& ti = ctx.input(3);
  const Tensor& tv = ctx.input(4);
  const Tensor& ts = ctx.input(5);
  if (absl::Status s = CheckEditShapes(hi, hv, hs, ti, tv, ts); !s.ok()) return s;
  absl::StatusOr<bool> normalize = ctx.attrs().GetOr<bool>("normalize", true);
  if (!normalize.ok()) return normalize.status();
  const int64_t dims = ts.num_elements() - 1;
  Shape shape(static_cast<size_t>(dims));
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t a = hs.data<int64_t>()[d];
    const int64_t b = ts.data<int64_t>()[d];
    if (a < 0 || b < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", d, " of the sparse shapes is negative: ", a, " and ", b));
    }
    shape[d] = std::max(a, b);
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kFloat, shape);
  if (!out.ok()) return out.status();
  float* y = (*out)->data<float>();
  const int64_t size = (*out)->num_elements();
  std::vector<int64_t> strides(static_cast<size_t>(dims), 1);
  for (int64_t d = dims - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  auto place = [&](const std::vector<int64_t>& g) -> absl::StatusOr<int64_t> {
    int64_t at = 0;
    for (int64_t d = 0; d < dims; ++d) at += g[d] * strides[d];
    if (at < 0 || at >= size) {
      return absl::InternalError(absl::StrCat(
          "Got an inner product ", at,
          " which would require writing to outside of the buffer for the output tensor (max "
          "elements ",
          size, ")"));
    }
    return at;
  };
  const std::vector<Run> hyp = Runs(hi);
  const std::vector<Run> truth = Runs(ti);
  size_t h = 0;
  size_t t = 0;
  while (h < hyp.size() || t < truth.size()) {
    const bool both = h < hyp.size() && t < truth.size();
    if (both && hyp[h].group == truth[t].group) {
      absl::StatusOr<int64_t> at = place(truth[t].group);
      if (!at.ok()) return at.status();
      const float d = static_cast<float>(
          Levenshtein(tv, truth[t].begin, truth[t].end, hv, hyp[h].begin, hyp[h].end));
      y[*at] = *normalize ? d / static_cast<float>(truth[t].end - truth[t].begin) : d;
      ++h;
      ++t;
    } else if (t >= truth.size() || (both && truth[t].group > hyp[h].group)) {
      absl::StatusOr<int64_t> at = place(hyp[h].group);  // no truth here
      if (!at.ok()) return at.status();
      const float len = static_cast<float>(hyp[h].end - hyp[h].begin);
      y[*at] = *normalize ? len / 0.0f : len;
      ++h;
    } else {
      absl::StatusOr<int64_t> at = place(truth[t].group);  // no hypothesis here
      if (!at.ok()) return at.status();
      y[*at] = *normalize ? 1.0f : static_cast<float>(truth[t].end - truth[t].begin);
      ++t;
    }
  }
  return absl::OkStatus();
}

// ---- StringFormat ----

absl::Status ComputeStringFormat(KernelContext& ctx) {
  absl::StatusOr<std::string> format = ctx.attrs().GetOr<std::string>("template", "%s");
  if (!format.ok()) return format.status();
  absl::StatusOr<std::string> placeholder = ctx.attrs().GetOr<std::string>("placeholder", "%s");
  if (!placeholder.ok()) return placeholder.status();
  absl::StatusOr<int64_t> summarize = ctx.attrs().GetOr<int64_t>("summarize", 3);
  if (!summarize.ok()) return summarize.status();
  // absl::StrSplit as TensorFlow splits; each piece up to its first NUL (TensorFlow appends
  // them with c_str()).
  std::vector<std::string> pieces = absl::StrSplit(*format, *placeholder);
  for (std::string& p : pieces) p = std::string(p.c_str());
  const int64_t holes = static_cast<int64_t>(pieces.size()) - 1;
  if (holes != ctx.num_inputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("num placeholders in template and num inputs must match: ", holes, " vs. ",
                     ctx.num_inputs()));
  }
  std::string out = pieces[0];
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    out += SummarizeValue(ctx.input(i), *summarize, /*print_v2=*/true);
    out += pieces[i + 1];
  }
  absl::StatusOr<Tensor*> y = ctx.allocate_output(0, DataType::kString, {});
  if (!y.ok()) return y.status();
  (*y)->data<std::string>()[0] = std::move(out);
  return absl::OkStatus();
}

}  // namespace

void RegisterTextOps(KernelRegistry& r) {
  r.AddKernel({"StringFormat", kCpu, "", {}, ComputeStringFormat});
  r.AddKernel({"EditDistance", kCpu, "", {}, ComputeEditDistance});
  r.AddKernel({"StringToHashBucketStrong", kCpu, "", {}, [](KernelContext& ctx) {
                 return ComputeHash(ctx, /*strong=*/true);
               }});
  r.AddKernel({"StringToHashBucket", kCpu, "", {}, [](KernelContext& ctx) {
                 return ComputeHash(ctx, /*strong=*/false);
               }});
  r.AddKernel({"StringNGrams", kCpu, "", {}, ComputeNGrams});
}

}  // namespace smrt::kernels
