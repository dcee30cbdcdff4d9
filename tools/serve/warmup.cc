#include "serve/warmup.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "api/cli_support.h"
#include "google/protobuf/unknown_field_set.h"
#include "serve/inference.h"
#include "smrt/serving/prediction_log.pb.h"

namespace smrt::serve {
namespace {

constexpr size_t kHeaderBytes = sizeof(uint64_t) + sizeof(uint32_t);
constexpr size_t kFooterBytes = sizeof(uint32_t);
// A warm-up file is a few requests; this bounds what a broken one costs.
constexpr uint64_t kMaxWarmupFileBytes = uint64_t{1} << 30;

uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void AppendFixed(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// TF Serving's RunWarmupRequest: the log's request on the servable.
absl::Status RunWarmupRequest(const Servable& servable,
                              const tensorflow::serving::PredictionLog& log) {
  switch (log.log_type_case()) {
    case tensorflow::serving::PredictionLog::kRegressLog: {
      const auto& request = log.regress_log().request();
      return Regress(servable, request.model_spec().signature_name(), request.input()).status();
    }
    case tensorflow::serving::PredictionLog::kClassifyLog: {
      const auto& request = log.classify_log().request();
      return Classify(servable, request.model_spec().signature_name(), request.input()).status();
    }
    case tensorflow::serving::PredictionLog::kPredictLog: {
      tensorflow::serving::PredictResponse response;
      return PredictRequestOn(servable, log.predict_log().request(), &response);
    }
    case tensorflow::serving::PredictionLog::kMultiInferenceLog:
      return MultiInference(servable, log.multi_inference_log().request()).status();
    default:
      break;
  }
  // Session-run (5) and streamed predict (7) logs are not declared in
  // prediction_log.proto: they parse as unknown fields.
  const google::protobuf::UnknownFieldSet& unknown = log.GetReflection()->GetUnknownFields(log);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const int number = unknown.field(i).number();
    if (number == 5 || number == 7) {
      return absl::UnimplementedError(
          absl::StrCat("Unsupported log_type for warmup: ", number,
                       number == 5 ? " (session_run_log)" : " (predict_streamed_log)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ReadTFRecords(std::string_view bytes) {
  std::vector<std::string> records;
  size_t offset = 0;
  while (offset < bytes.size()) {
    if (bytes.size() - offset < kHeaderBytes) {
      return absl::DataLossError(absl::StrCat("truncated record at ", offset));
    }
    const char* header = bytes.data() + offset;
    if (crc32c::Unmask(DecodeFixed32(header + 8)) != crc32c::Value(header, 8)) {
      return absl::DataLossError(absl::StrCat("corrupted record at ", offset));
    }
    const uint64_t length = DecodeFixed64(header);
    const size_t left = bytes.size() - offset - kHeaderBytes;
    if (length > left || left - length < kFooterBytes) {
      return absl::DataLossError(absl::StrCat("truncated record at ", offset));
    }
    const char* data = header + kHeaderBytes;
    if (crc32c::Unmask(DecodeFixed32(data + length)) != crc32c::Value(data, length)) {
      return absl::DataLossError(absl::StrCat("corrupted record at ", offset));
    }
    records.emplace_back(data, length);
    offset += kHeaderBytes + length + kFooterBytes;
  }
  return records;
}

std::string TFRecord(std::string_view data) {
  std::string out;
  AppendFixed(&out, data.size(), 8);
  AppendFixed(&out, crc32c::Mask(crc32c::Value(out.data(), 8)), 4);
  out.append(data);
  AppendFixed(&out, crc32c::Mask(crc32c::Value(data.data(), data.size())), 4);
  return out;
}

absl::Status RunWarmup(const Servable& servable) {
  const std::string path = file::JoinPath(servable.dir(), kWarmupFile);
  if (!file::Exists(path)) return absl::OkStatus();
  absl::StatusOr<std::string> bytes = file::ReadAll(path, kMaxWarmupFileBytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<std::vector<std::string>> records = ReadTFRecords(*bytes);
  if (!records.ok()) {
    return absl::DataLossError(
        absl::StrCat(records.status().message(), " in ", path,
                     ". Please verify your warmup data is in TFRecord format."));
  }
  int num_records = 0;
  for (const std::string& record : *records) {
    tensorflow::serving::PredictionLog log;
    if (!log.ParseFromString(record)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Failed to parse warmup record: ", absl::CHexEscape(record.substr(0, 64)),
                       record.size() > 64 ? "..." : "", " from ", path));
    }
    if (auto s = RunWarmupRequest(servable, log); !s.ok()) return s;
    if (++num_records > kMaxWarmupRecords) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of warmup records exceeds the maximum (", kMaxWarmupRecords, ") at ", path));
    }
  }
  if (LogEnabled(LogLevel::kInfo)) {
    Log(LogLevel::kInfo, absl::StrCat("Finished reading warmup data for model at ", path,
                                      ". Number of warmup records read: ", num_records, "."));
  }
  return absl::OkStatus();
}

}  // namespace smrt::serve
