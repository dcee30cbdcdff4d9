#include "smrt/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/buffer_cache.h"
#include "core/run_limits.h"

namespace smrt {

static_assert(kTensorAlignment == kBufferAlignment, "tensors use the buffer cache's alignment");

std::string ShapeToString(absl::Span<const int64_t> shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

absl::StatusOr<int64_t> NumElements(absl::Span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeToString(shape), " has a negative dim"));
    }
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", ShapeToString(shape), " has more elements than fit in int64"));
    }
    n *= d;
  }
  return n;
}

namespace {

absl::StatusOr<size_t> ElementBytes(DataType dtype, int64_t n) {
  size_t elem = dtype == DataType::kString ? sizeof(std::string)
                                           : DataTypeSize(dtype);
  if (elem == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensors of type ", DataTypeName(dtype), " cannot be created"));
  }
  if (static_cast<uint64_t>(n) >
      (std::numeric_limits<size_t>::max() - kTensorAlignment) / elem) {
    return absl::ResourceExhaustedError(
        absl::StrCat("tensor of ", n, " elements is too large"));
  }
  return static_cast<size_t>(n) * elem;
}

}  // namespace

absl::StatusOr<Tensor> Tensor::Create(DataType dtype, Shape shape) {
  return Allocate(dtype, std::move(shape), /*zero=*/true);
}

absl::StatusOr<Tensor> Tensor::CreateUninitialized(DataType dtype, Shape shape) {
  return Allocate(dtype, std::move(shape), /*zero=*/false);
}

absl::StatusOr<Tensor> Tensor::Allocate(DataType dtype, Shape shape, bool zero) {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  absl::StatusOr<size_t> bytes = ElementBytes(dtype, *n);
  if (!bytes.ok()) return bytes.status();
  // Limits of the model being loaded or run on this thread (run_limits.h).
  std::shared_ptr<MemoryCounters> reserved;
  if (absl::Status s = ReserveTensorBytes(*bytes, dtype, shape, &reserved); !s.ok()) return s;
  const uint64_t reserved_bytes = *bytes;
  auto release = [reserved, reserved_bytes] {
    if (reserved != nullptr) reserved->Sub(reserved_bytes);
  };

  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = *n;
  t.byte_size_ = *bytes;
  if (dtype == DataType::kString) {
    std::string* strings = new (std::nothrow) std::string[*n > 0 ? *n : 1];
    if (strings == nullptr) {
      release();
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", *n, " strings"));
    }
    t.storage_ = std::shared_ptr<void>(strings, [release](void* p) {
      delete[] static_cast<std::string*>(p);
      release();
    });
  } else {
    const size_t bytes_asked = *bytes;
    void* p = AllocateBuffer(bytes_asked);
    if (p == nullptr) {
      release();
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot allocate ", *bytes, " bytes for a ",
                       DataTypeShortName(dtype), " tensor of shape ",
                       ShapeToString(t.shape_)));
    }
    // Zeroed to the alignment, as kernels may load whole vectors at the end;
    // uninitialized tensors get only that padding zeroed.
    const size_t padded = std::max<size_t>(
        kTensorAlignment, (bytes_asked + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment);
    const size_t from = zero ? 0 : bytes_asked;
    std::memset(static_cast<char*>(p) + from, 0, padded - from);
    t.storage_ = std::shared_ptr<void>(p, [release, bytes_asked](void* q) {
      FreeBuffer(q, bytes_asked);
      release();
    });
  }
  t.data_ = t.storage_.get();
  return t;
}

absl::StatusOr<Tensor> Tensor::View(DataType dtype, Shape shape, void* data,
                                    size_t byte_size) {
  if (!IsFixedSize(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot view caller memory as a ", DataTypeName(dtype), " tensor"));
  }
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  absl::StatusOr<size_t> bytes = ElementBytes(dtype, *n);
  if (!bytes.ok()) return bytes.status();
  if (*bytes != byte_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", DataTypeShortName(dtype), " tensor of shape ",
        ShapeToString(shape), " needs ", *bytes, " bytes, the buffer has ",
        byte_size));
  }
  if (data == nullptr && byte_size != 0) {
    return absl::InvalidArgumentError("cannot view a null buffer");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = *n;
  t.byte_size_ = byte_size;
  t.data_ = data;
  return t;
}

Tensor Tensor::Variant(std::shared_ptr<void> object) {
  Tensor t;
  t.dtype_ = DataType::kVariant;
  t.num_elements_ = 1;
  t.storage_ = std::move(object);
  t.data_ = t.storage_.get();
  return t;
}

absl::StatusOr<Tensor> Tensor::DeviceStorage(DataType dtype, Shape shape,
                                             std::shared_ptr<void> storage) {
  return FromStorage(dtype, std::move(shape), std::move(storage), /*on_device=*/true);
}

absl::StatusOr<Tensor> Tensor::HostStorage(DataType dtype, Shape shape,
                                           std::shared_ptr<void> storage) {
  return FromStorage(dtype, std::move(shape), std::move(storage), /*on_device=*/false);
}

absl::StatusOr<Tensor> Tensor::MappedStorage(DataType dtype, Shape shape,
                                             std::shared_ptr<void> storage) {
  absl::StatusOr<Tensor> t =
      FromStorage(dtype, std::move(shape), std::move(storage), /*on_device=*/false);
  if (t.ok()) t->mapped_ = true;
  return t;
}

absl::StatusOr<Tensor> Tensor::FromStorage(DataType dtype, Shape shape,
                                           std::shared_ptr<void> storage, bool on_device) {
  if (!IsFixedSize(dtype) && (dtype != DataType::kString || on_device)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", DataTypeName(dtype), " tensor cannot live in ", on_device ? "device" : "given",
        " storage"));
  }
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  absl::StatusOr<size_t> bytes = ElementBytes(dtype, *n);
  if (!bytes.ok()) return bytes.status();
  if (storage == nullptr && *bytes != 0) {
    return absl::InvalidArgumentError(on_device ? "device storage is null" : "storage is null");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = *n;
  t.byte_size_ = *bytes;
  t.data_ = storage.get();
  t.storage_ = std::move(storage);
  t.on_device_ = on_device;
  return t;
}

absl::StatusOr<Tensor> Tensor::Clone() const {
  if (!valid()) return Tensor();
  if (on_device_) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot clone a ", DebugString(), " tensor on the host"));
  }
  if (dtype_ == DataType::kVariant) return *this;  // objects are immutable once shared
  // Every element is written below: no zero-fill first (a 100 MB weight
  // clone paid for a memset it then overwrote).
  absl::StatusOr<Tensor> copy = CreateUninitialized(dtype_, shape_);
  if (!copy.ok()) return copy.status();
  if (dtype_ == DataType::kString) {
    const std::string* src = data<std::string>();
    std::string* dst = copy->data<std::string>();
    for (int64_t i = 0; i < num_elements_; ++i) dst[i] = src[i];
  } else if (byte_size_ > 0) {
    std::memcpy(copy->raw_data(), data_, byte_size_);
  }
  return copy;
}

absl::StatusOr<Tensor> Tensor::Reshaped(Shape shape) const {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  if (*n != num_elements_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot reshape a tensor of shape ", ShapeToString(shape_), " (",
        num_elements_, " elements) to ", ShapeToString(shape), " (", *n,
        " elements)"));
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

std::string Tensor::DebugString() const {
  return absl::StrCat(DataTypeShortName(dtype_), " ", ShapeToString(shape_),
                      on_device_ ? " on device" : "");
}

}  // namespace smrt
