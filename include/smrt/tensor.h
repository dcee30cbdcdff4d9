// smrt::Tensor: a typed, shaped block of memory.
//
// A Tensor either owns 64-byte aligned storage (Create) or views memory the
// caller owns (View). Copies of a Tensor share the same storage, like
// tensorflow::Tensor; Clone() makes an independent copy. A Tensor is not
// synchronised: concurrent writers to shared storage must coordinate.
//
// kString tensors hold std::string elements (arbitrary bytes). kResource
// tensors cannot be created; kVariant tensors hold smrt-internal objects.
#ifndef SMRT_TENSOR_H_
#define SMRT_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "smrt/dtype.h"

namespace smrt {

using Shape = std::vector<int64_t>;

// "(2, 3)"; "()" for a scalar. Unknown dims (-1) print as -1.
std::string ShapeToString(absl::Span<const int64_t> shape);

// Number of elements, or an InvalidArgument error for a negative dim or a
// product that overflows int64.
absl::StatusOr<int64_t> NumElements(absl::Span<const int64_t> shape);

inline constexpr size_t kTensorAlignment = 64;

class Tensor {
 public:
  // An invalid tensor (dtype kInvalid, no storage).
  Tensor() = default;

  // Allocates zero-filled storage (empty strings for kString).
  // InvalidArgument for a negative dim, an overflowing size or an unsupported
  // dtype; ResourceExhausted when the allocation fails.
  static absl::StatusOr<Tensor> Create(DataType dtype, Shape shape);

  // As Create, but the element bytes are left as the allocator gives them
  // (only the padding up to the alignment is zeroed): for callers that
  // write every element, which saves a pass over the memory. kString
  // elements are still constructed empty.
  static absl::StatusOr<Tensor> CreateUninitialized(DataType dtype, Shape shape);

  // Views `byte_size` bytes at `data`, which the caller keeps alive and
  // unmodified-by-others for as long as any copy of the Tensor exists.
  // byte_size must equal num_elements * DataTypeSize(dtype). Fixed-size
  // dtypes only.
  static absl::StatusOr<Tensor> View(DataType dtype, Shape shape, void* data,
                                     size_t byte_size);

  // A tensor whose elements live in a device's memory (a GPU's), in
  // `storage`, which the allocator that made it frees. smrt-internal: such
  // tensors exist only inside a run on that device, between its copy steps;
  // Run's outputs and the tensors callers make are always in host memory.
  // The host must never dereference raw_data() of a device tensor.
  static absl::StatusOr<Tensor> DeviceStorage(DataType dtype, Shape shape,
                                              std::shared_ptr<void> storage);
  bool on_device() const { return on_device_; }
  // As DeviceStorage, for host memory: the elements at storage.get(), kept
  // alive by `storage`. smrt-internal: the executor hands kernels outputs in
  // its activation arena this way (exec/arena.h). For kString, storage.get()
  // points at num_elements constructed std::strings (core/string_bytes.h).
  static absl::StatusOr<Tensor> HostStorage(DataType dtype, Shape shape,
                                            std::shared_ptr<void> storage);
  // As HostStorage, for elements in a read-only file mapping (a checkpoint's
  // data file; core/mapped_file.h): never written, so never sole_owner(), and
  // its pages may be given back to the OS and read again from the file.
  // smrt-internal.
  static absl::StatusOr<Tensor> MappedStorage(DataType dtype, Shape shape,
                                              std::shared_ptr<void> storage);
  bool mapped() const { return mapped_; }

  bool valid() const { return dtype_ != DataType::kInvalid; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t num_elements() const { return num_elements_; }
  // Bytes of element storage; for kString, num_elements * sizeof(std::string).
  size_t byte_size() const { return byte_size_; }
  bool is_view() const { return data_ != nullptr && !storage_; }
  // Whether this Tensor owns its storage and no other Tensor shares it: then
  // whoever holds it may write its elements in place (e.g. an executor's
  // last use of a value). False for views, shared and mapped storage.
  bool sole_owner() const {
    return storage_ != nullptr && !mapped_ && storage_.use_count() == 1;
  }

  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }
  template <typename T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }

  // A scalar kVariant tensor holding one object (smrt uses these internally
  // for TensorLists); copies share the object.
  static Tensor Variant(std::shared_ptr<void> object);
  void* variant_object() const { return dtype_ == DataType::kVariant ? data_ : nullptr; }

  // An independent copy that owns its storage (host tensors only).
  absl::StatusOr<Tensor> Clone() const;

  // Same storage, new shape with the same number of elements.
  absl::StatusOr<Tensor> Reshaped(Shape shape) const;

  // "float32 (2, 3)".
  std::string DebugString() const;

 private:
  static absl::StatusOr<Tensor> Allocate(DataType dtype, Shape shape, bool zero);
  static absl::StatusOr<Tensor> FromStorage(DataType dtype, Shape shape,
                                            std::shared_ptr<void> storage, bool on_device);

  DataType dtype_ = DataType::kInvalid;
  Shape shape_;
  int64_t num_elements_ = 0;
  size_t byte_size_ = 0;
  std::shared_ptr<void> storage_;  // null for views
  void* data_ = nullptr;
  bool on_device_ = false;
  bool mapped_ = false;
};

}  // namespace smrt

#endif  // SMRT_TENSOR_H_
