// The image decoders (DecodeImage, DecodeJpeg and ExtractJpegShape, on
// libjpeg-turbo and libpng) on fuzzed bytes, through the committed zoo model
// that takes encoded images: the whole input is the one image of a batch of
// one, for both of its signatures. Seeds: the committed JPEG and PNG files.
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const smrt::Model* model = [] {
    absl::StatusOr<std::unique_ptr<smrt::Model>> m = smrt::Model::Load(
        std::string(SMRT_FUZZ_DATA_DIR) + "/zoo/image_bytes_classifier/saved_model",
        smrt::fuzz::TightOptions());
    return m.ok() ? m->release() : nullptr;
  }();
  if (model == nullptr) return 0;
  absl::StatusOr<smrt::Tensor> images = smrt::Tensor::Create(smrt::DataType::kString, {1});
  if (!images.ok()) return 0;
  images->data<std::string>()[0].assign(reinterpret_cast<const char*>(data), size);
  (void)model->Run("serving_default", {{"images", *images}});
  (void)model->Run("jpeg", {{"jpegs", *images}});
  return 0;
}
