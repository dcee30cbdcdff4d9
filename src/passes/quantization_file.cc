#include "passes/quantization_file.h"

#include <cmath>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "core/json_reader.h"
#include "core/json_writer.h"

namespace smrt::passes {

std::string QuantizationFileText(const QuantizationFile& file) {
  JsonWriter w;
  w.BeginObject().Key("format").String(kQuantizationFormat).Key("version").Int(1);
  w.Key("model").BeginObject();
  w.Key("saved_model_crc32c").Int(file.model_crc32c);
  w.Key("saved_model_bytes").Int(static_cast<int64_t>(file.model_bytes));
  w.EndObject();
  w.Key("nodes").BeginObject();
  for (const auto& [name, node] : file.nodes) {
    w.Key(name).BeginObject();
    if (!node.op.empty()) w.Key("op").String(node.op);
    if (node.keep_float) w.Key("float").Bool(true);
    if (!node.keep_float || node.min != 0 || node.max != 0) {
      w.Key("min").Number(node.min, 9).Key("max").Number(node.max, 9);
    }
    if (node.has_output_range) {
      w.Key("out_min").Number(node.out_min, 9).Key("out_max").Number(node.out_max, 9);
    }
    w.EndObject();
  }
  w.EndObject().EndObject();
  return w.text() + "\n";
}

namespace {

using Kind = JsonValue::Kind;

// The problems of one file, each naming where it is.
class Reader {
 public:
  explicit Reader(absl::string_view path) : path_(path) {}

  absl::Status Error(absl::string_view where, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("quantization file ", path_, ": ", where, where.empty() ? "" : ": ", what));
  }

  absl::StatusOr<const JsonValue*> Member(const JsonValue& object, absl::string_view where,
                                          absl::string_view key, Kind kind) const {
    const JsonValue* v = object.Find(key);
    if (v == nullptr) return Error(where, absl::StrCat("missing \"", key, "\""));
    if (v->kind != kind) {
      return Error(where, absl::StrCat("\"", key, "\" must be a ", JsonKindName(kind), ", not a ",
                                       JsonKindName(v->kind)));
    }
    return v;
  }

