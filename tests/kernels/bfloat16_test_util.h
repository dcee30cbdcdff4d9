// Conversions the 16-bit kernel tests share, and the CPU kernel of one
// backend for a dtype (to run oneDNN's and the reference kernel on the same
// inputs). The namespace is inline: tests in smrt::kernels use the short names.
#ifndef SMRT_TESTS_KERNELS_BFLOAT16_TEST_UTIL_H_
#define SMRT_TESTS_KERNELS_BFLOAT16_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "kernels/registry.h"
#include "smrt/tensor.h"

namespace smrt::kernels {
inline namespace bfloat16_testing {

// float32 copy of a float16/bfloat16/float32 tensor.
inline Tensor ToFloat(const Tensor& t) {
  Tensor out = *Tensor::Create(DataType::kFloat, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    float v = t.dtype() == DataType::kHalf       ? static_cast<float>(t.data<Eigen::half>()[i])
              : t.dtype() == DataType::kBFloat16 ? static_cast<float>(t.data<Eigen::bfloat16>()[i])
                                                 : t.data<float>()[i];
    out.data<float>()[i] = v;
  }
  return out;
}

// A float32 tensor rounded to bfloat16 (Eigen's round to nearest even).
inline Tensor ToBFloat16(const Tensor& t) {
  Tensor out = *Tensor::Create(DataType::kBFloat16, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out.data<Eigen::bfloat16>()[i] = static_cast<Eigen::bfloat16>(t.data<float>()[i]);
  }
  return out;
}

// The CPU kernel `backend` registers for `op` and `type`, or null.
inline const KernelSpec* CpuKernel(const std::string& op, const std::string& backend,
                                   DataType type) {
  static std::vector<std::unique_ptr<KernelSpec>> keep;  // Kernels() returns copies
  for (const KernelSpec& k : KernelRegistry::Default().Kernels(op)) {
    if (k.device != kCpu || k.backend != backend) continue;
    for (DataType t : k.types) {
      if (t != type) continue;
      keep.push_back(std::make_unique<KernelSpec>(k));
      return keep.back().get();
    }
  }
  return nullptr;
}

}  // namespace bfloat16_testing
}  // namespace smrt::kernels

#endif  // SMRT_TESTS_KERNELS_BFLOAT16_TEST_UTIL_H_
