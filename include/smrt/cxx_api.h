// smrt's C++ API for applications: a header-only layer over the stable C ABI
// (smrt/c_api.h), like onnxruntime_cxx_api.h. It needs only the C++17
// standard library and the C header, so a program built with any compiler,
// standard library build or abseil (gRPC's, vcpkg's, TensorFlow's, none)
// links it against any libsmrt.so of the same C ABI.
//
//   #include "smrt/cxx_api.h"
//
//   smrt::cxx::Result<smrt::cxx::Model> model = smrt::cxx::Model::Load("/models/digits");
//   if (!model.ok()) { std::cerr << model.status().ToString() << "\n"; return 1; }
//   smrt::cxx::Result<smrt::cxx::Tensor> x = smrt::cxx::Tensor::Create(SMRT_FLOAT, {1, 64});
//   float* pixels = x->data<float>();  // fill 64 floats
//   smrt::cxx::Result<smrt::cxx::Outputs> out =
//       model->Run("serving_default", {{"pixels", &*x}});
//   if (!out.ok()) { ... }
//   const float* probs = out->Find("probabilities")->data<float>();
//
// Errors are values, not exceptions: every call that can fail returns a
// Status or a Result<T> (code and message, as in the C API). Objects own
// what they wrap and free it once (move-only). A Model may be run from many
// threads at once; Tensors and Outputs are not synchronised.
//
// smrt/model.h is the other C++ API: richer (memory plans, profiles, the
// LoadOptions struct), but its types carry abseil's, so it is for programs
// built in-tree or against the same abseil as libsmrt (the static library).
#ifndef SMRT_CXX_API_H_
#define SMRT_CXX_API_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smrt/c_api.h"
#include "smrt/custom_op.h"

namespace smrt::cxx {

// A call's outcome: SMRT_OK, or a code with a message naming what is wrong.
class Status {
 public:
  Status() = default;
  Status(SmrtCode code, std::string message) : code_(code), message_(std::move(message)) {}
  // Takes a C status (NULL is OK) and frees it.
  static Status FromC(SmrtStatus* status) {
    if (status == nullptr) return Status();
    Status s(SmrtStatusCode(status), SmrtStatusMessage(status));
    SmrtStatusDelete(status);
    return s;
  }

  bool ok() const { return code_ == SMRT_OK; }
  SmrtCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "OK", or "INVALID_ARGUMENT: <message>".
  std::string ToString() const {
    return ok() ? "OK" : std::string(SmrtCodeName(code_)) + ": " + message_;
  }

 private:
  SmrtCode code_ = SMRT_OK;
  std::string message_;
};

// A value or the Status that says why there is none. Reading the value of
// a Result that holds an error is a bug in the caller: it prints the status
// to stderr and aborts (there are no exceptions to throw).
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, like StatusOr
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(SMRT_INTERNAL, "Result made from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return Check(), *value_; }
  const T& value() const& { return Check(), *value_; }
  T&& value() && { return Check(), std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void Check() const {
    if (value_.has_value()) return;
    std::fprintf(stderr, "smrt::cxx::Result::value() on an error: %s\n",
                 status_.ToString().c_str());
    std::abort();
  }

  Status status_;
  std::optional<T> value_;
};

// "float32", "int64", "string"...
inline std::string_view DataTypeName(SmrtDataType type) { return SmrtDataTypeName(type); }

// "(1, 64)", with -1 for unknown dims; "unknown_rank" for a negative rank.
inline std::string ShapeString(const std::vector<int64_t>& dims, bool known_rank = true) {
  if (!known_rank) return "unknown_rank";
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + ")";
}

// A tensor that someone else owns (a run's outputs): valid while its owner
// lives.
class TensorRef {
 public:
  explicit TensorRef(const SmrtTensor* tensor) : tensor_(tensor) {}

  SmrtDataType dtype() const { return SmrtTensorDataType(tensor_); }
  int rank() const { return SmrtTensorRank(tensor_); }
  int64_t dim(int i) const { return SmrtTensorDim(tensor_, i); }
  std::vector<int64_t> shape() const {
    std::vector<int64_t> dims(static_cast<size_t>(rank()));
    for (int i = 0; i < rank(); ++i) dims[static_cast<size_t>(i)] = dim(i);
    return dims;
  }
  int64_t element_count() const { return SmrtTensorElementCount(tensor_); }
  // Bytes of element data; 0 for strings.
  size_t byte_size() const { return SmrtTensorByteSize(tensor_); }
  // The elements, row-major (null for strings). T must match dtype().
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(SmrtTensorConstData(tensor_));
  }
  // Element `index` of a string tensor: a view valid until the tensor is
  // freed or the element is set.
  Result<std::string_view> GetString(int64_t index) const {
    const char* bytes = nullptr;
    size_t length = 0;
    Status s = Status::FromC(SmrtTensorGetString(tensor_, index, &bytes, &length));
    if (!s.ok()) return s;
    return std::string_view(bytes, length);
  }
  const SmrtTensor* get() const { return tensor_; }

 private:
  const SmrtTensor* tensor_;
};

// A tensor this program owns: made here, passed to Model::Run by address.
class Tensor {
 public:
  // Zero-filled (empty strings for SMRT_STRING), 64-byte aligned.
  static Result<Tensor> Create(SmrtDataType type, const std::vector<int64_t>& dims) {
    SmrtTensor* t = nullptr;
    Status s = Status::FromC(SmrtTensorCreate(type, dims.data(), static_cast<int>(dims.size()), &t));
    if (!s.ok()) return s;
    return Tensor(t);
  }
  // Over `byte_size` bytes at `data`, which the caller keeps valid and
  // unchanged while the tensor lives; smrt does not write to an input.
  static Result<Tensor> View(SmrtDataType type, const std::vector<int64_t>& dims, void* data,
                             size_t byte_size) {
    SmrtTensor* t = nullptr;
    Status s = Status::FromC(SmrtTensorCreateView(type, dims.data(),
                                                  static_cast<int>(dims.size()), data,
                                                  byte_size, nullptr, nullptr, &t));
    if (!s.ok()) return s;
    return Tensor(t);
  }

