// The XLA ops that jax2tf exports, as TensorFlow defines them (tf2xla):
// XlaDotV2, XlaGather, XlaDynamicSlice, XlaDynamicUpdateSlice and XlaPad.
//
// Their dimension numbers are serialized XLA protos in string attrs
// (proto/xla/xla_data.proto). As in XLA, dynamic-slice and gather start
// indices are clamped into range rather than rejected; XlaPad's negative
// edge padding removes elements.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"
#include "smrt/tfproto/xla/xla_data.pb.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

// Checks that `dims` are distinct axes of a rank-`rank` tensor.
absl::Status CheckAxes(const Ints& dims, int64_t rank, absl::string_view what) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(what, " [", absl::StrJoin(dims, ", "),
                                                     "] has an axis out of range for rank ", rank));
    }
    if (seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " [", absl::StrJoin(dims, ", "), "] repeats axis ", d));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

template <typename Proto>
absl::StatusOr<Proto> ParseAttrProto(const AttrMap& attrs, absl::string_view name) {
  absl::StatusOr<std::string> bytes = attrs.Get<std::string>(name);
  if (!bytes.ok()) return bytes.status();
  Proto p;
  if (!p.ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr ", name, " is not a serialized xla.", Proto::descriptor()->name()));
  }
  return p;
}

Ints ToInts(const google::protobuf::RepeatedField<int64_t>& r) { return Ints(r.begin(), r.end()); }

// ---------------------------------------------------------------- XlaDotV2

struct DotPlan {
  Ints lhs_batch, rhs_batch, lhs_contract, rhs_contract, lhs_free, rhs_free;
};

// Axes of a rank-`rank` tensor not in `a` or `b`, ascending.
Ints FreeAxes(int64_t rank, const Ints& a, const Ints& b) {
  Ints out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      out.push_back(d);
    }
  }
  return out;
}

// Validates the dimension numbers against the operand shapes (dims may be -1
// during inference) and returns the output shape.
absl::StatusOr<Shape> DotShape(const tfproto::xla::DotDimensionNumbers& dn, const Shape& lhs,
                               const Shape& rhs, DotPlan& plan) {
  plan.lhs_batch = ToInts(dn.lhs_batch_dimensions());
  plan.rhs_batch = ToInts(dn.rhs_batch_dimensions());
  plan.lhs_contract = ToInts(dn.lhs_contracting_dimensions());
  plan.rhs_contract = ToInts(dn.rhs_contracting_dimensions());
  const int64_t lr = static_cast<int64_t>(lhs.size()), rr = static_cast<int64_t>(rhs.size());
  Ints lhs_used = plan.lhs_batch, rhs_used = plan.rhs_batch;
  lhs_used.insert(lhs_used.end(), plan.lhs_contract.begin(), plan.lhs_contract.end());
  rhs_used.insert(rhs_used.end(), plan.rhs_contract.begin(), plan.rhs_contract.end());
  if (absl::Status s = CheckAxes(lhs_used, lr, "lhs batch + contracting dimensions"); !s.ok())
    return s;
  if (absl::Status s = CheckAxes(rhs_used, rr, "rhs batch + contracting dimensions"); !s.ok())
    return s;
  if (plan.lhs_batch.size() != plan.rhs_batch.size() ||
      plan.lhs_contract.size() != plan.rhs_contract.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lhs and rhs must have as many batch (", plan.lhs_batch.size(), " vs ",
                     plan.rhs_batch.size(), ") and contracting (", plan.lhs_contract.size(), " vs ",
                     plan.rhs_contract.size(), ") dimensions"));
  }
  auto same = [&](const Ints& a, const Ints& b, absl::string_view what) -> absl::Status {
    for (size_t i = 0; i < a.size(); ++i) {
      const int64_t x = lhs[a[i]], y = rhs[b[i]];
      if (x >= 0 && y >= 0 && x != y) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, " dimension sizes differ: lhs dim ", a[i], " is ", x, ", rhs dim ", b[i], " is ",
            y, " (lhs ", ShapeToString(lhs), ", rhs ", ShapeToString(rhs), ")"));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = same(plan.lhs_batch, plan.rhs_batch, "batch"); !s.ok()) return s;
  if (absl::Status s = same(plan.lhs_contract, plan.rhs_contract, "contracting"); !s.ok()) return s;
  plan.lhs_free = FreeAxes(lr, plan.lhs_batch, plan.lhs_contract);
  plan.rhs_free = FreeAxes(rr, plan.rhs_batch, plan.rhs_contract);
  Shape out;
  for (size_t i = 0; i < plan.lhs_batch.size(); ++i) {
    const int64_t x = lhs[plan.lhs_batch[i]];
    out.push_back(x >= 0 ? x : rhs[plan.rhs_batch[i]]);
  }
  for (int64_t d : plan.lhs_free) out.push_back(lhs[d]);
  for (int64_t d : plan.rhs_free) out.push_back(rhs[d]);
  return out;
}

