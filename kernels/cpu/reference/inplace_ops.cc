// Ops that write into a copy of a tensor, and Fingerprint, as TensorFlow's
// CPU kernels compute them, with their checks and messages:
// InplaceAdd / InplaceSub / InplaceUpdate (rows i of x; TensorFlow takes i
// modulo the number of rows), ParallelConcat (the N [1, ...] values stacked
// into `shape`), TensorStridedSliceUpdate (x[spec] = value, value broadcast
// to the slice) and Fingerprint ("farmhash64": FarmHash's Fingerprint64 of
// each row's bytes, 8 little-endian bytes per row).
#include <farmhash.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/strided_slice_util.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------------------
// InplaceAdd / InplaceSub / InplaceUpdate

enum class Inplace { kAdd, kSub, kUpdate };

template <Inplace kHow>
absl::Status ComputeInplace(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& i = ctx.input(1);
  const Tensor& v = ctx.input(2);
  if (i.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("i must be a vector. ", Brackets(i.shape())));
  }
  if (x.rank() != v.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("x and v shape doesn't match (ranks differ): ", Brackets(x.shape()), " vs. ",
                     Brackets(v.shape())));
  }
  for (int d = 1; d < x.rank(); ++d) {
    if (x.dim(d) != v.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat("x and v shape doesn't match at index ", d,
                                                     " : ", Brackets(x.shape()), " vs. ",
                                                     Brackets(v.shape())));
    }
  }
  if (x.rank() < 1 || i.dim(0) != v.dim(0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("i and x shape doesn't match at index 0: ", Brackets(i.shape()), " vs. ",
                     Brackets(v.shape())));
  }
  if (v.dtype() != x.dtype()) {
    return absl::InvalidArgumentError("x and v must have the same dtype");
  }
  absl::StatusOr<std::vector<int64_t>> rows = IntValues(i, "i");
  if (!rows.ok()) return rows.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  const int64_t n = x.dim(0);
  const int64_t row = n == 0 ? 0 : x.num_elements() / n;
  Tensor* y = *out;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = y->data<T>();
    std::copy_n(x.data<T>(), x.num_elements(), dst);
    if (n == 0) return absl::OkStatus();
    for (size_t j = 0; j < rows->size(); ++j) {
      T* r = dst + ((*rows)[j] % n + n) % n * row;
      const T* s = v.data<T>() + static_cast<int64_t>(j) * row;
      for (int64_t k = 0; k < row; ++k) {
        if constexpr (kHow == Inplace::kUpdate) {
          r[k] = s[k];
        } else if constexpr (kHow == Inplace::kAdd) {
          r[k] = misc::WrapAdd(r[k], s[k]);
        } else {
          r[k] = elementwise::WrapSub(r[k], s[k]);
        }
      }
    }
    return absl::OkStatus();
  };
  if constexpr (kHow == Inplace::kUpdate) {
    return VisitElementType(x.dtype(), run);
  } else {
    return misc::VisitRealType(x.dtype(), ctx.op(), run);
  }
}

// ---------------------------------------------------------------------------
// ParallelConcat: value n is row n of the output. Rows past the last value
// (TensorFlow leaves them uninitialised) are zeros.

