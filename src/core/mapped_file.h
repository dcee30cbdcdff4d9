// Files mapped into memory, and tensors that live in them. A checkpoint's
// weights read from a mapped data file are the page cache's pages, not a
// copy: loading copies and zero-fills nothing, and once a kernel holds its
// own copy of a weight in another layout (oneDNN's reordered weights), the
// plain weight's pages can go back to the OS (ReleaseResidentPages), to be
// read again from the file if anything reads them later. mmap-based runtimes
// (llama.cpp; TensorFlow's memmapped graphs) keep weights the same way.
//
// The mapping is private and read-only: nothing writes a mapped tensor
// (Tensor::sole_owner is false for it, so no kernel takes it over in place).
// As with every mapping, the file must not be truncated or rewritten in place
// while a model uses it; a new export should be written elsewhere, or over
// the old one by renaming (TensorFlow's writers do), or the model loaded
// with LoadOptions::map_variables = false.
#ifndef SMRT_CORE_MAPPED_FILE_H_
#define SMRT_CORE_MAPPED_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::file {

class MappedFile {
 public:
  // The whole file, read-only. NotFound or PermissionDenied (naming the path)
  // when it cannot be opened; Unavailable when it cannot be mapped (callers
  // read it instead); an empty file maps to size() 0.
  static absl::StatusOr<std::shared_ptr<const MappedFile>> Map(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  const char* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  MappedFile() = default;
  std::string path_;
  char* data_ = nullptr;
  uint64_t size_ = 0;
};

// Whether bytes [offset, offset + bytes) of a file can hold a mapped tensor:
// a tensor's data is kTensorAlignment-aligned and kernels may read whole
// vectors up to the next alignment (Tensor::Create zeroes that padding), so
// both the offset and the size must be multiples of kTensorAlignment.
bool CanMapTensorAt(uint64_t offset, uint64_t bytes);

// A tensor over bytes [offset, offset + bytes of dtype and shape) of `file`
// (Tensor::MappedStorage), which it keeps mapped. InvalidArgument when
// CanMapTensorAt is false or the range is past the end of the file. The
// bytes count against the thread's run limits like any tensor's. When the
// last copy of the tensor goes, its pages go back to the OS.
absl::StatusOr<Tensor> MappedTensor(std::shared_ptr<const MappedFile> file, uint64_t offset,
                                    DataType dtype, Shape shape);

// Gives the pages that lie wholly inside a mapped tensor's bytes back to the
// OS; its elements stay readable and unchanged (they are read again from the
// file). For a tensor that is not mapped, nothing.
void ReleaseResidentPages(const Tensor& t);

}  // namespace smrt::file

#endif  // SMRT_CORE_MAPPED_FILE_H_
