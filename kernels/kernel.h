// The kernel interface: how a kernel sees its inputs, attrs, outputs, state
// and device. What an op is, independent of its kernels (OpSpec, shape
// inference), is the op layer's (src/ops). Kernels know nothing of graphs or
// protos.
#ifndef SMRT_KERNELS_KERNEL_H_
#define SMRT_KERNELS_KERNEL_H_

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "ops/fused_ops.h"
#include "ops/kernel_catalog.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

// The op layer's definitions (src/ops), which every backend sees under its
// own namespace.
using ops::Activation;
using ops::ActivationFromName;
using ops::ActivationName;
using ops::ActivationOfOp;
using ops::FusedOps;
using ops::HostMemoryDtype;
using ops::InferenceContext;
using ops::InferFn;
using ops::InHostMemory;
using ops::kAllowTf32Attr;
using ops::kAttention;
using ops::kCpu;
using ops::kFusedConv2D;
using ops::kFusedEinsum;
using ops::kFusedMatMul;
using ops::kLayerNorm;
using ops::kRoundTo;
using ops::kToDeviceOp;
using ops::kToHostOp;
using ops::NumOutputsFn;
using ops::OpSpec;
using ops::ParseFusedOps;
using ops::PostOp;
using ops::Resource;
using ops::ValueInfo;
using ops::VariableResource;

// Per-node state a kernel keeps across runs (prepared weights, compiled
// primitives), made once per node when the executor prepares the graph.
// Runs may use it from many threads at once: implementations lock.
class KernelState {
 public:
  virtual ~KernelState() = default;
  // Bytes of memory it holds for the node (weights prepared in a backend's
  // layout), for memory reports and tests.
  virtual int64_t bytes() const { return 0; }
};

// Runs the functions a node refers to (While cond/body, If branches, a
// reducer), compiled by the executor for that node (OpSpec::calls_functions).
class FunctionCaller {
 public:
  virtual ~FunctionCaller() = default;
  virtual absl::StatusOr<std::vector<Tensor>> Call(absl::string_view function,
                                                   std::vector<Tensor> args) const = 0;
  // The op of `function` when its body only applies one op to its two
  // arguments and returns the result (through Identity nodes), e.g.
  // "Maximum"; else empty. Lets a kernel apply a common reducer itself.
  virtual std::string BinaryOpOf(absl::string_view function) const {
    (void)function;
    return "";
  }
};

// Choices a kernel makes by measuring (a cuDNN algorithm for a convolution's
// shapes), kept so they are measured once: per model in memory, and on disk
// across processes when LoadOptions::cache_dir (or SMRT_CACHE_DIR) is set.
// The store adds the model, device and library versions to every key, so a
// kernel's key only needs what it measured (op, shapes, attrs). Thread-safe.
class TuningCache {
 public:
  virtual ~TuningCache() = default;
  virtual std::optional<std::string> Lookup(absl::string_view key) const = 0;
  // Replaces any earlier value; written to disk (when there is a disk cache)
  // before Store returns.
  virtual void Store(absl::string_view key, absl::string_view value) = 0;
};

// A device's side of a kernel call (CUDA: the stream and the arena of the
// model's device). The executor gives one to every kernel registered for a
// device other than the CPU; those kernels read device tensors (except their
// host_memory_inputs) and allocate their outputs here.
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  // The device type its kernels are registered under: "CUDA".
  virtual absl::string_view device_type() const = 0;
  // Device memory for a tensor, contents unspecified (Tensor::DeviceStorage);
  // ResourceExhausted naming `name` and the size when it does not fit.
  virtual absl::StatusOr<Tensor> Allocate(DataType dtype, const Shape& shape,
                                          absl::string_view name) = 0;
  // The stream (a cudaStream_t) that every kernel and copy of a run (or, on
  // the model's own context, of loading) enqueues its work on, in the
  // executor's order.
  virtual void* stream() const = 0;
  // Where kernels keep measured choices; null when there is none.
  virtual TuningCache* tuning_cache() const { return nullptr; }
  // The context one Run's kernels use: this device and its memory with a
  // stream of the run's own (exec/run_device.h), so concurrent runs
  // overlap. Null: runs use this context as it is.
  virtual std::unique_ptr<DeviceContext> ForRun() { return nullptr; }
  // Makes this device the calling thread's current one, so that what a
  // kernel launches and the library handles it takes (one per thread and
  // device) reach it. The executor calls it before every step placed on
  // the device, on whichever thread runs the step.
  virtual absl::Status MakeCurrent() const { return absl::OkStatus(); }
};

