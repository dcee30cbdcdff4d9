// What this build's CUDA kernels (kernels/cuda) need of a machine, fixed
// when they were compiled: the CUDA runtime they link statically (the
// driver must support its major version) and the GPU architectures they
// hold code for. The libcudart that `smrt devices` loads to count GPUs may
// be another version; these are the ones the kernels run with.
#ifndef SMRT_KERNELS_CUDA_BUILD_H_
#define SMRT_KERNELS_CUDA_BUILD_H_

#include <string>

namespace smrt::kernels {

struct CudaBuild {
  int runtime_version = 0;    // CUDART_VERSION, e.g. 13000; 0: no CUDA kernels built
  std::string architectures;  // CMake CUDA_ARCHITECTURES: "90", "80,90-real" (, or ;)
};

// This build's.
const CudaBuild& ThisCudaBuild();

// Why a GPU of compute capability cc_major.cc_minor whose driver supports
// CUDA `driver_version` (1000 * major + 10 * minor; 0: unknown) cannot run
// `build`'s kernels, or "" when it can (or when `build` has none). The
// driver must support the runtime's major version (within a major, CUDA's
// minor-version compatibility lets an older driver run a newer runtime). An
// architecture NN ("NN-real" or plain "NN") holds machine code, which runs
// on GPUs of NN's major with an equal or newer minor; plain "NN" and
// "NN-virtual" hold PTX too, which the driver compiles for any GPU of NN or
// newer. "all", "all-major" and "native" are taken to fit.
std::string WhyCudaBuildCannotRun(const CudaBuild& build, int driver_version, int cc_major,
                                  int cc_minor);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CUDA_BUILD_H_
