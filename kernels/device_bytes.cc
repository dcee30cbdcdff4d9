#include "kernels/device_bytes.h"

#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace smrt::kernels {

const DeviceBytes* ElementMover(const DeviceBytes* bytes, DataType dtype) {
  return bytes != nullptr && !HostMemoryDtype(dtype) ? bytes : nullptr;
}

absl::Status CheckWhere(const Tensor& item, const DeviceBytes* mover, absl::string_view what) {
  if (!item.valid() || item.on_device() == (mover != nullptr)) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "a ", what, " element (", item.DebugString(), ") is in ",
      item.on_device() ? "device" : "host", " memory, where this kernel keeps its elements in ",
      mover != nullptr ? "device" : "host", " memory: the ", what, " was made on another device"));
}

absl::StatusOr<Tensor> NewElement(KernelContext& ctx, const DeviceBytes* mover, DataType dtype,
                                  const Shape& shape, bool zero) {
  if (mover == nullptr) {
    return zero ? Tensor::Create(dtype, shape) : Tensor::CreateUninitialized(dtype, shape);
  }
  if (ctx.device() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(ctx.op(), " node '", ctx.node_name(), "' runs on a device it was not given"));
  }
  absl::StatusOr<Tensor> t = ctx.device()->Allocate(dtype, shape, ctx.node_name());
  if (!t.ok() || !zero || t->byte_size() == 0) return t;
  if (absl::Status s = mover->zero(t->raw_data(), t->byte_size(), ctx.device()->stream());
      !s.ok()) {
    return s;
  }
  return t;
}

absl::Status CopyBytes(KernelContext& ctx, const DeviceBytes* mover, void* dst, const void* src,
                       size_t n) {
  if (n == 0) return absl::OkStatus();
  if (mover == nullptr) {
    std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  return mover->copy(dst, src, n, ctx.device()->stream());
}

ComputeFn WithBytes(absl::Status (*f)(KernelContext&, const DeviceBytes*),
                    const DeviceBytes* bytes) {
  std::optional<DeviceBytes> held;
  if (bytes != nullptr) held = *bytes;
  return [held, f](KernelContext& ctx) { return f(ctx, held ? &*held : nullptr); };
}

KernelSpec ElementKernel(const std::string& op, const std::string& device, ComputeFn compute,
                         const std::string& backend, std::vector<std::string> dtype_attrs) {
  KernelSpec k;
  k.op = op;
  k.device = device;
  k.compute = std::move(compute);
  k.backend = backend;
  k.host_memory_by_dtype = true;
  k.supports = [dtype_attrs = std::move(dtype_attrs)](const AttrMap& attrs) {
    for (const std::string& attr : dtype_attrs) {
      absl::StatusOr<DataType> t = attrs.Get<DataType>(attr);
      if (t.ok()) return IsFixedSize(*t);
    }
    return true;
  };
  return k;
}

}  // namespace smrt::kernels
