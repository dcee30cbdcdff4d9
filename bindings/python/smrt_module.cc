// smrt._smrt: the Python module's native part, over the public C++ API
// (include/smrt) only. smrt/__init__.py builds the user-facing API on it.
//
// Inputs that are C-contiguous, aligned, native-endian NumPy arrays of the
// declared dtype are passed to smrt as Tensor::View (no copy); outputs are
// returned as NumPy arrays over smrt's own buffers (no copy either). The GIL
// is released while a signature runs. smrt's messages go to a Python callable
// (smrt/__init__.py's, which logs on the `logging` logger "smrt").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "smrt/log.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "smrt/quantize.h"
#include "smrt/tensor.h"

namespace py = pybind11;

namespace {

PyObject* g_error = nullptr;  // smrt.Error

// Raises smrt.Error(message) with .code ("INVALID_ARGUMENT"...) and .message.
[[noreturn]] void Raise(const absl::Status& status) {
  py::object type = py::reinterpret_borrow<py::object>(g_error);
  py::object error = type(std::string(status.message()));
  error.attr("code") = absl::StatusCodeToString(status.code());
  error.attr("message") = std::string(status.message());
  PyErr_SetObject(g_error, error.ptr());
  throw py::error_already_set();
}

// NumPy facts read through Python attributes, not pybind11's struct
// accessors: pybind11 before 2.12 reads NumPy 1.x's PyArray_Descr layout,
// which NumPy 2 changed.
char Kind(const py::handle& dtype) { return py::str(dtype.attr("kind")).cast<std::string>()[0]; }
py::ssize_t ItemSize(const py::handle& dtype) { return dtype.attr("itemsize").cast<py::ssize_t>(); }

template <typename T>
T Check(absl::StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return *std::move(value);
}

// NumPy's type for a fixed-size smrt dtype; bfloat16 has none.
absl::StatusOr<py::dtype> NumpyType(smrt::DataType t) {
  switch (t) {
    case smrt::DataType::kFloat: return py::dtype::of<float>();
    case smrt::DataType::kDouble: return py::dtype::of<double>();
    case smrt::DataType::kInt32: return py::dtype::of<int32_t>();
    case smrt::DataType::kUInt8: return py::dtype::of<uint8_t>();
    case smrt::DataType::kInt16: return py::dtype::of<int16_t>();
    case smrt::DataType::kInt8: return py::dtype::of<int8_t>();
    case smrt::DataType::kInt64: return py::dtype::of<int64_t>();
    case smrt::DataType::kBool: return py::dtype::of<bool>();
    case smrt::DataType::kUInt16: return py::dtype::of<uint16_t>();
    case smrt::DataType::kUInt32: return py::dtype::of<uint32_t>();
    case smrt::DataType::kUInt64: return py::dtype::of<uint64_t>();
    case smrt::DataType::kComplex64: return py::dtype("complex64");
    case smrt::DataType::kComplex128: return py::dtype("complex128");
    case smrt::DataType::kHalf: return py::dtype("float16");
    default:
      return absl::UnimplementedError(absl::StrCat("no NumPy dtype for ",
                                                   smrt::DataTypeName(t)));
  }
}

// smrt's dtype for a NumPy array (kString for bytes, str and object arrays).
absl::StatusOr<smrt::DataType> SmrtType(const py::dtype& given) {
  const char kind = Kind(given);
  py::dtype d = py::reinterpret_borrow<py::dtype>(given.attr("newbyteorder")("="));
  if (kind == 'O' || kind == 'S' || kind == 'U') return smrt::DataType::kString;
  for (smrt::DataType t :
       {smrt::DataType::kFloat, smrt::DataType::kDouble, smrt::DataType::kInt32,
        smrt::DataType::kUInt8, smrt::DataType::kInt16, smrt::DataType::kInt8,
        smrt::DataType::kInt64, smrt::DataType::kBool, smrt::DataType::kUInt16,
        smrt::DataType::kUInt32, smrt::DataType::kUInt64, smrt::DataType::kComplex64,
        smrt::DataType::kComplex128, smrt::DataType::kHalf}) {
    if (NumpyType(t)->is(d) || NumpyType(t)->equal(d)) return t;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("NumPy dtype '", std::string(py::str(d)), "' has no smrt equivalent"));
}

smrt::Shape ShapeOf(const py::array& a) {
  return smrt::Shape(a.shape(), a.shape() + a.ndim());
}

// A Tensor for a NumPy array: a view when the memory can be used as it is,
// else a copy. The array must outlive the view (Run holds it).
absl::StatusOr<smrt::Tensor> ToTensor(const py::array& array, const std::string& name) {
  absl::StatusOr<smrt::DataType> type = SmrtType(array.dtype());
  if (!type.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("input '", name, "': ", type.status().message()));
  }
  if (*type == smrt::DataType::kString) {
    absl::StatusOr<smrt::Tensor> t = smrt::Tensor::Create(*type, ShapeOf(array));
    if (!t.ok()) return t.status();
    py::array flat = py::array(array.attr("ravel")());
    std::string* out = t->data<std::string>();
    for (py::ssize_t i = 0; i < flat.size(); ++i) {
      py::object item = flat.attr("item")(i);
      if (py::isinstance<py::bytes>(item)) {
        out[i] = item.cast<std::string>();
      } else if (py::isinstance<py::str>(item)) {
        out[i] = py::str(item).cast<std::string>();  // UTF-8
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", name, "': element ", i, " is a ",
            std::string(py::str(py::type::handle_of(item).attr("__name__"))),
            ", not bytes or str"));
      }
    }
    return t;
  }
  py::object flags = array.attr("flags");
  const bool usable = flags.attr("c_contiguous").cast<bool>() &&
                      flags.attr("aligned").cast<bool>() &&
                      array.attr("dtype").attr("isnative").cast<bool>();
  if (usable) {
    return smrt::Tensor::View(*type, ShapeOf(array), const_cast<void*>(array.data()),
                              array.attr("nbytes").cast<size_t>());
  }
  py::array native = py::module_::import("numpy").attr("ascontiguousarray")(
      array, py::arg("dtype") = array.dtype().attr("newbyteorder")("="));
  absl::StatusOr<smrt::Tensor> t = smrt::Tensor::Create(*type, ShapeOf(native));
  if (!t.ok()) return t.status();
  if (t->byte_size() > 0) std::memcpy(t->raw_data(), native.data(), t->byte_size());
  return t;
}

