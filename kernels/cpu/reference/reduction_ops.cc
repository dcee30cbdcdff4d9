// Reductions (Sum, Mean, Prod, Max, Min, All, Any, EuclideanNorm) over the
// axes given by input 1, and ArgMax/ArgMin over one axis.
//
// As in TensorFlow: axes may be negative, a scalar or a vector (any rank is
// flattened), a duplicate axis is an error, an empty axis list returns the
// input unchanged, and reducing zero elements gives the reducer's identity
// (Sum 0, Prod 1, Max lowest/-inf, Min highest/+inf, All true, Any false,
// Mean NaN for floats and 0 for integers). Integer Sum/Prod wrap; integer
// Mean accumulates in 64 bits and truncates toward zero. Float sums
// accumulate in double (float16/bfloat16 in float, but a bfloat16 sum over
// rows, a global average pool, in double as float32's). Max/Min propagate
// NaN. complex64/complex128 Sum, Mean, Prod and EuclideanNorm accumulate in
// complex128.
// ArgMax/ArgMin skip NaN and break ties toward the first index.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/registry.h"
#include "kernels/shared/arg_reduce_util.h"
#include "kernels/shared/bfloat16_util.h"
#include "kernels/shared/kernel_util.h"
#include "ops/reduction_shapes.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::ComplexTypes;
using elementwise::ComputeType;
using elementwise::DataTypeFor;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::kIsFloat;
using elementwise::kIsHalfLike;
using elementwise::kIsInteger;
using elementwise::RealTypes;
using elementwise::TypeList;
using elementwise::WrapAdd;
using elementwise::WrapMul;

using ops::ReducedDims;

// The input split into runs of reduced / kept dims (size-1 dims dropped),
// with the output stride of each run (0 for reduced runs).
struct ReducePlan {
  Shape out_shape;  // with keep_dims applied
  int64_t out_size = 1;
  int64_t in_size = 1;
  int64_t count = 1;  // input elements per output element
  Shape dims;
  std::vector<bool> dim_reduced;
  std::vector<int64_t> out_strides;
};

ReducePlan MakeReducePlan(const Shape& in, const std::vector<bool>& reduced, bool keep_dims) {
  ReducePlan p;
  for (size_t d = 0; d < in.size(); ++d) {
    p.in_size *= in[d];
    if (reduced[d]) {
      p.count *= in[d];
      if (keep_dims) p.out_shape.push_back(1);
    } else {
      p.out_size *= in[d];
      p.out_shape.push_back(in[d]);
    }
    if (in[d] == 1) continue;
    if (!p.dims.empty() && p.dim_reduced.back() == reduced[d]) {
      p.dims.back() *= in[d];
    } else {
      p.dims.push_back(in[d]);
      p.dim_reduced.push_back(reduced[d]);
    }
  }
  p.out_strides.assign(p.dims.size(), 0);
  int64_t running = 1;
  for (size_t d = p.dims.size(); d-- > 0;) {
    if (p.dim_reduced[d]) continue;
    p.out_strides[d] = running;
    running *= p.dims[d];
  }
  return p;
}

// Calls step(acc[out_index], in[i]) for every input element i; when the
// innermost dim is kept, only for its indices in [col_begin, col_end).
template <typename T, typename Acc, typename Step>
void Accumulate(const ReducePlan& p, const T* in, Acc* acc, const Step& step, int64_t col_begin = 0,
                int64_t col_end = -1) {
  if (p.in_size == 0) return;
  const int rank = static_cast<int>(p.dims.size());
  if (rank == 0) {
    step(acc[0], in[0]);
    return;
  }
  const int64_t inner = p.dims[rank - 1];
  const bool inner_reduced = p.dim_reduced[rank - 1];
  if (col_end < 0) col_end = inner;
  std::vector<int64_t> index(rank - 1, 0);
  int64_t out_offset = 0;
  for (int64_t start = 0; start < p.in_size; start += inner) {
    const T* row = in + start;
    if (inner_reduced) {
      Acc& a = acc[out_offset];
      for (int64_t j = 0; j < inner; ++j) step(a, row[j]);
    } else {
      Acc* a = acc + out_offset;
      for (int64_t j = col_begin; j < col_end; ++j) step(a[j], row[j]);
    }
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < p.dims[d]) {
        out_offset += p.out_strides[d];
        break;
      }
      index[d] = 0;
      out_offset -= p.out_strides[d] * (p.dims[d] - 1);
    }
  }
}

