// A header-only C++17 layer over smrt/custom_op.h for writing custom op
// libraries: an op is a name, its inputs, outputs and attrs, and two
// functions (std::function, lambdas welcome). It depends on the C header and
// the standard library only, and calls smrt only through the
// SmrtCustomOpApi table, so the library links nothing of smrt.
//
//   #include "smrt/custom_op_cxx.h"
//
//   extern "C" SMRT_CUSTOM_OP_EXPORT SmrtStatus* SmrtRegisterCustomOps(
//       SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
//     smrt::custom::Registry r(registry, api);
//     return r.ToC(r.Add(
//         smrt::custom::OpDef("MyRelu6")
//             .Input("features", {SMRT_FLOAT})
//             .Output("activations", {SMRT_FLOAT})
//             .Shape([](smrt::custom::ShapeContext& c) { return c.CopyInputToOutput(0, 0); })
//             .Compute([](smrt::custom::KernelContext& c) -> smrt::custom::Status {
//               smrt::custom::InputTensor x;
//               if (smrt::custom::Status s = c.Input(0, &x); !s.ok()) return s;
//               float* y = nullptr;
//               if (auto s = c.AllocateOutput(0, SMRT_FLOAT, x.dims(), &y); !s.ok()) return s;
//               for (int64_t i = 0; i < x.element_count(); ++i) {
//                 y[i] = std::min(std::max(x.data<float>()[i], 0.0f), 6.0f);
//               }
//               return smrt::custom::Status();
//             })));
//   }
//
// The contract of smrt/custom_op.h holds: the functions may run on several
// threads at once (captured state must be thread-safe), what the contexts
// give is valid during the call only, and the functions live until the
// models that loaded the op are deleted. An exception a function throws is
// caught here and becomes an INTERNAL status naming the node.
#ifndef SMRT_CUSTOM_OP_CXX_H_
#define SMRT_CUSTOM_OP_CXX_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "smrt/custom_op.h"

namespace smrt::custom {

// An error code (SMRT_OK: success) and message, like smrt::cxx::Status but
// made without libsmrt's exported functions.
class Status {
 public:
  Status() = default;
  Status(SmrtCode code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == SMRT_OK; }
  SmrtCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  SmrtCode code_ = SMRT_OK;
  std::string message_;
};

namespace internal {

// Takes a status the table returned (and frees it).
inline Status Take(const SmrtCustomOpApi* api, SmrtStatus* s) {
  if (s == nullptr) return Status();
  Status out(api->StatusCode(s), api->StatusMessage(s));
  api->DeleteStatus(s);
  return out;
}

inline SmrtStatus* ToC(const SmrtCustomOpApi* api, const Status& s) {
  return s.ok() ? nullptr : api->CreateStatus(s.code(), s.message().c_str());
}

}  // namespace internal

// The attrs of the node being inferred or computed. Getters return NOT_FOUND
// when the node lacks the attr and INVALID_ARGUMENT when it has another type.
class Attrs {
 public:
  Attrs(const SmrtCustomOpApi* api, const SmrtAttrs* attrs) : api_(api), attrs_(attrs) {}

  Status Get(const char* name, int64_t* value) const {
    return Take(api_->AttrGetInt(attrs_, name, value));
  }
  Status Get(const char* name, float* value) const {
    return Take(api_->AttrGetFloat(attrs_, name, value));
  }
  Status Get(const char* name, bool* value) const {
    int v = 0;
    Status s = Take(api_->AttrGetBool(attrs_, name, &v));
    if (s.ok()) *value = v != 0;
    return s;
  }
  Status Get(const char* name, std::string* value) const {
    const char* bytes = nullptr;
    size_t length = 0;
    Status s = Take(api_->AttrGetString(attrs_, name, &bytes, &length));
    if (s.ok()) value->assign(bytes, length);
    return s;
  }
  Status Get(const char* name, SmrtDataType* value) const {
    return Take(api_->AttrGetType(attrs_, name, value));
  }
  Status Get(const char* name, std::vector<int64_t>* values) const {
    return GetList(name, values, api_->AttrGetIntList);
  }
  Status Get(const char* name, std::vector<float>* values) const {
    return GetList(name, values, api_->AttrGetFloatList);
  }
  Status Get(const char* name, std::vector<SmrtDataType>* values) const {
    return GetList(name, values, api_->AttrGetTypeList);
  }
  Status Get(const char* name, std::vector<std::string>* values) const {
    size_t n = 0;
    if (Status s = Take(api_->AttrListSize(attrs_, name, &n)); !s.ok()) return s;
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char* bytes = nullptr;
      size_t length = 0;
      if (Status s = Take(api_->AttrGetStringListItem(attrs_, name, i, &bytes, &length)); !s.ok()) {
        return s;
      }
      out.emplace_back(bytes, length);
    }
    *values = std::move(out);
    return Status();
  }
  // Get, with `fallback` when the node lacks the attr (TensorFlow's default
  // for attrs that exports strip).
  template <typename T>
  Status GetOr(const char* name, T fallback, T* value) const {
    Status s = Get(name, value);
    if (s.code() == SMRT_NOT_FOUND) {
      *value = std::move(fallback);
      return Status();
    }
    return s;
  }

