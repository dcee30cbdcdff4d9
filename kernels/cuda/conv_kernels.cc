// Conv2D, DepthwiseConv2dNative and _SmrtFusedConv2D float32, NHWC, through
// cuDNN's legacy API (cudnn_loader.h) in fp32 arithmetic (CUDNN_FMA_MATH:
// no TF32, so results match the CPU kernels; TF32 tensor cores where the
// precision option "tf32" marked the node, tf32.h). Served only where cuDNN
// loads.
// Each also takes float16 and bfloat16 (Keras mixed precision, or the
// precision load option): cuDNN's pseudo-half configurations, fp32 accumulation,
// tensor cores allowed (their products of 16-bit values are exact in fp32).
//
// TensorFlow's HWIO filter (depthwise: H, W, C, multiplier) becomes cuDNN's
// KRSC (OHWI) by one transpose: a depthwise filter is read as HWIO with I = 1
// and O = C * multiplier, i.e. a grouped convolution with C groups whose
// output channel c * multiplier + m is TensorFlow's. A constant filter
// (_SmrtFusedConv2D's weights_constant) is transformed once and kept in the
// node's state. cuDNN pads symmetrically; when TensorFlow's padding is not
// (SAME puts the odd row at the end), the excess is added to a padded copy
// of the input first (pad.h). The algorithm is measured once per shape
// (cudnnFindConvolutionForwardAlgorithmEx, bounded workspace) and kept in the
// node's state and the device's TuningCache; where cuDNN offers no fp32
// algorithm for a shape, a direct kernel (direct_conv.h) computes it. Post-ops
// run as one epilogue kernel (post_ops.h), except bias (+ residual) + ReLU,
// which cudnnConvolutionBiasActivationForward computes in the convolution's
// call once its first call for a shape gave the same answers (agreement.h).
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/conv_util.h"
#include "kernels/cuda/agreement.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/cudnn_loader.h"
#include "kernels/cuda/direct_conv.h"
#include "kernels/cuda/epilogue_plan.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/pad.h"
#include "kernels/cuda/post_ops.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/tf32.h"
#include "kernels/cuda/transpose.h"
#include "ops/fused_ops.h"

