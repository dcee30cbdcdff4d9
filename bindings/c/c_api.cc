// The C API over the public C++ API (include/smrt/*.h) only. Every entry
// point catches what C++ may throw (allocation failures) and turns it into a
// status: nothing but C types crosses the boundary.
#include "smrt/c_api.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "smrt/custom_op.h"
#include "smrt/log.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "smrt/quantize.h"
#include "smrt/tensor.h"

#ifndef SMRT_VERSION_STRING
#error "the build defines SMRT_VERSION_STRING"
#endif

struct SmrtTensor {
  smrt::Tensor tensor;
  SmrtDeallocator deallocator = nullptr;  // views only
  void* deallocator_arg = nullptr;
  SmrtTensor() = default;
  SmrtTensor(const SmrtTensor&) = delete;
  SmrtTensor& operator=(const SmrtTensor&) = delete;
  ~SmrtTensor() {
    if (deallocator != nullptr) deallocator(tensor.raw_data(), tensor.byte_size(), deallocator_arg);
  }
};

struct SmrtLoadOptions {
  smrt::LoadOptions options;
};

struct SmrtQuantizeOptions {
  smrt::QuantizeOptions options;
};

struct SmrtModelFiles {
  smrt::ModelFiles files;
};

struct SmrtModel {
  std::unique_ptr<smrt::Model> model;
  std::vector<std::string> keys;
};

struct SmrtOutputs {
  std::vector<std::string> names;
  std::vector<std::unique_ptr<SmrtTensor>> tensors;
};

// SmrtSignature and SmrtTensorSpec are smrt::SignatureInfo and
// smrt::TensorSpec seen through an opaque name.
namespace {

const smrt::SignatureInfo* Info(const SmrtSignature* s) {
  return reinterpret_cast<const smrt::SignatureInfo*>(s);
}
const smrt::TensorSpec* Spec(const SmrtTensorSpec* s) {
  return reinterpret_cast<const smrt::TensorSpec*>(s);
}

// SmrtStatusCreate returns a static status (never freed) when not even a
// status can be allocated.
SmrtStatus* OutOfMemory() {
  return SmrtStatusCreate(SMRT_RESOURCE_EXHAUSTED, "out of memory in the smrt C API");
}

SmrtStatus* MakeStatus(SmrtCode code, const std::string& message) {
  return SmrtStatusCreate(code, message.c_str());
}

SmrtStatus* FromStatus(const absl::Status& status) {
  if (status.ok()) return nullptr;
  try {
    return MakeStatus(static_cast<SmrtCode>(status.code()), std::string(status.message()));
  } catch (...) {
    return OutOfMemory();
  }
}

SmrtStatus* Invalid(const char* function, const char* what) {
  try {
    return MakeStatus(SMRT_INVALID_ARGUMENT, absl::StrCat(function, ": ", what));
  } catch (...) {
    return OutOfMemory();
  }
}

// Runs body (returning SmrtStatus*), turning exceptions into statuses.
template <typename Body>
SmrtStatus* Guard(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return OutOfMemory();
  } catch (const std::exception& e) {
    try {
      return MakeStatus(SMRT_INTERNAL, absl::StrCat(function, ": ", e.what()));
    } catch (...) {
      return OutOfMemory();
    }
  } catch (...) {
    return MakeStatus(SMRT_INTERNAL, "unknown C++ exception in the smrt C API");
  }
}

absl::StatusOr<smrt::Shape> ShapeFrom(const int64_t* dims, int rank) {
  if (rank < 0) return absl::InvalidArgumentError(absl::StrCat("negative rank ", rank));
  if (rank > 0 && dims == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("dims is NULL for rank ", rank));
  }
  return smrt::Shape(dims, dims + rank);
}

