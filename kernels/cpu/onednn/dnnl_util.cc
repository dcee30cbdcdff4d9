#include "kernels/cpu/onednn/dnnl_util.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>

#include "absl/strings/str_cat.h"
#include "core/mapped_file.h"

namespace smrt::kernels::onednn {

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

bool HasBf16() {
  // ISA values are nested bit sets: AMX's includes AVX512_BF16's.
  const unsigned bf16 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_bf16);
  return (static_cast<unsigned>(dnnl_get_effective_cpu_isa()) & bf16) == bf16;
}

std::vector<DataType> FloatTypes() { return {DataType::kFloat, DataType::kBFloat16}; }

bool TypeRunsHere(const AttrMap& attrs) {
  absl::StatusOr<DataType> t = attrs.Get<DataType>("T");
  return t.ok() && (*t == DataType::kFloat || (*t == DataType::kBFloat16 && HasBf16()));
}

dnnl::memory::data_type DnnlType(DataType type) {
  return type == DataType::kBFloat16 ? dnnl::memory::data_type::bf16
                                     : dnnl::memory::data_type::f32;
}

namespace {

void AppendActivation(dnnl::post_ops& po, Activation a, float alpha) {
  using A = dnnl::algorithm;
  switch (a) {
    case Activation::kRelu: po.append_eltwise(1.0f, A::eltwise_relu, 0.0f, 0.0f); break;
    case Activation::kRelu6: po.append_eltwise(1.0f, A::eltwise_clip, 0.0f, 6.0f); break;
    case Activation::kElu: po.append_eltwise(1.0f, A::eltwise_elu, 1.0f, 0.0f); break;
    case Activation::kLeakyRelu: po.append_eltwise(1.0f, A::eltwise_relu, alpha, 0.0f); break;
    case Activation::kSigmoid: po.append_eltwise(1.0f, A::eltwise_logistic, 0.0f, 0.0f); break;
    case Activation::kTanh: po.append_eltwise(1.0f, A::eltwise_tanh, 0.0f, 0.0f); break;
    case Activation::kSwish: po.append_eltwise(1.0f, A::eltwise_swish, 1.0f, 0.0f); break;
    case Activation::kHardSwish: po.append_eltwise(1.0f, A::eltwise_hardswish, 0.0f, 0.0f); break;
    case Activation::kGeluErf: po.append_eltwise(1.0f, A::eltwise_gelu_erf, 0.0f, 0.0f); break;
    case Activation::kGeluTanh: po.append_eltwise(1.0f, A::eltwise_gelu_tanh, 0.0f, 0.0f); break;
  }
}

}  // namespace

dnnl::post_ops MakePostOps(const FusedOps& ops, bool& summand, float sum_scale,
                           dnnl::memory::data_type sum_type) {
  dnnl::post_ops po;
  summand = false;
  for (const PostOp& op : ops.ops) {
    if (op.kind == PostOp::kActivation) AppendActivation(po, op.activation, ops.leakyrelu_alpha);
    if (op.kind == PostOp::kAdd) {
      po.append_sum(sum_scale, sum_type);
      summand = true;
    }
  }
  return po;
}

bool PostOpsFit(const FusedOps& ops) {
  int adds = 0;
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    if (ops.ops[i].kind == PostOp::kBiasAdd && i != 0) return false;
    if (ops.ops[i].kind == PostOp::kAdd) ++adds;
  }
  return adds <= 1;
}

namespace {
std::mutex& CreationMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
}  // namespace

CreationLock::CreationLock() { CreationMutex().lock(); }
CreationLock::~CreationLock() { CreationMutex().unlock(); }

absl::Status Guard(const char* what, const std::function<absl::Status()>& f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    return absl::InternalError(absl::StrCat("oneDNN ", what, ": ", e.what()));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat("oneDNN ", what, ": out of memory"));
  }
}

dnnl::memory ReorderWeights(const dnnl::memory::desc& user, const void* data,
                            const dnnl::memory::desc& want) {
  dnnl::memory from(user, Engine(), const_cast<void*>(data));
  dnnl::memory to(want, Engine());
  dnnl::stream& s = ThreadStream();
  dnnl::reorder(from, to).execute(s, from, to);
  s.wait();
  return to;
}

dnnl::memory WeightCache::Weights(const dnnl::memory::desc& user, const Tensor& weights,
                                  const dnnl::memory::desc& want) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const dnnl::memory& m : weights_) {
    if (m.get_desc() == want) return m;
  }
  if (weights_.size() >= kMaxLayouts) weights_.clear();
  weights_.push_back(ReorderWeights(user, weights.raw_data(), want));
  file::ReleaseResidentPages(weights);
  return weights_.back();
}

int64_t WeightCache::weight_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t bytes = 0;
  for (const dnnl::memory& m : weights_) bytes += static_cast<int64_t>(m.get_desc().get_size());
  return bytes;
}

void Execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args) {
  // 64-byte aligned, as oneDNN's own scratchpads are.
  std::unique_ptr<void, void (*)(void*)> buffer(nullptr, std::free);
  if (const size_t size = scratchpad.get_size(); size > 0) {
    buffer.reset(std::aligned_alloc(64, (size + 63) / 64 * 64));
    if (buffer == nullptr) throw std::bad_alloc();
    args.insert({DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad, Engine(), buffer.get())});
  }
  dnnl::stream& s = ThreadStream();
  prim.execute(s, args);
  s.wait();
}

}  // namespace smrt::kernels::onednn
