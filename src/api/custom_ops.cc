#include "api/custom_ops.h"

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/c_status.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "kernels/kernel.h"
#include "ops/op_spec.h"

namespace smrt::api {
namespace {

// What SmrtCustomOp said, copied (the caller may free its definition).
struct UserData {
  void* data = nullptr;
  void (*destroy)(void*) = nullptr;
  ~UserData() {
    if (destroy != nullptr) destroy(data);
  }
};

struct Arg {
  std::string name;
  std::vector<DataType> types;  // empty: any
};

struct AttrDecl {
  std::string name;
  SmrtAttrType type;
  bool required;
};

struct CustomOpDef {
  std::string op;
  std::string source;  // the library's path, or "custom op function #i"
  std::vector<Arg> inputs;
  std::vector<Arg> outputs;
  std::vector<AttrDecl> attrs;
  SmrtCustomOpShapeFn shape_fn;
  SmrtCustomOpComputeFn compute_fn;
  std::unique_ptr<UserData> user_data;
};

const char* AttrTypeText(SmrtAttrType type) {
  switch (type) {
    case SMRT_ATTR_INT:
      return "int";
    case SMRT_ATTR_FLOAT:
      return "float";
    case SMRT_ATTR_BOOL:
      return "bool";
    case SMRT_ATTR_STRING:
      return "string";
    case SMRT_ATTR_TYPE:
      return "type";
    case SMRT_ATTR_INT_LIST:
      return "list(int)";
    case SMRT_ATTR_FLOAT_LIST:
      return "list(float)";
    case SMRT_ATTR_STRING_LIST:
      return "list(string)";
    case SMRT_ATTR_TYPE_LIST:
      return "list(type)";
  }
  return "?";
}

bool HasAttrType(const AttrValue& v, SmrtAttrType type) {
  if (std::holds_alternative<EmptyList>(v)) {
    return type == SMRT_ATTR_INT_LIST || type == SMRT_ATTR_FLOAT_LIST ||
           type == SMRT_ATTR_STRING_LIST || type == SMRT_ATTR_TYPE_LIST;
  }
  switch (type) {
    case SMRT_ATTR_INT:
      return std::holds_alternative<int64_t>(v);
    case SMRT_ATTR_FLOAT:
      return std::holds_alternative<float>(v);
    case SMRT_ATTR_BOOL:
      return std::holds_alternative<bool>(v);
    case SMRT_ATTR_STRING:
      return std::holds_alternative<std::string>(v);
    case SMRT_ATTR_TYPE:
      return std::holds_alternative<DataType>(v);
    case SMRT_ATTR_INT_LIST:
      return std::holds_alternative<std::vector<int64_t>>(v);
    case SMRT_ATTR_FLOAT_LIST:
      return std::holds_alternative<std::vector<float>>(v);
    case SMRT_ATTR_STRING_LIST:
      return std::holds_alternative<std::vector<std::string>>(v);
    case SMRT_ATTR_TYPE_LIST:
      return std::holds_alternative<std::vector<DataType>>(v);
  }
  return false;
}

std::string TypesText(const std::vector<DataType>& types) {
  std::vector<std::string> names;
  for (DataType t : types) names.emplace_back(DataTypeShortName(t));
  return absl::StrJoin(names, ", ");
}

bool Allows(const Arg& arg, DataType t) {
  return arg.types.empty() || std::find(arg.types.begin(), arg.types.end(), t) != arg.types.end();
}

}  // namespace
}  // namespace smrt::api

// The opaque types of smrt/custom_op.h. Each lives on the stack of one call.
struct SmrtAttrs {
  const smrt::AttrMap* attrs;
};

struct SmrtShapeContext {
  const smrt::api::CustomOpDef* def;
  smrt::ops::InferenceContext* inference;
  SmrtAttrs attrs;
  std::vector<bool> set;  // outputs ShapeSetOutput set
};

struct SmrtKernelContext {
  const smrt::api::CustomOpDef* def;
  smrt::kernels::KernelContext* kernel;
  SmrtAttrs attrs;
  std::string node_name;  // NUL-terminated for KernelContextNodeName
};