SmrtStatus* SetList(const char* function, std::vector<std::string>* field,
                    const char* const* items, int count) {
  if (count < 0) return Invalid(function, "count is negative");
  if (count > 0 && items == nullptr) return Invalid(function, "the list is NULL");
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    if (items[i] == nullptr) return Invalid(function, "a list item is NULL");
    out.emplace_back(items[i]);
  }
  *field = std::move(out);
  return nullptr;
}

SmrtStatus* WrapModel(absl::StatusOr<std::unique_ptr<smrt::Model>> loaded, SmrtModel** out) {
  if (!loaded.ok()) return FromStatus(loaded.status());
  auto model = std::make_unique<SmrtModel>();
  model->model = *std::move(loaded);
  model->keys = model->model->signature_keys();
  *out = model.release();
  return nullptr;
}

}  // namespace

extern "C" {

const char* SmrtVersion(void) { return SMRT_VERSION_STRING; }

// ------------------------------------------------------------------ Status

// SmrtStatusCreate, SmrtStatusCode, SmrtStatusMessage and SmrtStatusDelete:
// src/api/c_status.cc, shared with the custom op API.

const char* SmrtCodeName(SmrtCode code) {
  static const char* const kNames[] = {
      "OK",        "CANCELLED",          "UNKNOWN",           "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",  "ALREADY_EXISTS",    "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",       "UNAVAILABLE",       "DATA_LOSS"};
  const int i = static_cast<int>(code);
  return i >= 0 && i < 16 ? kNames[i] : "UNKNOWN";
}

// ---------------------------------------------------------------- DataType

const char* SmrtDataTypeName(SmrtDataType type) {
  // DataTypeShortName returns views of string literals: NUL-terminated.
  absl::string_view name = smrt::DataTypeShortName(static_cast<smrt::DataType>(type));
  return name.empty() ? "invalid" : name.data();
}

size_t SmrtDataTypeSize(SmrtDataType type) {
  return smrt::DataTypeSize(static_cast<smrt::DataType>(type));
}

// ------------------------------------------------------------------ Tensor

SmrtStatus* SmrtTensorCreate(SmrtDataType type, const int64_t* dims, int rank,
                             SmrtTensor** out) {
  return Guard("SmrtTensorCreate", [&]() -> SmrtStatus* {
    if (out == nullptr) return Invalid("SmrtTensorCreate", "out is NULL");
    absl::StatusOr<smrt::Shape> shape = ShapeFrom(dims, rank);
    if (!shape.ok()) return FromStatus(shape.status());
    absl::StatusOr<smrt::Tensor> t =
        smrt::Tensor::Create(static_cast<smrt::DataType>(type), *std::move(shape));
    if (!t.ok()) return FromStatus(t.status());
    auto tensor = std::make_unique<SmrtTensor>();
    tensor->tensor = *std::move(t);
    *out = tensor.release();
    return nullptr;
  });
}

SmrtStatus* SmrtTensorCreateView(SmrtDataType type, const int64_t* dims, int rank, void* data,
                                 size_t byte_size, SmrtDeallocator deallocator,
                                 void* deallocator_arg, SmrtTensor** out) {
  SmrtStatus* s = Guard("SmrtTensorCreateView", [&]() -> SmrtStatus* {
    if (out == nullptr) return Invalid("SmrtTensorCreateView", "out is NULL");
    absl::StatusOr<smrt::Shape> shape = ShapeFrom(dims, rank);
    if (!shape.ok()) return FromStatus(shape.status());
    absl::StatusOr<smrt::Tensor> t = smrt::Tensor::View(static_cast<smrt::DataType>(type),
                                                        *std::move(shape), data, byte_size);
    if (!t.ok()) return FromStatus(t.status());
    auto tensor = std::make_unique<SmrtTensor>();
    tensor->tensor = *std::move(t);
    tensor->deallocator = deallocator;
    tensor->deallocator_arg = deallocator_arg;
    *out = tensor.release();
    return nullptr;
  });
  if (s != nullptr && deallocator != nullptr) deallocator(data, byte_size, deallocator_arg);
  return s;
}

void SmrtTensorDelete(SmrtTensor* tensor) { delete tensor; }

SmrtDataType SmrtTensorDataType(const SmrtTensor* tensor) {
  return tensor == nullptr ? SMRT_INVALID : static_cast<SmrtDataType>(tensor->tensor.dtype());
}

int SmrtTensorRank(const SmrtTensor* tensor) {
  return tensor == nullptr ? 0 : tensor->tensor.rank();
}

int64_t SmrtTensorDim(const SmrtTensor* tensor, int i) {
  if (tensor == nullptr || i < 0 || i >= tensor->tensor.rank()) return -1;
  return tensor->tensor.dim(i);
}

int64_t SmrtTensorElementCount(const SmrtTensor* tensor) {
  return tensor == nullptr ? 0 : tensor->tensor.num_elements();
}

size_t SmrtTensorByteSize(const SmrtTensor* tensor) {
  if (tensor == nullptr || !smrt::IsFixedSize(tensor->tensor.dtype())) return 0;
  return tensor->tensor.byte_size();
}

void* SmrtTensorData(SmrtTensor* tensor) {
  if (tensor == nullptr || !smrt::IsFixedSize(tensor->tensor.dtype())) return nullptr;
  return tensor->tensor.raw_data();
}

const void* SmrtTensorConstData(const SmrtTensor* tensor) {
  if (tensor == nullptr || !smrt::IsFixedSize(tensor->tensor.dtype())) return nullptr;
  return tensor->tensor.raw_data();
}

namespace {
SmrtStatus* CheckStringElement(const char* function, const SmrtTensor* tensor, int64_t index) {
  if (tensor == nullptr) return Invalid(function, "tensor is NULL");
  if (tensor->tensor.dtype() != smrt::DataType::kString) {
    return MakeStatus(SMRT_INVALID_ARGUMENT,
                      absl::StrCat(function, ": the tensor is ",
                                   smrt::DataTypeShortName(tensor->tensor.dtype()),
                                   ", not string"));
  }
  if (index < 0 || index >= tensor->tensor.num_elements()) {
    return MakeStatus(SMRT_OUT_OF_RANGE,
                      absl::StrCat(function, ": index ", index, " is outside the ",
                                   tensor->tensor.num_elements(), " elements"));
  }
  return nullptr;
}
}  // namespace

SmrtStatus* SmrtTensorGetString(const SmrtTensor* tensor, int64_t index, const char** bytes,
                                size_t* length) {
  return Guard("SmrtTensorGetString", [&]() -> SmrtStatus* {
    if (SmrtStatus* s = CheckStringElement("SmrtTensorGetString", tensor, index)) return s;
    if (bytes == nullptr || length == nullptr) {
      return Invalid("SmrtTensorGetString", "bytes or length is NULL");
    }
    const std::string& element = tensor->tensor.data<std::string>()[index];
    *bytes = element.data();
    *length = element.size();
    return nullptr;
  });
}

SmrtStatus* SmrtTensorSetString(SmrtTensor* tensor, int64_t index, const char* bytes,
                                size_t length) {
  return Guard("SmrtTensorSetString", [&]() -> SmrtStatus* {
    if (SmrtStatus* s = CheckStringElement("SmrtTensorSetString", tensor, index)) return s;
    if (bytes == nullptr && length > 0) return Invalid("SmrtTensorSetString", "bytes is NULL");
    tensor->tensor.data<std::string>()[index].assign(bytes == nullptr ? "" : bytes, length);
    return nullptr;
  });
}

// ------------------------------------------------------------- LoadOptions

SmrtLoadOptions* SmrtLoadOptionsCreate(void) { return new (std::nothrow) SmrtLoadOptions; }

void SmrtLoadOptionsDelete(SmrtLoadOptions* options) { delete options; }

SmrtStatus* SmrtLoadOptionsSet(SmrtLoadOptions* options, const char* key, const char* value) {
  return Guard("SmrtLoadOptionsSet", [&]() -> SmrtStatus* {
    if (options == nullptr || key == nullptr || value == nullptr) {
      return Invalid("SmrtLoadOptionsSet", "options, key or value is NULL");
    }
    return FromStatus(smrt::SetLoadOption(&options->options, key, value));
  });
}

SmrtStatus* SmrtLoadOptionsSetTags(SmrtLoadOptions* options, const char* const* tags,
                                   int count) {
  return Guard("SmrtLoadOptionsSetTags", [&]() -> SmrtStatus* {
    if (options == nullptr) return Invalid("SmrtLoadOptionsSetTags", "options is NULL");
    return SetList("SmrtLoadOptionsSetTags", &options->options.tags, tags, count);
  });
}

SmrtStatus* SmrtLoadOptionsSetSignatures(SmrtLoadOptions* options, const char* const* keys,
                                         int count) {
  return Guard("SmrtLoadOptionsSetSignatures", [&]() -> SmrtStatus* {
    if (options == nullptr) return Invalid("SmrtLoadOptionsSetSignatures", "options is NULL");
    return SetList("SmrtLoadOptionsSetSignatures", &options->options.signatures, keys, count);
  });
}

SmrtStatus* SmrtLoadOptionsAddCustomOps(SmrtLoadOptions* options,
                                        SmrtRegisterCustomOpsFn register_fn) {
  return Guard("SmrtLoadOptionsAddCustomOps", [&]() -> SmrtStatus* {
    if (options == nullptr || register_fn == nullptr) {
      return Invalid("SmrtLoadOptionsAddCustomOps", "options or register_fn is NULL");
    }
    options->options.custom_op_functions.push_back(register_fn);
    return nullptr;
  });
}

// -------------------------------------------------------------- ModelFiles

SmrtModelFiles* SmrtModelFilesCreate(void) { return new (std::nothrow) SmrtModelFiles; }

void SmrtModelFilesDelete(SmrtModelFiles* files) { delete files; }

SmrtStatus* SmrtModelFilesAdd(SmrtModelFiles* files, const char* path, const void* data,
                              size_t size) {
  return Guard("SmrtModelFilesAdd", [&]() -> SmrtStatus* {
    if (files == nullptr || path == nullptr) {
      return Invalid("SmrtModelFilesAdd", "files or path is NULL");
    }
    if (data == nullptr && size > 0) return Invalid("SmrtModelFilesAdd", "data is NULL");
    const std::string p(path);
    if (p.empty() || p.front() == '/' || p == ".." || p.rfind("../", 0) == 0 ||
        p.find("/../") != std::string::npos ||
        (p.size() >= 3 && p.compare(p.size() - 3, 3, "/..") == 0)) {
      return MakeStatus(SMRT_INVALID_ARGUMENT,
                        absl::StrCat("SmrtModelFilesAdd: path '", p,
                                     "' must be relative to the SavedModel directory, like "
                                     "\"variables/variables.index\""));
    }
    files->files[p] = size == 0 ? std::string() : std::string(static_cast<const char*>(data), size);
    return nullptr;
  });
}

// ------------------------------------------------------------------- Model

SmrtQuantizeOptions* SmrtQuantizeOptionsCreate(void) {
  return new (std::nothrow) SmrtQuantizeOptions;
}

void SmrtQuantizeOptionsDelete(SmrtQuantizeOptions* options) { delete options; }

SmrtStatus* SmrtQuantizeOptionsSet(SmrtQuantizeOptions* options, const char* key,
                                   const char* value) {
  return Guard("SmrtQuantizeOptionsSet", [&]() -> SmrtStatus* {
    if (options == nullptr || key == nullptr || value == nullptr) {
      return Invalid("SmrtQuantizeOptionsSet", "options, key or value is NULL");
    }
    smrt::QuantizeOptions& o = options->options;
    const absl::string_view k = key, v = value;
    if (k == "signature") {
      o.signature = std::string(v);
    } else if (k == "keep_float") {
      o.keep_float = absl::StrSplit(v, ',', absl::SkipEmpty());
    } else if (k == "percentile") {
      if (!absl::SimpleAtod(v, &o.percentile)) {
        return FromStatus(
            absl::InvalidArgumentError(absl::StrCat("percentile expects a number, got '", v, "'")));
      }
    } else if (k == "from_fake_quant") {
      if (!absl::SimpleAtob(v, &o.from_fake_quant)) {
        return FromStatus(absl::InvalidArgumentError(
            absl::StrCat("from_fake_quant expects true or false, got '", v, "'")));
      }
    } else {
      absl::Status s = smrt::SetLoadOption(&o.load, key, value);
      if (!s.ok()) {
        return FromStatus(
            absl::Status(s.code(), absl::StrCat(s.message(),
                                                " (SmrtQuantizeOptionsSet also takes signature, "
                                                "keep_float, percentile, from_fake_quant)")));
      }
    }
    return nullptr;
  });
}

SmrtStatus* SmrtQuantize(const char* dir, const char* const* input_names, int num_inputs,
                         const SmrtTensor* const* inputs, int num_calls, const char* out_path,
                         const SmrtQuantizeOptions* options, int* nodes_recorded) {
  return Guard("SmrtQuantize", [&]() -> SmrtStatus* {
    if (dir == nullptr || out_path == nullptr) {
      return Invalid("SmrtQuantize", "dir or out_path is NULL");
    }
    if (num_inputs < 0 || num_calls < 0 ||
        (num_inputs > 0 && num_calls > 0 && (input_names == nullptr || inputs == nullptr))) {
      return Invalid("SmrtQuantize", "negative counts, or input_names or inputs is NULL");
    }
    std::vector<smrt::NamedTensors> calls(num_calls);
    for (int i = 0; i < num_calls; ++i) {
      for (int j = 0; j < num_inputs; ++j) {
        const SmrtTensor* t = inputs[static_cast<size_t>(i) * num_inputs + j];
        if (input_names[j] == nullptr || t == nullptr) {
          return Invalid("SmrtQuantize", "an input name or tensor is NULL");
        }
        calls[i][input_names[j]] = t->tensor;
      }
    }
    smrt::QuantizeOptions defaults;
    absl::StatusOr<smrt::QuantizeReport> report =
        smrt::Quantize(dir, calls, out_path, options != nullptr ? options->options : defaults);
    if (!report.ok()) return FromStatus(report.status());
    if (nodes_recorded != nullptr) *nodes_recorded = report->nodes_recorded;
    return nullptr;
  });
}

SmrtStatus* SmrtModelLoad(const char* dir, const SmrtLoadOptions* options, SmrtModel** out) {
  return Guard("SmrtModelLoad", [&]() -> SmrtStatus* {
    if (dir == nullptr || out == nullptr) return Invalid("SmrtModelLoad", "dir or out is NULL");
    smrt::LoadOptions defaults;
    return WrapModel(smrt::Model::Load(dir, options != nullptr ? options->options : defaults),
                     out);
  });
}

SmrtStatus* SmrtModelLoadFromMemory(const SmrtModelFiles* files, const SmrtLoadOptions* options,
                                    SmrtModel** out) {
  return Guard("SmrtModelLoadFromMemory", [&]() -> SmrtStatus* {
    if (files == nullptr || out == nullptr) {
      return Invalid("SmrtModelLoadFromMemory", "files or out is NULL");
    }
    smrt::LoadOptions defaults;
    return WrapModel(smrt::Model::LoadFromMemory(files->files,
                                                 options != nullptr ? options->options : defaults),
                     out);
  });
}

void SmrtModelDelete(SmrtModel* model) { delete model; }

int SmrtModelSignatureCount(const SmrtModel* model) {
  return model == nullptr ? 0 : static_cast<int>(model->keys.size());
}

const char* SmrtModelSignatureKey(const SmrtModel* model, int i) {
  if (model == nullptr || i < 0 || i >= static_cast<int>(model->keys.size())) return nullptr;
  return model->keys[i].c_str();
}

SmrtStatus* SmrtModelGetSignature(const SmrtModel* model, const char* key,
                                  const SmrtSignature** out) {
  return Guard("SmrtModelGetSignature", [&]() -> SmrtStatus* {
    if (model == nullptr || key == nullptr || out == nullptr) {
      return Invalid("SmrtModelGetSignature", "model, key or out is NULL");
    }
    absl::StatusOr<const smrt::SignatureInfo*> info = model->model->signature(key);
    if (!info.ok()) return FromStatus(info.status());
    *out = reinterpret_cast<const SmrtSignature*>(*info);
    return nullptr;
  });
}

const char* SmrtSignatureKey(const SmrtSignature* signature) {
  return signature == nullptr ? "" : Info(signature)->key.c_str();
}

const char* SmrtSignatureMethodName(const SmrtSignature* signature) {
  return signature == nullptr ? "" : Info(signature)->method_name.c_str();
}

int SmrtSignatureInputCount(const SmrtSignature* signature) {
  return signature == nullptr ? 0 : static_cast<int>(Info(signature)->inputs.size());
}

const SmrtTensorSpec* SmrtSignatureInput(const SmrtSignature* signature, int i) {
  if (i < 0 || i >= SmrtSignatureInputCount(signature)) return nullptr;
  return reinterpret_cast<const SmrtTensorSpec*>(&Info(signature)->inputs[i]);
}

int SmrtSignatureOutputCount(const SmrtSignature* signature) {
  return signature == nullptr ? 0 : static_cast<int>(Info(signature)->outputs.size());
}

const SmrtTensorSpec* SmrtSignatureOutput(const SmrtSignature* signature, int i) {
  if (i < 0 || i >= SmrtSignatureOutputCount(signature)) return nullptr;
  return reinterpret_cast<const SmrtTensorSpec*>(&Info(signature)->outputs[i]);
}

const char* SmrtTensorSpecName(const SmrtTensorSpec* spec) {
  return spec == nullptr ? "" : Spec(spec)->name.c_str();
}

const char* SmrtTensorSpecTensorName(const SmrtTensorSpec* spec) {
  return spec == nullptr ? "" : Spec(spec)->tensor_name.c_str();
}

SmrtDataType SmrtTensorSpecDataType(const SmrtTensorSpec* spec) {
  return spec == nullptr ? SMRT_INVALID : static_cast<SmrtDataType>(Spec(spec)->dtype);
}

int SmrtTensorSpecRank(const SmrtTensorSpec* spec) {
  if (spec == nullptr || !Spec(spec)->known_rank) return -1;
  return static_cast<int>(Spec(spec)->shape.size());
}

int64_t SmrtTensorSpecDim(const SmrtTensorSpec* spec, int i) {
  if (i < 0 || i >= SmrtTensorSpecRank(spec)) return -1;
  return Spec(spec)->shape[i];
}

// --------------------------------------------------------------------- Run

struct SmrtCancellation {
  smrt::Cancellation cancellation;
};

SmrtCancellation* SmrtCancellationCreate(void) {
  return new (std::nothrow) SmrtCancellation;
}

void SmrtCancellationCancel(SmrtCancellation* cancellation) {
  if (cancellation != nullptr) cancellation->cancellation.Cancel();
}

void SmrtCancellationDelete(SmrtCancellation* cancellation) { delete cancellation; }

SmrtStatus* SmrtModelRun(const SmrtModel* model, const char* signature_key,
                         const char* const* input_names, const SmrtTensor* const* inputs,
                         int num_inputs, SmrtOutputs** out) {
  return SmrtModelRunWithOptions(model, signature_key, input_names, inputs, num_inputs, nullptr,
                                 out);
}

SmrtStatus* SmrtModelRunWithOptions(const SmrtModel* model, const char* signature_key,
                                    const char* const* input_names,
                                    const SmrtTensor* const* inputs, int num_inputs,
                                    const SmrtRunOptions* options, SmrtOutputs** out) {
  const auto start = std::chrono::steady_clock::now();
  return Guard("SmrtModelRun", [&]() -> SmrtStatus* {
    if (model == nullptr || signature_key == nullptr || out == nullptr) {
      return Invalid("SmrtModelRun", "model, signature_key or out is NULL");
    }
    smrt::RunOptions run_options;
    if (options != nullptr) {
      if (options->struct_size < sizeof(size_t)) {
        return Invalid("SmrtModelRun",
                       "options->struct_size is not set: set it to sizeof(SmrtRunOptions)");
      }
      // An older caller's struct is a prefix of ours: read only what it has.
      SmrtRunOptions given{};
      std::memcpy(&given, options,
                  options->struct_size < sizeof(given) ? options->struct_size : sizeof(given));
      if (!(given.timeout_seconds >= 0) || given.timeout_seconds > 1e9) {
        return Invalid("SmrtModelRun",
                       "options->timeout_seconds must be 0 (none) or a positive number of "
                       "seconds");
      }
      if (given.timeout_seconds > 0) {
        run_options.deadline =
            start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(given.timeout_seconds));
      }
      if (given.cancellation != nullptr) run_options.cancellation = &given.cancellation->cancellation;
    }
    if (num_inputs < 0) return Invalid("SmrtModelRun", "num_inputs is negative");
    if (num_inputs > 0 && (input_names == nullptr || inputs == nullptr)) {
      return Invalid("SmrtModelRun", "input_names or inputs is NULL");
    }
    smrt::NamedTensors feeds;
    for (int i = 0; i < num_inputs; ++i) {
      if (input_names[i] == nullptr || inputs[i] == nullptr) {
        return MakeStatus(SMRT_INVALID_ARGUMENT,
                          absl::StrCat("SmrtModelRun: input ", i, " has a NULL name or tensor"));
      }
      if (!feeds.emplace(input_names[i], inputs[i]->tensor).second) {
        return MakeStatus(SMRT_INVALID_ARGUMENT, absl::StrCat("SmrtModelRun: input '",
                                                              input_names[i],
                                                              "' is given twice"));
      }
    }
    absl::StatusOr<smrt::NamedTensors> results = smrt::NamedTensors();
    if (absl::Status s = model->model->Run(signature_key, feeds, &*results, run_options);
        !s.ok()) {
      results = s;
    }
    if (!results.ok()) return FromStatus(results.status());
    auto outputs = std::make_unique<SmrtOutputs>();
    for (auto& [name, tensor] : *results) {
      auto out_tensor = std::make_unique<SmrtTensor>();
      // An output may alias an input view (an Identity of an input); the
      // caller may free that memory before reading the outputs, so copy it.
      if (tensor.is_view()) {
        absl::StatusOr<smrt::Tensor> copy = tensor.Clone();
        if (!copy.ok()) return FromStatus(copy.status());
        out_tensor->tensor = *std::move(copy);
      } else {
        out_tensor->tensor = std::move(tensor);
      }
      outputs->names.push_back(name);
      outputs->tensors.push_back(std::move(out_tensor));
    }
    *out = outputs.release();
    return nullptr;
  });
}

