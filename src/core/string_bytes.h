// What string tensors hold beyond their elements: the bytes of their
// contents, counted against the run limits (core/run_limits.h) as every other
// tensor's storage is, so that one string repeated a million times cannot
// take the memory a limit was meant to protect.
#ifndef SMRT_CORE_STRING_BYTES_H_
#define SMRT_CORE_STRING_BYTES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt {

// The bytes of a string tensor's contents (the sum of its elements' sizes);
// 0 for other dtypes.
uint64_t StringContentBytes(const Tensor& t);

// An empty-string tensor of `shape` whose storage is counted as its elements
// plus `content_bytes`, the contents the caller is about to write (a Const's
// values, a checkpoint entry): ResourceExhausted naming the limit when that
// is more than the current limits allow, before anything is allocated.
absl::StatusOr<Tensor> CreateStringTensor(Shape shape, uint64_t content_bytes);

// A string tensor a kernel filled, with its contents counted against the
// current limits for as long as it lives (the same elements, in a handle that
// releases the count when freed). Other dtypes, and everything outside
// limits, come back unchanged. ResourceExhausted when the contents are over a
// limit.
absl::StatusOr<Tensor> CountStringContents(Tensor t);

}  // namespace smrt

#endif  // SMRT_CORE_STRING_BYTES_H_