struct SmrtCustomOpRegistry {
  smrt::kernels::KernelRegistry* registry;
  std::string source;
  // Custom ops of this load so far: op -> its source.
  std::map<std::string, std::string>* registered;
};

namespace smrt::api {
namespace {

SmrtStatus* Error(absl::StatusCode code, std::string message) {
  return ToCStatus(absl::Status(code, message));
}

// Runs `body` (returning SmrtStatus*) with no C++ exception escaping into the
// library that called the table.
template <typename Body>
SmrtStatus* Guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return ToCStatus(absl::InternalError(absl::StrCat("smrt custom op API: ", e.what())));
  } catch (...) {
    return ToCStatus(absl::InternalError("smrt custom op API: unknown C++ exception"));
  }
}

template <typename T>
struct IsList : std::false_type {};
template <typename T>
struct IsList<std::vector<T>> : std::true_type {};

// The attr `name`, or the status saying why there is none of this kind.
template <typename T>
SmrtStatus* FindAttr(const SmrtAttrs* attrs, const char* name, const T** out) {
  if (attrs == nullptr || name == nullptr) {
    return Error(absl::StatusCode::kInvalidArgument, "attrs or name is NULL");
  }
  const AttrValue* v = attrs->attrs->Find(name);
  if (v == nullptr) {
    return Error(absl::StatusCode::kNotFound, absl::StrCat("the node has no attr '", name, "'"));
  }
  if (std::holds_alternative<EmptyList>(*v) && IsList<T>::value) {
    *out = nullptr;  // an empty list of any element type
    return nullptr;
  }
  const T* value = std::get_if<T>(v);
  if (value == nullptr) {
    const AttrValue want = T{};
    return Error(
        absl::StatusCode::kInvalidArgument,
        absl::StrCat("attr '", name, "' is ", AttrTypeName(*v), ", not ", AttrTypeName(want)));
  }
  *out = value;
  return nullptr;
}

template <typename T, typename Out>
SmrtStatus* CopyList(const SmrtAttrs* attrs, const char* name, Out* values, size_t capacity) {
  const std::vector<T>* list = nullptr;
  if (SmrtStatus* s = FindAttr(attrs, name, &list)) return s;
  if (list == nullptr) return nullptr;
  if (capacity > 0 && values == nullptr) {
    return Error(absl::StatusCode::kInvalidArgument, "values is NULL");
  }
  const size_t n = std::min(capacity, list->size());
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<Out>((*list)[i]);
  return nullptr;
}

// ------------------------------------------------------------- the table

SmrtStatus* CreateStatus(SmrtCode code, const char* message) {
  return SmrtStatusCreate(code, message);
}
SmrtCode StatusCode(const SmrtStatus* s) { return SmrtStatusCode(s); }
const char* StatusMessage(const SmrtStatus* s) { return SmrtStatusMessage(s); }
void DeleteStatus(SmrtStatus* s) { SmrtStatusDelete(s); }

absl::Status Infer(const CustomOpDef& def, ops::InferenceContext& c);
absl::Status Compute(const CustomOpDef& def, kernels::KernelContext& c);

absl::StatusOr<std::vector<Arg>> CopyArgs(const char* what, int count,
                                          const SmrtCustomOpArg* args) {
  if (count < 0) return absl::InvalidArgumentError(absl::StrCat("num_", what, " is negative"));
  if (count > 0 && args == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is NULL for num_", what, " ", count));
  }
  std::vector<Arg> out;
  for (int i = 0; i < count; ++i) {
    const SmrtCustomOpArg& a = args[i];
    Arg arg;
    arg.name = a.name != nullptr
                   ? a.name
                   : absl::StrCat(what == std::string("inputs") ? "input" : "output", i);
    if (a.num_types < 0 || (a.num_types > 0 && a.types == nullptr)) {
      return absl::InvalidArgumentError(absl::StrCat(what, "[", i, "] ('", arg.name,
                                                     "') has num_types ", a.num_types,
                                                     a.num_types > 0 ? " and types NULL" : ""));
    }
    for (int t = 0; t < a.num_types; ++t) {
      const DataType dtype = static_cast<DataType>(a.types[t]);
      if (DataTypeShortName(dtype).empty() || !IsFixedSize(dtype)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, "[", i, "] ('", arg.name, "') allows dtype ", static_cast<int>(a.types[t]),
            ", which is not a fixed-size smrt dtype (custom ops take and make numbers and "
            "bools, not strings, resources or variants)"));
      }
      arg.types.push_back(dtype);
    }
    out.push_back(std::move(arg));
  }
  return out;
}

