// SMRT_TARGET_CLONES: AVX2 and AVX-512 builds of a hot loop beside the
// baseline one, chosen by an ifunc resolver when the library is loaded. The
// library is built for baseline x86-64, so without it a loop of doubles runs
// two lanes wide. Not under ThreadSanitizer, whose runtime is not up yet when
// the resolvers run (the test binaries crashed before main), nor off x86-64.
#ifndef SMRT_KERNELS_CPU_TARGET_CLONES_H_
#define SMRT_KERNELS_CPU_TARGET_CLONES_H_

#include "kernels/cpu/tsan.h"

#if defined(__x86_64__) && !defined(SMRT_TSAN)
#define SMRT_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SMRT_TARGET_CLONES
#endif

#endif  // SMRT_KERNELS_CPU_TARGET_CLONES_H_
