// A fake device "FAKE" for testing placement and the executor's device path
// on the CPU: its memory is host memory, but its tensors are marked
// on_device, and its kernels refuse a value on the wrong side, so a program
// placed on it shows every missing or misplaced copy. The namespace is
// inline: the tests in smrt::passes use these by their short names.
#ifndef SMRT_TESTS_PASSES_FAKE_DEVICE_H_
#define SMRT_TESTS_PASSES_FAKE_DEVICE_H_

#include <atomic>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "kernels/tensor_list.h"

namespace smrt::passes {
inline namespace testing {

inline constexpr char kFake[] = "FAKE";

// What a test writes its FAKE kernels with.
using kernels::KernelContext;
using kernels::KernelSpec;

class FakeDevice : public kernels::DeviceContext {
 public:
  absl::string_view device_type() const override { return kFake; }
  absl::StatusOr<Tensor> Allocate(DataType dtype, const Shape& shape,
                                  absl::string_view) override;
  void* stream() const override { return nullptr; }
  std::atomic<int> allocations{0};
};

// The FAKE kernel for `op`: checks where each input lives (`host_inputs`
// on the host, the rest on the device), runs the CPU kernel on host views
// and puts the outputs in fake device memory.
kernels::KernelSpec Wrapped(const std::string& op, std::vector<int> host_inputs = {});

// The copies the placement pass adds (_SmrtToDevice, _SmrtToHost).
std::vector<kernels::KernelSpec> FakeCopyKernels();

// Moves TensorList element bytes in FAKE memory (kernels/tensor_list.h),
// counting the calls in FakeBytesCalled().
kernels::DeviceBytes FakeBytes();

struct FakeByteCalls {
  std::atomic<int> copies{0};  // DeviceBytes::copy
  std::atomic<int> batches{0};  // DeviceBytes::copy_batch
};
FakeByteCalls& FakeBytesCalled();

}  // namespace testing
}  // namespace smrt::passes

#endif  // SMRT_TESTS_PASSES_FAKE_DEVICE_H_
