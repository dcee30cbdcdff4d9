#include "serve/servable.h"

#include <utility>

#include "serve/batcher.h"
#include "serve/inference.h"

namespace smrt::serve {

Servable::Servable(std::string name, int64_t version, std::string dir,
                   std::unique_ptr<smrt::Model> model, std::unique_ptr<Batcher> batcher,
                   Metrics* metrics)
    : name_(std::move(name)),
      version_(version),
      dir_(std::move(dir)),
      model_(std::move(model)),
      batcher_(std::move(batcher)),
      metrics_(metrics) {}

// The batcher goes first (members are destroyed in reverse order): its
// workers run on model_.
Servable::~Servable() = default;

absl::StatusOr<smrt::NamedTensors> Servable::Run(std::string_view signature,
                                                 const smrt::NamedTensors& inputs) const {
  const std::string key = SignatureOrDefault(signature);
  if (batcher_ != nullptr) return batcher_->Run(key, inputs);
  return model_->Run(key, inputs);
}

}  // namespace smrt::serve