// A NumPy array sharing the Tensor's storage (object array of bytes for
// strings).
py::object ToNumpy(smrt::Tensor t) {
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  if (t.dtype() == smrt::DataType::kString) {
    py::list items;
    for (int64_t i = 0; i < t.num_elements(); ++i) items.append(py::bytes(t.data<std::string>()[i]));
    py::module_ np = py::module_::import("numpy");
    py::object flat = np.attr("empty")(t.num_elements(), py::arg("dtype") = "O");
    flat[py::slice(0, t.num_elements(), 1)] = items;
    return flat.attr("reshape")(py::tuple(py::cast(shape)));
  }
  if (t.is_view()) t = Check(t.Clone());  // aliases an input: own a copy
  py::dtype dtype = Check(NumpyType(t.dtype()));
  auto* owner = new smrt::Tensor(std::move(t));
  py::capsule base(owner, [](void* p) { delete static_cast<smrt::Tensor*>(p); });
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = ItemSize(dtype);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return py::array(dtype, shape, strides, owner->raw_data(), base);
}

py::object SpecShape(const smrt::TensorSpec& spec) {
  if (!spec.known_rank) return py::none();
  py::list dims;
  for (int64_t d : spec.shape) {
    if (d < 0) {
      dims.append(py::none());
    } else {
      dims.append(d);
    }
  }
  return py::tuple(dims);
}

py::dict SpecDict(const smrt::TensorSpec& spec) {
  py::dict d;
  d["name"] = spec.name;
  d["tensor_name"] = spec.tensor_name;
  d["dtype"] = std::string(smrt::DataTypeShortName(spec.dtype));
  d["shape"] = SpecShape(spec);
  return d;
}

smrt::LoadOptions OptionsFrom(const std::map<std::string, std::string>& options) {
  smrt::LoadOptions out;
  for (const auto& [key, value] : options) {
    if (absl::Status s = smrt::SetLoadOption(&out, key, value); !s.ok()) Raise(s);
  }
  return out;
}

class PyModel {
 public:
  explicit PyModel(std::unique_ptr<smrt::Model> model) : model_(std::move(model)) {}

  static PyModel Load(const std::string& dir, const std::map<std::string, std::string>& options) {
    smrt::LoadOptions o = OptionsFrom(options);
    absl::StatusOr<std::unique_ptr<smrt::Model>> m;
    {
      py::gil_scoped_release release;
      m = smrt::Model::Load(dir, o);
    }
    return PyModel(Check(std::move(m)));
  }

