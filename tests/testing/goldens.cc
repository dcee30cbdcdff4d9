#include "testing/goldens.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "testing/paths.h"

namespace smrt::testing {
namespace fs = std::filesystem;

std::vector<GoldenCase> ListGoldenCases(const std::string& prefix) {
  std::vector<GoldenCase> cases;
  const fs::path root = fs::path(TestDataDir()) / "goldens";
  if (!fs::is_directory(root)) return cases;
  for (const auto& model_entry : fs::directory_iterator(root)) {
    if (!model_entry.is_directory()) continue;
    std::string model = absl::StrReplaceAll(model_entry.path().filename().string(), {{"__", "/"}});
    if (!absl::StartsWith(model, prefix)) continue;
    for (const auto& sig_entry : fs::directory_iterator(model_entry.path())) {
      if (!sig_entry.is_directory() || !fs::is_directory(sig_entry.path() / "outputs")) continue;
      GoldenCase c;
      // Inputs too large to store are generated from a formula.
      absl::StatusOr<std::string> manifest =
          file::ReadAll((sig_entry.path() / "manifest.json").string());
      google::protobuf::Struct root;
      if (manifest.ok() && google::protobuf::util::JsonStringToMessage(*manifest, &root).ok()) {
        auto inputs = root.fields().find("inputs");
        if (inputs != root.fields().end()) {
          for (const auto& in : inputs->second.list_value().values()) {
            const auto& f = in.struct_value().fields();
            auto pattern = f.find("pattern");
            if (pattern == f.end() || pattern->second.string_value() != "mod1009_v1") continue;
            Shape shape;
            for (const auto& d : f.at("shape").list_value().values()) {
              shape.push_back(static_cast<int64_t>(d.number_value()));
            }
            c.generated_inputs[f.at("name").string_value()] = shape;
          }
        }
        auto outputs = root.fields().find("outputs");
        if (outputs != root.fields().end()) {
          for (const auto& o : outputs->second.list_value().values()) {
            const auto& f = o.struct_value().fields();
            auto strided = f.find("strided_file");
            if (strided == f.end()) continue;
            c.strided_outputs[f.at("name").string_value()] = {
                (sig_entry.path() / "outputs" / strided->second.string_value()).string(),
                static_cast<int64_t>(f.at("stride").number_value())};
          }
        }
      }
      c.model = model;
      c.model_dir = SharedModel(model);
      c.signature = absl::StrReplaceAll(sig_entry.path().filename().string(), {{"__", "/"}});
      c.case_dir = sig_entry.path().string();
      if (fs::is_directory(sig_entry.path() / "inputs")) {
        for (const auto& f : fs::directory_iterator(sig_entry.path() / "inputs")) {
          c.input_files[f.path().stem().string()] = f.path().string();
        }
      }
      for (const auto& f : fs::directory_iterator(sig_entry.path() / "outputs")) {
        if (f.path().extension() == ".npy" && f.path().stem().extension().empty()) {
          c.output_files[f.path().stem().string()] = f.path().string();
        }
      }
      cases.push_back(std::move(c));
    }
  }
  std::sort(cases.begin(), cases.end(), [](const GoldenCase& a, const GoldenCase& b) {
    return std::tie(a.model, a.signature) < std::tie(b.model, b.signature);
  });
  return cases;
}

absl::StatusOr<std::vector<std::string>> ReadLengthPrefixed(const std::string& path) {
  absl::StatusOr<std::string> bytes = file::ReadAll(path);
  if (!bytes.ok()) return bytes.status();
  std::vector<std::string> items;
  size_t at = 0;
  while (at < bytes->size()) {
    if (bytes->size() - at < 4) return absl::DataLossError(absl::StrCat(path, ": truncated"));
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>((*bytes)[at + i])) << (8 * i);
    at += 4;
    if (bytes->size() - at < n) return absl::DataLossError(absl::StrCat(path, ": truncated"));
    items.push_back(bytes->substr(at, n));
    at += n;
  }
  return items;
}

absl::StatusOr<Tensor> ReadGoldenTensor(const std::string& path) {
  if (absl::EndsWith(path, ".npy")) return npy::Read(path);
  absl::StatusOr<std::vector<std::string>> items = ReadLengthPrefixed(path);
  if (!items.ok()) return items.status();
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {static_cast<int64_t>(items->size())});
  if (!t.ok()) return t.status();
  for (size_t i = 0; i < items->size(); ++i) t->data<std::string>()[i] = (*items)[i];
  return t;
}