namespace smrt::kernels::cuda {
namespace {

// The most workspace the algorithm search offers cuDNN.
constexpr int64_t kMaxWorkspaceBytes = int64_t{256} << 20;

// The "algorithm" that is no cuDNN algorithm: direct_conv.cu, for shapes
// where cuDNN offers no fp32 one. Kept and cached like the others.
constexpr int kDirect = -1;

// One convolution's sizes, in NHWC / HWIO terms (as the CPU kernel's).
struct Geometry {
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0, k_c = 0;  // k_c: filter input depth per group
  int64_t out_h = 0, out_w = 0, out_c = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t groups = 1;
};

// The node's filter in cuDNN's layout (when constant) and its chosen
// algorithms by key. Runs may share it from many threads.
struct ConvState : KernelState {
  std::mutex mu;
  Tensor filter;       // KRSC, once made
  Shape filter_shape;  // the HWIO shape it was made from
  std::map<std::string, int> algos;
  Verdicts fused;  // cudnnConvolutionBiasActivationForward's, by shape (agreement.h)
};

absl::Status NodeError(const KernelContext& ctx, const absl::Status& s) { return AtNode(ctx, s); }

// The window attrs, checked as the CPU kernel checks them.
absl::StatusOr<ConvWindowAttrs> ReadAttrs(const KernelContext& ctx) {
  absl::StatusOr<ConvWindowAttrs> parsed = ReadConvWindowAttrs(ctx.attrs());
  if (!parsed.ok()) return NodeError(ctx, parsed.status());
  ConvWindowAttrs a = *parsed;
  if (a.layout != Layout::kNhwc) {
    return NodeError(ctx, absl::UnimplementedError(
                              "CUDA convolutions take data_format NHWC only, got NCHW"));
  }
  if (a.strides[0] != 1 || a.strides[3] != 1) {
    return NodeError(ctx, absl::UnimplementedError(absl::StrCat(
                              "Current implementation does not yet support strides in the batch "
                              "and depth dimensions, got strides (NHWC) [",
                              absl::StrJoin(a.strides, ", "), "]")));
  }
  if (a.dilations[0] != 1 || a.dilations[3] != 1) {
    return NodeError(ctx, absl::UnimplementedError(absl::StrCat(
                              "Current implementation does not yet support dilations in the "
                              "batch and depth dimensions, got dilations (NHWC) [",
                              absl::StrJoin(a.dilations, ", "), "]")));
  }
  for (int i : {1, 2}) {
    if (a.strides[i] <= 0) {
      return NodeError(ctx, absl::InvalidArgumentError(absl::StrCat(
                                "strides must be positive, got [", absl::StrJoin(a.strides, ", "),
                                "]")));
    }
    if (a.dilations[i] <= 0) {
      return NodeError(ctx, absl::InvalidArgumentError(
                                absl::StrCat("Dilated rates should be larger than 0, got [",
                                             absl::StrJoin(a.dilations, ", "), "]")));
    }
  }
  absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> pads =
      ReadExplicitPaddings(ctx.attrs(), a.padding, a.layout);
  if (!pads.ok()) return NodeError(ctx, pads.status());
  a.pads = *pads;
  return a;
}

absl::StatusOr<Geometry> MakeGeometry(const KernelContext& ctx, const ConvWindowAttrs& a,
                                      bool depthwise) {
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  if (input.rank() != 4) {
    return NodeError(ctx, absl::InvalidArgumentError(absl::StrCat(
                              ctx.op(), " input must be 4-dimensional, got ",
                              ShapeToString(input.shape()))));
  }
  if (filter.rank() != 4) {
    return NodeError(ctx, absl::InvalidArgumentError(absl::StrCat(
                              ctx.op(), " filter must be 4-dimensional, got ",
                              ShapeToString(filter.shape()))));
  }
  Geometry g;
  g.batch = input.dim(0);
  g.in_h = input.dim(1);
  g.in_w = input.dim(2);
  g.in_c = input.dim(3);
  g.k_h = filter.dim(0);
  g.k_w = filter.dim(1);
  if (depthwise) {
    if (g.in_c != filter.dim(2)) {
      return NodeError(ctx, absl::InvalidArgumentError(absl::StrCat(
                                "input and filter must have the same depth: ", g.in_c, " vs ",
                                filter.dim(2), " (input ", ShapeToString(input.shape()),
                                ", filter ", ShapeToString(filter.shape()), ")")));
    }
    g.k_c = 1;
    g.groups = g.in_c;
    g.out_c = g.in_c * filter.dim(3);
  } else {
    if (filter.num_elements() == 0) {
      return NodeError(ctx, absl::InvalidArgumentError(absl::StrCat(
                                "filter must not have zero elements (i.e. all dimensions must be "
                                "non-zero), got filter shape ",
                                ShapeToString(filter.shape()))));
    }
    g.k_c = filter.dim(2);
    if (g.in_c % g.k_c != 0) {
      return NodeError(ctx, absl::InvalidArgumentError(
                                absl::StrCat("input depth must be evenly divisible by filter "
                                             "depth: ",
                                             g.in_c, " vs ", g.k_c)));
    }
    g.groups = g.in_c / g.k_c;
    if (g.groups == 0) {
      return NodeError(ctx, absl::InvalidArgumentError(
                                absl::StrCat("The number of groups must be > 0: input depth is ",
                                             g.in_c, ", filter depth ", g.k_c)));
    }
    g.out_c = filter.dim(3);
    if (g.out_c % g.groups != 0) {
      return NodeError(ctx, absl::InvalidArgumentError(absl::StrCat(
                                "output depth must be evenly divisible by number of groups: ",
                                g.out_c, " vs ", g.groups)));
    }
  }
  g.stride_h = a.strides[1];
  g.stride_w = a.strides[2];
  g.dil_h = a.dilations[1];
  g.dil_w = a.dilations[2];
  absl::StatusOr<WindowedSize> rows = WindowedOutputSize(g.in_h, g.k_h, g.dil_h, g.stride_h,
                                                         a.padding, a.pads[0][0], a.pads[0][1]);
  if (!rows.ok()) return NodeError(ctx, rows.status());
  absl::StatusOr<WindowedSize> cols = WindowedOutputSize(g.in_w, g.k_w, g.dil_w, g.stride_w,
                                                         a.padding, a.pads[1][0], a.pads[1][1]);
  if (!cols.ok()) return NodeError(ctx, cols.status());
  g.out_h = rows->size;
  g.out_w = cols->size;
  g.pad_top = rows->pad_before;
  g.pad_bottom = rows->pad_after;
  g.pad_left = cols->pad_before;
  g.pad_right = cols->pad_after;
  return g;
}

// cuDNN's descriptors for one call, destroyed with it.
class Descriptors {
 public:
  explicit Descriptors(const CudnnApi* api) : api_(api) {}
  ~Descriptors() {
    if (x != nullptr) (void)api_->destroy_tensor_desc(x);
    if (y != nullptr) (void)api_->destroy_tensor_desc(y);
    if (w != nullptr) (void)api_->destroy_filter_desc(w);
    if (conv != nullptr) (void)api_->destroy_conv_desc(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

 private:
  const CudnnApi* api_;
};

// The convolution cuDNN runs: on the (maybe padded) input, symmetric pads.
struct CudnnConv {
  const char* DtypeTag() const {
    if (dtype == CUDNN_DATA_HALF) return "f16";
    if (dtype == CUDNN_DATA_BFLOAT16) return "bf16";
    return tf32 ? "tf32" : "f32";
  }

  int n = 0, h = 0, w = 0, c = 0;  // input cuDNN reads
  int k = 0, r = 0, s = 0, kc = 0;  // filter KRSC
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, groups = 1;
  int out_h = 0, out_w = 0;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;  // x, w and y; the arithmetic is fp32
  bool tf32 = false;  // float32 operands may be rounded to TF32 (tf32.h)

  std::string Key() const {
    return absl::StrCat("cudnn_conv_fwd/", DtypeTag(), "/", n, ",", h, ",", w, ",", c, "/", k,
                        ",", r, ",", s, ",", kc, "/", stride_h, ",", stride_w, "/", pad_h, ",", pad_w, "/", dil_h,
                        ",", dil_w, "/", groups);
  }
};

absl::Status SetDescriptors(const KernelContext& ctx, const CudnnApi& api, const CudnnConv& cv,
                            Descriptors& d) {
  const absl::string_view op = ctx.op(), node = ctx.node_name();
  if (absl::Status s = CudnnStatus(api.create_tensor_desc(&d.x), op, node,
                                   "cudnnCreateTensorDescriptor");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.create_tensor_desc(&d.y), op, node,
                                   "cudnnCreateTensorDescriptor");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.create_filter_desc(&d.w), op, node,
                                   "cudnnCreateFilterDescriptor");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.create_conv_desc(&d.conv), op, node,
                                   "cudnnCreateConvolutionDescriptor");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.set_tensor_4d(d.x, CUDNN_TENSOR_NHWC, cv.dtype,
                                                     cv.n, cv.c, cv.h, cv.w),
                                   op, node, "cudnnSetTensor4dDescriptor(input)");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.set_filter_4d(d.w, cv.dtype, CUDNN_TENSOR_NHWC,
                                                     cv.k, cv.kc, cv.r, cv.s),
                                   op, node, "cudnnSetFilter4dDescriptor");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(
          api.set_conv_2d(d.conv, cv.pad_h, cv.pad_w, cv.stride_h, cv.stride_w, cv.dil_h,
                          cv.dil_w, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          op, node, "cudnnSetConvolution2dDescriptor");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.set_group_count(d.conv, cv.groups), op, node,
                                   "cudnnSetConvolutionGroupCount");
      !s.ok()) {
    return s;
  }
  const cudnnMathType_t math = ConvMathType(cv.dtype, cv.tf32);
  if (absl::Status s =
          CudnnStatus(api.set_math_type(d.conv, math), op, node,
                      absl::StrCat("cudnnSetConvolutionMathType(", static_cast<int>(math), ")"));
      !s.ok()) {
    return s;
  }
  int on = 0, oc = 0, oh = 0, ow = 0;
  if (absl::Status s = CudnnStatus(api.get_output_dim(d.conv, d.x, d.w, &on, &oc, &oh, &ow), op,
                                   node, "cudnnGetConvolution2dForwardOutputDim");
      !s.ok()) {
    return s;
  }
  if (on != cv.n || oc != cv.k || oh != cv.out_h || ow != cv.out_w) {
    return NodeError(ctx, absl::InternalError(absl::StrCat(
                              "cuDNN computes an output of (N, C, H, W) = (", on, ", ", oc, ", ",
                              oh, ", ", ow, "), expected (", cv.n, ", ", cv.k, ", ", cv.out_h,
                              ", ", cv.out_w, ")")));
  }
  return CudnnStatus(api.set_tensor_4d(d.y, CUDNN_TENSOR_NHWC, cv.dtype, cv.n, cv.k,
                                       cv.out_h, cv.out_w),
                     op, node, "cudnnSetTensor4dDescriptor(output)");
}

