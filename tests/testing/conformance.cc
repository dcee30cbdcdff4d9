#include "testing/conformance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "smrt/check.h"
#include "core/file.h"
#include "core/npy.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "testing/goldens.h"
#include "testing/paths.h"

namespace smrt::testing {
namespace fs = std::filesystem;
namespace {

using Fields = google::protobuf::Map<std::string, google::protobuf::Value>;

absl::StatusOr<google::protobuf::Struct> ReadJson(const std::string& path) {
  absl::StatusOr<std::string> text = file::ReadAll(path);
  if (!text.ok()) return text.status();
  google::protobuf::Struct root;
  if (!google::protobuf::util::JsonStringToMessage(*text, &root).ok()) {
    return absl::DataLossError(absl::StrCat(path, ": not valid JSON"));
  }
  return root;
}

std::string StringField(const Fields& f, const std::string& key) {
  auto it = f.find(key);
  return it == f.end() ? "" : it->second.string_value();
}

CaseTensor TensorEntry(const Fields& f, const fs::path& dir) {
  CaseTensor t;
  t.name = StringField(f, "name");
  t.dtype = StringField(f, "dtype");
  if (auto shape = f.find("shape"); shape != f.end()) {
    for (const auto& d : shape->second.list_value().values()) {
      t.shape.push_back(static_cast<int64_t>(d.number_value()));
    }
  }
  t.generated = StringField(f, "pattern") == "mod1009_v1";
  if (const std::string file = StringField(f, "file"); !file.empty()) {
    t.file = (dir / file).string();
  }
  return t;
}

double Element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kHalf: {
      const uint16_t h = t.data<uint16_t>()[i];
      const int exp = (h >> 10) & 0x1f;
      const double mant = h & 0x3ff;
      const double v = exp == 0    ? std::ldexp(mant, -24)
                       : exp == 31 ? (mant == 0 ? INFINITY : NAN)
                                   : std::ldexp(1024 + mant, exp - 25);
      return (h & 0x8000) ? -v : v;
    }
    case DataType::kBFloat16: {
      const uint32_t bits = static_cast<uint32_t>(t.data<uint16_t>()[i]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DataType::kInt32: return t.data<int32_t>()[i];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kInt8: return t.data<int8_t>()[i];
    case DataType::kInt16: return t.data<int16_t>()[i];
    case DataType::kUInt8: return t.data<uint8_t>()[i];
    case DataType::kUInt16: return t.data<uint16_t>()[i];
    case DataType::kUInt32: return t.data<uint32_t>()[i];
    case DataType::kUInt64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<bool>()[i] ? 1 : 0;
    // Complex tensors part by part: i counts real and imaginary parts.
    case DataType::kComplex64: return static_cast<const float*>(t.raw_data())[i];
    case DataType::kComplex128: return static_cast<const double*>(t.raw_data())[i];
    default: return NAN;
  }
}

bool IsComplex(DataType t) { return t == DataType::kComplex64 || t == DataType::kComplex128; }

bool IsFloat(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kHalf ||
         t == DataType::kBFloat16 || IsComplex(t);
}

// float32 -> bfloat16, round to nearest even (inputs stored as float32).
absl::StatusOr<Tensor> ToBFloat16(const Tensor& f) {
  absl::StatusOr<Tensor> out = Tensor::Create(DataType::kBFloat16, f.shape());
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < f.num_elements(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &f.data<float>()[i], 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    out->data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ConformanceModel>> ListZooModels(const std::string& root) {
  std::vector<ConformanceModel> models;
  if (!fs::is_directory(root)) {
    return absl::NotFoundError(absl::StrCat("zoo folder ", root, " does not exist"));
  }
  for (const auto& entry : fs::directory_iterator(root)) {
    const fs::path info_path = entry.path() / "model.json";
    if (!fs::exists(info_path)) continue;
    absl::StatusOr<google::protobuf::Struct> info = ReadJson(info_path.string());
    if (!info.ok()) return info.status();
    ConformanceModel m;
    m.name = entry.path().filename().string();
    m.dir = (entry.path() / "saved_model").string();
    const Fields& f = info->fields();
    if (auto tol = f.find("tolerance"); tol != f.end() && tol->second.has_number_value()) {
      m.tolerance = tol->second.number_value();
    }
    m.note = StringField(f, "note");
    if (auto cases = f.find("cases"); cases != f.end()) {
      for (const auto& v : cases->second.list_value().values()) {
        const fs::path case_dir = entry.path() / "cases" / v.string_value();
        absl::StatusOr<google::protobuf::Struct> manifest =
            ReadJson((case_dir / "manifest.json").string());
        if (!manifest.ok()) return manifest.status();
        ConformanceCase c;
        c.name = v.string_value();
        c.signature = StringField(manifest->fields(), "signature");
        for (const char* side : {"inputs", "outputs"}) {
          auto list = manifest->fields().find(side);
          if (list == manifest->fields().end()) continue;
          for (const auto& t : list->second.list_value().values()) {
            (std::string(side) == "inputs" ? c.inputs : c.outputs)
                .push_back(TensorEntry(t.struct_value().fields(), case_dir / side));
          }
        }
        m.cases.push_back(std::move(c));
      }
    }
    models.push_back(std::move(m));
  }
  std::sort(models.begin(), models.end(),
            [](const ConformanceModel& a, const ConformanceModel& b) { return a.name < b.name; });
  return models;
}

std::vector<ConformanceModel> ListCommunityModels() {
  std::vector<ConformanceModel> models;
  for (const GoldenCase& g : ListGoldenCases("community/")) {
    if (models.empty() || models.back().dir != g.model_dir) {
      models.push_back({g.model, g.model_dir, 1e-4, "", /*reload_per_case=*/true, {}});
    }
    ConformanceCase c;
    c.name = g.signature;
    c.signature = g.signature;
    for (const auto& [name, path] : g.input_files) {
      c.inputs.push_back({name, path, {}, "", false, 0});
    }
    for (const auto& [name, shape] : g.generated_inputs) {
      c.inputs.push_back({name, "", shape, "DT_FLOAT", true, 0});
    }
    for (const auto& [name, path] : g.output_files) {
      c.outputs.push_back({name, path, {}, "", false, 0});
    }
    for (const auto& [name, strided] : g.strided_outputs) {
      c.outputs.push_back({name, strided.first, {}, "", false, strided.second});
    }
    models.back().cases.push_back(std::move(c));
  }
  return models;
}

absl::StatusOr<NamedTensors> ReadInputs(const ConformanceCase& c) {
  NamedTensors inputs;
  for (const CaseTensor& in : c.inputs) {
    if (in.generated) {
      inputs[in.name] = GeneratedInput(in.shape);
      continue;
    }
    absl::StatusOr<Tensor> t = ReadGoldenTensor(in.file);
    if (!t.ok()) return t.status();
    // String files are flat; a stored scalar string is one element.
    if (t->dtype() == DataType::kString && in.shape != t->shape()) {
      if (!in.shape.empty() || in.dtype == "DT_STRING") {
        absl::StatusOr<Tensor> reshaped = t->Reshaped(in.shape);
        if (!reshaped.ok()) return reshaped.status();
        t = *std::move(reshaped);
      }
    }
    if (in.dtype == "DT_BFLOAT16" && t->dtype() == DataType::kFloat) t = ToBFloat16(*t);
    if (!t.ok()) return t.status();
    inputs[in.name] = *std::move(t);
  }
  return inputs;
}

// A stored 1-element string for a scalar input (community goldens keep no
// shapes) becomes a scalar.
void FitScalars(const SignatureInfo& sig, NamedTensors& inputs) {
  for (const TensorSpec& spec : sig.inputs) {
    auto it = inputs.find(spec.name);
    if (it != inputs.end() && spec.known_rank && spec.shape.empty() &&
        it->second.num_elements() == 1 && it->second.rank() > 0) {
      absl::StatusOr<Tensor> scalar = it->second.Reshaped({});
      if (scalar.ok()) it->second = *scalar;
    }
  }
}

Comparison CompareOutputs(const ConformanceCase& c, const NamedTensors& got, double tolerance) {
  Comparison r;
  auto fail = [&r](std::string detail) {
    if (r.ok) r.detail = std::move(detail);
    r.ok = false;
  };
  for (const CaseTensor& out : c.outputs) {
    auto it = got.find(out.name);
    if (it == got.end()) {
      fail(absl::StrCat("output '", out.name, "' missing"));
      continue;
    }
    const Tensor& actual = it->second;
    absl::StatusOr<Tensor> expected = ReadGoldenTensor(out.file);
    if (!expected.ok()) {
      fail(absl::StrCat(out.name, ": ", expected.status().message()));
      continue;
    }
    const int64_t stride = out.stride > 0 ? out.stride : 1;
    if (out.stride == 0 && expected->dtype() != DataType::kString &&
        actual.shape() != expected->shape()) {
      fail(absl::StrCat("output '", out.name, "': shape ", ShapeToString(actual.shape()),
                        ", TensorFlow's is ", ShapeToString(expected->shape())));
      continue;
    }
    if (expected->num_elements() != (actual.num_elements() + stride - 1) / stride) {
      fail(absl::StrCat("output '", out.name, "': ", actual.num_elements(), " elements, ",
                        "TensorFlow has ", expected->num_elements() * stride));
      continue;
    }
    if ((actual.dtype() == DataType::kString) != (expected->dtype() == DataType::kString) ||
        IsComplex(actual.dtype()) != IsComplex(expected->dtype())) {
      fail(absl::StrCat("output '", out.name, "': dtype ", DataTypeName(actual.dtype())));
      continue;
    }
    const bool floating = IsFloat(actual.dtype());
    // A complex element is compared as its two parts, each against TensorFlow's.
    const int64_t parts = IsComplex(actual.dtype()) ? 2 : 1;
    for (int64_t p = 0; p < expected->num_elements() * parts; ++p) {
      const int64_t i = p / parts;
      const int64_t j = i * stride;
      if (actual.dtype() == DataType::kString) {
        if (actual.data<std::string>()[j] != expected->data<std::string>()[i]) {
          fail(absl::StrCat("output '", out.name, "'[", j, "]: \"",
                            actual.data<std::string>()[j], "\", TensorFlow: \"",
                            expected->data<std::string>()[i], "\""));
        }
        continue;
      }
      const double a = Element(actual, j * parts + p % parts);
      const double e = Element(*expected, p);
      if (std::isnan(a) && std::isnan(e)) continue;
      if (!floating) {
        if (a != e) {
          fail(absl::StrCat("output '", out.name, "'[", j, "]: ", a, ", TensorFlow: ", e));
        }
        continue;
      }
      const double d = (std::isinf(a) && a == e) ? 0 : std::fabs(a - e);
      const double rel = d / std::max(1.0, std::fabs(e));
      r.max_abs = std::max(r.max_abs, std::isnan(d) ? INFINITY : d);
      r.max_rel = std::max(r.max_rel, std::isnan(rel) ? INFINITY : rel);
      if (!(rel <= tolerance)) {
        const char* part = parts == 1 ? "" : p % 2 ? ".imag" : ".real";
        fail(absl::StrCat("output '", out.name, "'[", j, "]", part, ": ", a, ", TensorFlow: ", e,
                          " (|diff| ", d, " > ", tolerance, " * max(1, |tf|))"));
      }
    }
  }
  return r;
}

namespace {

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ModelResult RunConformance(const ConformanceModel& m, const LoadOptions& base) {
  ModelResult r;
  LoadOptions options = base;
  for (const ConformanceCase& c : m.cases) {
    if (std::find(options.signatures.begin(), options.signatures.end(), c.signature) ==
        options.signatures.end()) {
      options.signatures.push_back(c.signature);
    }
  }
  if (absl::StatusOr<ModelCheck> check = CheckModel(m.dir, options); check.ok()) {
    for (const SignatureCheck& s : check->signatures) {
      for (const OpCheck& op : s.ops) r.nodes[s.key] += op.count;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
  r.load_ms = MsSince(t0);
  if (!model.ok()) {
    r.load_error = std::string(model.status().message());
    for (const ConformanceCase& c : m.cases) r.cases.push_back({&c, r.load_error, {}, 0});
    return r;
  }
  for (const ConformanceCase& c : m.cases) {
    CaseResult cr;
    cr.c = &c;
    if (m.reload_per_case && !r.cases.empty()) {
      model = Model::Load(m.dir, options);
      if (!model.ok()) {
        cr.error = std::string(model.status().message());
        r.cases.push_back(std::move(cr));
        continue;
      }
    }
    absl::StatusOr<NamedTensors> inputs = ReadInputs(c);
    absl::StatusOr<const SignatureInfo*> sig = (*model)->signature(c.signature);
    if (!inputs.ok() || !sig.ok()) {
      cr.error = std::string((inputs.ok() ? sig.status() : inputs.status()).message());
      r.cases.push_back(std::move(cr));
      continue;
    }
    FitScalars(**sig, *inputs);
    const auto t1 = std::chrono::steady_clock::now();
    absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *inputs);
    cr.run_ms = MsSince(t1);
    if (r.cases.empty()) r.first_run_ms = cr.run_ms;
    if (!out.ok()) {
      cr.error = std::string(out.status().message());
    } else {
      cr.comparison = CompareOutputs(c, *out, m.tolerance);
    }
    r.cases.push_back(std::move(cr));
  }
  return r;
}

}  // namespace smrt::testing
