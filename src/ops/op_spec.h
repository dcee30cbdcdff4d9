// What smrt knows about an op type, independent of any device or backend:
// its attr defaults, how its outputs' dtypes and shapes follow from its
// inputs, how many outputs it has, and the state it owns. The graph, the
// passes and every backend read these; kernels (kernels/kernel.h) add the
// computation on top.
#ifndef SMRT_OPS_OP_SPEC_H_
#define SMRT_OPS_OP_SPEC_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// The device type of the CPU kernels; other devices name themselves
// ("CUDA").
inline constexpr char kCpu[] = "CPU";

// The ops the placement pass puts at device boundaries, with attr T: the
// value of input 0 copied into device memory, or back into host memory.
inline constexpr char kToDeviceOp[] = "_SmrtToDevice";
inline constexpr char kToHostOp[] = "_SmrtToHost";

// State that outlives one Run: variables, lookup tables. Owned by the loaded
// model; kernels reach it through KernelContext::resource().
class Resource {
 public:
  virtual ~Resource() = default;
};

// A variable's current value. Reads copy the Tensor handle under the lock;
// writes replace or update it under the lock.
class VariableResource : public Resource {
 public:
  explicit VariableResource(Tensor value) : value_(std::move(value)) {}
  Tensor Read() const {
    std::lock_guard<std::mutex> lock(mu_);
    return value_;
  }
  void Write(Tensor value) {
    std::lock_guard<std::mutex> lock(mu_);
    value_ = std::move(value);
  }
  std::mutex& mutex() const { return mu_; }
  Tensor& value_locked() { return value_; }  // caller holds mutex()

 private:
  mutable std::mutex mu_;
  Tensor value_;
};

// What is known about a value before running: dtype and partial shape.
struct ValueInfo {
  DataType dtype = DataType::kInvalid;
  PartialShape shape = PartialShape::Unknown();
};

// What an op's shape inference sees of one node.
class InferenceContext {
 public:
  InferenceContext(std::string node_name, std::string op, const AttrMap& attrs,
                   std::vector<ValueInfo> inputs, std::vector<const Tensor*> input_values,
                   int num_outputs)
      : node_name_(std::move(node_name)),
        op_(std::move(op)),
        attrs_(attrs),
        inputs_(std::move(inputs)),
        input_values_(std::move(input_values)),
        outputs_(num_outputs) {
    input_values_.resize(inputs_.size(), nullptr);
  }

  const std::string& node_name() const { return node_name_; }
  const std::string& op() const { return op_; }
  const AttrMap& attrs() const { return attrs_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // An index past the node's inputs (a malformed graph) gives an unknown
  // value and is recorded: the caller fails the node (missing_input()).
  const ValueInfo& input(int i) const {
    if (i < 0 || i >= num_inputs()) {
      static const ValueInfo kMissing;
      missing_input_ = i;
      return kMissing;
    }
    return inputs_[i];
  }
  // The input's value when it is known before running (a constant), else null.
  const Tensor* input_value(int i) const {
    if (i < 0 || i >= num_inputs()) {
      missing_input_ = i;
      return nullptr;
    }
    return input_values_[i];
  }
  // The first input index asked for that the node does not have, or -1.
  int missing_input() const { return missing_input_; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, ValueInfo info) { outputs_[i] = std::move(info); }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }

 private:
  std::string node_name_;
  std::string op_;
  const AttrMap& attrs_;
  std::vector<ValueInfo> inputs_;
  std::vector<const Tensor*> input_values_;
  std::vector<ValueInfo> outputs_;
  mutable int missing_input_ = -1;
};

using InferFn = std::function<absl::Status(InferenceContext&)>;
using NumOutputsFn = std::function<absl::StatusOr<int>(const AttrMap&, int num_inputs)>;

// What smrt knows about an op type, independent of device.
struct OpSpec {
  std::string op;
  // TensorFlow's defaults for attrs that exports may strip
  // (stripped_default_attrs); applied at import.
  std::vector<std::pair<std::string, AttrValue>> attr_defaults;
  InferFn infer;             // dtype/shape inference; required
  NumOutputsFn num_outputs;  // null: one output
  bool stateful = false;     // never constant-folded or deduplicated
  // For ops that own state (hash tables...): makes the node's resource once
  // per loaded model. Nodes with the same op and shared_name (or name, when
  // shared_name is empty) share one resource, as in TensorFlow.
  std::function<absl::StatusOr<std::unique_ptr<Resource>>(const AttrMap&)> make_resource;
  // The kernel calls the node's function attrs (While bodies, If branches,
  // XlaReduce's reducer): the executor compiles them for the node and gives
  // the kernel a way to call them.
  bool calls_functions = false;
};

// Applies the op's attr defaults to attrs that are missing.
void ApplyAttrDefaults(const OpSpec& spec, AttrMap& attrs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_OP_SPEC_H_