// Accumulate on the intra-op threads, in shards that own disjoint outputs, so
// every output sums its inputs in the same order at any thread count: over
// the outermost dim when it is kept (a batch), else over the innermost dim
// when it is kept (the channels of a global pool at batch 1).
template <typename T, typename Acc, typename Step>
void ParallelAccumulate(const ReducePlan& p, const T* in, Acc* acc, const Step& step) {
  const int rank = static_cast<int>(p.dims.size());
  if (p.in_size == 0 || rank < 2) return Accumulate(p, in, acc, step);
  if (!p.dim_reduced[0]) {
    const int64_t block_in = p.in_size / p.dims[0];
    const int64_t block_out = p.out_strides[0];
    ParallelFor(p.dims[0], std::max<int64_t>(1, kMinShardElements / block_in), 1,
                [&](int64_t begin, int64_t end) {
                  ReducePlan shard = p;
                  shard.dims[0] = end - begin;
                  shard.in_size = block_in * (end - begin);
                  Accumulate(shard, in + begin * block_in, acc + begin * block_out, step);
                });
    return;
  }
  if (!p.dim_reduced[rank - 1]) {
    const int64_t inner = p.dims[rank - 1];
    const int64_t rows = p.in_size / inner;
    ParallelFor(inner, std::max<int64_t>(1, kMinShardElements / rows), 16,
                [&](int64_t begin, int64_t end) { Accumulate(p, in, acc, step, begin, end); });
    return;
  }
  Accumulate(p, in, acc, step);
}

// Float Sum/Mean whose plan is [rows, cols] or [batch, rows, cols] with the
// rows reduced: the global average pool of NHWC images (Keras's
// GlobalAveragePooling2D, squeeze-excite). The general loop above keeps one
// double per column in memory and reloads it for every row; this one adds
// eight rows at a time in a fixed tree first, so it runs at memory speed, and
// still gives the same bits at every thread count.
bool IsColumnReduction(const ReducePlan& p) {
  const size_t rank = p.dims.size();
  return p.in_size > 0 && (rank == 2 || rank == 3) && p.dim_reduced[rank - 2] &&
         !p.dim_reduced[rank - 1];
}

SMRT_TARGET_CLONES
void AddColumnSums(const float* in, int64_t rows, int64_t cols, double* acc) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    const float* x = in + r * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const double s0 = static_cast<double>(x[j]) + x[j + cols];
      const double s1 = static_cast<double>(x[j + 2 * cols]) + x[j + 3 * cols];
      const double s2 = static_cast<double>(x[j + 4 * cols]) + x[j + 5 * cols];
      const double s3 = static_cast<double>(x[j + 6 * cols]) + x[j + 7 * cols];
      acc[j] += (s0 + s1) + (s2 + s3);
    }
  }
  for (; r < rows; ++r) {
    const float* x = in + r * cols;
    for (int64_t j = 0; j < cols; ++j) acc[j] += x[j];
  }
}

// The same over bfloat16 rows (precision=bfloat16's squeeze-excite), each
// value widened exactly: the sums are the float32 loop's on those values.
SMRT_TARGET_CLONES
void AddColumnSums(const Eigen::bfloat16* in, int64_t rows, int64_t cols, double* acc) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    const Eigen::bfloat16* x = in + r * cols;
    for (int64_t j = 0; j < cols; ++j) {
      const double s0 = static_cast<double>(FromBFloat16(x[j])) + FromBFloat16(x[j + cols]);
      const double s1 =
          static_cast<double>(FromBFloat16(x[j + 2 * cols])) + FromBFloat16(x[j + 3 * cols]);
      const double s2 =
          static_cast<double>(FromBFloat16(x[j + 4 * cols])) + FromBFloat16(x[j + 5 * cols]);
      const double s3 =
          static_cast<double>(FromBFloat16(x[j + 6 * cols])) + FromBFloat16(x[j + 7 * cols]);
      acc[j] += (s0 + s1) + (s2 + s3);
    }
  }
  for (; r < rows; ++r) {
    const Eigen::bfloat16* x = in + r * cols;
    for (int64_t j = 0; j < cols; ++j) acc[j] += FromBFloat16(x[j]);
  }
}