// A device buffer of `bytes` bytes (an empty tensor for 0).
absl::StatusOr<Tensor> Scratch(const KernelContext& ctx, int64_t bytes, const char* what) {
  return ctx.device()->Allocate(DataType::kUInt8, {bytes},
                                absl::StrCat(ctx.node_name(), "/", what));
}

// What a search found: the algorithm, and whether it is worth keeping for
// other processes (not when the arena had no room for a workspace and only
// the algorithms that need none were tried).
struct Found {
  int algo = kDirect;
  bool full_search = true;
};

// The fastest algorithm that succeeds within the workspace cuDNN is offered,
// measured on this call's buffers, of a math type cv allows (float32: fp32
// FMA ones only, or TF32 too; ConvMathAllowed); kDirect when none does.
absl::StatusOr<Found> FindAlgorithm(const KernelContext& ctx, const CudnnApi& api,
                                    cudnnHandle_t handle, const Descriptors& d,
                                    const CudnnConv& cv, const void* x, const void* w, void* y) {
  int64_t ws_bytes = kMaxWorkspaceBytes;
  absl::StatusOr<Tensor> ws = Scratch(ctx, ws_bytes, "cudnn_find_workspace");
  if (!ws.ok()) {  // a small arena: search among the algorithms that need none
    ws_bytes = 0;
    ws = Tensor();
  }
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  const cudnnStatus_t found = api.find_forward_ex(
      handle, d.x, x, d.w, w, d.conv, d.y, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf,
      ws_bytes > 0 ? ws->raw_data() : nullptr, static_cast<size_t>(ws_bytes));
  const bool full_search = ws_bytes > 0;
  if (NoAlgorithmForCase(found)) return Found{kDirect, full_search};
  if (absl::Status s = CudnnStatus(found, ctx.op(), ctx.node_name(),
                                   "cudnnFindConvolutionForwardAlgorithmEx");
      !s.ok()) {
    return s;
  }
  for (int i = 0; i < returned; ++i) {  // sorted fastest first
    const cudnnConvolutionFwdAlgoPerf_t& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    if (!ConvMathAllowed(p.mathType, cv.dtype, cv.tf32)) continue;
    if (static_cast<int64_t>(p.memory) > ws_bytes) continue;
    return Found{static_cast<int>(p.algo), full_search};
  }
  return Found{kDirect, full_search};
}

