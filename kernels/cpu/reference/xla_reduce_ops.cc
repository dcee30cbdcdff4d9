// XlaReduce and XlaReduceWindow, as tf2xla defines them (jax2tf exports them
// for jnp.sum/max over axes and for pooling-like windows).
//
// The reducer is a function attr (`reducer`, `computation`). When its body is
// one of the common binary ops on its two arguments (add, multiply, maximum,
// minimum) the kernel applies that op itself; otherwise it calls the compiled
// function once per element pair: slow, but it gives any reducer's answer.
// Each output starts at init_value and folds in its elements in row-major
// order, as XLA's CPU emitter does; window positions in padding or between
// dilated elements are skipped, not reduced with init_value.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "ops/xla_shapes.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

enum class FastOp { kNone, kAdd, kMul, kMax, kMin };

FastOp FastOpOf(const std::string& op) {
  if (op == "Add" || op == "AddV2") return FastOp::kAdd;
  if (op == "Mul") return FastOp::kMul;
  if (op == "Maximum") return FastOp::kMax;
  if (op == "Minimum") return FastOp::kMin;
  return FastOp::kNone;
}

// acc = reducer(acc, x): the op itself on the fast path, else a call of the
// node's function. Apply returns false (status() says why) when a call fails.
template <typename T>
class Reducer {
 public:
  Reducer(const KernelContext& ctx, std::string function)
      : ctx_(ctx),
        function_(std::move(function)),
        fast_(FastOpOf(ctx.FunctionBinaryOp(function_))) {}

  bool Apply(T& acc, T x) {
    switch (fast_) {
      case FastOp::kAdd:
        acc = misc::WrapAdd(acc, x);
        return true;
      case FastOp::kMul:
        acc = misc::WrapMul(acc, x);
        return true;
      case FastOp::kMax:
        if (x > acc || IsNan(x)) acc = x;
        return true;
      case FastOp::kMin:
        if (x < acc || IsNan(x)) acc = x;
        return true;
      case FastOp::kNone:
        break;
    }
    return Call(acc, x);
  }
  const absl::Status& status() const { return status_; }

 private:
  static bool IsNan(T x) {
    if constexpr (std::is_integral_v<T>) {
      return false;
    } else {
      return Eigen::numext::isnan(x);
    }
  }

  bool Call(T& acc, T x) {
    std::vector<Tensor> args;
    for (T v : {acc, x}) {
      absl::StatusOr<Tensor> t = Tensor::Create(dtype_, {});
      if (!t.ok()) {
        status_ = t.status();
        return false;
      }
      t->data<T>()[0] = v;
      args.push_back(*std::move(t));
    }
    absl::StatusOr<std::vector<Tensor>> out = ctx_.CallFunction(function_, std::move(args));
    if (!out.ok()) {
      status_ = out.status();
      return false;
    }
    if (out->size() != 1 || (*out)[0].dtype() != dtype_ || (*out)[0].num_elements() != 1) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat("reducer ", function_, " must return one ", DataTypeName(dtype_),
                       " scalar, got ", out->size(), " outputs",
                       out->empty() ? "" : absl::StrCat(", the first ", (*out)[0].DebugString())));
      return false;
    }
    acc = (*out)[0].data<T>()[0];
    return true;
  }

  const KernelContext& ctx_;
  std::string function_;
  FastOp fast_;
  DataType dtype_ = ctx_.input(0).dtype();
  absl::Status status_;
};

