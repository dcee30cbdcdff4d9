#include "fuzz_util.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace smrt::fuzz {

LoadOptions TightOptions() {
  LoadOptions o;
  o.limits.max_tensor_bytes = 16 << 20;
  o.limits.max_model_bytes = 64 << 20;
  o.limits.max_nodes = 20000;
  o.limits.max_function_depth = 8;
  o.limits.max_while_iterations = 1000;
  o.limits.memory_limit_bytes = 256 << 20;
  return o;
}

const std::string& ScratchDir() {
  static const std::string* dir = [] {
    std::string d = std::filesystem::temp_directory_path().string() + "/smrt_fuzz_" +
                    std::to_string(getpid());
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    static std::string keep = d;
    std::atexit([] { std::filesystem::remove_all(keep); });
    return new std::string(d);
  }();
  return *dir;
}

NamedTensors MakeInputs(const SignatureInfo& sig, FuzzedDataProvider& bytes) {
  NamedTensors inputs;
  for (const TensorSpec& spec : sig.inputs) {
    Shape shape;
    if (spec.known_rank) {
      shape = spec.shape;
    } else {
      shape.resize(bytes.ConsumeIntegralInRange<int>(0, 3), -1);
    }
    int64_t n = 1;
    for (int64_t& d : shape) {
      if (d < 0) d = bytes.ConsumeIntegralInRange<int64_t>(0, 4);
      n *= d;
    }
    if (n > 4096) continue;  // a fixed big input dim: leave it missing
    absl::StatusOr<Tensor> t = Tensor::Create(spec.dtype, shape);
    if (!t.ok()) continue;
    if (spec.dtype == DataType::kString) {
      for (int64_t i = 0; i < n; ++i) t->data<std::string>()[i] = bytes.ConsumeRandomLengthString(16);
    } else if (IsFixedSize(spec.dtype) && t->byte_size() > 0) {
      std::vector<uint8_t> raw = bytes.ConsumeBytes<uint8_t>(t->byte_size());
      std::memcpy(t->raw_data(), raw.data(), raw.size());
      if (spec.dtype == DataType::kBool) {  // only 0 and 1 are valid bools
        for (int64_t i = 0; i < n; ++i) t->data<uint8_t>()[i] &= 1;
      }
    }
    inputs[spec.name] = *std::move(t);
  }
  return inputs;
}

void RunAll(const Model& model, FuzzedDataProvider& bytes) {
  for (const std::string& key : model.signature_keys()) {
    absl::StatusOr<const SignatureInfo*> sig = model.signature(key);
    if (!sig.ok()) continue;
    NamedTensors inputs = MakeInputs(**sig, bytes);
    (void)model.Run(key, inputs);
  }
}

}  // namespace smrt::fuzz