// Whether cuDNN takes `algo` for these descriptors (a tuning cache written by
// another cuDNN version may name one it no longer has).
bool Usable(const CudnnApi& api, cudnnHandle_t handle, const Descriptors& d, int algo) {
  if (algo == kDirect) return true;
  size_t bytes = 0;
  return api.get_workspace_size(handle, d.x, d.w, d.conv, d.y,
                                static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                &bytes) == CUDNN_STATUS_SUCCESS;
}

// The algorithm for `key`: the node's state, then the device's tuning cache
// (when cuDNN still takes it), else measured (and remembered in both).
absl::StatusOr<int> ChooseAlgorithm(const KernelContext& ctx, const CudnnApi& api,
                                    cudnnHandle_t handle, const Descriptors& d,
                                    const CudnnConv& cv, ConvState* state, const void* x,
                                    const void* w, void* y) {
  const std::string key = cv.Key();
  if (state != nullptr) {
    std::lock_guard<std::mutex> lock(state->mu);
    auto it = state->algos.find(key);
    if (it != state->algos.end()) return it->second;
  }
  TuningCache* cache = ctx.device()->tuning_cache();
  std::optional<int> algo;
  if (cache != nullptr) {
    std::optional<std::string> v = cache->Lookup(key);
    int parsed = -1;
    if (v.has_value() && absl::SimpleAtoi(*v, &parsed) && parsed >= kDirect &&
        parsed < CUDNN_CONVOLUTION_FWD_ALGO_COUNT && Usable(api, handle, d, parsed)) {
      algo = parsed;
    }
  }
  if (!algo.has_value()) {
    absl::StatusOr<Found> found =
        FindAlgorithm(ctx, api, handle, d, cv, x, w, y);
    if (!found.ok()) return found.status();
    algo = found->algo;
    if (cache != nullptr && found->full_search) cache->Store(key, absl::StrCat(*algo));
  }
  if (state != nullptr) {
    std::lock_guard<std::mutex> lock(state->mu);
    state->algos[key] = *algo;
  }
  return *algo;
}