absl::Status RegisterOp(SmrtCustomOpRegistry& r, const SmrtCustomOp& op) {
  if (op.struct_size < sizeof(SmrtCustomOp)) {
    return absl::InvalidArgumentError(absl::StrCat("SmrtCustomOp::struct_size is ", op.struct_size,
                                                   ", expected ", sizeof(SmrtCustomOp),
                                                   " (set it to sizeof(SmrtCustomOp))"));
  }
  if (op.name == nullptr || op.name[0] == '\0') {
    return absl::InvalidArgumentError("a custom op has no name");
  }
  const std::string name = op.name;
  auto def = std::make_shared<CustomOpDef>();
  def->op = name;
  def->source = r.source;
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("custom op ", name, ": ", why));
  };
  if (op.shape_fn == nullptr) return invalid("shape_fn is NULL");
  if (op.compute_fn == nullptr) return invalid("compute_fn is NULL");
  if (op.num_outputs < 1) return invalid(absl::StrCat("num_outputs is ", op.num_outputs));
  absl::StatusOr<std::vector<Arg>> inputs = CopyArgs("inputs", op.num_inputs, op.inputs);
  if (!inputs.ok()) return invalid(inputs.status().message());
  absl::StatusOr<std::vector<Arg>> outputs = CopyArgs("outputs", op.num_outputs, op.outputs);
  if (!outputs.ok()) return invalid(outputs.status().message());
  if (op.num_attrs < 0 || (op.num_attrs > 0 && op.attrs == nullptr)) {
    return invalid(absl::StrCat("num_attrs is ", op.num_attrs, " with attrs ",
                                op.attrs == nullptr ? "NULL" : "set"));
  }
  for (int i = 0; i < op.num_attrs; ++i) {
    const SmrtCustomOpAttr& a = op.attrs[i];
    if (a.name == nullptr || a.name[0] == '\0') {
      return invalid(absl::StrCat("attrs[", i, "] has no name"));
    }
    if (a.type < SMRT_ATTR_INT || a.type > SMRT_ATTR_TYPE_LIST) {
      return invalid(absl::StrCat("attr '", a.name, "' has type ", static_cast<int>(a.type),
                                  ", not an SmrtAttrType"));
    }
    def->attrs.push_back({a.name, a.type, a.required != 0});
  }
  def->inputs = *std::move(inputs);
  def->outputs = *std::move(outputs);
  def->shape_fn = op.shape_fn;
  def->compute_fn = op.compute_fn;

  // Function bodies name outputs "node:arg:index"; for op types it does not
  // list (graph/output_args.cc), the importer numbers them within one arg.
  for (const Arg& a : def->outputs) {
    if (a.name != def->outputs[0].name) {
      return invalid(absl::StrCat(
          "outputs '", def->outputs[0].name, "' and '", a.name,
          "' have different arg names; a custom op's outputs are one arg (give them one "
          "name, as a TensorFlow list output \"",
          def->outputs[0].name, ": N * T\")"));
    }
  }
  if (auto it = r.registered->find(name); it != r.registered->end()) {
    return absl::AlreadyExistsError(absl::StrCat("custom op ", name, " is registered twice: by ",
                                                 it->second, " and by ", r.source));
  }
  if (r.registry->FindOp(name) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("custom op ", name,
                     ": smrt already has an op of that name (custom ops add op types, "
                     "they do not replace smrt's)"));
  }
  // Owned from here on: destroy_user_data runs when the last spec goes.
  def->user_data = std::make_unique<UserData>();
  def->user_data->data = op.user_data;
  def->user_data->destroy = op.destroy_user_data;

  ops::OpSpec spec;
  spec.op = name;
  spec.infer = [def](ops::InferenceContext& c) { return Infer(*def, c); };
  const int num_outputs = op.num_outputs;
  if (num_outputs != 1) {
    spec.num_outputs = [num_outputs](const AttrMap&, int) -> absl::StatusOr<int> {
      return num_outputs;
    };
  }
  kernels::KernelSpec kernel;
  kernel.op = name;
  kernel.device = ops::kCpu;
  kernel.backend = kCustomBackend;
  kernel.compute = [def](kernels::KernelContext& c) { return Compute(*def, c); };
  r.registry->AddOp(std::move(spec));
  r.registry->AddKernel(std::move(kernel));
  (*r.registered)[name] = r.source;
  return absl::OkStatus();
}

