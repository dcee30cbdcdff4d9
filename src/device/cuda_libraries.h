// Finds the CUDA driver, runtime, cuBLAS(Lt) and cuDNN at run time with
// dlopen, so one libsmrt works on machines without CUDA, and reports exactly
// which library and version it looked for, where, and what it found — the
// problem TensorFlow users fight most (a missing libcudnn.so.9 found only as
// libcudnn.so.8, a driver older than the runtime, no device at all).
#ifndef SMRT_DEVICE_CUDA_LIBRARIES_H_
#define SMRT_DEVICE_CUDA_LIBRARIES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace smrt::device {

struct LibraryProbe {
  std::string role;                // "NVIDIA driver (libcuda)", "cuDNN", ...
  std::vector<std::string> tried;  // file names / paths given to dlopen, in order
  std::string path;                // where it was found; empty when not found
  std::string version;             // "13.0", "9.13.0", ...; empty when unknown
  std::string error;               // the last dlopen/dlsym error when not found
  bool found() const { return !path.empty(); }
};

struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;  // compute capability
  uint64_t memory_bytes = 0;
};

struct CudaReport {
  LibraryProbe driver, runtime, cublas, cublaslt, cudnn;
  int driver_version = 0;   // CUDA version the driver supports, e.g. 13000
  int runtime_version = 0;  // libcudart's, e.g. 13000
  std::vector<GpuInfo> gpus;
  // What stops GPU use, one line each, with what to do ("" entries never).
  std::vector<std::string> problems;
  bool usable() const { return problems.empty() && !gpus.empty(); }
};

// Probes once per call; never aborts, whatever is installed. Libraries are
// looked up by the loader's normal search (LD_LIBRARY_PATH, ld.so.cache),
// then in core/cuda_library_dirs.h's directories.
CudaReport ProbeCuda();

// "cuInit failed with CUresult N (NAME: what it means and what to do)".
std::string DescribeCuInitFailure(int result);

// "9.19.0" from cudnnGetVersion()'s 91900, "8.9.7" from cuDNN 8's 8907.
std::string CudnnVersionString(size_t version);

// "13.0" from 13000.
std::string CudaVersionString(int version);

}  // namespace smrt::device

#endif  // SMRT_DEVICE_CUDA_LIBRARIES_H_