// float32 or bfloat16 (summed in double, rounded once).
template <typename T>
absl::Status RunColumnReduction(KernelContext& ctx, const ReducePlan& p, bool mean) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataTypeFor<T>::value, p.out_shape);
  if (!out.ok()) return out.status();
  const T* in = ctx.input(0).data<T>();
  const size_t rank = p.dims.size();
  const int64_t rows = p.dims[rank - 2], cols = p.dims[rank - 1];
  const int64_t batch = rank == 3 ? p.dims[0] : 1;
  // Shards take chunks of rows, not columns: two threads summing alternate
  // cache lines of the same rows were slower than one. The chunks depend on
  // the shape only, and their partial sums are added in order, so the bits
  // do not depend on the thread count.
  const int64_t chunk_rows = std::max<int64_t>(8, (kMinShardElements / cols + 7) / 8 * 8);
  const int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  std::vector<double> partial(static_cast<size_t>(batch * chunks * cols), 0.0);
  ParallelFor(batch * chunks, 1, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / chunks, first = (t % chunks) * chunk_rows;
      AddColumnSums(in + (b * rows + first) * cols, std::min(chunk_rows, rows - first), cols,
                    partial.data() + t * cols);
    }
  });
  const double count = mean ? static_cast<double>(p.count) : 1.0;
  T* o = (*out)->data<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < cols; ++j) {
      double sum = 0.0;
      for (int64_t c = 0; c < chunks; ++c) sum += partial[(b * chunks + c) * cols + j];
      const float value = static_cast<float>(sum / count);
      if constexpr (std::is_same_v<T, float>) {
        o[b * cols + j] = value;
      } else {
        o[b * cols + j] = ToBFloat16(value);
      }
    }
  }
  return absl::OkStatus();
}

// Accumulator types: wide for sums, the compute type otherwise.
template <typename T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, double,
                                  std::conditional_t<kIsHalfLike<T>, float, T>>;
template <typename T>
using MeanAcc =
    std::conditional_t<kIsInteger<T>, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                       SumAcc<T>>;

enum class Reduce { kSum, kMean, kProd, kMax, kMin, kAll, kAny, kEuclideanNorm };

template <typename T, typename Acc, typename Step, typename Finish>
absl::Status RunReduction(KernelContext& ctx, const ReducePlan& p, Acc init, const Step& step,
                          const Finish& finish) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataTypeFor<T>::value, p.out_shape);
  if (!out.ok()) return out.status();
  T* o = (*out)->template data<T>();
  if (p.in_size == 0) {  // every output is the identity; no accumulators needed
    const T identity = finish(init);
    for (int64_t i = 0; i < p.out_size; ++i) o[i] = identity;
    return absl::OkStatus();
  }
  // Not std::vector: Acc may be bool.
  std::unique_ptr<Acc[]> acc(new Acc[static_cast<size_t>(p.out_size)]);
  std::fill(acc.get(), acc.get() + p.out_size, init);
  ParallelAccumulate(p, ctx.input(0).data<T>(), acc.get(), step);
  for (int64_t i = 0; i < p.out_size; ++i) o[i] = finish(acc[i]);
  return absl::OkStatus();
}

