// How Pad, PadV2 and MirrorPad read their paddings and size their output
// (ops/pad_shapes.h), for the CPU kernels (pad_ops.cc) and the CUDA ones
// (kernels/cuda/pad_kernels.cc), so every device refuses the same paddings
// with the same message.
#ifndef SMRT_KERNELS_SHARED_PAD_UTIL_H_
#define SMRT_KERNELS_SHARED_PAD_UTIL_H_

#include "ops/pad_shapes.h"

namespace smrt::kernels {

using ops::CheckConstantValues;
using ops::MirrorMode;
using ops::PaddedDims;
using Padding = ops::PadAmount;
using ops::PadMode;
using ops::ReadPaddings;

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_PAD_UTIL_H_