absl::Status InferDot(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("preferred_element_type");
  if (!t.ok()) return t.status();
  ValueInfo out;
  out.dtype = *t;
  const PartialShape& l = ctx.input(0).shape;
  const PartialShape& r = ctx.input(1).shape;
  if (l.known_rank && r.known_rank) {
    absl::StatusOr<tfproto::xla::DotDimensionNumbers> dn =
        ParseAttrProto<tfproto::xla::DotDimensionNumbers>(ctx.attrs(), "dimension_numbers");
    if (!dn.ok()) return dn.status();
    DotPlan plan;
    absl::StatusOr<Shape> s = DotShape(*dn, l.dims, r.dims, plan);
    if (!s.ok()) return s.status();
    out.shape = PartialShape::Known(*std::move(s));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// The tensor's elements as A, with its axes reordered to `perm`.
template <typename A>
absl::StatusOr<std::vector<A>> PermutedAs(const Tensor& t, const Ints& perm) {
  std::vector<A> out(static_cast<size_t>(t.num_elements()));
  if (out.empty()) return out;
  const Shape strides = RowMajorStrides(t.shape());
  const int rank = t.rank();
  absl::Status s = misc::VisitRealType(t.dtype(), "XlaDotV2", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = t.data<T>();
    Ints index(rank, 0);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t off = 0;
      for (int k = 0; k < rank; ++k) off += index[k] * strides[perm[k]];
      out[i] = static_cast<A>(static_cast<double>(src[off]));
      if constexpr (std::is_integral_v<T> && std::is_integral_v<A>)
        out[i] = static_cast<A>(src[off]);
      for (int k = rank - 1; k >= 0; --k) {
        if (++index[k] < t.dim(perm[k])) break;
        index[k] = 0;
      }
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

int64_t ProductOf(const Shape& shape, const Ints& axes) {
  int64_t p = 1;
  for (int64_t a : axes) p *= shape[a];
  return p;
}

template <typename A, typename Out>
absl::Status RunDot(const Tensor& lhs, const Tensor& rhs, const DotPlan& plan, Tensor& out) {
  Ints lp = plan.lhs_batch, rp = plan.rhs_batch;
  lp.insert(lp.end(), plan.lhs_free.begin(), plan.lhs_free.end());
  lp.insert(lp.end(), plan.lhs_contract.begin(), plan.lhs_contract.end());
  rp.insert(rp.end(), plan.rhs_contract.begin(), plan.rhs_contract.end());
  rp.insert(rp.end(), plan.rhs_free.begin(), plan.rhs_free.end());
  absl::StatusOr<std::vector<A>> a = PermutedAs<A>(lhs, lp);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::vector<A>> b = PermutedAs<A>(rhs, rp);
  if (!b.ok()) return b.status();
  const int64_t batch = ProductOf(lhs.shape(), plan.lhs_batch);
  const int64_t m = ProductOf(lhs.shape(), plan.lhs_free);
  const int64_t k = ProductOf(lhs.shape(), plan.lhs_contract);
  const int64_t n = ProductOf(rhs.shape(), plan.rhs_free);
  std::vector<A> c(static_cast<size_t>(batch * m * n));
  for (int64_t i = 0; i < batch; ++i) {
    Gemm<A>(false, false, m, n, k, a->data() + i * m * k, k, b->data() + i * k * n, n,
            c.data() + i * m * n, n);
  }
  Out* dst = out.data<Out>();
  for (size_t i = 0; i < c.size(); ++i) dst[i] = static_cast<Out>(c[i]);
  return absl::OkStatus();
}

absl::Status ComputeDot(KernelContext& ctx) {
  absl::StatusOr<tfproto::xla::DotDimensionNumbers> dn =
      ParseAttrProto<tfproto::xla::DotDimensionNumbers>(ctx.attrs(), "dimension_numbers");
  if (!dn.ok()) return dn.status();
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("preferred_element_type");
  if (!t.ok()) return t.status();
  const Tensor& lhs = ctx.input(0);
  const Tensor& rhs = ctx.input(1);
  DotPlan plan;
  absl::StatusOr<Shape> shape = DotShape(*dn, lhs.shape(), rhs.shape(), plan);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *t, *shape);
  if (!out.ok()) return out.status();
  switch (*t) {
    case DataType::kFloat:
      return RunDot<float, float>(lhs, rhs, plan, **out);
    case DataType::kDouble:
      return RunDot<double, double>(lhs, rhs, plan, **out);
    case DataType::kHalf:
      return RunDot<float, Eigen::half>(lhs, rhs, plan, **out);
    case DataType::kBFloat16:
      return RunDot<float, Eigen::bfloat16>(lhs, rhs, plan, **out);
    case DataType::kInt32:
      return RunDot<int64_t, int32_t>(lhs, rhs, plan, **out);
    case DataType::kInt64:
      return RunDot<int64_t, int64_t>(lhs, rhs, plan, **out);
    default:
      return absl::UnimplementedError(
          absl::StrCat("XlaDotV2 does not support preferred_element_type ", DataTypeName(*t)));
  }
}

// ------------------------------------------------------- XlaDynamicSlice & co

// Start indices clamped into [0, dim - size] per axis, as XLA does.
absl::StatusOr<Ints> ClampedStarts(const Tensor& starts, const Shape& dims, const Shape& sizes,
                                   absl::string_view what) {
  absl::StatusOr<Ints> v = IntValues(starts, what);
  if (!v.ok()) return v.status();
  if (starts.rank() != 1 || v->size() != dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a vector with one entry per input dimension (", dims.size(),
                     "), got shape ", ShapeToString(starts.shape())));
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat("slice size ", sizes[d], " of dimension ", d,
                                                     " must be in [0, ", dims[d], "] (input shape ",
                                                     ShapeToString(dims), ")"));
    }
    (*v)[d] = std::clamp<int64_t>((*v)[d], 0, dims[d] - sizes[d]);
  }
  return v;
}