template <typename T>
absl::Status ReduceTyped(KernelContext& ctx, Reduce kind, const ReducePlan& p) {
  using C = ComputeType<T>;
  auto cast_back = [](const auto& a) { return static_cast<T>(a); };
  if constexpr (std::is_same_v<T, bool>) {
    if (kind == Reduce::kAll) {
      return RunReduction<T>(
          ctx, p, true, [](bool& a, bool x) { a = a && x; }, cast_back);
    }
    return RunReduction<T>(
        ctx, p, false, [](bool& a, bool x) { a = a || x; }, cast_back);
  } else {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::bfloat16>) {
      if ((kind == Reduce::kSum || kind == Reduce::kMean) && IsColumnReduction(p)) {
        return RunColumnReduction<T>(ctx, p, kind == Reduce::kMean);
      }
    }
    switch (kind) {
      case Reduce::kSum:
        return RunReduction<T>(
            ctx, p, SumAcc<T>(0),
            [](SumAcc<T>& a, const T& x) { a = WrapAdd(a, static_cast<SumAcc<T>>(x)); }, cast_back);
      case Reduce::kMean: {
        const int64_t count = p.count;
        return RunReduction<T>(
            ctx, p, MeanAcc<T>(0),
            [](MeanAcc<T>& a, const T& x) { a = WrapAdd(a, static_cast<MeanAcc<T>>(x)); },
            [count](const MeanAcc<T>& a) {
              if (count == 0) {
                if constexpr (kIsFloat<T>) return std::numeric_limits<T>::quiet_NaN();
                return T(0);
              }
              return static_cast<T>(a / static_cast<MeanAcc<T>>(count));
            });
      }
      case Reduce::kProd:
        return RunReduction<T>(
            ctx, p, C(1), [](C& a, const T& x) { a = WrapMul(a, static_cast<C>(x)); }, cast_back);
      case Reduce::kMax:
        return RunReduction<T>(
            ctx, p,
            static_cast<C>(kIsFloat<T> ? -std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::lowest()),
            [](C& a, const T& x) {
              const C v = static_cast<C>(x);
              if constexpr (std::is_floating_point_v<C>) {
                if (std::isnan(v)) a = v;
              }
              if (v > a) a = v;  // once a is NaN it stays NaN
            },
            cast_back);
      case Reduce::kMin:
        return RunReduction<T>(
            ctx, p,
            static_cast<C>(kIsFloat<T> ? std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::max()),
            [](C& a, const T& x) {
              const C v = static_cast<C>(x);
              if constexpr (std::is_floating_point_v<C>) {
                if (std::isnan(v)) a = v;
              }
              if (v < a) a = v;
            },
            cast_back);
      case Reduce::kEuclideanNorm:  // sqrt of the sum of squares; integers truncate the root
        return RunReduction<T>(
            ctx, p, SumAcc<T>(0),
            [](SumAcc<T>& a, const T& x) {
              // The square in T, as TensorFlow's (1e30f squared is inf), summed wide.
              const C v = static_cast<C>(x);
              a = WrapAdd(a, static_cast<SumAcc<T>>(static_cast<T>(WrapMul(v, v))));
            },
            [](const SumAcc<T>& a) {
              const auto r = std::sqrt(a);
              if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
                // A sum of squares that wrapped negative has no root: x86's conversion of
                // the NaN (what TensorFlow's kernel gets) is the lowest int32 (int64), cut to T.
                if (std::isnan(r)) {
                  return static_cast<T>(sizeof(T) == 8 ? std::numeric_limits<int64_t>::min()
                                                       : std::numeric_limits<int32_t>::min());
                }
              }
              return static_cast<T>(r);
            });
      default:
        return absl::InternalError("bad reduction kind");
    }
  }
}

// Sum, Mean, Prod and EuclideanNorm of complex64/complex128, accumulated in
// complex128. The norm is sqrt(sum(x * conj(x))), a complex with imaginary
// part 0, as TensorFlow's; the mean of no elements is NaN.
template <typename T>
absl::Status ReduceComplex(KernelContext& ctx, Reduce kind, const ReducePlan& p) {
  using Acc = std::complex<double>;
  auto cast_back = [](const Acc& a) { return static_cast<T>(a); };
  switch (kind) {
    case Reduce::kSum:
      return RunReduction<T>(
          ctx, p, Acc(0), [](Acc& a, const T& x) { a += static_cast<Acc>(x); }, cast_back);
    case Reduce::kMean: {
      const double count = static_cast<double>(p.count);
      return RunReduction<T>(
          ctx, p, Acc(0), [](Acc& a, const T& x) { a += static_cast<Acc>(x); },
          [count](const Acc& a) { return static_cast<T>(a / count); });
    }
    case Reduce::kProd:
      return RunReduction<T>(
          ctx, p, Acc(1), [](Acc& a, const T& x) { a *= static_cast<Acc>(x); }, cast_back);
    case Reduce::kEuclideanNorm:
      return RunReduction<T>(
          ctx, p, Acc(0), [](Acc& a, const T& x) { a += std::norm(static_cast<Acc>(x)); },
          [](const Acc& a) { return static_cast<T>(std::sqrt(a)); });
    default:
      return absl::UnimplementedError(
          absl::StrCat(ctx.op(), " does not support dtype ", DataTypeName(ctx.input(0).dtype())));
  }
}

absl::StatusOr<bool> KeepDims(const AttrMap& attrs) {
  return attrs.GetOr<bool>("keep_dims", false);
}

