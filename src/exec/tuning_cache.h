// The store behind kernels::TuningCache: measured kernel choices (cuDNN
// algorithms per convolution shape) in memory, and on disk when a directory
// is given (LoadOptions::cache_dir, SMRT_CACHE_DIR), so that a second process
// loading the same model on the same machine skips the measuring and its
// first run is as fast as its hundredth.
//
// One file per model: <dir>/<model hash>.smrt-tune. Its first line names the
// scope the choices were measured in (device, CUDA/cuDNN/cuBLAS and smrt
// versions); a file from another scope is stale, one whose checksum does not
// match is corrupt: either is ignored with a warning (core/log.h) and replaced
// at the next Store. Writes go to a temporary file renamed over the old one,
// so a reader never sees half a file.
#ifndef SMRT_EXEC_TUNING_CACHE_H_
#define SMRT_EXEC_TUNING_CACHE_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace smrt::exec {

class FileTuningCache final : public kernels::TuningCache {
 public:
  // `dir` empty: memory only. `model_key` names the model (a hash of its
  // graph); `scope` is everything else a choice depends on.
  static std::unique_ptr<FileTuningCache> Open(const std::string& dir,
                                               const std::string& model_key,
                                               const std::string& scope);

  std::optional<std::string> Lookup(absl::string_view key) const override;
  void Store(absl::string_view key, absl::string_view value) override;

  const std::string& path() const { return path_; }  // "" when memory only
  size_t size() const;
  // What was wrong with the file found at Open ("" when nothing was).
  const std::string& load_warning() const { return load_warning_; }

 private:
  FileTuningCache(std::string path, std::string scope)
      : path_(std::move(path)), scope_(std::move(scope)) {}
  void Load();
  std::string Serialize() const;  // with mu_ held

  const std::string path_;
  const std::string scope_;
  std::string load_warning_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> entries_;
};

// The scope of CPU kernel choices: the CPU's model and cores, oneDNN's
// version and the ISA its kernels use.
std::string CpuTuningScope();

// The model key of a SavedModel: the crc32c and length of its saved_model.pb
// (loader::FileChecksum, taken as the loader read it).
std::string ModelKey(uint32_t crc32c, uint64_t size);

}  // namespace smrt::exec

#endif  // SMRT_EXEC_TUNING_CACHE_H_
