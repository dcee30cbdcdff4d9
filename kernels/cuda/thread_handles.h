// A library handle (cuDNN, cuBLAS, cuBLASLt) per host thread and GPU.
// Such a handle belongs to the device that was current when it was made,
// and is not safe to share between threads that use it at once; a model on
// CUDA:1 run from a thread that also ran one on CUDA:0 needs a second one.
// The executor makes a step's device current before the kernel runs
// (DeviceContext::MakeCurrent), so the kernel finds its handle by the
// thread's current device.
#ifndef SMRT_KERNELS_CUDA_THREAD_HANDLES_H_
#define SMRT_KERNELS_CUDA_THREAD_HANDLES_H_

#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace smrt::kernels::cuda {

template <typename Handle>
class ThreadHandles {
 public:
  using Destroy = void (*)(Handle);
  // `destroy` frees each handle made, when the thread ends.
  explicit ThreadHandles(Destroy destroy) : destroy_(destroy) {}
  ~ThreadHandles() {
    for (Handle h : handles_) {
      if (h != Handle{}) destroy_(h);
    }
  }
  ThreadHandles(const ThreadHandles&) = delete;
  ThreadHandles& operator=(const ThreadHandles&) = delete;

  // The handle for `device` (>= 0), made by `create` the first time; an
  // error from `create` is returned and the next call tries again.
  absl::StatusOr<Handle> For(int device, absl::FunctionRef<absl::StatusOr<Handle>()> create) {
    if (device >= static_cast<int>(handles_.size())) handles_.resize(device + 1, Handle{});
    Handle& h = handles_[device];
    if (h == Handle{}) {
      absl::StatusOr<Handle> made = create();
      if (!made.ok()) return made.status();
      h = *made;
    }
    return h;
  }

  // Handles made so far (for tests).
  int size() const {
    int n = 0;
    for (Handle h : handles_) n += h != Handle{} ? 1 : 0;
    return n;
  }

 private:
  Destroy destroy_;
  std::vector<Handle> handles_;  // by device ordinal
};

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_THREAD_HANDLES_H_