  absl::Status OnlyKeys(const JsonValue& object, absl::string_view where,
                        std::initializer_list<absl::string_view> keys) const {
    for (const auto& [k, v] : object.object) {
      bool known = false;
      for (absl::string_view key : keys) known = known || k == key;
      if (!known) return Error(where, absl::StrCat("unknown key \"", k, "\""));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> Whole(const JsonValue& object, absl::string_view where,
                                 absl::string_view key, double max) const {
    absl::StatusOr<const JsonValue*> v = Member(object, where, key, Kind::kNumber);
    if (!v.ok()) return v.status();
    const double d = (*v)->number;
    if (!(d >= 0 && d <= max) || d != std::floor(d)) {
      return Error(where,
                   absl::StrCat("\"", key, "\" must be a whole number in [0, ", max, "], got ", d));
    }
    return static_cast<uint64_t>(d);
  }

  // Two numbers [lo_key, hi_key]: finite, lo <= hi.
  absl::StatusOr<std::pair<float, float>> Range(const JsonValue& v, const std::string& where,
                                                absl::string_view lo_key,
                                                absl::string_view hi_key) const {
    absl::StatusOr<const JsonValue*> lo = Member(v, where, lo_key, Kind::kNumber);
    if (!lo.ok()) return lo.status();
    absl::StatusOr<const JsonValue*> hi = Member(v, where, hi_key, Kind::kNumber);
    if (!hi.ok()) return hi.status();
    const float a = static_cast<float>((*lo)->number), b = static_cast<float>((*hi)->number);
    if (!std::isfinite(a) || !std::isfinite(b) || a > b) {
      return Error(where, absl::StrCat("the range [", (*lo)->number, ", ", (*hi)->number,
                                       "] must be finite with ", lo_key, " <= ", hi_key));
    }
    return std::make_pair(a, b);
  }

 private:
  std::string path_;
};

}  // namespace

absl::StatusOr<QuantizationFile> ParseQuantizationFile(absl::string_view text,
                                                       absl::string_view path) {
  Reader r(path);
  absl::StatusOr<JsonValue> doc = ParseJson(text);
  if (!doc.ok()) return r.Error("", doc.status().message());
  if (doc->kind != Kind::kObject) return r.Error("", "the top level must be an object");
  if (absl::Status s = r.OnlyKeys(*doc, "", {"format", "version", "model", "nodes"}); !s.ok()) {
    return s;
  }
  absl::StatusOr<const JsonValue*> format = r.Member(*doc, "", "format", Kind::kString);
  if (!format.ok()) return format.status();
  if ((*format)->string != kQuantizationFormat) {
    return r.Error("", absl::StrCat("\"format\" must be \"", kQuantizationFormat, "\", got \"",
                                    (*format)->string, "\""));
  }
  absl::StatusOr<uint64_t> version = r.Whole(*doc, "", "version", 1e9);
  if (!version.ok()) return version.status();
  if (*version != 1) {
    return r.Error("", absl::StrCat("version ", *version, " is newer than this smrt reads (1)"));
  }
  QuantizationFile file;
  absl::StatusOr<const JsonValue*> model = r.Member(*doc, "", "model", Kind::kObject);
  if (!model.ok()) return model.status();
  if (absl::Status s = r.OnlyKeys(**model, "model", {"saved_model_crc32c", "saved_model_bytes"});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<uint64_t> crc = r.Whole(**model, "model", "saved_model_crc32c", 4294967295.0);
  if (!crc.ok()) return crc.status();
  absl::StatusOr<uint64_t> bytes = r.Whole(**model, "model", "saved_model_bytes", 9.0e15);
  if (!bytes.ok()) return bytes.status();
  file.model_crc32c = static_cast<uint32_t>(*crc);
  file.model_bytes = *bytes;
  absl::StatusOr<const JsonValue*> nodes = r.Member(*doc, "", "nodes", Kind::kObject);
  if (!nodes.ok()) return nodes.status();
  for (const auto& [name, v] : (*nodes)->object) {
    const std::string where = absl::StrCat("node \"", name, "\"");
    if (v.kind != Kind::kObject) return r.Error(where, "must be an object");
    if (absl::Status s = r.OnlyKeys(v, where, {"op", "float", "min", "max", "out_min", "out_max"});
        !s.ok()) {
      return s;
    }
    QuantizationFile::Node node;
    if (v.Find("op") != nullptr) {
      absl::StatusOr<const JsonValue*> op = r.Member(v, where, "op", Kind::kString);
      if (!op.ok()) return op.status();
      node.op = (*op)->string;
    }
    if (v.Find("float") != nullptr) {
      absl::StatusOr<const JsonValue*> f = r.Member(v, where, "float", Kind::kBool);
      if (!f.ok()) return f.status();
      node.keep_float = (*f)->boolean;
    }
    const bool has_range = v.Find("min") != nullptr || v.Find("max") != nullptr;
    if (!node.keep_float || has_range) {
      absl::StatusOr<std::pair<float, float>> range = r.Range(v, where, "min", "max");
      if (!range.ok()) return range.status();
      std::tie(node.min, node.max) = *range;
    }
    if (v.Find("out_min") != nullptr || v.Find("out_max") != nullptr) {
      absl::StatusOr<std::pair<float, float>> range = r.Range(v, where, "out_min", "out_max");
      if (!range.ok()) return range.status();
      std::tie(node.out_min, node.out_max) = *range;
      node.has_output_range = true;
    }
    file.nodes.emplace(name, std::move(node));
  }
  return file;
}

absl::StatusOr<QuantizationFile> ReadQuantizationFile(const std::string& path) {
  // Ranges of a few thousand nodes are well under this.
  absl::StatusOr<std::string> text = file::ReadAll(path, uint64_t{64} << 20);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("quantization file: ", text.status().message()));
  }
  return ParseQuantizationFile(*text, path);
}

absl::Status CheckQuantizationModel(const QuantizationFile& file, absl::string_view path,
                                    absl::string_view model_dir, uint32_t crc32c, uint64_t bytes) {
  if (file.model_crc32c == crc32c && file.model_bytes == bytes) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "quantization file ", path, " was made for another model: it records saved_model.pb of ",
      file.model_bytes, " bytes with crc32c ", file.model_crc32c, ", but ", model_dir, " has ",
      bytes, " bytes with crc32c ", crc32c, "; run `smrt quantize` on this model to make one"));
}

}  // namespace smrt::passes