SmrtStatus* TableRegisterOp(SmrtCustomOpRegistry* registry, const SmrtCustomOp* op) {
  return Guard([&]() -> SmrtStatus* {
    if (registry == nullptr || op == nullptr) {
      return Error(absl::StatusCode::kInvalidArgument, "RegisterOp: registry or op is NULL");
    }
    return ToCStatus(RegisterOp(*registry, *op));
  });
}

const SmrtAttrs* ShapeContextAttrs(const SmrtShapeContext* c) {
  return c == nullptr ? nullptr : &c->attrs;
}
const SmrtAttrs* KernelContextAttrs(const SmrtKernelContext* c) {
  return c == nullptr ? nullptr : &c->attrs;
}

SmrtStatus* AttrGetInt(const SmrtAttrs* attrs, const char* name, int64_t* value) {
  return Guard([&]() -> SmrtStatus* {
    const int64_t* v = nullptr;
    if (SmrtStatus* s = FindAttr(attrs, name, &v)) return s;
    if (value != nullptr) *value = *v;
    return nullptr;
  });
}

SmrtStatus* AttrGetFloat(const SmrtAttrs* attrs, const char* name, float* value) {
  return Guard([&]() -> SmrtStatus* {
    const float* v = nullptr;
    if (SmrtStatus* s = FindAttr(attrs, name, &v)) return s;
    if (value != nullptr) *value = *v;
    return nullptr;
  });
}

SmrtStatus* AttrGetBool(const SmrtAttrs* attrs, const char* name, int* value) {
  return Guard([&]() -> SmrtStatus* {
    const bool* v = nullptr;
    if (SmrtStatus* s = FindAttr(attrs, name, &v)) return s;
    if (value != nullptr) *value = *v ? 1 : 0;
    return nullptr;
  });
}

SmrtStatus* AttrGetString(const SmrtAttrs* attrs, const char* name, const char** bytes,
                          size_t* length) {
  return Guard([&]() -> SmrtStatus* {
    const std::string* v = nullptr;
    if (SmrtStatus* s = FindAttr(attrs, name, &v)) return s;
    if (bytes != nullptr) *bytes = v->data();
    if (length != nullptr) *length = v->size();
    return nullptr;
  });
}

SmrtStatus* AttrGetType(const SmrtAttrs* attrs, const char* name, SmrtDataType* value) {
  return Guard([&]() -> SmrtStatus* {
    const DataType* v = nullptr;
    if (SmrtStatus* s = FindAttr(attrs, name, &v)) return s;
    if (value != nullptr) *value = static_cast<SmrtDataType>(*v);
    return nullptr;
  });
}

SmrtStatus* AttrListSize(const SmrtAttrs* attrs, const char* name, size_t* size) {
  return Guard([&]() -> SmrtStatus* {
    if (attrs == nullptr || name == nullptr || size == nullptr) {
      return Error(absl::StatusCode::kInvalidArgument, "attrs, name or size is NULL");
    }
    const AttrValue* v = attrs->attrs->Find(name);
    if (v == nullptr) {
      return Error(absl::StatusCode::kNotFound, absl::StrCat("the node has no attr '", name, "'"));
    }
    const size_t n = std::visit(
        [](const auto& x) -> size_t {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, EmptyList>) {
            return 0;
          } else if constexpr (std::is_same_v<X, std::vector<int64_t>> ||
                               std::is_same_v<X, std::vector<float>> ||
                               std::is_same_v<X, std::vector<bool>> ||
                               std::is_same_v<X, std::vector<std::string>> ||
                               std::is_same_v<X, std::vector<DataType>> ||
                               std::is_same_v<X, std::vector<PartialShape>> ||
                               std::is_same_v<X, std::vector<Tensor>> ||
                               std::is_same_v<X, std::vector<FuncAttr>>) {
            return x.size();
          } else {
            return static_cast<size_t>(-1);
          }
        },
        *v);
    if (n == static_cast<size_t>(-1)) {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("attr '", name, "' is ", AttrTypeName(*v), ", not a list"));
    }
    *size = n;
    return nullptr;
  });
}