 private:
  Status Take(SmrtStatus* s) const { return internal::Take(api_, s); }
  template <typename T, typename Fn>
  Status GetList(const char* name, std::vector<T>* values, Fn get) const {
    size_t n = 0;
    if (Status s = Take(api_->AttrListSize(attrs_, name, &n)); !s.ok()) return s;
    std::vector<T> out(n);
    if (Status s = Take(get(attrs_, name, out.data(), n)); !s.ok()) return s;
    *values = std::move(out);
    return Status();
  }

  const SmrtCustomOpApi* api_;
  const SmrtAttrs* attrs_;
};

// What the shape function sees of a node: its inputs' dtypes and shapes as
// known before running (rank -1 or a dim -1: unknown).
class ShapeContext {
 public:
  ShapeContext(const SmrtCustomOpApi* api, SmrtShapeContext* context)
      : api_(api), context_(context) {}

  std::string_view node_name() const { return api_->ShapeContextNodeName(context_); }
  int num_inputs() const { return api_->ShapeInputCount(context_); }
  SmrtDataType input_type(int i) const { return api_->ShapeInputType(context_, i); }
  int input_rank(int i) const { return api_->ShapeInputRank(context_, i); }
  // Empty for an unknown rank (check input_rank).
  std::vector<int64_t> input_dims(int i) const {
    const int rank = input_rank(i);
    std::vector<int64_t> dims(rank > 0 ? static_cast<size_t>(rank) : 0);
    for (int d = 0; d < rank; ++d)
      dims[static_cast<size_t>(d)] = api_->ShapeInputDim(context_, i, d);
    return dims;
  }
  Attrs attrs() const { return Attrs(api_, api_->ShapeContextAttrs(context_)); }

  Status SetOutput(int i, SmrtDataType dtype, const std::vector<int64_t>& dims) {
    return internal::Take(
        api_, api_->ShapeSetOutput(context_, i, dtype, dims.data(), static_cast<int>(dims.size())));
  }
  Status SetOutputUnknownRank(int i, SmrtDataType dtype) {
    return internal::Take(api_, api_->ShapeSetOutput(context_, i, dtype, nullptr, -1));
  }
  // Output `output` has input `input`'s dtype and shape (element-wise ops).
  Status CopyInputToOutput(int input, int output) {
    if (input_rank(input) < 0) return SetOutputUnknownRank(output, input_type(input));
    return SetOutput(output, input_type(input), input_dims(input));
  }

 private:
  const SmrtCustomOpApi* api_;
  SmrtShapeContext* context_;
};

// A read-only input of a compute call; valid during the call.
class InputTensor {
 public:
  InputTensor() = default;
  explicit InputTensor(const SmrtKernelTensor& t) : t_(t) {}
  SmrtDataType dtype() const { return t_.dtype; }
  int rank() const { return t_.rank; }
  int64_t dim(int i) const { return t_.dims[i]; }
  std::vector<int64_t> dims() const { return std::vector<int64_t>(t_.dims, t_.dims + t_.rank); }
  int64_t element_count() const { return t_.element_count; }
  size_t byte_size() const { return t_.byte_size; }
  // The elements, row-major; T must match dtype().
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(t_.data);
  }

 private:
  SmrtKernelTensor t_{};
};

// What the compute function sees of a node.
class KernelContext {
 public:
  KernelContext(const SmrtCustomOpApi* api, SmrtKernelContext* context)
      : api_(api), context_(context) {}

  std::string_view node_name() const { return api_->KernelContextNodeName(context_); }
  int num_inputs() const { return api_->KernelInputCount(context_); }
  Status Input(int i, InputTensor* tensor) const {
    SmrtKernelTensor t{};
    Status s = internal::Take(api_, api_->KernelGetInput(context_, i, &t));
    if (s.ok()) *tensor = InputTensor(t);
    return s;
  }
  Attrs attrs() const { return Attrs(api_, api_->KernelContextAttrs(context_)); }

  // Zero-filled output storage; *data is null for zero elements. T must
  // match dtype (float for SMRT_FLOAT...).
  template <typename T>
  Status AllocateOutput(int i, SmrtDataType dtype, const std::vector<int64_t>& dims, T** data) {
    void* p = nullptr;
    Status s = internal::Take(api_, api_->KernelAllocateOutput(context_, i, dtype, dims.data(),
                                                               static_cast<int>(dims.size()), &p));
    if (s.ok()) *data = static_cast<T*>(p);
    return s;
  }

 private:
  const SmrtCustomOpApi* api_;
  SmrtKernelContext* context_;
};

using ShapeFunction = std::function<Status(ShapeContext&)>;
using ComputeFunction = std::function<Status(KernelContext&)>;

