// SMRT_TSAN: defined when this file is built under ThreadSanitizer, with gcc
// (__SANITIZE_THREAD__) or clang (__has_feature). Code that TSan cannot
// follow (libgomp's uninstrumented fork and join, ifunc resolvers that run
// before its runtime) tests it.
#ifndef SMRT_KERNELS_CPU_TSAN_H_
#define SMRT_KERNELS_CPU_TSAN_H_

#if defined(__SANITIZE_THREAD__)
#define SMRT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMRT_TSAN 1
#endif
#endif

#endif  // SMRT_KERNELS_CPU_TSAN_H_
