// Stateful random ops on CUDA: RandomUniform (float32), RandomUniformInt
// (int32, int64) and Multinomial (float32 logits). The node's generator is
// the CPU kernels' (random::ReserveBlocks: the same Resource, reserving what
// TensorFlow reserves per call), the shape, bounds and sample count are read
// on the host, and random.cu draws each output where the stream stands, so a
// seeded node gives the CPU's numbers on either device.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/random_ops_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/random.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

// The output [shape] of `dtype` and the generator reserved for it.
struct Fill {
  Tensor* out;
  Philox gen;
  cudaStream_t stream;
};

absl::StatusOr<Fill> StartFill(KernelContext& ctx, DataType dtype,
                               const Tensor* minval = nullptr, const Tensor* maxval = nullptr) {
  absl::StatusOr<const Tensor*> shape = HostInput(ctx, 0, "shape");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::vector<int64_t>> dims = random::OutputDims(**shape);
  if (!dims.ok()) return AtNode(ctx, dims.status());
  int64_t elements = 1;
  for (int64_t d : *dims) elements *= d;
  if (minval != nullptr) {  // checked before the stream moves, as on the CPU
    if (absl::Status s = random::CheckUniformIntBounds(*minval, *maxval, dtype, elements);
        !s.ok()) {
      return AtNode(ctx, s);
    }
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, dtype, *dims);
  if (!out.ok()) return out.status();
  absl::StatusOr<Philox> gen = random::ReserveBlocks(
      ctx, static_cast<uint64_t>(elements) * random::kReservedBlocksPerOutput);
  if (!gen.ok()) return AtNode(ctx, gen.status());
  return Fill{*out, *gen, *stream};
}

absl::Status RandomUniform(KernelContext& ctx) {
  absl::StatusOr<Fill> fill = StartFill(ctx, DataType::kFloat);
  if (!fill.ok()) return fill.status();
  return CudaStatus(LaunchRandomUniform(fill->gen, fill->out->data<float>(),
                                        fill->out->num_elements(), fill->stream),
                    ctx.op(), ctx.node_name(), "launching the uniform random kernel");
}

absl::Status RandomUniformInt(KernelContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("Tout");
  if (!dtype.ok()) return AtNode(ctx, dtype.status());
  absl::StatusOr<const Tensor*> minval = HostInput(ctx, 1, "minval");
  if (!minval.ok()) return minval.status();
  absl::StatusOr<const Tensor*> maxval = HostInput(ctx, 2, "maxval");
  if (!maxval.ok()) return maxval.status();
  absl::StatusOr<Fill> fill = StartFill(ctx, *dtype, *minval, *maxval);
  if (!fill.ok()) return fill.status();
  const int64_t n = fill->out->num_elements();
  const cudaError_t err =
      *dtype == DataType::kInt32
          ? LaunchRandomUniformInt(fill->gen, (*minval)->data<int32_t>()[0],
                                   (*maxval)->data<int32_t>()[0], fill->out->data<int32_t>(), n,
                                   fill->stream)
          : LaunchRandomUniformInt(fill->gen, (*minval)->data<int64_t>()[0],
                                   (*maxval)->data<int64_t>()[0], fill->out->data<int64_t>(), n,
                                   fill->stream);
  return CudaStatus(err, ctx.op(), ctx.node_name(), "launching the uniform integer kernel");
}

absl::Status Multinomial(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kFloat); !s.ok()) return s;
  absl::StatusOr<const Tensor*> num_samples = HostInput(ctx, 1, "num_samples");
  if (!num_samples.ok()) return num_samples.status();
  absl::StatusOr<random::MultinomialArgs> args =
      random::ReadMultinomialArgs(ctx.input(0), **num_samples);
  if (!args.ok()) return AtNode(ctx, args.status());
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("output_dtype", DataType::kInt64);
  if (!dtype.ok()) return AtNode(ctx, dtype.status());
  if (*dtype != DataType::kInt32 && *dtype != DataType::kInt64) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "output_dtype must be int32 or int64, got ", DataTypeName(*dtype))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out =
      ctx.allocate_device_output(0, *dtype, {args->rows, args->num_samples});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();  // TF reserves nothing then
  absl::StatusOr<Philox> gen = random::ReserveBlocks(ctx, random::MultinomialReservation(*args));
  if (!gen.ok()) return AtNode(ctx, gen.status());
  const float* logits = ctx.input(0).data<float>();
  const cudaError_t err =
      *dtype == DataType::kInt32
          ? LaunchMultinomial(*gen, logits, args->rows, args->classes, args->num_samples,
                              (*out)->data<int32_t>(), *stream)
          : LaunchMultinomial(*gen, logits, args->rows, args->classes, args->num_samples,
                              (*out)->data<int64_t>(), *stream);
  return CudaStatus(err, ctx.op(), ctx.node_name(), "launching the multinomial kernel");
}

}  // namespace

std::vector<KernelSpec> RandomKernels() {
  return {
      CudaKernel("RandomUniform", "dtype", {DataType::kFloat}, RandomUniform,
                 /*host_memory_inputs=*/{0}),
      CudaKernel("RandomUniformInt", "Tout", {DataType::kInt32, DataType::kInt64},
                 RandomUniformInt, /*host_memory_inputs=*/{0, 1, 2}),
      CudaKernel("Multinomial", "T", {DataType::kFloat}, Multinomial,
                 /*host_memory_inputs=*/{1}),
  };
}

}  // namespace smrt::kernels::cuda