// Copies the box of `sizes` at `starts` between a big tensor and a small one
// (to_small: big -> small, else small -> big).
template <typename T>
void CopyBox(T* big, const Shape& big_dims, T* small, const Shape& sizes, const Ints& starts,
             bool to_small) {
  const int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                                        [](int64_t a, int64_t b) { return a * b; });
  if (total == 0) return;
  const int rank = static_cast<int>(sizes.size());
  if (rank == 0) {
    if (to_small)
      *small = *big;
    else
      *big = *small;
    return;
  }
  const Shape strides = RowMajorStrides(big_dims);
  Ints index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += (starts[d] + index[d]) * strides[d];
    if (to_small)
      small[i] = big[off];
    else
      big[off] = small[i];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

absl::Status InferDynamicSlice(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  if (std::optional<Ints> sizes = KnownInts(ctx, 2); sizes.has_value()) {
    out.shape = PartialShape::Known(*sizes);
  } else if (ctx.input(0).shape.known_rank) {
    out.shape = UnknownDims(ctx.input(0).shape.rank());
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeDynamicSlice(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<Ints> sizes = IntValues(ctx.input(2), "size_indices");
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() != static_cast<size_t>(input.rank())) {
    return absl::InvalidArgumentError(
        absl::StrCat("size_indices must have one entry per input dimension (", input.rank(),
                     "), got ", sizes->size()));
  }
  absl::StatusOr<Ints> starts = ClampedStarts(ctx.input(1), input.shape(), *sizes, "start_indices");
  if (!starts.ok()) return starts.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *sizes);
  if (!out.ok()) return out.status();
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    CopyBox<T>(const_cast<T*>(input.data<T>()), input.shape(), (*out)->data<T>(), *sizes, *starts,
               /*to_small=*/true);
    return absl::OkStatus();
  });
}

absl::Status ComputeDynamicUpdateSlice(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& update = ctx.input(1);
  if (update.dtype() != input.dtype() || update.rank() != input.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("update must have the input's dtype and rank, got input ", input.DebugString(),
                     " and update ", update.DebugString()));
  }
  absl::StatusOr<Ints> starts =
      ClampedStarts(ctx.input(2), input.shape(), update.shape(), "indices");
  if (!starts.ok()) return starts.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), input.shape());
  if (!out.ok()) return out.status();
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = (*out)->data<T>();
    std::copy_n(input.data<T>(), input.num_elements(), dst);
    CopyBox<T>(dst, input.shape(), const_cast<T*>(update.data<T>()), update.shape(), *starts,
               /*to_small=*/false);
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ XlaPad

