// DecodeWav (and the AudioSpectrogram and Mfcc after it) on fuzzed bytes, through the
// committed speech-commands zoo model: the whole input is its one WAV string. Seeds: the
// WAV files of the audio goldens (TensorFlow's, hand-made and malformed) and the model's
// own inputs.
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const smrt::Model* model = [] {
    absl::StatusOr<std::unique_ptr<smrt::Model>> m = smrt::Model::Load(
        std::string(SMRT_FUZZ_DATA_DIR) + "/zoo/speech_commands_mfcc/saved_model",
        smrt::fuzz::TightOptions());
    return m.ok() ? m->release() : nullptr;
  }();
  if (model == nullptr) return 0;
  absl::StatusOr<smrt::Tensor> wav = smrt::Tensor::Create(smrt::DataType::kString, {});
  if (!wav.ok()) return 0;
  wav->data<std::string>()[0].assign(reinterpret_cast<const char*>(data), size);
  (void)model->Run("serving_default", {{"wav_data", *wav}});
  return 0;
}