// An op's definition (smrt/custom_op.h's SmrtCustomOp), built by chaining.
class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  // An input or output by TensorFlow's arg name, with the dtypes it may
  // have (empty: any fixed-size dtype).
  OpDef& Input(std::string name, std::vector<SmrtDataType> types = {}) {
    inputs_.push_back({std::move(name), std::move(types)});
    return *this;
  }
  OpDef& Output(std::string name, std::vector<SmrtDataType> types = {}) {
    outputs_.push_back({std::move(name), std::move(types)});
    return *this;
  }
  // An attr the op reads; smrt checks its type at load (and that the node
  // has it, when required).
  OpDef& Attr(std::string name, SmrtAttrType type, bool required = false) {
    attrs_.push_back({std::move(name), type, required});
    return *this;
  }
  OpDef& Shape(ShapeFunction fn) {
    shape_ = std::move(fn);
    return *this;
  }
  OpDef& Compute(ComputeFunction fn) {
    compute_ = std::move(fn);
    return *this;
  }

 private:
  friend class Registry;
  struct Arg {
    std::string name;
    std::vector<SmrtDataType> types;
  };
  struct AttrDecl {
    std::string name;
    SmrtAttrType type;
    bool required;
  };
  std::string name_;
  std::vector<Arg> inputs_, outputs_;
  std::vector<AttrDecl> attrs_;
  ShapeFunction shape_;
  ComputeFunction compute_;
};

// The registry an entry point is given.
class Registry {
 public:
  Registry(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api)
      : registry_(registry), api_(api) {}

  // Registers the op. FAILED_PRECONDITION when the smrt that loads the
  // library has an older custom op API than this header; else what
  // RegisterOp says (INVALID_ARGUMENT, ALREADY_EXISTS).
  Status Add(OpDef def) {
    if (api_ == nullptr || api_->version < SMRT_CUSTOM_OP_API_VERSION) {
      return Status(SMRT_FAILED_PRECONDITION,
                    "this custom op library needs smrt's custom op API version " +
                        std::to_string(SMRT_CUSTOM_OP_API_VERSION) + ", smrt gives " +
                        std::to_string(api_ == nullptr ? 0u : api_->version));
    }
    if (!def.shape_ || !def.compute_) {
      return Status(SMRT_INVALID_ARGUMENT,
                    "custom op " + def.name_ + ": OpDef needs Shape(...) and Compute(...)");
    }
    std::vector<SmrtCustomOpArg> inputs, outputs;
    for (const OpDef::Arg& a : def.inputs_) {
      inputs.push_back({a.name.c_str(), a.types.data(), static_cast<int>(a.types.size())});
    }
    for (const OpDef::Arg& a : def.outputs_) {
      outputs.push_back({a.name.c_str(), a.types.data(), static_cast<int>(a.types.size())});
    }
    std::vector<SmrtCustomOpAttr> attrs;
    for (const OpDef::AttrDecl& a : def.attrs_) {
      attrs.push_back({a.name.c_str(), a.type, a.required ? 1 : 0});
    }
    auto functions = std::make_unique<Functions>(Functions{api_, def.shape_, def.compute_});
    SmrtCustomOp op{};
    op.struct_size = sizeof(op);
    op.name = def.name_.c_str();
    op.num_inputs = static_cast<int>(inputs.size());
    op.inputs = inputs.data();
    op.num_outputs = static_cast<int>(outputs.size());
    op.outputs = outputs.data();
    op.num_attrs = static_cast<int>(attrs.size());
    op.attrs = attrs.data();
    op.shape_fn = &ShapeTrampoline;
    op.compute_fn = &ComputeTrampoline;
    op.user_data = functions.get();
    op.destroy_user_data = &DestroyFunctions;
    Status s = internal::Take(api_, api_->RegisterOp(registry_, &op));
    if (s.ok()) functions.release();  // smrt owns it now: DestroyFunctions frees it
    return s;
  }

  // What the entry point returns for `s`.
  SmrtStatus* ToC(const Status& s) const { return internal::ToC(api_, s); }

 private:
  struct Functions {
    const SmrtCustomOpApi* api;
    ShapeFunction shape;
    ComputeFunction compute;
  };

  template <typename Body>
  static SmrtStatus* Guard(const SmrtCustomOpApi* api, Body&& body) noexcept {
    try {
      return internal::ToC(api, body());
    } catch (const std::exception& e) {
      return api->CreateStatus(SMRT_INTERNAL,
                               (std::string("custom op threw: ") + e.what()).c_str());
    } catch (...) {
      return api->CreateStatus(SMRT_INTERNAL, "custom op threw an exception");
    }
  }
  static SmrtStatus* ShapeTrampoline(SmrtShapeContext* context, void* user_data) {
    auto* f = static_cast<Functions*>(user_data);
    return Guard(f->api, [&] {
      ShapeContext c(f->api, context);
      return f->shape(c);
    });
  }
  static SmrtStatus* ComputeTrampoline(SmrtKernelContext* context, void* user_data) {
    auto* f = static_cast<Functions*>(user_data);
    return Guard(f->api, [&] {
      KernelContext c(f->api, context);
      return f->compute(c);
    });
  }
  static void DestroyFunctions(void* user_data) { delete static_cast<Functions*>(user_data); }

  SmrtCustomOpRegistry* registry_;
  const SmrtCustomOpApi* api_;
};

}  // namespace smrt::custom

#endif  // SMRT_CUSTOM_OP_CXX_H_