struct PadConfig {
  Ints low, high, interior;
};

absl::StatusOr<PadConfig> ReadPadConfig(const Tensor& low, const Tensor& high,
                                        const Tensor& interior, int rank) {
  PadConfig c;
  const std::pair<const Tensor*, Ints*> parts[] = {
      {&low, &c.low}, {&high, &c.high}, {&interior, &c.interior}};
  const char* names[] = {"padding_low", "padding_high", "padding_interior"};
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Ints> v = IntValues(*parts[i].first, names[i]);
    if (!v.ok()) return v.status();
    if (parts[i].first->rank() != 1 || static_cast<int>(v->size()) != rank) {
      return absl::InvalidArgumentError(absl::StrCat(names[i], " must be a vector of length ", rank,
                                                     " (the input's rank), got shape ",
                                                     ShapeToString(parts[i].first->shape())));
    }
    *parts[i].second = *std::move(v);
  }
  for (int d = 0; d < rank; ++d) {
    if (c.interior[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("padding_interior must be non-negative, got ",
                                                     c.interior[d], " for dimension ", d));
    }
  }
  return c;
}

// Padded size of one dim (-1 when the dim is unknown).
absl::StatusOr<int64_t> PaddedDim(int64_t dim, int64_t low, int64_t high, int64_t interior, int d) {
  if (dim < 0) return int64_t{-1};
  const int64_t kLimit = int64_t{1} << 62;
  if (std::abs(low) > kLimit || std::abs(high) > kLimit || interior > kLimit || dim > kLimit ||
      (dim > 1 && interior > kLimit / (dim - 1))) {
    return absl::InvalidArgumentError(absl::StrCat("padding of dimension ", d, " is too large"));
  }
  const int64_t size = dim + std::max<int64_t>(dim - 1, 0) * interior + low + high;
  if (size < 0) {
    return absl::InvalidArgumentError(absl::StrCat("dimension ", d, " of size ", dim,
                                                   " padded by (", low, ", ", high, ", interior ",
                                                   interior, ") would be negative"));
  }
  return size;
}

absl::Status InferXlaPad(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const Tensor* low = ctx.input_value(2);
  const Tensor* high = ctx.input_value(3);
  const Tensor* interior = ctx.input_value(4);
  if (in.known_rank && low && high && interior) {
    absl::StatusOr<PadConfig> c = ReadPadConfig(*low, *high, *interior, in.rank());
    if (!c.ok()) return c.status();
    Shape dims(in.dims.size());
    for (int d = 0; d < in.rank(); ++d) {
      absl::StatusOr<int64_t> s = PaddedDim(in.dims[d], c->low[d], c->high[d], c->interior[d], d);
      if (!s.ok()) return s.status();
      dims[d] = *s;
    }
    out.shape = PartialShape::Known(std::move(dims));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeXlaPad(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& value = ctx.input(1);
  if (value.rank() != 0 || value.dtype() != input.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padding_value must be a scalar of the input's dtype, got ", value.DebugString()));
  }
  const int rank = input.rank();
  absl::StatusOr<PadConfig> c = ReadPadConfig(ctx.input(2), ctx.input(3), ctx.input(4), rank);
  if (!c.ok()) return c.status();
  Shape dims(rank);
  for (int d = 0; d < rank; ++d) {
    absl::StatusOr<int64_t> s = PaddedDim(input.dim(d), c->low[d], c->high[d], c->interior[d], d);
    if (!s.ok()) return s.status();
    dims[d] = *s;
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), dims);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  // Output index i of dim d is input index (i - low) / (interior + 1) when
  // that divides exactly and lands inside the input, else padding.
  const Shape strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(rank);
  for (int d = 0; d < rank; ++d) {
    tables[d].resize(static_cast<size_t>(dims[d]));
    const int64_t step = c->interior[d] + 1;
    for (int64_t i = 0; i < dims[d]; ++i) {
      const int64_t p = i - c->low[d];
      const bool hit = p >= 0 && p % step == 0 && p / step < input.dim(d);
      tables[d][i] = hit ? (p / step) * strides[d] : -1;
    }
  }
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(input.data<T>(), tables, value.data<T>()[0], (*out)->data<T>());
    return absl::OkStatus();
  });
}