absl::StatusOr<Shape> ManifestShape(const std::string& manifest, const std::string& name) {
  google::protobuf::Struct root;
  if (!google::protobuf::util::JsonStringToMessage(manifest, &root).ok()) {
    return absl::DataLossError("manifest is not valid JSON");
  }
  for (const char* side : {"inputs", "outputs"}) {
    auto list = root.fields().find(side);
    if (list == root.fields().end()) continue;
    for (const auto& entry : list->second.list_value().values()) {
      const auto& f = entry.struct_value().fields();
      auto n = f.find("name");
      if (n == f.end() || n->second.string_value() != name) continue;
      auto dims = f.find("shape");
      if (dims == f.end()) return absl::NotFoundError(absl::StrCat("no shape for ", name));
      Shape shape;
      for (const auto& d : dims->second.list_value().values()) {
        shape.push_back(static_cast<int64_t>(d.number_value()));
      }
      return shape;
    }
  }
  return absl::NotFoundError(absl::StrCat("no entry ", name));
}

Tensor GeneratedInput(const Shape& shape) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kFloat, shape);
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    t->data<float>()[i] = static_cast<float>(static_cast<double>((i * 7919) % 1009) / 1008.0);
  }
  return *t;
}

bool BitIdentical(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.byte_size() == b.byte_size() &&
         (a.byte_size() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0);
}

Tensor ReadGolden(const std::string& relative) {
  absl::StatusOr<Tensor> t = npy::Read(absl::StrCat(TestDataDir(), "/", relative, ".npy"));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

RecGoldens::RecGoldens(const std::string& path) {
  absl::StatusOr<std::vector<std::string>> recs = ReadLengthPrefixed(path);
  if (!recs.ok()) {
    ADD_FAILURE() << recs.status();
    return;
  }
  for (size_t i = 0; i + 2 < recs->size();) {
    Entry e;
    const std::string name = (*recs)[i];
    e.dtype = (*recs)[i + 1];
    for (absl::string_view d : absl::StrSplit((*recs)[i + 2], ' ', absl::SkipEmpty())) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << path << ": " << name << " has shape "
                                           << (*recs)[i + 2];
      e.shape.push_back(v);
    }
    i += 3;
    size_t count = 1;
    if (e.dtype == "string") {
      for (int64_t d : e.shape) count *= static_cast<size_t>(d);
    }
    for (size_t k = 0; k < count && i < recs->size(); ++k) e.records.push_back((*recs)[i++]);
    entries_[name] = std::move(e);
  }
}

Tensor RecGoldens::Get(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    ADD_FAILURE() << "no golden tensor " << name;
    return Tensor();
  }
  const Entry& e = it->second;
  static const std::map<std::string, DataType> kTypes = {
      {"string", DataType::kString}, {"float32", DataType::kFloat},
      {"float64", DataType::kDouble}, {"int32", DataType::kInt32},
      {"int64", DataType::kInt64},   {"bool", DataType::kBool},
      {"uint32", DataType::kUInt32}, {"uint64", DataType::kUInt64},
      {"int8", DataType::kInt8},     {"uint8", DataType::kUInt8},
      {"int16", DataType::kInt16},   {"uint16", DataType::kUInt16}};
  auto type = kTypes.find(e.dtype);
  if (type == kTypes.end()) {
    ADD_FAILURE() << name << " has dtype " << e.dtype;
    return Tensor();
  }
  absl::StatusOr<Tensor> t = Tensor::Create(type->second, e.shape);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return Tensor();
  if (type->second == DataType::kString) {
    EXPECT_EQ(e.records.size(), static_cast<size_t>(t->num_elements())) << name;
    for (size_t i = 0; i < e.records.size() && i < static_cast<size_t>(t->num_elements()); ++i) {
      t->data<std::string>()[i] = e.records[i];
    }
  } else {
    EXPECT_EQ(e.records.size(), 1u) << name;
    if (e.records.size() != 1 || e.records[0].size() != t->byte_size()) {
      ADD_FAILURE() << name << ": " << e.records.size() << " payloads for " << t->byte_size()
                    << " bytes";
      return Tensor();
    }
    std::memcpy(t->raw_data(), e.records[0].data(), t->byte_size());
  }
  return *t;
}

std::string RecGoldens::GetString(const std::string& name) const {
  Tensor t = Get(name);
  return t.valid() && t.num_elements() > 0 ? t.data<std::string>()[0] : std::string();
}

std::map<std::string, Tensor> RecGoldens::All() const {
  std::map<std::string, Tensor> all;
  for (const auto& entry : entries_) all[entry.first] = Get(entry.first);
  return all;
}

void RecGoldens::ExpectError(const std::string& name, const absl::Status& status,
                             absl::StatusCode code) const {
  const std::string want = GetString(name + ".error");
  ASSERT_FALSE(status.ok()) << name << " should fail with: " << want;
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), want)) << status << "\nwant: " << want;
}

}  // namespace smrt::testing
