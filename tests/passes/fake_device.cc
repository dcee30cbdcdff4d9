#include "fake_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::passes {
inline namespace testing {
namespace {

using kernels::KernelContext;
using kernels::KernelSpec;

absl::Status WrongSide(const KernelContext& ctx, int i, bool want_device) {
  return absl::InternalError(absl::StrCat(ctx.op(), " input ", i, " is in ",
                                          want_device ? "host" : "device", " memory"));
}

// A host view of a fake-device tensor (its memory is host memory).
Tensor HostView(const Tensor& t) {
  return *Tensor::View(t.dtype(), t.shape(), const_cast<void*>(t.raw_data()), t.byte_size());
}

}  // namespace

absl::StatusOr<Tensor> FakeDevice::Allocate(DataType dtype, const Shape& shape,
                                            absl::string_view) {
  ++allocations;
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  const size_t bytes = static_cast<size_t>(*n) * DataTypeSize(dtype);
  std::shared_ptr<void> storage(std::malloc(bytes == 0 ? 1 : bytes), std::free);
  return Tensor::DeviceStorage(dtype, shape, std::move(storage));
}

KernelSpec Wrapped(const std::string& op, std::vector<int> host_inputs) {
  KernelSpec k;
  k.op = op;
  k.device = kFake;
  k.backend = "fake";
  k.host_memory_inputs = host_inputs;
  k.compute = [op, host_inputs](KernelContext& ctx) -> absl::Status {
    std::vector<Tensor> inputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const bool want_device =
          std::find(host_inputs.begin(), host_inputs.end(), i) == host_inputs.end();
      if (ctx.input(i).on_device() != want_device) return WrongSide(ctx, i, want_device);
      inputs.push_back(want_device ? HostView(ctx.input(i)) : ctx.input(i));
    }
    absl::StatusOr<const KernelSpec*> cpu =
        kernels::KernelRegistry::Default().FindKernel(op, ops::kCpu, ctx.attrs());
    if (!cpu.ok()) return cpu.status();
    KernelContext inner(ctx.node_name(), op, ctx.attrs(), std::move(inputs), ctx.num_outputs());
    if (absl::Status s = (*cpu)->compute(inner); !s.ok()) return s;
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      const Tensor& host = inner.output(i);
      absl::StatusOr<Tensor*> out = ctx.allocate_device_output(i, host.dtype(), host.shape());
      if (!out.ok()) return out.status();
      if (host.byte_size() > 0) std::memcpy((*out)->raw_data(), host.raw_data(), host.byte_size());
    }
    return absl::OkStatus();
  };
  return k;
}

std::vector<KernelSpec> FakeCopyKernels() {
  KernelSpec to_device{ops::kToDeviceOp, kFake};
  to_device.compute = [](KernelContext& ctx) -> absl::Status {
    if (ctx.input(0).on_device()) return WrongSide(ctx, 0, false);
    absl::StatusOr<Tensor*> out =
        ctx.allocate_device_output(0, ctx.input(0).dtype(), ctx.input(0).shape());
    if (!out.ok()) return out.status();
    std::memcpy((*out)->raw_data(), ctx.input(0).raw_data(), ctx.input(0).byte_size());
    return absl::OkStatus();
  };
  KernelSpec to_host{ops::kToHostOp, kFake};
  to_host.compute = [](KernelContext& ctx) -> absl::Status {
    if (!ctx.input(0).on_device()) return WrongSide(ctx, 0, true);
    absl::StatusOr<Tensor*> out =
        ctx.allocate_output_for_overwrite(0, ctx.input(0).dtype(), ctx.input(0).shape());
    if (!out.ok()) return out.status();
    std::memcpy((*out)->raw_data(), ctx.input(0).raw_data(), ctx.input(0).byte_size());
    return absl::OkStatus();
  };
  return {to_device, to_host};
}

FakeByteCalls& FakeBytesCalled() {
  static FakeByteCalls calls;
  return calls;
}

kernels::DeviceBytes FakeBytes() {
  kernels::DeviceBytes bytes;
  bytes.copy = [](void* dst, const void* src, size_t n, void*) {
    ++FakeBytesCalled().copies;
    std::memcpy(dst, src, n);
    return absl::OkStatus();
  };
  bytes.zero = [](void* dst, size_t n, void*) {
    std::memset(dst, 0, n);
    return absl::OkStatus();
  };
  bytes.copy_batch = [](void* const* dsts, const void* const* srcs, const size_t* sizes,
                        size_t count, void*) {
    ++FakeBytesCalled().batches;
    for (size_t i = 0; i < count; ++i) std::memcpy(dsts[i], srcs[i], sizes[i]);
    return absl::OkStatus();
  };
  return bytes;
}

}  // namespace testing
}  // namespace smrt::passes
