#include "ops/xla_shapes.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array_shapes.h"
#include "smrt/tfproto/xla/xla_data.pb.h"

namespace smrt::ops {
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

}  // namespace

absl::StatusOr<DotPlan> ReadDotPlan(const AttrMap& attrs) {
  absl::StatusOr<tfproto::xla::DotDimensionNumbers> dn =
      ParseAttrProto<tfproto::xla::DotDimensionNumbers>(attrs, "dimension_numbers");
  if (!dn.ok()) return dn.status();
  DotPlan plan;
  plan.lhs_batch = ToInts(dn->lhs_batch_dimensions());
  plan.rhs_batch = ToInts(dn->rhs_batch_dimensions());
  plan.lhs_contract = ToInts(dn->lhs_contracting_dimensions());
  plan.rhs_contract = ToInts(dn->rhs_contracting_dimensions());
  return plan;
}

absl::StatusOr<Shape> DotShape(const Shape& lhs, const Shape& rhs, DotPlan& plan) {
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

absl::StatusOr<GatherPlan> ReadGatherPlan(const AttrMap& attrs) {
  absl::StatusOr<tfproto::xla::GatherDimensionNumbers> dn =
      ParseAttrProto<tfproto::xla::GatherDimensionNumbers>(attrs, "dimension_numbers");
  if (!dn.ok()) return dn.status();
  if (dn->operand_batching_dims_size() > 0 || dn->start_indices_batching_dims_size() > 0) {
    return absl::UnimplementedError("XlaGather with operand_batching_dims is not supported");
  }
  GatherPlan p;
  p.offset_dims = ToInts(dn->offset_dims());
  p.collapsed = ToInts(dn->collapsed_slice_dims());
  p.start_map = ToInts(dn->start_index_map());
  p.index_vector_dim = dn->index_vector_dim();
  return p;
}

absl::StatusOr<Shape> GatherShape(const Shape& operand, const Shape& indices,
                                  const Ints& slice_sizes, GatherPlan& p) {
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

absl::StatusOr<Ints> KeptAxes(const Ints& reduce, int rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : reduce) {
    if (d < 0 || d >= rank || reduced[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimensions_to_reduce [", absl::StrJoin(reduce, ", "),
                       "] must be distinct axes of the rank-", rank, " input"));
    }
    reduced[d] = true;
  }
  Ints kept;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) kept.push_back(d);
  }
  return kept;
}

absl::StatusOr<WindowPlan> ReadWindowPlan(const Tensor* const t[5], int rank) {
  WindowPlan p;
  Ints* vectors[4] = {&p.window, &p.strides, &p.base_dilations, &p.window_dilations};
  const char* names[5] = {"window_dimensions", "window_strides", "base_dilations",
                          "window_dilations", "padding"};
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<Ints> v = IntValues(*t[i], names[i]);
    if (!v.ok()) return v.status();
    if (t[i]->rank() != 1 || static_cast<int>(v->size()) != rank) {
      return absl::InvalidArgumentError(absl::StrCat(names[i], " must be a vector of length ", rank,
                                                     " (the input's rank), got ",
                                                     t[i]->DebugString()));
    }
    for (int64_t x : *v) {
      if (x < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat(names[i], " [", absl::StrJoin(*v, ", "), "] must be positive"));
      }
    }
    *vectors[i] = *std::move(v);
  }
  absl::StatusOr<Ints> pad = IntValues(*t[4], names[4]);
  if (!pad.ok()) return pad.status();
  if (t[4]->shape() != Shape{rank, 2}) {
    return absl::InvalidArgumentError(absl::StrCat("padding must have shape [", rank,
                                                   ", 2] (low, high per input dimension), got ",
                                                   t[4]->DebugString()));
  }
  for (int d = 0; d < rank; ++d) {
    p.low.push_back((*pad)[2 * d]);
    p.high.push_back((*pad)[2 * d + 1]);
  }
  return p;
}

int64_t DilatedDim(int64_t dim, int64_t dilation) {
  return dim == 0 ? 0 : (dim - 1) * dilation + 1;
}

absl::StatusOr<int64_t> ReduceWindowOutputDim(const WindowPlan& p, int64_t dim, int d) {
  if (dim < 0) return int64_t{-1};
  constexpr int64_t kLimit = int64_t{1} << 40;
  if (dim > kLimit || p.base_dilations[d] > kLimit || p.window_dilations[d] > kLimit ||
      p.window[d] > kLimit || std::abs(p.low[d]) > kLimit || std::abs(p.high[d]) > kLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("window or padding of dimension ", d, " is too large"));
  }
  const int64_t padded = DilatedDim(dim, p.base_dilations[d]) + p.low[d] + p.high[d];
  if (padded < 0) {
    return absl::InvalidArgumentError(absl::StrCat("dimension ", d, " of size ", dim,
                                                   " padded by (", p.low[d], ", ", p.high[d],
                                                   ") would be negative"));
  }
  const int64_t span = (p.window[d] - 1) * p.window_dilations[d] + 1;
  return padded < span ? 0 : (padded - span) / p.strides[d] + 1;
}

}  // namespace smrt::ops
