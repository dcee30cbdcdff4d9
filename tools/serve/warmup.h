// TF Serving's model warm-up: the requests in a version's
// assets.extra/tf_serving_warmup_requests (a TFRecord file of PredictionLog
// records) run on the new version before it serves, so that its first real
// requests do not pay for first-call work (plans, kernel choices, caches).
#ifndef SMRT_TOOLS_SERVE_WARMUP_H_
#define SMRT_TOOLS_SERVE_WARMUP_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serve/servable.h"

namespace smrt::serve {

// "assets.extra/tf_serving_warmup_requests" under a version folder.
inline constexpr char kWarmupFile[] = "assets.extra/tf_serving_warmup_requests";
// TF Serving's WarmupConsts::kMaxNumRecords.
inline constexpr int kMaxWarmupRecords = 1000;

// The records of a TFRecord file's bytes, each checked as TensorFlow's
// RecordReader checks it: an 8-byte little-endian length, the masked crc32c
// of those 8 bytes, the data, the masked crc32c of the data. DataLoss
// "corrupted record at OFFSET" for a crc that does not match, "truncated
// record at OFFSET" for a file that ends inside a record.
absl::StatusOr<std::vector<std::string>> ReadTFRecords(std::string_view bytes);

// One TFRecord as TensorFlow's RecordWriter writes it (tests, tools).
std::string TFRecord(std::string_view data);

// Runs the servable's warm-up requests (Predict, Classify, Regress and
// MultiInference logs), each once; OK when the folder has no warm-up file.
// The first failing request's error fails it (the version then does not
// serve); a file that is not TFRecord fails with TF Serving's DataLoss text
// ("... Please verify your warmup data is in TFRecord format."), more than
// kMaxWarmupRecords records with InvalidArgument.
absl::Status RunWarmup(const Servable& servable);

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_WARMUP_H_