absl::Status ReductionCompute(KernelContext& ctx, Reduce kind) {
  const Tensor& x = ctx.input(0);
  absl::StatusOr<std::vector<int64_t>> axes = ToInt64s(ctx.input(1));
  if (!axes.ok()) return AtNode(ctx, axes.status());
  absl::StatusOr<std::vector<bool>> reduced = ReducedDims(*axes, x.rank());
  if (!reduced.ok()) return AtNode(ctx, reduced.status());
  absl::StatusOr<bool> keep_dims = KeepDims(ctx.attrs());
  if (!keep_dims.ok()) return AtNode(ctx, keep_dims.status());
  if (axes->empty() && kind != Reduce::kEuclideanNorm) {  // the norm still takes |x|
    ctx.set_output(0, x);
    return absl::OkStatus();
  }
  const ReducePlan plan = MakeReducePlan(x.shape(), *reduced, *keep_dims);
  if (kind == Reduce::kAll || kind == Reduce::kAny) {
    if (x.dtype() != DataType::kBool) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("input must be bool, got ", DataTypeName(x.dtype()))));
    }
    return AtNode(ctx, ReduceTyped<bool>(ctx, kind, plan));
  }
  if (x.dtype() == DataType::kComplex64 || x.dtype() == DataType::kComplex128) {
    return AtNode(ctx, Dispatch(ComplexTypes{}, x.dtype(), ctx.op(), [&](auto tag) {
                    return ReduceComplex<typename decltype(tag)::type>(ctx, kind, plan);
                  }));
  }
  return AtNode(ctx, Dispatch(RealTypes{}, x.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return ReduceTyped<T>(ctx, kind, plan);
                }));
}

void AddReduction(KernelRegistry& r, const std::string& op, Reduce kind) {
  const bool bool_only = kind == Reduce::kAll || kind == Reduce::kAny;
  std::vector<DataType> types = DataTypes(RealTypes{});
  if (kind == Reduce::kSum || kind == Reduce::kMean || kind == Reduce::kProd ||
      kind == Reduce::kEuclideanNorm) {
    types.push_back(DataType::kComplex64);
    types.push_back(DataType::kComplex128);
  }
  r.AddKernel({op, kCpu, bool_only ? "" : "T", bool_only ? std::vector<DataType>{} : types,
               [kind](KernelContext& ctx) { return ReductionCompute(ctx, kind); }});
}

// ---------------------------------------------------------------------------
// ArgMax / ArgMin.

template <typename T, typename Index>
void ArgReduce(const T* in, int64_t outer, int64_t n, int64_t inner, bool is_max, Index* out) {
  using C = ComputeType<T>;
  const C init =
      static_cast<C>(is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
  std::vector<C> best(inner);
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(best.begin(), best.end(), init);
    Index* idx = out + o * inner;
    std::fill(idx, idx + inner, Index(0));
    for (int64_t k = 0; k < n; ++k) {
      const T* row = in + (o * n + k) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const C v = static_cast<C>(row[i]);
        if (is_max ? v > best[i] : v < best[i]) {  // NaN never wins; ties keep the first
          best[i] = v;
          idx[i] = static_cast<Index>(k);
        }
      }
    }
  }
}

absl::Status ArgCompute(KernelContext& ctx, bool is_max) {
  absl::StatusOr<ArgReducePlan> plan = PlanArgReduce(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, plan->out_type, plan->out_shape);
  if (!out.ok()) return AtNode(ctx, out.status());
  using Types = decltype(RealTypes{} + TypeList<bool>{});
  using IndexTypes = TypeList<int16_t, uint16_t, int32_t, int64_t>;
  return AtNode(ctx, Dispatch(Types{}, x.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return Dispatch(IndexTypes{}, plan->out_type, ctx.op(), [&](auto index_tag) {
                    using Index = typename decltype(index_tag)::type;
                    ArgReduce<T, Index>(x.data<T>(), plan->outer, plan->n, plan->inner, is_max,
                                        (*out)->template data<Index>());
                    return absl::OkStatus();
                  });
                }));
}

void AddArgOp(KernelRegistry& r, const std::string& op, bool is_max) {
  r.AddKernel({op, kCpu, "T", DataTypes(decltype(RealTypes{} + TypeList<bool>{}){}),
               [is_max](KernelContext& ctx) { return ArgCompute(ctx, is_max); }});
}

}  // namespace

void RegisterReductionOps(KernelRegistry& r) {
  AddReduction(r, "Sum", Reduce::kSum);
  AddReduction(r, "Mean", Reduce::kMean);
  AddReduction(r, "Prod", Reduce::kProd);
  AddReduction(r, "Max", Reduce::kMax);
  AddReduction(r, "Min", Reduce::kMin);
  AddReduction(r, "All", Reduce::kAll);
  AddReduction(r, "Any", Reduce::kAny);
  AddReduction(r, "EuclideanNorm", Reduce::kEuclideanNorm);
  AddArgOp(r, "ArgMax", /*is_max=*/true);
  AddArgOp(r, "ArgMin", /*is_max=*/false);
}

}  // namespace smrt::kernels
