#include "testing/resident_pages.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::testing {
namespace {

uint64_t PageSize() { return static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

int64_t PagesOf(const void* data, size_t bytes) {
  if (bytes == 0) return 0;
  const uint64_t page = PageSize();
  const uint64_t begin = reinterpret_cast<uintptr_t>(data) / page;
  const uint64_t end = (reinterpret_cast<uintptr_t>(data) + bytes + page - 1) / page;
  return static_cast<int64_t>(end - begin);
}

absl::StatusOr<int64_t> PresentPages(const void* data, size_t bytes) {
  const int64_t n = PagesOf(data, bytes);
  if (n == 0) return 0;
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot open /proc/self/pagemap: ", std::strerror(errno)));
  }
  // One 64-bit entry per virtual page; bit 63: present.
  std::vector<uint64_t> entries(static_cast<size_t>(n));
  const uint64_t first = reinterpret_cast<uintptr_t>(data) / PageSize();
  const ssize_t want = static_cast<ssize_t>(entries.size() * sizeof(uint64_t));
  const ssize_t got = ::pread(fd, entries.data(), static_cast<size_t>(want),
                              static_cast<off_t>(first * sizeof(uint64_t)));
  ::close(fd);
  if (got != want) return absl::UnavailableError("short read from /proc/self/pagemap");
  int64_t present = 0;
  for (uint64_t e : entries) present += (e >> 63) & 1;
  return present;
}

}  // namespace smrt::testing