// The filter in KRSC: from the node's state when the weights are constant
// (made on first use), else transformed for this call.
absl::StatusOr<Tensor> FilterKrsc(const KernelContext& ctx, const Geometry& g, bool constant,
                                  ConvState* state, cudaStream_t stream) {
  const Tensor& filter = ctx.input(1);
  std::unique_lock<std::mutex> lock;
  if (constant && state != nullptr) {
    lock = std::unique_lock<std::mutex>(state->mu);
    if (state->filter.valid() && state->filter_shape == filter.shape()) return state->filter;
  }
  absl::StatusOr<Tensor> krsc =
      ctx.device()->Allocate(filter.dtype(), {g.out_c, g.k_h, g.k_w, g.k_c},
                             absl::StrCat(ctx.node_name(), "/filter"));
  if (!krsc.ok()) return NodeError(ctx, krsc.status());
  // HWIO (depthwise: H, W, 1, C * multiplier) -> OHWI.
  const int64_t hwio[4] = {g.k_h, g.k_w, g.k_c, g.out_c};
  const int perm[4] = {3, 0, 1, 2};
  if (absl::Status s = CudaStatus(
          LaunchTranspose(MakeTransposePlan(hwio, perm, 4), filter.raw_data(), krsc->raw_data(),
                          filter.num_elements(), static_cast<int>(DataTypeSize(filter.dtype())),
                        stream),
          ctx.op(), ctx.node_name(), "launching the filter transpose kernel");
      !s.ok()) {
    return s;
  }
  if (constant && state != nullptr) {
    // Concurrent runs use streams of their own: the transpose must be done
    // before another run's stream reads the kept filter.
    if (absl::Status s = CudaStatus(cudaStreamSynchronize(stream), ctx.op(), ctx.node_name(),
                                    "cudaStreamSynchronize (the kept filter)");
        !s.ok()) {
      return s;
    }
    state->filter = *krsc;
    state->filter_shape = filter.shape();
  }
  return *krsc;
}