SmrtStatus* AttrGetIntList(const SmrtAttrs* attrs, const char* name, int64_t* values,
                           size_t capacity) {
  return Guard([&] { return CopyList<int64_t>(attrs, name, values, capacity); });
}

SmrtStatus* AttrGetFloatList(const SmrtAttrs* attrs, const char* name, float* values,
                             size_t capacity) {
  return Guard([&] { return CopyList<float>(attrs, name, values, capacity); });
}

SmrtStatus* AttrGetTypeList(const SmrtAttrs* attrs, const char* name, SmrtDataType* values,
                            size_t capacity) {
  return Guard([&] { return CopyList<DataType>(attrs, name, values, capacity); });
}

SmrtStatus* AttrGetStringListItem(const SmrtAttrs* attrs, const char* name, size_t index,
                                  const char** bytes, size_t* length) {
  return Guard([&]() -> SmrtStatus* {
    const std::vector<std::string>* list = nullptr;
    if (SmrtStatus* s = FindAttr(attrs, name, &list)) return s;
    const size_t size = list == nullptr ? 0 : list->size();
    if (index >= size) {
      return Error(absl::StatusCode::kOutOfRange,
                   absl::StrCat("attr '", name, "' has ", size, " strings, no item ", index));
    }
    if (bytes != nullptr) *bytes = (*list)[index].data();
    if (length != nullptr) *length = (*list)[index].size();
    return nullptr;
  });
}

const char* ShapeContextNodeName(const SmrtShapeContext* c) {
  return c == nullptr ? "" : c->inference->node_name().c_str();
}

int ShapeInputCount(const SmrtShapeContext* c) {
  return c == nullptr ? 0 : c->inference->num_inputs();
}

const ops::ValueInfo* ShapeInput(const SmrtShapeContext* c, int i) {
  if (c == nullptr || i < 0 || i >= c->inference->num_inputs()) return nullptr;
  return &c->inference->input(i);
}

SmrtDataType ShapeInputType(const SmrtShapeContext* c, int i) {
  const ops::ValueInfo* v = ShapeInput(c, i);
  return v == nullptr ? SMRT_INVALID : static_cast<SmrtDataType>(v->dtype);
}

int ShapeInputRank(const SmrtShapeContext* c, int i) {
  const ops::ValueInfo* v = ShapeInput(c, i);
  return v == nullptr ? -1 : v->shape.rank();
}

int64_t ShapeInputDim(const SmrtShapeContext* c, int i, int d) {
  const ops::ValueInfo* v = ShapeInput(c, i);
  if (v == nullptr || d < 0 || d >= v->shape.rank()) return -1;
  return v->shape.dims[static_cast<size_t>(d)];
}