  Tensor(Tensor&& other) noexcept : tensor_(std::exchange(other.tensor_, nullptr)) {}
  Tensor& operator=(Tensor&& other) noexcept {
    if (this != &other) {
      SmrtTensorDelete(tensor_);
      tensor_ = std::exchange(other.tensor_, nullptr);
    }
    return *this;
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() { SmrtTensorDelete(tensor_); }

  TensorRef ref() const { return TensorRef(tensor_); }
  SmrtDataType dtype() const { return ref().dtype(); }
  int rank() const { return ref().rank(); }
  int64_t dim(int i) const { return ref().dim(i); }
  std::vector<int64_t> shape() const { return ref().shape(); }
  int64_t element_count() const { return ref().element_count(); }
  size_t byte_size() const { return ref().byte_size(); }
  template <typename T>
  T* data() {
    return static_cast<T*>(SmrtTensorData(tensor_));
  }
  template <typename T>
  const T* data() const {
    return ref().data<T>();
  }
  Result<std::string_view> GetString(int64_t index) const { return ref().GetString(index); }
  Status SetString(int64_t index, std::string_view bytes) {
    return Status::FromC(SmrtTensorSetString(tensor_, index, bytes.data(), bytes.size()));
  }
  const SmrtTensor* get() const { return tensor_; }

 private:
  explicit Tensor(SmrtTensor* tensor) : tensor_(tensor) {}
  SmrtTensor* tensor_;
};

// Load options by their text keys (docs/options.md): Set("device", "CUDA:0"),
// Set("intra_op_threads", "2"), Set("signatures", "serving_default").
class LoadOptions {
 public:
  LoadOptions() : options_(SmrtLoadOptionsCreate()) {}
  LoadOptions(LoadOptions&& other) noexcept
      : options_(std::exchange(other.options_, nullptr)) {}
  LoadOptions& operator=(LoadOptions&& other) noexcept {
    if (this != &other) {
      SmrtLoadOptionsDelete(options_);
      options_ = std::exchange(other.options_, nullptr);
    }
    return *this;
  }
  LoadOptions(const LoadOptions&) = delete;
  LoadOptions& operator=(const LoadOptions&) = delete;
  ~LoadOptions() { SmrtLoadOptionsDelete(options_); }

  // INVALID_ARGUMENT for an unknown key (the message lists the known ones)
  // or a value that does not parse.
  Status Set(const std::string& key, const std::string& value) {
    return Status::FromC(SmrtLoadOptionsSet(options_, key.c_str(), value.c_str()));
  }
  Status SetTags(const std::vector<std::string>& tags) {
    std::vector<const char*> c = CStrings(tags);
    return Status::FromC(SmrtLoadOptionsSetTags(options_, c.data(), static_cast<int>(c.size())));
  }
  Status SetSignatures(const std::vector<std::string>& keys) {
    std::vector<const char*> c = CStrings(keys);
    return Status::FromC(
        SmrtLoadOptionsSetSignatures(options_, c.data(), static_cast<int>(c.size())));
  }
  // Custom ops this program registers itself (smrt/custom_op.h; a library's
  // are Set("custom_op_libraries", path)).
  Status AddCustomOps(SmrtRegisterCustomOpsFn register_fn) {
    return Status::FromC(SmrtLoadOptionsAddCustomOps(options_, register_fn));
  }
  const SmrtLoadOptions* get() const { return options_; }

