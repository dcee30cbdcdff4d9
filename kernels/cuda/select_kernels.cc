// SelectV2: a bool condition and then/else values of any fixed-size dtype,
// all on the device, broadcast against each other (select_index.h). Select
// (v1, TF1's tf.where and dynamic_rnn's loop) is the same kernel once its
// condition is shaped to broadcast (select_util.h: a vector picks rows).
#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/select_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/select.h"
#include "kernels/cuda/select_index.h"

namespace smrt::kernels::cuda {
namespace {

// `v1`: Select's rules (select_util.h) instead of broadcasting.
absl::Status SelectCompute(KernelContext& ctx, bool v1) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1, 2}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kBool); !s.ok()) return s;
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  if (t.dtype() != e.dtype()) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("'then' is ", DataTypeName(t.dtype()), " but 'else' is ",
                                        DataTypeName(e.dtype()))));
  }
  Shape cond_shape = cond.shape();
  if (v1) {
    absl::StatusOr<Shape> c = SelectConditionShape(cond.shape(), t.shape(), e.shape());
    if (!c.ok()) return AtNode(ctx, c.status());
    cond_shape = *std::move(c);
  }
  Shape out_shape;
  absl::StatusOr<SelectIndex> index = MakeSelectIndex(cond_shape, t.shape(), e.shape(),
                                                      &out_shape);
  if (!index.ok()) return AtNode(ctx, index.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, t.dtype(), out_shape);
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchSelect(cond.data<bool>(), t.raw_data(), e.raw_data(), (*out)->raw_data(),
                                 (*out)->num_elements(),
                                 static_cast<int>(DataTypeSize(t.dtype())), *index, *stream),
                    ctx.op(), ctx.node_name(), "launching the select kernel");
}

}  // namespace

std::vector<KernelSpec> SelectKernels() {
  return {
      CudaKernel("Select", "T", FixedSizeTypes(),
                 [](KernelContext& ctx) { return SelectCompute(ctx, /*v1=*/true); }),
      CudaKernel("SelectV2", "T", FixedSizeTypes(),
                 [](KernelContext& ctx) { return SelectCompute(ctx, /*v1=*/false); }),
  };
}

}  // namespace smrt::kernels::cuda