SmrtStatus* ShapeSetOutput(SmrtShapeContext* c, int i, SmrtDataType dtype, const int64_t* dims,
                           int rank) {
  return Guard([&]() -> SmrtStatus* {
    if (c == nullptr) return Error(absl::StatusCode::kInvalidArgument, "context is NULL");
    const CustomOpDef& def = *c->def;
    if (i < 0 || i >= static_cast<int>(def.outputs.size())) {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("output ", i, " is out of range: ", def.op, " has ",
                                def.outputs.size(), " outputs"));
    }
    const Arg& out = def.outputs[static_cast<size_t>(i)];
    const DataType t = static_cast<DataType>(dtype);
    if (!IsFixedSize(t) || !Allows(out, t)) {
      return Error(
          absl::StatusCode::kInvalidArgument,
          absl::StrCat("output ", i, " ('", out.name, "') cannot be ",
                       DataTypeShortName(t).empty() ? absl::StrCat("dtype ", dtype)
                                                    : std::string(DataTypeShortName(t)),
                       out.types.empty() ? " (custom ops make fixed-size dtypes)"
                                         : absl::StrCat("; the op allows ", TypesText(out.types))));
    }
    PartialShape shape = PartialShape::Unknown();
    if (rank >= 0) {
      if (rank > 0 && dims == nullptr) {
        return Error(absl::StatusCode::kInvalidArgument,
                     absl::StrCat("output ", i, ": dims is NULL for rank ", rank));
      }
      Shape d(dims, dims + rank);
      for (int64_t x : d) {
        if (x < -1) {
          return Error(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("output ", i, " has dim ", x, " (", ShapeToString(d),
                                    "); dims are >= 0, or -1 for unknown"));
        }
      }
      shape = PartialShape::Known(std::move(d));
    } else if (rank != -1) {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("output ", i, " has rank ", rank, "; -1 is an unknown rank"));
    }
    c->inference->set_output(i, ops::ValueInfo{t, std::move(shape)});
    c->set[static_cast<size_t>(i)] = true;
    return nullptr;
  });
}

const char* KernelContextNodeName(const SmrtKernelContext* c) {
  return c == nullptr ? "" : c->node_name.c_str();
}

int KernelInputCount(const SmrtKernelContext* c) {
  return c == nullptr ? 0 : c->kernel->num_inputs();
}

SmrtStatus* KernelGetInput(const SmrtKernelContext* c, int i, SmrtKernelTensor* tensor) {
  return Guard([&]() -> SmrtStatus* {
    if (c == nullptr || tensor == nullptr) {
      return Error(absl::StatusCode::kInvalidArgument, "context or tensor is NULL");
    }
    if (i < 0 || i >= c->kernel->num_inputs()) {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("input ", i, " is out of range: the node has ",
                                c->kernel->num_inputs(), " inputs"));
    }
    const Tensor& t = c->kernel->input(i);
    tensor->dtype = static_cast<SmrtDataType>(t.dtype());
    tensor->rank = t.rank();
    tensor->dims = t.shape().data();
    tensor->element_count = t.num_elements();
    const bool fixed = IsFixedSize(t.dtype());
    tensor->data = fixed ? t.raw_data() : nullptr;
    tensor->byte_size = fixed ? t.byte_size() : 0;
    return nullptr;
  });
}

SmrtStatus* KernelAllocateOutput(SmrtKernelContext* c, int i, SmrtDataType dtype,
                                 const int64_t* dims, int rank, void** data) {
  return Guard([&]() -> SmrtStatus* {
    if (c == nullptr) return Error(absl::StatusCode::kInvalidArgument, "context is NULL");
    const CustomOpDef& def = *c->def;
    if (i < 0 || i >= c->kernel->num_outputs()) {
      return Error(absl::StatusCode::kInvalidArgument,
                   absl::StrCat("output ", i, " is out of range: ", def.op, " has ",
                                c->kernel->num_outputs(), " outputs"));
    }
    const Arg& out = def.outputs[static_cast<size_t>(i)];
    const DataType t = static_cast<DataType>(dtype);
    if (!IsFixedSize(t) || !Allows(out, t)) {
      return Error(
          absl::StatusCode::kInvalidArgument,
          absl::StrCat("output ", i, " ('", out.name, "') cannot be ",
                       DataTypeShortName(t).empty() ? absl::StrCat("dtype ", dtype)
                                                    : std::string(DataTypeShortName(t)),
                       out.types.empty() ? " (custom ops make fixed-size dtypes)"
                                         : absl::StrCat("; the op allows ", TypesText(out.types))));
    }
    if (rank < 0 || (rank > 0 && dims == nullptr)) {
      return Error(
          absl::StatusCode::kInvalidArgument,
          absl::StrCat("output ", i, ": rank ", rank, dims == nullptr ? ", dims NULL" : ""));
    }
    Shape shape(dims, dims + rank);
    for (int64_t x : shape) {
      if (x < 0) {
        return Error(
            absl::StatusCode::kInvalidArgument,
            absl::StrCat("output ", i, " shape ", ShapeToString(shape), " has a negative dim"));
      }
    }
    absl::StatusOr<Tensor*> allocated = c->kernel->allocate_output(i, t, std::move(shape));
    if (!allocated.ok()) return ToCStatus(allocated.status());
    if (data != nullptr)
      *data = (*allocated)->num_elements() > 0 ? (*allocated)->raw_data() : nullptr;
    return nullptr;
  });
}