absl::Status ComputeParallelConcat(KernelContext& ctx) {
  absl::StatusOr<PartialShape> shape = ctx.attrs().Get<PartialShape>("shape");
  if (!shape.ok()) return shape.status();
  if (!shape->IsFullyKnown() || shape->rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ParallelConcat needs a fully known shape of rank >= 1, got ", shape->ToString()));
  }
  if (ctx.num_inputs() < 1) {
    return absl::InvalidArgumentError("ParallelConcat needs at least one value");
  }
  const Shape& dims = shape->dims;
  const DataType dtype = ctx.input(0).dtype();
  for (int n = 0; n < ctx.num_inputs(); ++n) {
    const Tensor& u = ctx.input(n);
    if (u.rank() != shape->rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value and update shape doesn't match: ", Brackets(dims), " vs. ", Brackets(u.shape())));
    }
    for (int d = 1; d < u.rank(); ++d) {
      if (u.dim(d) != dims[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "value and update shape doesn't match ", Brackets(dims), " vs. ", Brackets(u.shape())));
      }
    }
    if (u.dim(0) != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("update shape doesn't match: ", Brackets(u.shape())));
    }
    if (n >= dims[0]) {
      return absl::InvalidArgumentError(
          absl::StrCat("0th dimension of value = ", dims[0], " must be greater than loc_ = ", n));
    }
    if (u.dtype() != dtype) {
      return absl::InvalidArgumentError("ParallelConcat's values must have one dtype");
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, dtype, dims);
  if (!out.ok()) return out.status();
  const int64_t row = dims[0] == 0 ? 0 : (*out)->num_elements() / dims[0];
  Tensor* y = *out;
  return VisitElementType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int n = 0; n < ctx.num_inputs(); ++n) {
      std::copy_n(ctx.input(n).data<T>(), row, y->data<T>() + n * row);
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// TensorStridedSliceUpdate

absl::Status ComputeStridedSliceUpdate(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& value = ctx.input(4);
  for (int i = 1; i <= 3; ++i) {
    if (ctx.input(i).rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
          Brackets(ctx.input(1).shape()), ", ", Brackets(ctx.input(2).shape()), ", and ",
          Brackets(ctx.input(3).shape()), " instead."));
    }
  }
  absl::StatusOr<StridedSliceMasks> masks = StridedSliceMasksFromAttrs(ctx.attrs());
  if (!masks.ok()) return masks.status();
  absl::StatusOr<std::vector<int64_t>> begin = IntValues(ctx.input(1), "begin");
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> end = IntValues(ctx.input(2), "end");
  if (!end.ok()) return end.status();
  absl::StatusOr<std::vector<int64_t>> strides = IntValues(ctx.input(3), "strides");
  if (!strides.ok()) return strides.status();
  absl::StatusOr<StridedSlicePlan> plan =
      PlanStridedSlice(input.shape(), *begin, *end, *strides, *masks);
  if (!plan.ok()) return plan.status();
  if (value.dtype() != input.dtype()) {
    return absl::InvalidArgumentError("input and value must have the same dtype");
  }
  // value broadcasts to the slice's final shape (right-aligned, 1 stretches).
  const Shape& final_shape = plan->final_shape;
  const int fr = static_cast<int>(final_shape.size());
  bool broadcasts = value.rank() <= fr;
  for (int d = 0; broadcasts && d < value.rank(); ++d) {
    const int64_t v = value.dim(value.rank() - 1 - d);
    broadcasts = v == 1 || v == final_shape[fr - 1 - d];
  }
  if (!broadcasts) {
    return absl::InvalidArgumentError(absl::StrCat("Cannot broadcast input shape ",
                                                   Brackets(value.shape()), " into final shape ",
                                                   Brackets(final_shape)));
  }
  // The value's element strides over the final shape's dims (0 where
  // broadcast).
  Shape value_strides(static_cast<size_t>(fr), 0);
  {
    const Shape vs = RowMajorStrides(value.shape());
    for (int d = 0; d < value.rank(); ++d) {
      const int fd = fr - value.rank() + d;
      value_strides[fd] = value.dim(d) == 1 ? 0 : vs[d];
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), input.shape());
  if (!out.ok()) return out.status();
  Tensor* y = *out;
  const Shape& proc = plan->processing_shape;
  int64_t count = 1;
  for (int64_t d : proc) count *= d;
  const Shape in_strides = RowMajorStrides(input.shape());
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = y->data<T>();
    std::copy_n(input.data<T>(), input.num_elements(), dst);
    if (count == 0) return absl::OkStatus();
    // The processing shape has the final shape's elements in the same order
    // (shrunk dims of size 1 removed, new axes of size 1 added), so the
    // value's flat offset follows the final shape's index.
    const int pr = static_cast<int>(proc.size());
    std::vector<int64_t> idx(static_cast<size_t>(pr), 0);
    std::vector<int64_t> fidx(static_cast<size_t>(fr), 0);
    for (int64_t e = 0; e < count; ++e) {
      int64_t at = 0;
      for (int d = 0; d < pr; ++d)
        at += (plan->begin[d] + idx[d] * plan->strides[d]) * in_strides[d];
      int64_t from = 0;
      for (int d = 0; d < fr; ++d) from += fidx[d] * value_strides[d];
      dst[at] = value.data<T>()[from];
      for (int d = pr - 1; d >= 0; --d) {
        if (++idx[d] < proc[d]) break;
        idx[d] = 0;
      }
      for (int d = fr - 1; d >= 0; --d) {
        if (++fidx[d] < final_shape[d]) break;
        fidx[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// Fingerprint

void PutFingerprint(uint64_t f, uint8_t* out) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<uint8_t>(f >> (8 * b));
}

absl::Status ComputeFingerprint(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& method = ctx.input(1);
  if (method.dtype() != DataType::kString || method.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("`method` should be a scalar string: ", Brackets(method.shape())));
  }
  const std::string& m = method.data<std::string>()[0];
  if (m != "farmhash64") {
    return absl::InvalidArgumentError(absl::StrCat("Unsupported fingerprint method: ", m));
  }
  if (data.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("`data` should have at least one dimension: ", Brackets(data.shape())));
  }
  const int64_t rows = data.dim(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kUInt8, {rows, 8});
  if (!out.ok()) return out.status();
  uint8_t* o = (*out)->data<uint8_t>();
  const int64_t n = data.num_elements();
  if (data.dtype() == DataType::kString) {
    const std::string* s = data.data<std::string>();
    if (rows >= n) {  // one string per row (or no rows)
      for (int64_t r = 0; r < rows && r < n; ++r) {
        PutFingerprint(util::Fingerprint64(s[r].data(), s[r].size()), o + 8 * r);
      }
      return absl::OkStatus();
    }
    // Several strings per row: the fingerprint of their fingerprints' bytes.
    std::vector<uint8_t> each(static_cast<size_t>(n) * 8);
    for (int64_t i = 0; i < n; ++i) {
      PutFingerprint(util::Fingerprint64(s[i].data(), s[i].size()), each.data() + 8 * i);
    }
    const int64_t per_row = n / rows * 8;
    for (int64_t r = 0; r < rows; ++r) {
      PutFingerprint(util::Fingerprint64(reinterpret_cast<const char*>(each.data()) + r * per_row,
                                         static_cast<size_t>(per_row)),
                     o + 8 * r);
    }
    return absl::OkStatus();
  }
  if (!IsFixedSize(data.dtype())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Fingerprint does not support ", DataTypeName(data.dtype())));
  }
  const int64_t row_bytes = rows == 0 ? 0 : static_cast<int64_t>(data.byte_size()) / rows;
  const char* bytes = static_cast<const char*>(data.raw_data());
  for (int64_t r = 0; r < rows; ++r) {
    PutFingerprint(util::Fingerprint64(bytes + r * row_bytes, static_cast<size_t>(row_bytes)),
                   o + 8 * r);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterInplaceOps(KernelRegistry& r) {
  r.AddKernel({"InplaceAdd", kCpu, "T", misc::RealTypes(), ComputeInplace<Inplace::kAdd>});
  r.AddKernel({"InplaceSub", kCpu, "T", misc::RealTypes(), ComputeInplace<Inplace::kSub>});
  AddArrayKernel(r, "InplaceUpdate", "T", ComputeInplace<Inplace::kUpdate>);
  AddArrayKernel(r, "ParallelConcat", "T", ComputeParallelConcat);
  AddArrayKernel(r, "TensorStridedSliceUpdate", "T", ComputeStridedSliceUpdate);
  r.AddKernel({"Fingerprint", kCpu, "", {}, ComputeFingerprint});
}

}  // namespace smrt::kernels