// Where the executor planned a step's outputs to live (its activation
// arena, exec/arena.h). KernelContext's allocate_output* ask it first.
class OutputArena {
 public:
  virtual ~OutputArena() = default;
  // Output i of the current step in its planned place, in host or device
  // memory, or an invalid Tensor when it has none free for this dtype and
  // shape (the context then allocates). Host elements are zero when `zero`,
  // else unspecified.
  virtual Tensor Take(int output, DataType dtype, const Shape& shape, bool zero,
                      bool on_device) = 0;
};

class KernelContext {
 public:
  KernelContext(absl::string_view node_name, absl::string_view op, const AttrMap& attrs,
                std::vector<Tensor> inputs, int num_outputs,
                std::vector<Resource*> input_resources = {})
      : node_name_(node_name),
        op_(op),
        attrs_(attrs),
        inputs_(std::move(inputs)),
        outputs_(num_outputs),
        input_resources_(std::move(input_resources)) {
    input_resources_.resize(inputs_.size(), nullptr);
  }

  absl::string_view node_name() const { return node_name_; }
  absl::string_view op() const { return op_; }
  const AttrMap& attrs() const { return attrs_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Past the node's inputs: an invalid Tensor, recorded like
  // InferenceContext::missing_input().
  const Tensor& input(int i) const {
    if (i < 0 || i >= num_inputs()) {
      static const Tensor kMissing;
      missing_input_ = i;
      return kMissing;
    }
    return inputs_[i];
  }
  int missing_input() const { return missing_input_; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // Allocates output i (zero-filled). Errors carry the size that failed.
  absl::StatusOr<Tensor*> allocate_output(int i, DataType dtype, Shape shape) {
    if (TakeFromArena(i, dtype, shape, /*zero=*/true, /*on_device=*/false)) return &outputs_[i];
    absl::StatusOr<Tensor> t = Tensor::Create(dtype, std::move(shape));
    if (!t.ok()) return t.status();
    outputs_[i] = *std::move(t);
    return &outputs_[i];
  }
  // As allocate_output, with the contents left unspecified: only for kernels
  // that write every element of the output (Tensor::CreateUninitialized).
  absl::StatusOr<Tensor*> allocate_output_for_overwrite(int i, DataType dtype, Shape shape) {
    if (TakeFromArena(i, dtype, shape, /*zero=*/false, /*on_device=*/false)) return &outputs_[i];
    absl::StatusOr<Tensor> t = Tensor::CreateUninitialized(dtype, std::move(shape));
    if (!t.ok()) return t.status();
    outputs_[i] = *std::move(t);
    return &outputs_[i];
  }
  // Output i in the buffer of the first input among `candidates` that has
  // this dtype and shape and shares its buffer with no other value
  // (Tensor::sole_owner: the executor hands a value over at its last use),
  // as TensorFlow's forward_input_or_allocate_output; else a new buffer with
  // unspecified contents. Only for kernels that write every output element
  // and read an input element no later than they write the same element.
  absl::StatusOr<Tensor*> forward_input_or_allocate_output(std::initializer_list<int> candidates,
                                                           int i, DataType dtype,
                                                           const Shape& shape) {
    for (int c : candidates) {
      if (c < 0 || c >= num_inputs()) continue;
      const Tensor& in = inputs_[c];
      if (in.dtype() == dtype && in.shape() == shape && in.sole_owner()) {
        outputs_[i] = in;
        return &outputs_[i];
      }
    }
    return allocate_output_for_overwrite(i, dtype, shape);
  }
  // Sets output i to an existing tensor (e.g. forwards an input unchanged).
  void set_output(int i, Tensor t) { outputs_[i] = std::move(t); }
  Tensor& output(int i) { return outputs_[i]; }
  std::vector<Tensor>& outputs() { return outputs_; }

  // The resource (variable, table) that input i refers to, or null; past the
  // node's inputs, null, recorded as input() records it (a graph may leave
  // out an input that the op's shape function never looks at).
  Resource* resource(int i) const {
    if (i < 0 || i >= static_cast<int>(input_resources_.size())) {
      missing_input_ = i;
      return nullptr;
    }
    return input_resources_[i];
  }
  // The resource this node owns (VariableV2, VarHandleOp, tables), or null.
  Resource* node_resource() const { return node_resource_; }
  void set_node_resource(Resource* r) { node_resource_ = r; }

  // Calls a function attr of this node; FailedPrecondition outside an executor.
  absl::StatusOr<std::vector<Tensor>> CallFunction(absl::string_view function,
                                                   std::vector<Tensor> args) const {
    if (functions_ == nullptr) {
      return absl::FailedPreconditionError("no function runtime for this node");
    }
    return functions_->Call(function, std::move(args));
  }
  void set_functions(const FunctionCaller* f) { functions_ = f; }
  // FunctionCaller::BinaryOpOf; empty outside an executor.
  std::string FunctionBinaryOp(absl::string_view function) const {
    return functions_ == nullptr ? std::string() : functions_->BinaryOpOf(function);
  }

  // The device this kernel runs on, for kernels registered for a device other
  // than the CPU; null otherwise.
  DeviceContext* device() const { return device_; }
  void set_device(DeviceContext* d) { device_ = d; }
  // Output i in device memory, contents unspecified.
  absl::StatusOr<Tensor*> allocate_device_output(int i, DataType dtype, const Shape& shape) {
    if (device_ == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("node '", node_name_, "' (", op_, ") has no device to allocate on"));
    }
    if (TakeFromArena(i, dtype, shape, /*zero=*/false, /*on_device=*/true)) return &outputs_[i];
    absl::StatusOr<Tensor> t = device_->Allocate(dtype, shape, node_name_);
    if (!t.ok()) return t.status();
    outputs_[i] = *std::move(t);
    return &outputs_[i];
  }

  // The executor's plan for this step's outputs; null: allocate each.
  void set_output_arena(OutputArena* arena) { arena_ = arena; }

  // This node's KernelState (KernelSpec::make_state), or null.
  KernelState* kernel_state() const { return kernel_state_; }
  void set_kernel_state(KernelState* s) { kernel_state_ = s; }

 private:
  absl::string_view node_name_;
  absl::string_view op_;
  const AttrMap& attrs_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
  std::vector<Resource*> input_resources_;
  Resource* node_resource_ = nullptr;
  const FunctionCaller* functions_ = nullptr;
  KernelState* kernel_state_ = nullptr;
  bool TakeFromArena(int i, DataType dtype, const Shape& shape, bool zero, bool on_device) {
    if (arena_ == nullptr) return false;
    Tensor t = arena_->Take(i, dtype, shape, zero, on_device);
    if (!t.valid()) return false;
    outputs_[i] = std::move(t);
    return true;
  }

  DeviceContext* device_ = nullptr;
  OutputArena* arena_ = nullptr;
  mutable int missing_input_ = -1;
};

using ComputeFn = std::function<absl::Status(KernelContext&)>;

// One implementation of an op on a device. When type_attr is set, the kernel
// serves only nodes whose attr `type_attr` is one of `types`.
struct KernelSpec {
  std::string op;
  std::string device = kCpu;
  std::string type_attr;
  std::vector<DataType> types;
  ComputeFn compute;
  // Of the kernels on one device that serve a node, the registry picks the
  // highest priority (an optimized backend over the reference kernels);
  // registration order breaks ties.
  int priority = 0;
  // A lower-priority kernel that is faster than the preferred one on some
  // shapes: where LoadOptions::cpu_kernels is "measure", the executor times
  // both on the first call of a shape and keeps the faster
  // (exec/kernel_choice.h). Others run only when named or alone.
  bool contends = false;
  std::string backend = "reference";  // for tools and tests
  // When set, the kernel serves only nodes whose attrs it accepts.
  std::function<bool(const AttrMap&)> supports;
  // When set, makes the node's KernelState once, when a Program is created.
  std::function<std::unique_ptr<KernelState>()> make_state;
  // For kernels on a device other than the CPU: the inputs they read on the
  // host (shapes, axes, permutations), as TensorFlow's HostMemory. The
  // placement pass gives them host values; every other input is in device
  // memory. Outputs are in device memory, except a kToHostOp's, the
  // host_memory_outputs and those host_memory_by_dtype puts on the host
  // (ops::InHostMemory).
  std::vector<int> host_memory_inputs;
  // For kernels on a device: the outputs they make in host memory, as
  // TensorFlow's HostMemory (TensorArrayConcatV3's lengths).
  std::vector<int> host_memory_outputs;
  // For device kernels that carry values of any dtype (While, If and the
  // TensorList ops): their int32, variant, resource and string inputs and
  // outputs are in host memory, as TensorFlow keeps those dtypes on GPUs.
  bool host_memory_by_dtype = false;
  // The kernel reads its inputs' dtypes and shapes, never their elements
  // (Shape, Size, Rank): a value may stay on whichever device made it.
  bool reads_only_shapes = false;
};

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_KERNEL_H_