const SmrtCustomOpApi kApi = {
    SMRT_CUSTOM_OP_API_VERSION,
    CreateStatus,
    StatusCode,
    StatusMessage,
    DeleteStatus,
    TableRegisterOp,
    ShapeContextAttrs,
    KernelContextAttrs,
    AttrGetInt,
    AttrGetFloat,
    AttrGetBool,
    AttrGetString,
    AttrGetType,
    AttrListSize,
    AttrGetIntList,
    AttrGetFloatList,
    AttrGetTypeList,
    AttrGetStringListItem,
    ShapeContextNodeName,
    ShapeInputCount,
    ShapeInputType,
    ShapeInputRank,
    ShapeInputDim,
    ShapeSetOutput,
    KernelContextNodeName,
    KernelInputCount,
    KernelGetInput,
    KernelAllocateOutput,
};

// ------------------------------------------------- infer and compute

absl::Status Infer(const CustomOpDef& def, ops::InferenceContext& c) {
  if (c.num_inputs() != static_cast<int>(def.inputs.size())) {
    std::vector<std::string> names;
    for (const Arg& a : def.inputs) names.push_back(a.name);
    return absl::InvalidArgumentError(absl::StrCat(
        "the node has ", c.num_inputs(), " inputs; custom op ", def.op, " (", def.source,
        ") takes ", def.inputs.size(), names.empty() ? "" : ": ", absl::StrJoin(names, ", ")));
  }
  for (size_t i = 0; i < def.inputs.size(); ++i) {
    const Arg& a = def.inputs[i];
    const DataType t = c.input(static_cast<int>(i)).dtype;
    if (t != DataType::kInvalid && (!IsFixedSize(t) || !Allows(a, t))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " ('", a.name, "') is ", DataTypeShortName(t), "; custom op ", def.op,
          " takes ", a.types.empty() ? "fixed-size dtypes" : TypesText(a.types)));
    }
  }
  for (const AttrDecl& a : def.attrs) {
    const AttrValue* v = c.attrs().Find(a.name);
    if (v == nullptr) {
      if (!a.required) continue;
      return absl::InvalidArgumentError(absl::StrCat("the node has no attr '", a.name, "' (",
                                                     AttrTypeText(a.type), "), which custom op ",
                                                     def.op, " requires"));
    }
    if (!HasAttrType(*v, a.type)) {
      return absl::InvalidArgumentError(absl::StrCat("attr '", a.name, "' is ", AttrTypeName(*v),
                                                     "; custom op ", def.op, " reads it as ",
                                                     AttrTypeText(a.type)));
    }
  }
  SmrtShapeContext ctx{&def, &c, SmrtAttrs{&c.attrs()},
                       std::vector<bool>(def.outputs.size(), false)};
  if (absl::Status s = FromCStatus(def.shape_fn(&ctx, def.user_data->data)); !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < def.outputs.size(); ++i) {
    if (!ctx.set[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("the shape function of custom op ", def.op, " (", def.source,
                       ") returned without setting output ", i, " ('", def.outputs[i].name, "')"));
    }
  }
  return absl::OkStatus();
}