// --------------------------------------------------------------- XlaGather

struct GatherPlan {
  Ints offset_dims, collapsed, start_map;
  int64_t index_vector_dim = 0;
  Ints slice_sizes;
  Ints batch_dims;      // output axes that are not offset_dims
  Ints offset_operand;  // operand axis of each offset dim, in order
};

absl::StatusOr<Shape> GatherShape(const tfproto::xla::GatherDimensionNumbers& dn,
                                  const Shape& operand, const Shape& indices,
                                  const Ints& slice_sizes, GatherPlan& p) {
  if (dn.operand_batching_dims_size() > 0 || dn.start_indices_batching_dims_size() > 0) {
    return absl::UnimplementedError("XlaGather with operand_batching_dims is not supported");
  }
  p.offset_dims = ToInts(dn.offset_dims());
  p.collapsed = ToInts(dn.collapsed_slice_dims());
  p.start_map = ToInts(dn.start_index_map());
  p.index_vector_dim = dn.index_vector_dim();
  p.slice_sizes = slice_sizes;
  const int64_t orank = static_cast<int64_t>(operand.size());
  const int64_t irank = static_cast<int64_t>(indices.size());
  if (static_cast<int64_t>(slice_sizes.size()) != orank) {
    return absl::InvalidArgumentError(absl::StrCat("slice_sizes has ", slice_sizes.size(),
                                                   " entries for an operand of rank ", orank));
  }
  if (p.index_vector_dim < 0 || p.index_vector_dim > irank) {
    return absl::InvalidArgumentError(absl::StrCat("index_vector_dim ", p.index_vector_dim,
                                                   " is out of range for start_indices of rank ",
                                                   irank));
  }
  const int64_t vec = p.index_vector_dim < irank ? indices[p.index_vector_dim] : 1;
  if (vec >= 0 && vec != static_cast<int64_t>(p.start_map.size())) {
    return absl::InvalidArgumentError(absl::StrCat("start_index_map has ", p.start_map.size(),
                                                   " entries but the index vector has ", vec));
  }
  if (absl::Status s = CheckAxes(p.start_map, orank, "start_index_map"); !s.ok()) return s;
  if (absl::Status s = CheckAxes(p.collapsed, orank, "collapsed_slice_dims"); !s.ok()) return s;
  for (int64_t d : p.collapsed) {
    if (slice_sizes[d] > 1) {
      return absl::InvalidArgumentError(absl::StrCat("collapsed dimension ", d, " has slice size ",
                                                     slice_sizes[d], "; it must be 0 or 1"));
    }
  }
  for (int64_t d = 0; d < orank; ++d) {
    if (slice_sizes[d] < 0 || (operand[d] >= 0 && slice_sizes[d] > operand[d])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice size ", slice_sizes[d], " of dimension ", d, " must be in [0, ", operand[d], "]"));
    }
    if (std::find(p.collapsed.begin(), p.collapsed.end(), d) == p.collapsed.end()) {
      p.offset_operand.push_back(d);
    }
  }
  if (p.offset_operand.size() != p.offset_dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("offset_dims has ", p.offset_dims.size(),
                                                   " entries but ", p.offset_operand.size(),
                                                   " operand dimensions are not collapsed"));
  }
  const int64_t out_rank =
      irank - (p.index_vector_dim < irank ? 1 : 0) + static_cast<int64_t>(p.offset_dims.size());
  if (absl::Status s = CheckAxes(p.offset_dims, out_rank, "offset_dims"); !s.ok()) return s;
  if (!std::is_sorted(p.offset_dims.begin(), p.offset_dims.end())) {
    return absl::InvalidArgumentError(
        absl::StrCat("offset_dims [", absl::StrJoin(p.offset_dims, ", "), "] must be sorted"));
  }
  Shape out(static_cast<size_t>(out_rank));
  Ints batch_sizes;
  for (int64_t d = 0; d < irank; ++d) {
    if (d != p.index_vector_dim) batch_sizes.push_back(indices[d]);
  }
  p.batch_dims.clear();
  size_t oi = 0, bi = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (oi < p.offset_dims.size() && p.offset_dims[oi] == d) {
      out[d] = slice_sizes[p.offset_operand[oi++]];
    } else {
      p.batch_dims.push_back(d);
      out[d] = batch_sizes[bi++];
    }
  }
  return out;
}