 private:
  static std::vector<const char*> CStrings(const std::vector<std::string>& strings) {
    std::vector<const char*> c;
    c.reserve(strings.size());
    for (const std::string& s : strings) c.push_back(s.c_str());
    return c;
  }
  SmrtLoadOptions* options_;
};

// One input or output of a signature (a copy: it outlives the model).
struct TensorSpec {
  std::string name;         // the key callers use ("x")
  std::string tensor_name;  // the graph tensor ("x:0")
  SmrtDataType dtype = SMRT_INVALID;
  bool known_rank = true;
  std::vector<int64_t> shape;  // -1 for unknown dims
  std::string ShapeString() const { return cxx::ShapeString(shape, known_rank); }
};

struct Signature {
  std::string key;
  std::string method_name;        // "tensorflow/serving/predict"...
  std::vector<TensorSpec> inputs;   // sorted by name
  std::vector<TensorSpec> outputs;  // sorted by name
};

// What one call returned, by name (sorted); the tensors live as long as
// this object.
class Outputs {
 public:
  Outputs(Outputs&& other) noexcept : outputs_(std::exchange(other.outputs_, nullptr)) {}
  Outputs& operator=(Outputs&& other) noexcept {
    if (this != &other) {
      SmrtOutputsDelete(outputs_);
      outputs_ = std::exchange(other.outputs_, nullptr);
    }
    return *this;
  }
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;
  ~Outputs() { SmrtOutputsDelete(outputs_); }

  int size() const { return SmrtOutputsCount(outputs_); }
  std::string_view name(int i) const { return SmrtOutputsName(outputs_, i); }
  TensorRef at(int i) const { return TensorRef(SmrtOutputsTensor(outputs_, i)); }
  // NOT_FOUND listing the output names.
  Result<TensorRef> Find(const std::string& name) const {
    const SmrtTensor* t = nullptr;
    Status s = Status::FromC(SmrtOutputsFind(outputs_, name.c_str(), &t));
    if (!s.ok()) return s;
    return TensorRef(t);
  }

 private:
  friend class Model;
  explicit Outputs(SmrtOutputs* outputs) : outputs_(outputs) {}
  SmrtOutputs* outputs_;
};

// Stops runs from another thread (Cancel is thread-safe); keep it alive
// until the runs that were given it have returned.
class Cancellation {
 public:
  Cancellation() : cancellation_(SmrtCancellationCreate()) {}
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;
  ~Cancellation() { SmrtCancellationDelete(cancellation_); }
  void Cancel() { SmrtCancellationCancel(cancellation_); }
  const SmrtCancellation* get() const { return cancellation_; }

 private:
  SmrtCancellation* cancellation_;
};

struct RunOptions {
  // > 0: DEADLINE_EXCEEDED once this many seconds have passed; 0: none.
  double timeout_seconds = 0;
  const Cancellation* cancellation = nullptr;
};

struct MemoryStats {
  uint64_t bytes_in_use = 0;
  uint64_t peak_bytes_in_use = 0;
  uint64_t limit_bytes = 0;
  uint64_t allocation_count = 0;
};

// One named input of a call: the tensor is only read, during the call.
using NamedInput = std::pair<std::string, const Tensor*>;

class Model {
 public:
  // Reads the SavedModel directory, restores its variables, runs its init
  // op and prepares the signatures (all, or those the options name).
  static Result<Model> Load(const std::string& dir, const LoadOptions* options = nullptr) {
    SmrtModel* m = nullptr;
    Status s = Status::FromC(
        SmrtModelLoad(dir.c_str(), options != nullptr ? options->get() : nullptr, &m));
    if (!s.ok()) return s;
    return Model(m);
  }
  // The same from files in memory, by path relative to the model directory
  // ("saved_model.pb", "variables/variables.index", ...); copied.
  static Result<Model> LoadFromMemory(const std::map<std::string, std::string>& files,
                                      const LoadOptions* options = nullptr) {
    SmrtModelFiles* f = SmrtModelFilesCreate();
    for (const auto& [path, bytes] : files) {
      Status s = Status::FromC(SmrtModelFilesAdd(f, path.c_str(), bytes.data(), bytes.size()));
      if (!s.ok()) {
        SmrtModelFilesDelete(f);
        return s;
      }
    }
    SmrtModel* m = nullptr;
    Status s = Status::FromC(
        SmrtModelLoadFromMemory(f, options != nullptr ? options->get() : nullptr, &m));
    SmrtModelFilesDelete(f);
    if (!s.ok()) return s;
    return Model(m);
  }