absl::Status Compute(const CustomOpDef& def, kernels::KernelContext& c) {
  SmrtKernelContext ctx{&def, &c, SmrtAttrs{&c.attrs()}, std::string(c.node_name())};
  if (absl::Status s = FromCStatus(def.compute_fn(&ctx, def.user_data->data)); !s.ok()) {
    return s;
  }
  for (int i = 0; i < c.num_outputs(); ++i) {
    if (!c.output(i).valid()) {
      return absl::InternalError(absl::StrCat("the compute function of custom op ", def.op, " (",
                                              def.source, ") returned without allocating output ",
                                              i, " ('", def.outputs[static_cast<size_t>(i)].name,
                                              "')"));
    }
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------ libraries

// One dlopen per path and process (a library is never unloaded: its ops'
// functions may be referenced by any model that loaded it).
absl::StatusOr<SmrtRegisterCustomOpsFn> OpenLibrary(const std::string& path) {
  static std::mutex* mu = new std::mutex;
  static auto* opened = new std::map<std::string, SmrtRegisterCustomOpsFn>;
  std::lock_guard<std::mutex> lock(*mu);
  if (auto it = opened->find(path); it != opened->end()) return it->second;
  if (path.empty()) {
    return absl::InvalidArgumentError("custom_op_libraries names an empty path");
  }
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(absl::StrCat(
        "custom op library ", path, " does not load: ", why != nullptr ? why : "dlopen failed"));
  }
  dlerror();
  void* entry = dlsym(handle, SMRT_CUSTOM_OP_ENTRY_POINT);
  if (entry == nullptr) {
    // dlerror's text lives in the library's bookkeeping: copy it before dlclose.
    const char* error = dlerror();
    const std::string why_text = error != nullptr ? error : "";
    const char* why = error != nullptr ? why_text.c_str() : nullptr;
    dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        "custom op library ", path, " has no entry point ", SMRT_CUSTOM_OP_ENTRY_POINT, " (",
        why != nullptr ? why : "dlsym found nothing",
        "); a custom op library exports extern \"C\" SmrtStatus* ", SMRT_CUSTOM_OP_ENTRY_POINT,
        "(SmrtCustomOpRegistry*, const SmrtCustomOpApi*) (smrt/custom_op.h)"));
  }
  auto fn = reinterpret_cast<SmrtRegisterCustomOpsFn>(entry);
  (*opened)[path] = fn;
  return fn;
}

absl::Status CallRegister(SmrtRegisterCustomOpsFn fn, SmrtCustomOpRegistry& r) {
  absl::Status s = FromCStatus(fn(&r, &kApi));
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(r.source, ": ", s.message()));
}

}  // namespace

absl::StatusOr<CustomOps> LoadCustomOps(const std::vector<std::string>& libraries,
                                        const std::vector<SmrtRegisterCustomOpsFn>& functions) {
  CustomOps out;
  if (libraries.empty() && functions.empty()) return out;
  // The model's own registry: a copy of the built-in one (about a thousand
  // ops and their kernels' specs; docs/custom_ops.md has the cost) that the
  // custom ops join.
  auto registry = std::make_shared<kernels::KernelRegistry>(kernels::KernelRegistry::Default());
  std::map<std::string, std::string> registered;
  std::vector<SmrtRegisterCustomOpsFn> called;
  for (const std::string& path : libraries) {
    absl::StatusOr<SmrtRegisterCustomOpsFn> fn = OpenLibrary(path);
    if (!fn.ok()) return fn.status();
    // The same library twice (or under two paths) registers its ops once.
    if (std::find(called.begin(), called.end(), *fn) != called.end()) continue;
    called.push_back(*fn);
    SmrtCustomOpRegistry r{registry.get(), absl::StrCat("custom op library ", path), &registered};
    if (absl::Status s = CallRegister(*fn, r); !s.ok()) return s;
  }
  for (size_t i = 0; i < functions.size(); ++i) {
    SmrtRegisterCustomOpsFn fn = functions[i];
    if (fn == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("LoadOptions::custom_op_functions[", i, "] is null"));
    }
    if (std::find(called.begin(), called.end(), fn) != called.end()) continue;
    called.push_back(fn);
    SmrtCustomOpRegistry r{registry.get(), absl::StrCat("custom op function #", i), &registered};
    if (absl::Status s = CallRegister(fn, r); !s.ok()) return s;
  }
  for (const auto& [op, source] : registered) out.ops.push_back(op);
  out.registry = std::move(registry);
  return out;
}

absl::StatusOr<CustomOps> LoadCustomOps(const LoadOptions& options) {
  return LoadCustomOps(options.custom_op_libraries, options.custom_op_functions);
}

}  // namespace smrt::api

extern "C" const SmrtCustomOpApi* SmrtGetCustomOpApi(void) { return &smrt::api::kApi; }