absl::Status CheckInit(const Tensor& input, const Tensor& init) {
  if (init.rank() != 0 || init.dtype() != input.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("init_value must be a scalar of the input's dtype ",
                     DataTypeName(input.dtype()), ", got ", init.DebugString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> FunctionName(const AttrMap& attrs, absl::string_view attr) {
  absl::StatusOr<FuncAttr> f = attrs.Get<FuncAttr>(attr);
  if (!f.ok()) return f.status();
  return f->name;
}

// ---------------------------------------------------------------- XlaReduce

// Flat offsets of every index over `axes` of a tensor, row-major.
Ints AxisOffsets(const Shape& shape, const Shape& strides, const Ints& axes) {
  Ints offsets = {0};
  for (int64_t a : axes) {
    Ints next;
    next.reserve(offsets.size() * static_cast<size_t>(shape[a]));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < shape[a]; ++i) next.push_back(base + i * strides[a]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

absl::Status ComputeReduce(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& init = ctx.input(1);
  if (absl::Status s = CheckInit(input, init); !s.ok()) return s;
  absl::StatusOr<Ints> reduce = ctx.attrs().Get<std::vector<int64_t>>("dimensions_to_reduce");
  if (!reduce.ok()) return reduce.status();
  absl::StatusOr<Ints> kept = ops::KeptAxes(*reduce, input.rank());
  if (!kept.ok()) return kept.status();
  absl::StatusOr<std::string> fn = FunctionName(ctx.attrs(), "reducer");
  if (!fn.ok()) return fn.status();
  Shape out_shape;
  for (int64_t d : *kept) out_shape.push_back(input.dim(static_cast<int>(d)));
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  const Shape strides = RowMajorStrides(input.shape());
  const Ints outer = AxisOffsets(input.shape(), strides, *kept);
  const Ints inner = AxisOffsets(input.shape(), strides, *reduce);
  return misc::VisitRealType(input.dtype(), "XlaReduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reducer<T> reducer(ctx, *fn);
    const T* src = input.data<T>();
    T* dst = (*out)->data<T>();
    for (size_t i = 0; i < outer.size(); ++i) {
      T acc = init.data<T>()[0];
      for (int64_t off : inner) {
        if (!reducer.Apply(acc, src[outer[i] + off])) return reducer.status();
      }
      dst[i] = acc;
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------- XlaReduceWindow

absl::Status ComputeReduceWindow(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& init = ctx.input(1);
  if (absl::Status s = CheckInit(input, init); !s.ok()) return s;
  const int rank = input.rank();
  const Tensor* const t[5] = {&ctx.input(2), &ctx.input(3), &ctx.input(4), &ctx.input(5),
                              &ctx.input(6)};
  absl::StatusOr<ops::WindowPlan> p = ops::ReadWindowPlan(t, rank);
  if (!p.ok()) return p.status();
  absl::StatusOr<std::string> fn = FunctionName(ctx.attrs(), "computation");
  if (!fn.ok()) return fn.status();
  Shape out_shape(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    absl::StatusOr<int64_t> s = ops::ReduceWindowOutputDim(*p, input.dim(d), d);
    if (!s.ok()) return s.status();
    out_shape[d] = *s;
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t total = (*out)->num_elements();
  if (total == 0) return absl::OkStatus();
  // table[d][o * window + k]: the input offset along d that window element k
  // of output index o reads, or -1 for padding and dilation holes.
  const Shape strides = RowMajorStrides(input.shape());
  std::vector<Ints> table(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int64_t w = p->window[d];
    const int64_t dilated = ops::DilatedDim(input.dim(d), p->base_dilations[d]);
    table[d].resize(static_cast<size_t>(out_shape[d] * w));
    for (int64_t o = 0; o < out_shape[d]; ++o) {
      for (int64_t k = 0; k < w; ++k) {
        const int64_t pos = o * p->strides[d] + k * p->window_dilations[d] - p->low[d];
        const bool hit = pos >= 0 && pos < dilated && pos % p->base_dilations[d] == 0;
        table[d][o * w + k] = hit ? (pos / p->base_dilations[d]) * strides[d] : -1;
      }
    }
  }
  const int64_t window_size = DimProduct(p->window, 0, rank);
  return misc::VisitRealType(input.dtype(), "XlaReduceWindow", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Reducer<T> reducer(ctx, *fn);
    const T* src = input.data<T>();
    T* dst = (*out)->data<T>();
    Ints o(static_cast<size_t>(rank), 0), k(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < total; ++i) {
      T acc = init.data<T>()[0];
      std::fill(k.begin(), k.end(), 0);
      for (int64_t j = 0; j < window_size; ++j) {
        int64_t off = 0;
        bool hit = true;
        for (int d = 0; d < rank && hit; ++d) {
          const int64_t e = table[d][o[d] * p->window[d] + k[d]];
          hit = e >= 0;
          off += e;
        }
        if (hit && !reducer.Apply(acc, src[off])) return reducer.status();
        for (int d = rank - 1; d >= 0; --d) {
          if (++k[d] < p->window[d]) break;
          k[d] = 0;
        }
      }
      dst[i] = acc;
      for (int d = rank - 1; d >= 0; --d) {
        if (++o[d] < out_shape[d]) break;
        o[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterXlaReduceOps(KernelRegistry& r) {
  r.AddKernel({"XlaReduce", kCpu, "T", misc::RealTypes(), ComputeReduce});
  r.AddKernel({"XlaReduceWindow", kCpu, "T", misc::RealTypes(), ComputeReduceWindow});
}

}  // namespace smrt::kernels
