// What the oneDNN kernels share: the engine, a stream per thread, post-op
// building from ops/fused_ops.h, and the one place where dnnl::error
// becomes an absl::Status.
#ifndef SMRT_KERNELS_CPU_ONEDNN_DNNL_UTIL_H_
#define SMRT_KERNELS_CPU_ONEDNN_DNNL_UTIL_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/kernel.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "ops/fused_ops.h"

namespace smrt::kernels::onednn {

dnnl::engine& Engine();

// Whether oneDNN runs bfloat16 convolutions and matmuls on this CPU's own
// instructions (AVX512_BF16 or AMX-BF16), not by emulation.
bool HasBf16();
// The float types the convolution, matmul and pooling kernels are
// registered for: float32 and bfloat16 (the same on every machine, so that
// `smrt ops` is too) ...
std::vector<DataType> FloatTypes();
// ... of which a node's "T" runs here: bfloat16 only where HasBf16()
// (elsewhere bfloat16 nodes go to the reference kernels, which widen them).
bool TypeRunsHere(const AttrMap& attrs);
// float32 -> f32, bfloat16 -> bf16.
dnnl::memory::data_type DnnlType(DataType type);
// A stream for the calling thread (streams are not shared across threads).
dnnl::stream& ThreadStream();

// The eltwise/sum post-ops for `ops` after the bias (which the primitive
// takes itself). `summand` is set when there is a residual Add; the sum
// reads the output buffer as `sum_type` (undef: the output's type) times
// `sum_scale`.
dnnl::post_ops MakePostOps(const FusedOps& ops, bool& summand, float sum_scale = 1.0f,
                           dnnl::memory::data_type sum_type = dnnl::memory::data_type::undef);

// Whether the post-ops fit a oneDNN primitive: BiasAdd (if any) first, at
// most one Add, eltwise otherwise.
bool PostOpsFit(const FusedOps& ops);

// Runs f, turning a dnnl::error into Internal naming what was being done.
absl::Status Guard(const char* what, const std::function<absl::Status()>& f);

// Executes `prim` with a user-mode scratchpad of the size `scratchpad` says.
void Execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args);

// Copies the constant weights at `data` (laid out as `user`) into a new
// memory of layout `want`.
dnnl::memory ReorderWeights(const dnnl::memory::desc& user, const void* data,
                            const dnnl::memory::desc& want);

// A node's constant weights in the layouts its primitives want, each
// reordered once: the plans of every input shape that want the same layout
// share one copy, so a model called at many batch sizes or sequence lengths
// holds its weights once more, not once per shape. Once copied, weights
// mapped from the checkpoint give their pages back to the OS
// (file::ReleaseResidentPages): the plain copy then costs no memory unless
// something reads it again (another kernel, a new layout). Thread-safe.
class WeightCache {
 public:
  static constexpr size_t kMaxLayouts = 16;
  // `weights` laid out as `user`, in layout `want`.
  dnnl::memory Weights(const dnnl::memory::desc& user, const Tensor& weights,
                       const dnnl::memory::desc& want);
  int64_t weight_bytes() const;

 private:
  mutable std::mutex mu_;
  std::vector<dnnl::memory> weights_;
};

// Held while a plan's primitives are made. Two Runs making equal primitives
// at once (concurrent callers with a thread count not seen before) raced
// inside oneDNN's process-wide primitive cache (ThreadSanitizer, SoakTest);
// a plan is made once per shape and thread count, so serializing that
// costs nothing.
class CreationLock {
 public:
  CreationLock();
  ~CreationLock();
  CreationLock(const CreationLock&) = delete;
  CreationLock& operator=(const CreationLock&) = delete;
};

// A node's primitives, one plan per input shape and intra-op thread count,
// bounded (a model called with ever-new shapes starts over rather than
// growing), and its weights (WeightCache). Thread-safe. oneDNN fixes a
// primitive's thread count when it is made (omp_get_max_threads, which is
// the caller's IntraOpThreads()): a plan made for a Run of 2 threads, run by
// one of 2 concurrent Runs that each got 1 (RunThreadsScope), would still
// start 2 threads per Run, 4 on 2 cores.
template <typename Plan>
class PlanCache : public KernelState, public WeightCache {
 public:
  static constexpr size_t kMaxShapes = 16;
  int64_t bytes() const override { return weight_bytes(); }
  std::shared_ptr<const Plan> Find(const Shape& key) const {
    const Shape k = WithThreads(key);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_.find(k);
    return it == plans_.end() ? nullptr : it->second;
  }
  void Insert(const Shape& key, std::shared_ptr<const Plan> plan) {
    Shape k = WithThreads(key);
    std::lock_guard<std::mutex> lock(mu_);
    if (plans_.size() >= kMaxShapes) plans_.clear();
    plans_.emplace(std::move(k), std::move(plan));
  }

 private:
  static Shape WithThreads(const Shape& key) {
    Shape k = key;
    k.push_back(IntraOpThreads());
    return k;
  }

  mutable std::mutex mu_;
  std::map<Shape, std::shared_ptr<const Plan>> plans_;
};

}  // namespace smrt::kernels::onednn

#endif  // SMRT_KERNELS_CPU_ONEDNN_DNNL_UTIL_H_
