#include "loader/saved_model_reader.h"

#include <climits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/crc32c.h"
#include "core/file.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "loader/tf_any.h"

namespace smrt::loader {
namespace {

// Collects text-format parse errors into one message.
class TextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) {
      first_ = absl::StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

absl::StatusOr<tfproto::SavedModel> ReadSavedModelProto(const std::string& dir, uint64_t max_bytes,
                                                        FileChecksum* checksum, const Env& env) {
  if (!env.IsDirectory(dir)) {
    return absl::NotFoundError(absl::StrCat("SavedModel directory ", dir,
                                            " does not exist or is not a directory"));
  }
  tfproto::SavedModel model;
  const std::string pb = file::JoinPath(dir, kSavedModelPb);
  if (env.Exists(pb)) {
    if (max_bytes > static_cast<uint64_t>(INT_MAX)) max_bytes = INT_MAX;
    absl::StatusOr<std::string> bytes = env.ReadAll(pb, max_bytes);
    if (!bytes.ok()) return bytes.status();
    if (checksum != nullptr) *checksum = {crc32c::Value(bytes->data(), bytes->size()), bytes->size()};
    google::protobuf::io::CodedInputStream in(
        reinterpret_cast<const uint8_t*>(bytes->data()), static_cast<int>(bytes->size()));
    in.SetTotalBytesLimit(INT_MAX);
    if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      return absl::InvalidArgumentError(absl::StrCat(
          pb, " is not a valid SavedModel protobuf (", bytes->size(),
          " bytes; truncated or not a saved_model.pb?)"));
    }
    return model;
  }
  const std::string pbtxt = file::JoinPath(dir, kSavedModelPbtxt);
  if (env.Exists(pbtxt)) {
    absl::StatusOr<std::string> text = env.ReadAll(pbtxt, max_bytes);
    if (!text.ok()) return text.status();
    if (checksum != nullptr) *checksum = {crc32c::Value(text->data(), text->size()), text->size()};
    google::protobuf::TextFormat::Parser parser;
    const TensorFlowAnyFinder finder;  // "[type.googleapis.com/tensorflow.X] { ... }"
    parser.SetFinder(&finder);
    TextErrors errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(*text, &model)) {
      return absl::InvalidArgumentError(
          absl::StrCat(pbtxt, " is not a valid text SavedModel: ", errors.first()));
    }
    return model;
  }
  return absl::NotFoundError(absl::StrCat("no ", kSavedModelPb, " or ",
                                          kSavedModelPbtxt, " in ", dir));
}

}  // namespace smrt::loader