  Model(Model&& other) noexcept : model_(std::exchange(other.model_, nullptr)) {}
  Model& operator=(Model&& other) noexcept {
    if (this != &other) {
      SmrtModelDelete(model_);
      model_ = std::exchange(other.model_, nullptr);
    }
    return *this;
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model() { SmrtModelDelete(model_); }

  // The prepared signatures' keys, sorted.
  std::vector<std::string> signature_keys() const {
    std::vector<std::string> keys;
    for (int i = 0; i < SmrtModelSignatureCount(model_); ++i) {
      keys.emplace_back(SmrtModelSignatureKey(model_, i));
    }
    return keys;
  }
  // NOT_FOUND listing the available keys.
  Result<Signature> signature(const std::string& key) const {
    const SmrtSignature* sig = nullptr;
    Status s = Status::FromC(SmrtModelGetSignature(model_, key.c_str(), &sig));
    if (!s.ok()) return s;
    Signature out;
    out.key = SmrtSignatureKey(sig);
    out.method_name = SmrtSignatureMethodName(sig);
    for (int i = 0; i < SmrtSignatureInputCount(sig); ++i) {
      out.inputs.push_back(Spec(SmrtSignatureInput(sig, i)));
    }
    for (int i = 0; i < SmrtSignatureOutputCount(sig); ++i) {
      out.outputs.push_back(Spec(SmrtSignatureOutput(sig, i)));
    }
    return out;
  }

  // Calls a signature. Every input must be given, with the declared dtype
  // and a shape that fits; errors say which input is wrong and how.
  Result<Outputs> Run(const std::string& signature_key, const std::vector<NamedInput>& inputs,
                      const RunOptions& run_options = RunOptions()) const {
    std::vector<const char*> names;
    std::vector<const SmrtTensor*> tensors;
    for (const auto& [name, tensor] : inputs) {
      if (tensor == nullptr) {
        return Status(SMRT_INVALID_ARGUMENT, "input '" + name + "' is a null tensor");
      }
      names.push_back(name.c_str());
      tensors.push_back(tensor->get());
    }
    SmrtRunOptions c{};
    c.struct_size = sizeof(c);
    c.timeout_seconds = run_options.timeout_seconds;
    c.cancellation = run_options.cancellation != nullptr ? run_options.cancellation->get() : nullptr;
    SmrtOutputs* out = nullptr;
    Status s = Status::FromC(SmrtModelRunWithOptions(model_, signature_key.c_str(), names.data(),
                                                     tensors.data(),
                                                     static_cast<int>(tensors.size()), &c, &out));
    if (!s.ok()) return s;
    return Outputs(out);
  }

  Result<MemoryStats> GetMemoryStats() const {
    SmrtMemoryStats c{};
    c.struct_size = sizeof(c);
    Status s = Status::FromC(SmrtModelGetMemoryStats(model_, &c));
    if (!s.ok()) return s;
    return MemoryStats{c.bytes_in_use, c.peak_bytes_in_use, c.limit_bytes, c.allocation_count};
  }
  void ResetPeakMemory() { SmrtModelResetPeakMemory(model_); }

 private:
  explicit Model(SmrtModel* model) : model_(model) {}
  static TensorSpec Spec(const SmrtTensorSpec* spec) {
    TensorSpec out;
    out.name = SmrtTensorSpecName(spec);
    out.tensor_name = SmrtTensorSpecTensorName(spec);
    out.dtype = SmrtTensorSpecDataType(spec);
    const int rank = SmrtTensorSpecRank(spec);
    out.known_rank = rank >= 0;
    for (int i = 0; i < rank; ++i) out.shape.push_back(SmrtTensorSpecDim(spec, i));
    return out;
  }
  SmrtModel* model_;
};

// smrt's messages (see SmrtSetLogCallback): levels are SmrtLogLevel values.
inline void SetLogLevel(SmrtLogLevel level) { SmrtSetLogLevel(level); }
inline std::string_view Version() { return SmrtVersion(); }

}  // namespace smrt::cxx

#endif  // SMRT_CXX_API_H_