// cudnnConvolutionBiasActivationForward into dst: relu(conv + z + bias),
// z the residual input (or dst itself with alpha2 = 0).
absl::Status BiasActivationForward(const KernelContext& ctx, const CudnnApi& api,
                                   cudnnHandle_t handle, const Descriptors& d,
                                   cudnnDataType_t dtype, cudnnConvolutionFwdAlgo_t algo,
                                   const void* x, const void* w, void* ws, size_t ws_bytes,
                                   const CudnnFusionPlan& plan, void* dst) {
  const absl::string_view op = ctx.op(), node = ctx.node_name();
  struct Owned {
    const CudnnApi& api;
    cudnnTensorDescriptor_t bias = nullptr;
    cudnnActivationDescriptor_t relu = nullptr;
    ~Owned() {
      if (bias != nullptr) (void)api.destroy_tensor_desc(bias);
      if (relu != nullptr) (void)api.destroy_activation_desc(relu);
    }
  } owned{api};
  const int channels = static_cast<int>(ctx.input(plan.bias_arg).dim(0));
  if (absl::Status s = CudnnStatus(api.create_tensor_desc(&owned.bias), op, node,
                                   "cudnnCreateTensorDescriptor(bias)");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(
          api.set_tensor_4d(owned.bias, CUDNN_TENSOR_NHWC, dtype, 1, channels, 1, 1), op, node,
          "cudnnSetTensor4dDescriptor(bias)");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CudnnStatus(api.create_activation_desc(&owned.relu), op, node,
                                   "cudnnCreateActivationDescriptor");
      !s.ok()) {
    return s;
  }
  // NaN passes ReLU, as TensorFlow's does.
  if (absl::Status s = CudnnStatus(
          api.set_activation_desc(owned.relu, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
          op, node, "cudnnSetActivationDescriptor");
      !s.ok()) {
    return s;
  }
  const float alpha1 = 1.0f, alpha2 = plan.residual_arg >= 0 ? 1.0f : 0.0f;
  const void* z = plan.residual_arg >= 0 ? ctx.input(plan.residual_arg).raw_data() : dst;
  const cudnnStatus_t done = api.bias_activation_forward(
      handle, &alpha1, d.x, x, d.w, w, d.conv, algo, ws, ws_bytes, &alpha2, d.y, z, owned.bias,
      ctx.input(plan.bias_arg).raw_data(), owned.relu, d.y, dst);
  if (NoAlgorithmForCase(done)) {
    return NodeError(ctx, absl::UnimplementedError(
                              "cudnnConvolutionBiasActivationForward does not take this case"));
  }
  return CudnnStatus(done, op, node, "cudnnConvolutionBiasActivationForward");
}

absl::Status CheckIntRange(const KernelContext& ctx, const Geometry& g) {
  for (int64_t v : {g.batch, g.in_h + g.pad_top + g.pad_bottom, g.in_w + g.pad_left + g.pad_right,
                    g.in_c, g.out_c, g.k_h, g.k_w, g.out_h, g.out_w, g.stride_h, g.stride_w,
                    g.dil_h, g.dil_w, g.groups}) {
    if (v > INT_MAX) {
      return NodeError(ctx, absl::UnimplementedError(absl::StrCat(
                                "a convolution size of ", v, " is more than cuDNN's int API takes")));
    }
  }
  return absl::OkStatus();
}

// The direct kernel for elements of `dtype`.
cudaError_t LaunchDirect(DataType dtype, const void* x, const void* f, void* y,
                         const DirectConvGeometry& dg, cudaStream_t stream) {
  switch (dtype) {
    case DataType::kHalf:
      return LaunchDirectConv(static_cast<const __half*>(x), static_cast<const __half*>(f),
                              static_cast<__half*>(y), dg, stream);
    case DataType::kBFloat16:
      return LaunchDirectConv(static_cast<const __nv_bfloat16*>(x),
                              static_cast<const __nv_bfloat16*>(f),
                              static_cast<__nv_bfloat16*>(y), dg, stream);
    default:
      return LaunchDirectConv(static_cast<const float*>(x), static_cast<const float*>(f),
                              static_cast<float*>(y), dg, stream);
  }
}

absl::Status Convolve(KernelContext& ctx, bool depthwise, const FusedOps* fused) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  absl::StatusOr<DataType> dtype = CommonFloatingType(ctx, 2);
  if (!dtype.ok()) return dtype.status();
  const int64_t elem_size = static_cast<int64_t>(DataTypeSize(*dtype));
  absl::StatusOr<ConvWindowAttrs> attrs = ReadAttrs(ctx);
  if (!attrs.ok()) return attrs.status();
  absl::StatusOr<Geometry> geometry = MakeGeometry(ctx, *attrs, depthwise);
  if (!geometry.ok()) return geometry.status();
  const Geometry& g = *geometry;
  if (absl::Status s = CheckIntRange(ctx, g); !s.ok()) return s;
  const Shape out_shape = {g.batch, g.out_h, g.out_w, g.out_c};
  Epilogue epilogue;
  if (fused != nullptr) {
    absl::StatusOr<Epilogue> e = PreparePostOps(ctx, *fused, out_shape);
    if (!e.ok()) return e.status();
    epilogue = *e;
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, *dtype, out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  void* y = (*out)->raw_data();
  if (ctx.input(0).num_elements() == 0 || ctx.input(1).num_elements() == 0) {
    // An empty sum (no input channels, or an empty window): zeros.
    if (absl::Status s = CudaStatus(
            cudaMemsetAsync(y, 0, elem_size * (*out)->num_elements(), *stream), ctx.op(),
            ctx.node_name(), "cudaMemsetAsync");
        !s.ok()) {
      return s;
    }
    return RunPostOps(ctx, epilogue, **out, *stream);
  }

  auto* state = static_cast<ConvState*>(ctx.kernel_state());
  const bool constant = fused != nullptr && fused->weights_constant;
  absl::StatusOr<Tensor> filter = FilterKrsc(ctx, g, constant, state, *stream);
  if (!filter.ok()) return filter.status();

  // cuDNN pads min(before, after) on each side; the excess goes into a copy.
  CudnnConv cv;
  cv.pad_h = static_cast<int>(std::min(g.pad_top, g.pad_bottom));
  cv.pad_w = static_cast<int>(std::min(g.pad_left, g.pad_right));
  const int64_t top = g.pad_top - cv.pad_h, bottom = g.pad_bottom - cv.pad_h;
  const int64_t left = g.pad_left - cv.pad_w, right = g.pad_right - cv.pad_w;
  const void* x = ctx.input(0).raw_data();
  Tensor padded;
  if (top != 0 || bottom != 0 || left != 0 || right != 0) {
    absl::StatusOr<Tensor> p = ctx.device()->Allocate(
        *dtype, {g.batch, g.in_h + top + bottom, g.in_w + left + right, g.in_c},
        absl::StrCat(ctx.node_name(), "/padded_input"));
    if (!p.ok()) return NodeError(ctx, p.status());
    padded = *std::move(p);
    if (absl::Status s = CudaStatus(
            LaunchPadNhwc(x, padded.raw_data(), g.batch, g.in_h, g.in_w, g.in_c, top, bottom,
                          left, right, static_cast<int>(elem_size), *stream),
            ctx.op(), ctx.node_name(), "launching the padding kernel");
        !s.ok()) {
      return s;
    }
    x = padded.raw_data();
  }
  cv.n = static_cast<int>(g.batch);
  cv.h = static_cast<int>(g.in_h + top + bottom);
  cv.w = static_cast<int>(g.in_w + left + right);
  cv.c = static_cast<int>(g.in_c);
  cv.k = static_cast<int>(g.out_c);
  cv.r = static_cast<int>(g.k_h);
  cv.s = static_cast<int>(g.k_w);
  cv.kc = static_cast<int>(g.k_c);
  cv.stride_h = static_cast<int>(g.stride_h);
  cv.stride_w = static_cast<int>(g.stride_w);
  cv.dil_h = static_cast<int>(g.dil_h);
  cv.dil_w = static_cast<int>(g.dil_w);
  cv.groups = static_cast<int>(g.groups);
  cv.out_h = static_cast<int>(g.out_h);
  cv.out_w = static_cast<int>(g.out_w);
  cv.dtype = *dtype == DataType::kHalf
                 ? CUDNN_DATA_HALF
                 : (*dtype == DataType::kBFloat16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT);
  cv.tf32 = cv.dtype == CUDNN_DATA_FLOAT && AllowsTf32(ctx);

  absl::StatusOr<cudnnHandle_t> handle = CudnnHandleOn(*stream, ctx.op(), ctx.node_name());
  if (!handle.ok()) return handle.status();
  absl::StatusOr<const CudnnApi*> api = Cudnn();
  if (!api.ok()) return NodeError(ctx, api.status());
  Descriptors d(*api);
  if (absl::Status s = SetDescriptors(ctx, **api, cv, d); !s.ok()) return s;
  const void* w = filter->raw_data();
  absl::StatusOr<int> chosen = ChooseAlgorithm(ctx, **api, *handle, d, cv, state, x, w, y);
  if (!chosen.ok()) return chosen.status();
  size_t ws_bytes = 0;
  Tensor workspace;
  if (*chosen != kDirect) {
    if (absl::Status s = CudnnStatus(
            (*api)->get_workspace_size(*handle, d.x, d.w, d.conv, d.y,
                                       static_cast<cudnnConvolutionFwdAlgo_t>(*chosen),
                                       &ws_bytes),
            ctx.op(), ctx.node_name(), "cudnnGetConvolutionForwardWorkspaceSize");
        !s.ok()) {
      return s;
    }
    if (ws_bytes > 0) {
      absl::StatusOr<Tensor> ws = Scratch(ctx, static_cast<int64_t>(ws_bytes), "cudnn_workspace");
      // The algorithm was measured (maybe by another process) with room for
      // its workspace that this call lacks: the direct kernel computes it.
      if (absl::IsResourceExhausted(ws.status())) {
        chosen = kDirect;
        ws_bytes = 0;
      } else if (!ws.ok()) {
        return NodeError(ctx, ws.status());
      } else {
        workspace = *std::move(ws);
      }
    }
  }
  if (*chosen == kDirect) {
    DirectConvGeometry dg;
    dg.batch = g.batch;
    dg.in_h = g.in_h;
    dg.in_w = g.in_w;
    dg.in_c = g.in_c;
    dg.k_h = g.k_h;
    dg.k_w = g.k_w;
    dg.k_c = g.k_c;
    dg.out_h = g.out_h;
    dg.out_w = g.out_w;
    dg.out_c = g.out_c;
    dg.stride_h = g.stride_h;
    dg.stride_w = g.stride_w;
    dg.dil_h = g.dil_h;
    dg.dil_w = g.dil_w;
    dg.pad_top = g.pad_top;
    dg.pad_left = g.pad_left;
    dg.groups = g.groups;
    if (absl::Status s = CudaStatus(LaunchDirect(*dtype, ctx.input(0).raw_data(),
                                                 ctx.input(1).raw_data(), y, dg, *stream),
                                    ctx.op(), ctx.node_name(), "launching the direct conv kernel");
        !s.ok()) {
      return s;
    }
    return RunPostOps(ctx, epilogue, **out, *stream);
  }
  const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(*chosen);
  void* ws = ws_bytes > 0 ? workspace.raw_data() : nullptr;
  // The convolution, then the post-ops kernel.
  auto plain = [&]() -> absl::Status {
    const float alpha = 1.0f, beta = 0.0f;
    if (absl::Status s = CudnnStatus(
            (*api)->forward(*handle, &alpha, d.x, x, d.w, w, d.conv, algo, ws, ws_bytes, &beta,
                            d.y, y),
            ctx.op(), ctx.node_name(),
            absl::StrCat("cudnnConvolutionForward(algo ", *chosen, ")"));
        !s.ok()) {
      return s;
    }
    return RunPostOps(ctx, epilogue, **out, *stream);
  };
  std::optional<CudnnFusionPlan> fusion;
  if (fused != nullptr) fusion = PlanCudnnFusion(*fused);
  if (!fusion.has_value() || state == nullptr || !(*api)->has_bias_activation()) return plain();
  // Bias, residual and ReLU in cuDNN's call, once its first call for this
  // shape agreed with the plain path (agreement.h).
  const std::string key =
      absl::StrCat(cv.Key(), "/bias", fusion->residual_arg >= 0 ? "+z" : "", "+relu");
  return RunChecked(
      ctx, state->fused, key, **out, *stream, plain,
      [&](void* dst) {
        return BiasActivationForward(ctx, **api, *handle, d, cv.dtype, algo, x, w, ws, ws_bytes,
                                     *fusion, dst);
      },
      "cudnnConvolutionBiasActivationForward",
      "cudnnConvolutionForward plus smrt's epilogue kernel");
}

absl::Status Conv2D(KernelContext& ctx) { return Convolve(ctx, /*depthwise=*/false, nullptr); }

absl::Status DepthwiseConv2dNative(KernelContext& ctx) {
  return Convolve(ctx, /*depthwise=*/true, nullptr);
}

absl::Status FusedConv2D(KernelContext& ctx) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return AtNode(ctx, ops.status());
  absl::StatusOr<bool> depthwise = ctx.attrs().GetOr<bool>("depthwise", false);
  if (!depthwise.ok()) return AtNode(ctx, depthwise.status());
  return Convolve(ctx, *depthwise, &*ops);
}

// The registry picks kernels before shapes are known: NCHW nodes stay on the
// CPU, and so does every convolution where cuDNN cannot be loaded (rather
// than failing the run).
bool Supported(const AttrMap& attrs) {
  absl::StatusOr<std::string> f = attrs.GetOr<std::string>("data_format", "NHWC");
  return f.ok() && *f == "NHWC" && Cudnn().ok();
}

KernelSpec ConvKernel(const char* op, std::vector<DataType> types, ComputeFn compute) {
  KernelSpec k = CudaKernel(op, "T", std::move(types), std::move(compute));
  k.supports = Supported;
  k.make_state = [] { return std::make_unique<ConvState>(); };
  return k;
}

}  // namespace

std::vector<KernelSpec> ConvKernels() {
  const std::vector<DataType> floating(std::begin(kFloatingTypes), std::end(kFloatingTypes));
  return {ConvKernel("Conv2D", floating, Conv2D),
          ConvKernel("DepthwiseConv2dNative", floating, DepthwiseConv2dNative),
          ConvKernel(kFusedConv2D, floating, FusedConv2D)};
}

}  // namespace smrt::kernels::cuda
