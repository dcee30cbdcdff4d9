// The registry's CUDA kernels for elementwise ops. Until the placement pass
// puts tensors in device memory (with copy nodes at device boundaries), the
// executor hands every kernel host tensors; these kernels stage them through
// device memory on a per-thread stream: copy in, run the CUDA kernel, copy
// out, synchronize. The computation itself is elementwise.cu.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/broadcast_index.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

// One non-blocking stream per host thread, made on first use and kept for
// the thread's life (destroying it at exit could race the runtime's teardown).
absl::StatusOr<cudaStream_t> ThreadStream(absl::string_view op, absl::string_view node) {
  thread_local cudaStream_t stream = nullptr;
  if (stream == nullptr) {
    absl::Status s = CudaStatus(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), op,
                                node, "cudaStreamCreateWithFlags");
    if (!s.ok()) {
      stream = nullptr;
      return s;
    }
  }
  return stream;
}

size_t Padded(size_t bytes) { return (bytes + 255) / 256 * 256; }

// Device copies of a kernel's inputs and room for its output, in one
// stream-ordered allocation freed (and the stream synchronized) on Finish.
class Staging {
 public:
  Staging(absl::string_view op, absl::string_view node) : op_(op), node_(node) {}
  ~Staging() { (void)Finish(/*copy_out=*/false); }  // on an early error return

  absl::Status Start(const std::vector<const Tensor*>& inputs, Tensor* output) {
    absl::StatusOr<cudaStream_t> s = ThreadStream(op_, node_);
    if (!s.ok()) return s.status();
    stream_ = *s;
    size_t total = Padded(output->byte_size());
    for (const Tensor* t : inputs) total += Padded(t->byte_size());
    absl::Status st = Check(cudaMallocAsync(&base_, total, stream_), "cudaMallocAsync");
    if (!st.ok()) {
      base_ = nullptr;
      return st;
    }
    char* p = static_cast<char*>(base_);
    for (const Tensor* t : inputs) {
      device_inputs_.push_back(p);
      st = Check(cudaMemcpyAsync(p, t->raw_data(), t->byte_size(), cudaMemcpyHostToDevice,
                                 stream_),
                 "cudaMemcpyAsync (host to device)");
      if (!st.ok()) return st;
      p += Padded(t->byte_size());
    }
    device_output_ = p;
    output_ = output;
    return absl::OkStatus();
  }

  const void* input(int i) const { return device_inputs_[i]; }
  void* output() const { return device_output_; }
  cudaStream_t stream() const { return stream_; }
  absl::Status Check(cudaError_t err, absl::string_view call) const {
    return CudaStatus(err, op_, node_, call);
  }

  // Copies the output back, frees, synchronizes; the first error wins.
  absl::Status Finish(bool copy_out = true) {
    if (base_ == nullptr) return absl::OkStatus();
    absl::Status st;
    if (copy_out) {
      st = Check(cudaMemcpyAsync(output_->raw_data(), device_output_, output_->byte_size(),
                                 cudaMemcpyDeviceToHost, stream_),
                 "cudaMemcpyAsync (device to host)");
    }
    absl::Status freed = Check(cudaFreeAsync(base_, stream_), "cudaFreeAsync");
    base_ = nullptr;
    absl::Status synced = Check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    if (st.ok()) st = freed;
    if (st.ok()) st = synced;
    return st;
  }

 private:
  absl::string_view op_, node_;
  cudaStream_t stream_ = nullptr;
  void* base_ = nullptr;
  std::vector<const void*> device_inputs_;
  void* device_output_ = nullptr;
  Tensor* output_ = nullptr;
};

template <typename T>
absl::Status BinaryCompute(KernelContext& ctx, BinaryOp op) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Shape out_shape;
  absl::StatusOr<BroadcastIndex> index = MakeBroadcastIndex(a.shape(), b.shape(), &out_shape);
  if (!index.ok()) return index.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, a.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  if (n == 0) return absl::OkStatus();
  Staging staging(ctx.op(), ctx.node_name());
  if (absl::Status s = staging.Start({&a, &b}, *out); !s.ok()) return s;
  absl::Status launched = staging.Check(
      LaunchBinary<T>(op, static_cast<const T*>(staging.input(0)),
                      static_cast<const T*>(staging.input(1)), static_cast<T*>(staging.output()),
                      n, *index, staging.stream()),
      op == BinaryOp::kAdd ? "launching the add kernel" : "launching the mul kernel");
  absl::Status finished = staging.Finish(launched.ok());
  return launched.ok() ? finished : launched;
}

template <typename T>
absl::Status ReluCompute(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  const int64_t n = in.num_elements();
  if (n == 0) return absl::OkStatus();
  Staging staging(ctx.op(), ctx.node_name());
  if (absl::Status s = staging.Start({&in}, *out); !s.ok()) return s;
  absl::Status launched = staging.Check(
      LaunchRelu<T>(static_cast<const T*>(staging.input(0)), static_cast<T*>(staging.output()), n,
                    staging.stream()),
      "launching the relu kernel");
  absl::Status finished = staging.Finish(launched.ok());
  return launched.ok() ? finished : launched;
}

absl::Status ByDtype(KernelContext& ctx, absl::Status (*f32)(KernelContext&),
                     absl::Status (*i32)(KernelContext&)) {
  switch (ctx.input(0).dtype()) {
    case DataType::kFloat:
      return f32(ctx);
    case DataType::kInt32:
      return i32(ctx);
    default:
      return absl::UnimplementedError(absl::StrCat("CUDA kernel ", ctx.op(), " has no ",
                                                   DataTypeName(ctx.input(0).dtype()), " kernel"));
  }
}

KernelSpec Binary(const char* op, BinaryOp kind) {
  KernelSpec k;
  k.op = op;
  k.device = kCudaDevice;
  k.type_attr = "T";
  k.types = {DataType::kFloat, DataType::kInt32};
  if (kind == BinaryOp::kAdd) {
    k.compute = [](KernelContext& ctx) {
      return ByDtype(
          ctx, [](KernelContext& c) { return BinaryCompute<float>(c, BinaryOp::kAdd); },
          [](KernelContext& c) { return BinaryCompute<int32_t>(c, BinaryOp::kAdd); });
    };
  } else {
    k.compute = [](KernelContext& ctx) {
      return ByDtype(
          ctx, [](KernelContext& c) { return BinaryCompute<float>(c, BinaryOp::kMul); },
          [](KernelContext& c) { return BinaryCompute<int32_t>(c, BinaryOp::kMul); });
    };
  }
  return k;
}

}  // namespace

std::vector<KernelSpec> ElementwiseKernels() {
  KernelSpec relu;
  relu.op = "Relu";
  relu.device = kCudaDevice;
  relu.type_attr = "T";
  relu.types = {DataType::kFloat, DataType::kInt32};
  relu.compute = [](KernelContext& ctx) {
    return ByDtype(ctx, &ReluCompute<float>, &ReluCompute<int32_t>);
  };
  return {Binary("Add", BinaryOp::kAdd), Binary("AddV2", BinaryOp::kAdd),
          Binary("Mul", BinaryOp::kMul), relu};
}

}  // namespace smrt::kernels::cuda
