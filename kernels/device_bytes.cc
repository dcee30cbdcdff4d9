#include "kernels/device_bytes.h"

#include <cstring>
#include <memory>
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

absl::Status CopyAll(KernelContext& ctx, const DeviceBytes* mover,
                     const std::vector<ByteCopy>& copies) {
  std::vector<ByteCopy> joined;
  for (const ByteCopy& c : copies) {
    if (c.bytes == 0) continue;
    if (!joined.empty()) {
      ByteCopy& last = joined.back();
      if (static_cast<char*>(last.dst) + last.bytes == c.dst &&
          static_cast<const char*>(last.src) + last.bytes == c.src) {
        last.bytes += c.bytes;
        continue;
      }
    }
    joined.push_back(c);
  }
  if (mover != nullptr && mover->copy_batch != nullptr && joined.size() > 1) {
    std::vector<void*> dsts;
    std::vector<const void*> srcs;
    std::vector<size_t> sizes;
    for (const ByteCopy& c : joined) {
      dsts.push_back(c.dst);
      srcs.push_back(c.src);
      sizes.push_back(c.bytes);
    }
    return mover->copy_batch(dsts.data(), srcs.data(), sizes.data(), joined.size(),
                             ctx.device()->stream());
  }
  for (const ByteCopy& c : joined) {
    if (absl::Status s = CopyBytes(ctx, mover, c.dst, c.src, c.bytes); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> SplitRows(KernelContext& ctx, const DeviceBytes* mover,
                                              const Tensor& t) {
  const Shape row(t.shape().begin() + 1, t.shape().end());
  const int64_t n = t.dim(0);
  const size_t row_bytes = n == 0 ? 0 : t.byte_size() / static_cast<size_t>(n);
  std::vector<Tensor> rows;
  rows.reserve(static_cast<size_t>(n));
  if (mover == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      absl::StatusOr<Tensor> r = NewElement(ctx, nullptr, t.dtype(), row, /*zero=*/false);
      if (!r.ok()) return r.status();
      if (row_bytes > 0) {
        std::memcpy(r->raw_data(), static_cast<const char*>(t.raw_data()) + i * row_bytes,
                    row_bytes);
      }
      rows.push_back(*std::move(r));
    }
    return rows;
  }
  absl::StatusOr<Tensor> copy = NewElement(ctx, mover, t.dtype(), t.shape(), /*zero=*/false);
  if (!copy.ok()) return copy.status();
  if (absl::Status s = CopyBytes(ctx, mover, copy->raw_data(), t.raw_data(), t.byte_size());
      !s.ok()) {
    return s;
  }
  auto whole = std::make_shared<Tensor>(*std::move(copy));
  char* base = static_cast<char*>(whole->raw_data());
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<Tensor> r = Tensor::DeviceStorage(
        t.dtype(), row, std::shared_ptr<void>(whole, base + i * row_bytes));
    if (!r.ok()) return r.status();
    rows.push_back(*std::move(r));
  }
  return rows;
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
