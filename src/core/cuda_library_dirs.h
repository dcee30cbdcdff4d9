// Where CUDA's shared libraries may be installed beyond the loader's own
// search (LD_LIBRARY_PATH, ld.so.cache): smrt opens libcudart, libcublas(Lt)
// and libcudnn with dlopen, trying each bare name first and then these
// directories, in this order, both to report them (`smrt devices`) and to
// load them for the kernels.
#ifndef SMRT_CORE_CUDA_LIBRARY_DIRS_H_
#define SMRT_CORE_CUDA_LIBRARY_DIRS_H_

#include <string>
#include <vector>

namespace smrt {

// $SMRT_CUDA_LIBRARY_PATH's directories (colon-separated: where pip's
// nvidia-*-cu* wheels put theirs, .../site-packages/nvidia/cudnn/lib), then
// $CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda/lib64 and the
// toolkit's targets/<arch>-linux/lib.
std::vector<std::string> CudaLibraryDirs();

}  // namespace smrt

#endif  // SMRT_CORE_CUDA_LIBRARY_DIRS_H_
