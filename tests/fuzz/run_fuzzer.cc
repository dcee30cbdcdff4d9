// Run with fuzzed inputs on small committed models: the first byte picks the
// model, the rest become the signature's inputs (unknown dims, values).
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz_util.h"

namespace {

std::vector<std::unique_ptr<smrt::Model>>& Models() {
  static auto* models = [] {
    auto* m = new std::vector<std::unique_ptr<smrt::Model>>;
    const std::string data = SMRT_FUZZ_DATA_DIR;
    for (const char* dir :
         {"bad/gather_indices", "bad/gather_nd_indices", "bad/one_hot", "bad/scatter_nd_indices",
          "bad/strided_slice", "bad/reshape_input", "bad/fill_input", "bad/tile_input",
          "bad/range_input", "bad/broadcast_to_input", "bad/numerics", "bad/zero_size",
          "bad/while_forever", "zoo/mlp_bn_dropout/saved_model", "zoo/text_vectorization/saved_model",
          "zoo/tf1_predict_classify/saved_model", "../../examples/models/digits"}) {
      absl::StatusOr<std::unique_ptr<smrt::Model>> model =
          smrt::Model::Load(data + "/" + dir, smrt::fuzz::TightOptions());
      if (model.ok()) m->push_back(*std::move(model));
    }
    return m;
  }();
  return *models;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::unique_ptr<smrt::Model>>& models = Models();
  if (size < 1 || models.empty()) return 0;
  const smrt::Model& model = *models[data[0] % models.size()];
  FuzzedDataProvider bytes(data + 1, size - 1);
  smrt::fuzz::RunAll(model, bytes);
  return 0;
}