absl::Status InferGather(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& operand = ctx.input(0).shape;
  const PartialShape& indices = ctx.input(1).shape;
  std::optional<Ints> sizes = KnownInts(ctx, 2);
  if (operand.known_rank && indices.known_rank && sizes.has_value()) {
    absl::StatusOr<tfproto::xla::GatherDimensionNumbers> dn =
        ParseAttrProto<tfproto::xla::GatherDimensionNumbers>(ctx.attrs(), "dimension_numbers");
    if (!dn.ok()) return dn.status();
    GatherPlan p;
    absl::StatusOr<Shape> s = GatherShape(*dn, operand.dims, indices.dims, *sizes, p);
    if (!s.ok()) return s.status();
    out.shape = PartialShape::Known(*std::move(s));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeGather(KernelContext& ctx) {
  const Tensor& operand = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  absl::StatusOr<Ints> sizes = IntValues(ctx.input(2), "slice_sizes");
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<tfproto::xla::GatherDimensionNumbers> dn =
      ParseAttrProto<tfproto::xla::GatherDimensionNumbers>(ctx.attrs(), "dimension_numbers");
  if (!dn.ok()) return dn.status();
  GatherPlan p;
  absl::StatusOr<Shape> shape = GatherShape(*dn, operand.shape(), indices.shape(), *sizes, p);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Ints> idx = IntValues(indices, "start_indices");
  if (!idx.ok()) return idx.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, operand.dtype(), *shape);
  if (!out.ok()) return out.status();
  const int64_t total = (*out)->num_elements();
  if (total == 0) return absl::OkStatus();
  const int orank = operand.rank();
  const int irank = indices.rank();
  const int out_rank = static_cast<int>(shape->size());
  const Shape ostrides = RowMajorStrides(operand.shape());
  const Shape istrides = RowMajorStrides(indices.shape());
  const int64_t vec_stride = p.index_vector_dim < irank ? istrides[p.index_vector_dim] : 0;
  // Index-tensor axes in the order the output's batch dims take them.
  Ints index_axes;
  for (int64_t d = 0; d < irank; ++d) {
    if (d != p.index_vector_dim) index_axes.push_back(d);
  }
  return VisitElementType(operand.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = operand.data<T>();
    T* dst = (*out)->data<T>();
    Ints o(out_rank, 0), start(orank, 0);
    for (int64_t i = 0; i < total; ++i) {
      int64_t ibase = 0;
      for (size_t b = 0; b < p.batch_dims.size(); ++b)
        ibase += o[p.batch_dims[b]] * istrides[index_axes[b]];
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < p.start_map.size(); ++k) {
        const int64_t d = p.start_map[k];
        start[d] = std::clamp<int64_t>((*idx)[ibase + k * vec_stride], 0,
                                       operand.dim(static_cast<int>(d)) - p.slice_sizes[d]);
      }
      int64_t off = 0;
      for (int d = 0; d < orank; ++d) off += start[d] * ostrides[d];
      for (size_t k = 0; k < p.offset_dims.size(); ++k) {
        off += o[p.offset_dims[k]] * ostrides[p.offset_operand[k]];
      }
      dst[i] = src[off];
      for (int d = out_rank - 1; d >= 0; --d) {
        if (++o[d] < (*shape)[d]) break;
        o[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

OpSpec XlaOp(std::string op, InferFn infer) { return ArrayOp(std::move(op), {}, std::move(infer)); }

}  // namespace

void RegisterXlaOps(KernelRegistry& r) {
  r.AddOp(XlaOp("XlaDotV2", InferDot));
  r.AddKernel({"XlaDotV2",
               kCpu,
               "preferred_element_type",
               {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                DataType::kInt32, DataType::kInt64},
               ComputeDot});
  r.AddOp(XlaOp("XlaDynamicSlice", InferDynamicSlice));
  AddArrayKernel(r, "XlaDynamicSlice", "T", ComputeDynamicSlice);
  r.AddOp(XlaOp("XlaDynamicUpdateSlice", UnchangedShape));
  AddArrayKernel(r, "XlaDynamicUpdateSlice", "T", ComputeDynamicUpdateSlice);
  r.AddOp(XlaOp("XlaPad", InferXlaPad));
  AddArrayKernel(r, "XlaPad", "T", ComputeXlaPad);
  r.AddOp(ArrayOp("XlaGather", {{"indices_are_sorted", false}}, InferGather));
  AddArrayKernel(r, "XlaGather", "T", ComputeGather);
}

}  // namespace smrt::kernels