  static PyModel LoadFromMemory(const std::map<std::string, py::bytes>& files,
                                const std::map<std::string, std::string>& options) {
    smrt::LoadOptions o = OptionsFrom(options);
    smrt::ModelFiles contents;
    for (const auto& [path, bytes] : files) contents[path] = std::string(bytes);
    absl::StatusOr<std::unique_ptr<smrt::Model>> m;
    {
      py::gil_scoped_release release;
      m = smrt::Model::LoadFromMemory(std::move(contents), o);
    }
    return PyModel(Check(std::move(m)));
  }

  // key -> {"key", "method_name", "inputs": {name: spec}, "outputs": {...}}
  py::dict Signatures() const {
    py::dict out;
    for (const std::string& key : model_->signature_keys()) {
      const smrt::SignatureInfo* info = Check(model_->signature(key));
      py::dict sig, inputs, outputs;
      for (const smrt::TensorSpec& s : info->inputs) inputs[py::str(s.name)] = SpecDict(s);
      for (const smrt::TensorSpec& s : info->outputs) outputs[py::str(s.name)] = SpecDict(s);
      sig["key"] = info->key;
      sig["method_name"] = info->method_name;
      sig["inputs"] = inputs;
      sig["outputs"] = outputs;
      out[py::str(key)] = sig;
    }
    return out;
  }

  py::dict Run(const std::string& key, const std::map<std::string, py::array>& inputs,
               double timeout_seconds, const smrt::Cancellation* cancellation) const {
    const auto start = std::chrono::steady_clock::now();
    smrt::NamedTensors feeds;
    for (const auto& [name, array] : inputs) feeds[name] = Check(ToTensor(array, name));
    smrt::RunOptions options;
    if (timeout_seconds > 0) {
      options.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(timeout_seconds));
    }
    options.cancellation = cancellation;
    absl::StatusOr<smrt::NamedTensors> results = smrt::NamedTensors();
    {
      py::gil_scoped_release release;
      if (absl::Status s = model_->Run(key, feeds, &*results, options); !s.ok()) results = s;
    }
    py::dict out;
    for (auto& [name, t] : Check(std::move(results))) out[py::str(name)] = ToNumpy(std::move(t));
    return out;
  }

  const std::string& dir() const { return model_->dir(); }

  py::dict MemoryStats() const {
    const smrt::MemoryStats m = model_->GetMemoryStats();
    py::dict out;
    out["bytes_in_use"] = m.bytes_in_use;
    out["peak_bytes_in_use"] = m.peak_bytes_in_use;
    out["limit_bytes"] = m.limit_bytes;
    out["allocation_count"] = m.allocation_count;
    return out;
  }

  void ResetPeakMemory() const { model_->ResetPeakMemoryStats(); }

 private:
  std::shared_ptr<const smrt::Model> model_;
};

// Sends smrt's messages to `callback(level: int, message: str)`; None: back to
// stderr. smrt logs from threads that do not hold the GIL (Model.run releases
// it; smrt's pools never held it), so the sink takes the GIL for each call.
// SetLogSink waits for calls in the sink it replaces, which may be waiting
// for the GIL: it is called with the GIL released.
void SetLogCallback(py::object callback) {
  smrt::LogSink sink;
  if (!callback.is_none()) {
    // Released with the GIL held, on whichever thread drops it last; left
    // alone once the interpreter is gone.
    std::shared_ptr<py::object> fn(new py::object(std::move(callback)), [](py::object* p) {
      if (!Py_IsInitialized()) return;
      py::gil_scoped_acquire gil;
      delete p;
    });
    sink = [fn](smrt::LogLevel level, std::string_view message) {
      if (!Py_IsInitialized()) {  // a thread still logging as the process exits
        std::fprintf(stderr, "smrt: %.*s\n", static_cast<int>(message.size()), message.data());
        return;
      }
      py::gil_scoped_acquire gil;
      // Paths and node names are bytes: what is not UTF-8 is replaced, not an error.
      PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<py::ssize_t>(message.size()),
                                            "replace");
      if (text == nullptr) {
        PyErr_Clear();
        return;
      }
      try {
        (*fn)(static_cast<int>(level), py::reinterpret_steal<py::str>(text));
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("smrt's log callback");
      }
    };
  }
  py::gil_scoped_release release;
  smrt::SetLogSink(std::move(sink));
}

using Calls = std::vector<std::map<std::string, py::array>>;

std::vector<smrt::NamedTensors> TensorsOf(const Calls& calls) {
  std::vector<smrt::NamedTensors> out;
  for (const auto& call : calls) {
    smrt::NamedTensors feeds;
    for (const auto& [name, array] : call) feeds[name] = Check(ToTensor(array, name));
    out.push_back(std::move(feeds));
  }
  return out;
}

