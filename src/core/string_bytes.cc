#include "core/string_bytes.h"

#include <new>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/run_limits.h"

namespace smrt {

uint64_t StringContentBytes(const Tensor& t) {
  if (t.dtype() != DataType::kString || t.on_device()) return 0;
  uint64_t bytes = 0;
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.num_elements(); ++i) bytes += s[i].size();
  return bytes;
}

absl::StatusOr<Tensor> CreateStringTensor(Shape shape, uint64_t content_bytes) {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  const uint64_t elements = static_cast<uint64_t>(*n);
  if (elements > UINT64_MAX / sizeof(std::string) ||
      elements * sizeof(std::string) > UINT64_MAX - content_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a string tensor of shape ", ShapeToString(shape), " is too large"));
  }
  const uint64_t bytes = elements * sizeof(std::string) + content_bytes;
  std::shared_ptr<MemoryCounters> reserved;
  if (absl::Status s = ReserveTensorBytes(bytes, DataType::kString, shape, &reserved); !s.ok()) {
    return s;
  }
  std::string* strings = new (std::nothrow) std::string[elements > 0 ? elements : 1];
  if (strings == nullptr) {
    if (reserved != nullptr) reserved->Sub(bytes);
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", elements, " strings"));
  }
  std::shared_ptr<void> storage(strings, [reserved, bytes](void* p) {
    delete[] static_cast<std::string*>(p);
    if (reserved != nullptr) reserved->Sub(bytes);
  });
  return Tensor::HostStorage(DataType::kString, std::move(shape), std::move(storage));
}

absl::StatusOr<Tensor> CountStringContents(Tensor t) {
  if (t.dtype() != DataType::kString || t.on_device() || CurrentRunLimits() == nullptr) return t;
  const uint64_t content = StringContentBytes(t);
  if (content == 0) return t;
  // The elements were counted when the tensor was made; the limit on one
  // tensor applies to elements and contents together.
  if (const RunLimits* limits = CurrentRunLimits();
      limits->max_tensor_bytes > 0 && t.byte_size() + content > limits->max_tensor_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a string tensor of shape ", ShapeToString(t.shape()), " holds ", content,
        " bytes of strings, more than the limit of ", limits->max_tensor_bytes,
        " bytes for one tensor (LoadOptions::limits.max_tensor_bytes)"));
  }
  std::shared_ptr<MemoryCounters> reserved;
  if (absl::Status s = ReserveTensorBytes(content, DataType::kString, t.shape(), &reserved);
      !s.ok()) {
    return s;
  }
  void* elements = t.raw_data();
  Shape shape = t.shape();
  std::shared_ptr<void> storage(elements, [held = std::move(t), reserved, content](void*) {
    if (reserved != nullptr) reserved->Sub(content);
  });
  return Tensor::HostStorage(DataType::kString, std::move(shape), std::move(storage));
}

}  // namespace smrt