int SmrtOutputsCount(const SmrtOutputs* outputs) {
  return outputs == nullptr ? 0 : static_cast<int>(outputs->names.size());
}

const char* SmrtOutputsName(const SmrtOutputs* outputs, int i) {
  if (i < 0 || i >= SmrtOutputsCount(outputs)) return nullptr;
  return outputs->names[i].c_str();
}

const SmrtTensor* SmrtOutputsTensor(const SmrtOutputs* outputs, int i) {
  if (i < 0 || i >= SmrtOutputsCount(outputs)) return nullptr;
  return outputs->tensors[i].get();
}

SmrtStatus* SmrtOutputsFind(const SmrtOutputs* outputs, const char* name,
                            const SmrtTensor** out) {
  return Guard("SmrtOutputsFind", [&]() -> SmrtStatus* {
    if (outputs == nullptr || name == nullptr || out == nullptr) {
      return Invalid("SmrtOutputsFind", "outputs, name or out is NULL");
    }
    auto it = std::find(outputs->names.begin(), outputs->names.end(), name);
    if (it == outputs->names.end()) {
      return MakeStatus(SMRT_NOT_FOUND,
                        absl::StrCat("no output '", name, "'; the outputs are: ",
                                     absl::StrJoin(outputs->names, ", ")));
    }
    *out = outputs->tensors[it - outputs->names.begin()].get();
    return nullptr;
  });
}