// smrt::Quantize (smrt/quantize.h); the report as a dict.
py::dict Quantize(const std::string& dir, const Calls& calibration, const std::string& out_path,
                  const Calls& validation, const std::string& signature,
                  const std::vector<std::string>& keep_float, double percentile,
                  bool from_fake_quant, const std::map<std::string, std::string>& load) {
  smrt::QuantizeOptions options;
  options.load = OptionsFrom(load);
  options.signature = signature;
  options.keep_float = keep_float;
  options.percentile = percentile;
  options.from_fake_quant = from_fake_quant;
  const std::vector<smrt::NamedTensors> cal = TensorsOf(calibration), val = TensorsOf(validation);
  absl::StatusOr<smrt::QuantizeReport> report = absl::UnknownError("not run");
  {
    py::gil_scoped_release release;
    report = smrt::Quantize(dir, cal, out_path, options, val);
  }
  const smrt::QuantizeReport r = Check(std::move(report));
  py::dict out;
  out["signature"] = r.signature;
  out["calibration_runs"] = r.calibration_runs;
  out["nodes_recorded"] = r.nodes_recorded;
  out["nodes_float"] = r.nodes_float;
  out["nodes_int8"] = r.nodes_int8;
  out["validation_runs"] = r.validation_runs;
  out["max_relative_error"] = r.max_relative_error;
  out["worst_output"] = r.worst_output;
  py::dict top1;
  for (const auto& [name, share] : r.top1_agreement) top1[py::str(name)] = share;
  out["top1_agreement"] = top1;
  return out;
}

}  // namespace

PYBIND11_MODULE(_smrt, m) {
  m.doc() = "smrt's native module; use the smrt package.";
  g_error = PyErr_NewExceptionWithDoc(
      "smrt.Error",
      "An error from smrt: str(e) and e.message are the Status message, e.code its code "
      "name (\"INVALID_ARGUMENT\", \"NOT_FOUND\", ...).",
      PyExc_RuntimeError, nullptr);
  m.add_object("Error", py::handle(g_error));

  py::class_<smrt::Cancellation>(m, "Cancellation",
                                 "Stops runs from another thread: pass it to Model.run("
                                 "cancellation=...) and call cancel().")
      .def(py::init<>())
      .def("cancel", &smrt::Cancellation::Cancel, "Cancels every run given this handle.")
      .def_property_readonly("cancelled", &smrt::Cancellation::cancelled);

  py::class_<PyModel>(m, "_Model")
      .def_static("load", &PyModel::Load, py::arg("dir"), py::arg("options"))
      .def_static("load_from_memory", &PyModel::LoadFromMemory, py::arg("files"),
                  py::arg("options"))
      .def("signatures", &PyModel::Signatures)
      .def("run", &PyModel::Run, py::arg("signature_key"), py::arg("inputs"),
           py::arg("timeout_seconds") = 0.0, py::arg("cancellation") = nullptr)
      .def("memory_stats", &PyModel::MemoryStats)
      .def("reset_peak_memory", &PyModel::ResetPeakMemory)
      .def_property_readonly("dir", &PyModel::dir);

  m.def("load_option_keys", [] {
    py::dict out;
    for (const smrt::LoadOptionKey& k : smrt::LoadOptionKeys()) out[py::str(k.key)] = k.help;
    return out;
  }, "Every load option key, with what its value means.");

  // For tests: how Run would pass `array` to smrt (data address, view or copy).
  m.def("_quantize", &Quantize, py::arg("dir"), py::arg("calibration"), py::arg("out"),
        py::arg("validation"), py::arg("signature"), py::arg("keep_float"), py::arg("percentile"),
        py::arg("from_fake_quant"), py::arg("load_options"));
  m.def("_input_tensor", [](const py::array& array) {
    smrt::Tensor t = Check(ToTensor(array, "array"));
    return py::make_tuple(reinterpret_cast<uintptr_t>(t.raw_data()), t.is_view());
  });
  m.def("_set_log_callback", &SetLogCallback, py::arg("callback"),
        "Sends smrt's messages to callback(level, message) (levels 0-3: DEBUG, INFO, WARNING, "
        "ERROR); None: to stderr.");
  m.def("_set_log_level", [](int level) {
    smrt::SetMinLogLevel(static_cast<smrt::LogLevel>(std::clamp(level, 0, 3)));
  }, py::arg("level"), "Drops smrt's messages below level (0-3: DEBUG, INFO, WARNING, ERROR).");
  m.def("_get_log_level", [] { return static_cast<int>(smrt::MinLogLevel()); });
  m.attr("__version__") = SMRT_VERSION_STRING;
}
