// A SubAllocator for tests: real host memory, every call recorded, a
// configurable capacity (to act out a device running out) and free-memory
// report (to size allow_growth=false reservations).
#ifndef SMRT_TESTS_MEMORY_FAKE_SUB_ALLOCATOR_H_
#define SMRT_TESTS_MEMORY_FAKE_SUB_ALLOCATOR_H_

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "memory/sub_allocator.h"

namespace smrt::memory::testing {

struct BackingCall {
  bool alloc;  // false: a Free
  size_t bytes;
  void* ptr;   // null for a failed Alloc
};

struct BackingRecord {
  std::mutex mu;
  std::vector<BackingCall> calls;
  size_t capacity = ~size_t{0};  // Alloc fails past this many live bytes
  size_t live = 0;
  std::optional<BackingMemoryInfo> info;  // what MemoryInfo reports

  std::vector<size_t> AllocSizes() {  // successful ones, in order
    std::lock_guard<std::mutex> lock(mu);
    std::vector<size_t> out;
    for (const BackingCall& c : calls) {
      if (c.alloc && c.ptr != nullptr) out.push_back(c.bytes);
    }
    return out;
  }
  std::vector<BackingCall> Frees() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<BackingCall> out;
    for (const BackingCall& c : calls) {
      if (!c.alloc) out.push_back(c);
    }
    return out;
  }
};

class FakeSubAllocator : public SubAllocator {
 public:
  explicit FakeSubAllocator(std::shared_ptr<BackingRecord> record) : record_(std::move(record)) {}

  void* Alloc(size_t alignment, size_t bytes) override {
    std::lock_guard<std::mutex> lock(record_->mu);
    void* p = nullptr;
    if (bytes <= record_->capacity - record_->live) {
      p = std::aligned_alloc(alignment, bytes);
      if (p != nullptr) record_->live += bytes;
    }
    record_->calls.push_back({true, bytes, p});
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    std::lock_guard<std::mutex> lock(record_->mu);
    record_->calls.push_back({false, bytes, ptr});
    record_->live -= bytes;
    std::free(ptr);
  }
  std::optional<BackingMemoryInfo> MemoryInfo() const override {
    std::lock_guard<std::mutex> lock(record_->mu);
    return record_->info;
  }
  std::string name() const override { return "fake"; }

 private:
  std::shared_ptr<BackingRecord> record_;
};

}  // namespace smrt::memory::testing

#endif  // SMRT_TESTS_MEMORY_FAKE_SUB_ALLOCATOR_H_