void SmrtOutputsDelete(SmrtOutputs* outputs) { delete outputs; }


SmrtStatus* SmrtModelGetMemoryStats(const SmrtModel* model, SmrtMemoryStats* stats) {
  return Guard("SmrtModelGetMemoryStats", [&]() -> SmrtStatus* {
    if (model == nullptr || stats == nullptr) {
      return Invalid("SmrtModelGetMemoryStats", "model or stats is NULL");
    }
    if (stats->struct_size < sizeof(size_t)) {
      return Invalid("SmrtModelGetMemoryStats",
                     "stats->struct_size is not set: set it to sizeof(SmrtMemoryStats)");
    }
    const smrt::MemoryStats m = model->model->GetMemoryStats();
    SmrtMemoryStats full;
    full.struct_size = stats->struct_size < sizeof(full) ? stats->struct_size : sizeof(full);
    full.bytes_in_use = m.bytes_in_use;
    full.peak_bytes_in_use = m.peak_bytes_in_use;
    full.limit_bytes = m.limit_bytes;
    full.allocation_count = m.allocation_count;
    // An older caller's struct is a prefix of ours: fill only what it has.
    std::memcpy(stats, &full, full.struct_size);
    return nullptr;
  });
}

void SmrtModelResetPeakMemory(SmrtModel* model) {
  if (model != nullptr) model->model->ResetPeakMemoryStats();
}

