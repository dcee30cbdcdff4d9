#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/run_limits.h"

namespace smrt::file {
namespace {

uint64_t PageSize() {
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// madvise(MADV_DONTNEED) on the pages wholly inside [begin, begin + bytes):
// for a private file mapping that nothing wrote, the next read fills them
// again from the file.
void DropPages(const char* begin, uint64_t bytes) {
  const uint64_t page = PageSize();
  const uint64_t start = reinterpret_cast<uintptr_t>(begin);
  const uint64_t first = (start + page - 1) / page * page;
  const uint64_t last = (start + bytes) / page * page;
  if (last <= first) return;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const MappedFile>> MappedFile::Map(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    const std::string msg = absl::StrCat("cannot open ", path, " for reading: ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(msg);
    if (err == EACCES) return absl::PermissionDeniedError(msg);
    return absl::UnavailableError(msg);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::UnavailableError(absl::StrCat(path, " is not a regular file"));
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<uint64_t>(st.st_size);
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return absl::UnavailableError(
          absl::StrCat("cannot map ", path, ": ", std::strerror(err)));
    }
    file->data_ = static_cast<char*>(p);
  }
  ::close(fd);  // the mapping keeps the file
  return std::shared_ptr<const MappedFile>(std::move(file));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

bool CanMapTensorAt(uint64_t offset, uint64_t bytes) {
  return offset % kTensorAlignment == 0 && bytes % kTensorAlignment == 0;
}

absl::StatusOr<Tensor> MappedTensor(std::shared_ptr<const MappedFile> file, uint64_t offset,
                                    DataType dtype, Shape shape) {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  if (!IsFixedSize(dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", DataTypeName(dtype), " tensor cannot be mapped from a file"));
  }
  const uint64_t bytes = static_cast<uint64_t>(*n) * DataTypeSize(dtype);
  if (!CanMapTensorAt(offset, bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bytes [", offset, ", ", offset + bytes, ") of ", file->path(),
        " are not aligned to ", kTensorAlignment, " bytes: read them instead of mapping"));
  }
  if (offset > file->size() || bytes > file->size() - offset) {
    return absl::OutOfRangeError(absl::StrCat(file->path(), ": wanted bytes [", offset, ", ",
                                              offset + bytes, ") but the file has ",
                                              file->size(), " bytes (truncated?)"));
  }
  std::shared_ptr<MemoryCounters> reserved;
  if (absl::Status s = ReserveTensorBytes(bytes, dtype, shape, &reserved); !s.ok()) return s;
  char* data = const_cast<char*>(file->data()) + offset;
  std::shared_ptr<void> storage(data, [file = std::move(file), reserved, bytes](void* p) {
    DropPages(static_cast<const char*>(p), bytes);
    if (reserved != nullptr) reserved->Sub(bytes);
  });
  return Tensor::MappedStorage(dtype, std::move(shape), std::move(storage));
}

void ReleaseResidentPages(const Tensor& t) {
  if (!t.mapped()) return;
  DropPages(static_cast<const char*>(t.raw_data()), t.byte_size());
}

}  // namespace smrt::file
