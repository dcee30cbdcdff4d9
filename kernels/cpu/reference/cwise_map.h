// Element-wise maps for the math and special-function kernels (math_ops.cc,
// special_math_ops.cc): one input mapped to one output, or N inputs of one
// dtype broadcast as NumPy does (Betainc takes three). The functor gets each
// element as ComputeType<T> (float for float16/bfloat16) and its result is
// stored as Out. Work is split across the intra-op threads; the functors
// must be pure.
#ifndef SMRT_KERNELS_CPU_REFERENCE_CWISE_MAP_H_
#define SMRT_KERNELS_CPU_REFERENCE_CWISE_MAP_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/kernel.h"
#include "kernels/shared/broadcast.h"
#include "ops/math_shapes.h"

namespace smrt::kernels::cwise {

// Elements per shard for functors that cost tens of nanoseconds (a libm
// call or a series): a shard of kMinShardElements cheap additions.
inline constexpr int64_t kMinShardCalls = 2048;

// Output 0 = fn(input 0), of dtype Out and input 0's shape.
template <typename T, typename Out, typename Fn>
absl::Status UnaryMap(KernelContext& ctx, const Fn& fn) {
  using C = elementwise::ComputeType<T>;
  const Tensor& x = ctx.input(0);
  constexpr DataType kOut = elementwise::DataTypeFor<Out>::value;
  absl::StatusOr<Tensor*> out = std::is_same_v<T, Out>
                                    ? ctx.forward_input_or_allocate_output({0}, 0, kOut, x.shape())
                                    : ctx.allocate_output_for_overwrite(0, kOut, x.shape());
  if (!out.ok()) return out.status();
  const T* in = x.data<T>();
  Out* o = (*out)->template data<Out>();
  ParallelFor(x.num_elements(), kMinShardCalls, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = static_cast<Out>(fn(static_cast<C>(in[i])));
  });
  return absl::OkStatus();
}

// Output 0 = fn(input 0, ..., input N-1) over the inputs' broadcast shape,
// of dtype Out. The inputs' dtypes are the caller's to check (all T). Two
// shapes that do not broadcast fail with TensorFlow's BinaryOp message.
template <size_t N, typename T, typename Out, typename Fn>
absl::Status BroadcastMap(KernelContext& ctx, const Fn& fn) {
  using C = elementwise::ComputeType<T>;
  std::vector<Shape> shapes;
  std::array<const T*, N> in{};
  for (size_t k = 0; k < N; ++k) {
    shapes.push_back(ctx.input(static_cast<int>(k)).shape());
    in[k] = ctx.input(static_cast<int>(k)).template data<T>();
  }
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan(shapes);
  if (!plan.ok() && N == 2) return ops::IncompatibleShapesError(shapes[0], shapes[1]);
  if (!plan.ok()) return plan.status();
  constexpr DataType kOut = elementwise::DataTypeFor<Out>::value;
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, kOut, plan->out_shape);
  if (!out.ok()) return out.status();
  Out* o = (*out)->template data<Out>();
  ParallelForEachBroadcastRow<N>(*plan, [&](int64_t out_offset, const std::array<int64_t, N>& at,
                                            int64_t n, const std::array<int64_t, N>& stride) {
    for (int64_t j = 0; j < n; ++j) {
      std::array<C, N> args;
      for (size_t k = 0; k < N; ++k) args[k] = static_cast<C>(in[k][at[k] + j * stride[k]]);
      o[out_offset + j] = static_cast<Out>(std::apply(fn, args));
    }
  });
  return absl::OkStatus();
}

}  // namespace smrt::kernels::cwise

#endif  // SMRT_KERNELS_CPU_REFERENCE_CWISE_MAP_H_
