// The oneDNN CPU kernels: registered after the reference kernels, at a
// higher priority, for the nodes they accept (KernelSpec::supports).
#ifndef SMRT_KERNELS_CPU_ONEDNN_REGISTER_H_
#define SMRT_KERNELS_CPU_ONEDNN_REGISTER_H_

namespace smrt::kernels {

class KernelRegistry;

inline constexpr int kOneDnnPriority = 10;
inline constexpr char kOneDnnBackend[] = "onednn";

void RegisterOneDnnFusedConv(KernelRegistry& r);    // fused_conv.cc
void RegisterOneDnnFusedMatMul(KernelRegistry& r);  // fused_matmul.cc
void RegisterOneDnnSoftmax(KernelRegistry& r);      // softmax.cc
void RegisterOneDnnAttention(KernelRegistry& r);    // attention.cc
void RegisterOneDnnPool(KernelRegistry& r);         // pool.cc
void RegisterOneDnnEinsum(KernelRegistry& r);       // einsum.cc

inline void RegisterOneDnnKernels(KernelRegistry& r) {
  RegisterOneDnnFusedConv(r);
  RegisterOneDnnFusedMatMul(r);
  RegisterOneDnnSoftmax(r);
  RegisterOneDnnAttention(r);
  RegisterOneDnnPool(r);
  RegisterOneDnnEinsum(r);
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_ONEDNN_REGISTER_H_