static_assert(SMRT_LOG_DEBUG == static_cast<int>(smrt::LogLevel::kDebug) &&
                  SMRT_LOG_INFO == static_cast<int>(smrt::LogLevel::kInfo) &&
                  SMRT_LOG_WARNING == static_cast<int>(smrt::LogLevel::kWarning) &&
                  SMRT_LOG_ERROR == static_cast<int>(smrt::LogLevel::kError),
              "SmrtLogLevel follows smrt::LogLevel");

void SmrtSetLogCallback(SmrtLogCallback callback, void* user_data) {
  if (callback == nullptr) {
    smrt::SetLogSink(nullptr);
    return;
  }
  try {
    smrt::SetLogSink([callback, user_data](smrt::LogLevel level, std::string_view message) {
      const std::string text(message);  // NUL-terminated for C
      callback(static_cast<int>(level), text.c_str(), user_data);
    });
  } catch (...) {
    // No memory for the new sink: stderr, never the callback it was to replace.
    smrt::SetLogSink(nullptr);
  }
}

void SmrtSetLogLevel(int level) {
  smrt::SetMinLogLevel(static_cast<smrt::LogLevel>(std::clamp(level, 0, 3)));
}

int SmrtGetLogLevel(void) { return static_cast<int>(smrt::MinLogLevel()); }

}  // extern "C"
