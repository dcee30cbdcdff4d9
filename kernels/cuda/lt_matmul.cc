#include "kernels/cuda/lt_matmul.h"

#include <cublasLt.h>
#include <library_types.h>

#include <climits>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cuda/cublas_loader.h"
#include "kernels/cuda/dynamic_library.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/tf32.h"
#include "kernels/cuda/thread_handles.h"

namespace smrt::kernels::cuda {
namespace {

// The most workspace an algorithm may ask for.
constexpr uint64_t kMaxWorkspaceBytes = uint64_t{32} << 20;

struct CublasLtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

absl::StatusOr<CublasLtApi> Load() {
  absl::StatusOr<void*> lib =
      OpenFirst({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"},
                "cuBLASLt is needed for fused matmul epilogues on CUDA");
  if (!lib.ok()) return lib.status();
  CublasLtApi api;
  SymbolResolver resolve(*lib);
  resolve(api.create, "cublasLtCreate");
  resolve(api.destroy, "cublasLtDestroy");
  resolve(api.desc_create, "cublasLtMatmulDescCreate");
  resolve(api.desc_destroy, "cublasLtMatmulDescDestroy");
  resolve(api.desc_set, "cublasLtMatmulDescSetAttribute");
  resolve(api.layout_create, "cublasLtMatrixLayoutCreate");
  resolve(api.layout_destroy, "cublasLtMatrixLayoutDestroy");
  resolve(api.pref_create, "cublasLtMatmulPreferenceCreate");
  resolve(api.pref_destroy, "cublasLtMatmulPreferenceDestroy");
  resolve(api.pref_set, "cublasLtMatmulPreferenceSetAttribute");
  resolve(api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(api.matmul, "cublasLtMatmul");
  if (absl::Status s = resolve.Finish("cuBLASLt"); !s.ok()) return s;
  return api;
}

absl::StatusOr<const CublasLtApi*> CublasLt() {
  static const absl::StatusOr<CublasLtApi>* api = new absl::StatusOr<CublasLtApi>(Load());
  if (!api->ok()) return api->status();
  return &**api;
}

void DestroyHandle(cublasLtHandle_t handle) {
  absl::StatusOr<const CublasLtApi*> api = CublasLt();
  if (api.ok()) (void)(*api)->destroy(handle);
}

// This host thread's cuBLASLt handle for its current GPU (it holds no stream).
absl::StatusOr<cublasLtHandle_t> Handle(const CublasLtApi& api, const KernelContext& ctx) {
  absl::StatusOr<int> device = CurrentDevice(ctx.op(), ctx.node_name());
  if (!device.ok()) return device.status();
  thread_local ThreadHandles<cublasLtHandle_t> handles(DestroyHandle);
  return handles.For(*device, [&]() -> absl::StatusOr<cublasLtHandle_t> {
    cublasLtHandle_t h = nullptr;
    if (absl::Status s = CublasStatus(api.create(&h), ctx.op(), ctx.node_name(), "cublasLtCreate");
        !s.ok()) {
      return s;
    }
    return h;
  });
}

cublasLtEpilogue_t ToCublas(LtEpilogue e) {
  switch (e) {
    case LtEpilogue::kBias: return CUBLASLT_EPILOGUE_BIAS;
    case LtEpilogue::kReluBias: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case LtEpilogue::kGeluBias: return CUBLASLT_EPILOGUE_GELU_BIAS;
    case LtEpilogue::kRelu: return CUBLASLT_EPILOGUE_RELU;
    case LtEpilogue::kGelu: return CUBLASLT_EPILOGUE_GELU;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

// The descriptors of one call, destroyed with it.
struct Descriptors {
  explicit Descriptors(const CublasLtApi& api) : api(api) {}
  ~Descriptors() {
    if (op != nullptr) (void)api.desc_destroy(op);
    for (cublasLtMatrixLayout_t l : {a, b, d}) {
      if (l != nullptr) (void)api.layout_destroy(l);
    }
    if (pref != nullptr) (void)api.pref_destroy(pref);
  }
  const CublasLtApi& api;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
};

}  // namespace

absl::Status CublasLtAvailable() { return CublasLt().status(); }

absl::Status RunLtMatmul(const KernelContext& ctx, const Gemm& g, DataType dtype, const void* a,
                         const void* b, const void* bias, LtEpilogue epilogue, void* d,
                         cudaStream_t stream) {
  if (g.batch != 1 || g.k == 0) {
    return AtNode(ctx, absl::UnimplementedError("cuBLASLt path: batch 1 and k > 0 only"));
  }
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb}) {
    if (v > INT_MAX) {
      return AtNode(ctx, absl::UnimplementedError(absl::StrCat("a dimension of ", v,
                                                               " is over cuBLASLt's range")));
    }
  }
  absl::StatusOr<const CublasLtApi*> loaded = CublasLt();
  if (!loaded.ok()) return AtNode(ctx, loaded.status());
  const CublasLtApi& api = **loaded;
  absl::StatusOr<cublasLtHandle_t> handle = Handle(api, ctx);
  if (!handle.ok()) return handle.status();
  const absl::string_view op = ctx.op(), node = ctx.node_name();
  const cudaDataType_t type = dtype == DataType::kHalf       ? CUDA_R_16F
                              : dtype == DataType::kBFloat16 ? CUDA_R_16BF
                                                             : CUDA_R_32F;
  const LtLayouts l = PlanLtLayouts(g);
  Descriptors desc(api);
  // fp32 accumulation; TF32 for float32 operands only where the node allows it.
  if (absl::Status s = CublasStatus(
          api.desc_create(&desc.op, GemmComputeType(dtype, AllowsTf32(ctx)), CUDA_R_32F), op,
          node, "cublasLtMatmulDescCreate");
      !s.ok()) {
    return s;
  }
  const cublasOperation_t trans_a = l.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = l.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t ep = ToCublas(epilogue);
  struct Attr {
    cublasLtMatmulDescAttributes_t attr;
    const void* value;
    size_t size;
  };
  const Attr attrs[] = {{CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)},
                        {CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)},
                        {CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof(ep)},
                        {CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)}};
  for (const Attr& at : attrs) {
    if (at.attr == CUBLASLT_MATMUL_DESC_BIAS_POINTER && bias == nullptr) continue;
    if (absl::Status s = CublasStatus(api.desc_set(desc.op, at.attr, at.value, at.size), op, node,
                                      "cublasLtMatmulDescSetAttribute");
        !s.ok()) {
      return s;
    }
  }
  const struct {
    cublasLtMatrixLayout_t* out;
    LtLayout layout;
  } layouts[] = {{&desc.a, l.a}, {&desc.b, l.b}, {&desc.d, l.d}};
  for (const auto& x : layouts) {
    if (absl::Status s = CublasStatus(
            api.layout_create(x.out, type, x.layout.rows, x.layout.cols, x.layout.ld), op, node,
            "cublasLtMatrixLayoutCreate");
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s =
          CublasStatus(api.pref_create(&desc.pref), op, node, "cublasLtMatmulPreferenceCreate");
      !s.ok()) {
    return s;
  }
  const uint64_t max_ws = kMaxWorkspaceBytes;
  // The buffers' real alignments (A is our b, B our a, C = D = d), so that
  // the heuristic picks an algorithm these pointers can run.
  const uint32_t align_a = LtAlignment(b), align_b = LtAlignment(a), align_d = LtAlignment(d);
  const struct {
    cublasLtMatmulPreferenceAttributes_t attr;
    const void* value;
    size_t size;
  } prefs[] = {{CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof(max_ws)},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof(align_a)},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof(align_b)},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_d, sizeof(align_d)},
               {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_d, sizeof(align_d)}};
  for (const auto& pref : prefs) {
    if (absl::Status s = CublasStatus(api.pref_set(desc.pref, pref.attr, pref.value, pref.size),
                                      op, node, "cublasLtMatmulPreferenceSetAttribute");
        !s.ok()) {
      return s;
    }
  }
  cublasLtMatmulHeuristicResult_t found{};
  int returned = 0;
  const cublasStatus_t h = api.heuristic(*handle, desc.op, desc.a, desc.b, desc.d, desc.d,
                                         desc.pref, 1, &found, &returned);
  if (h == CUBLAS_STATUS_NOT_SUPPORTED || (h == CUBLAS_STATUS_SUCCESS && returned == 0)) {
    return AtNode(ctx, absl::UnimplementedError("cuBLASLt has no algorithm for this product"));
  }
  if (absl::Status s = CublasStatus(h, op, node, "cublasLtMatmulAlgoGetHeuristic"); !s.ok()) {
    return s;
  }
  Tensor workspace;
  if (found.workspaceSize > 0) {
    absl::StatusOr<Tensor> ws = ctx.device()->Allocate(
        DataType::kUInt8, {static_cast<int64_t>(found.workspaceSize)},
        absl::StrCat(node, "/cublaslt_workspace"));
    if (!ws.ok()) return AtNode(ctx, ws.status());
    workspace = *std::move(ws);
  }
  const float alpha = 1.0f, beta = 0.0f;
  return CublasStatus(
      api.matmul(*handle, desc.op, &alpha, b, desc.a, a, desc.b, &beta, d, desc.d, d, desc.d,
                 &found.algo, found.workspaceSize > 0 ? workspace.raw_data() : nullptr,
                 found.workspaceSize, stream),
      op, node, "cublasLtMatmul");
}

}  // namespace smrt::kernels::cuda
