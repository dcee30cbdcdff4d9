// dlopen for the NVIDIA libraries the CUDA kernels call (cuBLAS, cuDNN):
// loaded on first use, never linked, so libsmrt loads on machines without
// them. Failures say which files were tried and why each did not load.
#ifndef SMRT_KERNELS_CUDA_DYNAMIC_LIBRARY_H_
#define SMRT_KERNELS_CUDA_DYNAMIC_LIBRARY_H_

#include <initializer_list>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::kernels::cuda {

// The first of `names` that dlopen loads. FailedPrecondition "<why_needed>
// but could not be loaded: tried a (error), b (error)" when none does.
absl::StatusOr<void*> OpenFirst(std::initializer_list<const char*> names,
                                absl::string_view why_needed);

// Resolves symbols of one library into typed function pointers, collecting
// the names it did not find.
class SymbolResolver {
 public:
  explicit SymbolResolver(void* library) : library_(library) {}
  template <typename Fn>
  void operator()(Fn& fn, const char* symbol) {
    fn = reinterpret_cast<Fn>(Find(symbol));
  }
  // FailedPrecondition "the <library> library that was loaded lacks a, b".
  absl::Status Finish(absl::string_view library) const;

 private:
  void* Find(const char* symbol);
  void* library_;
  std::string missing_;
};

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_DYNAMIC_LIBRARY_H_
