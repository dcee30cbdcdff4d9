// Predicted memory of a model's signatures, for `smrt show --memory` and
// `smrt doctor`: weight bytes and the planned activation peak
// (Model::PlanMemory) for inputs shaped at a batch size.
#ifndef SMRT_TOOLS_MEMORY_REPORT_H_
#define SMRT_TOOLS_MEMORY_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/memory_plan.h"
#include "smrt/model.h"

namespace smrt::cli {

// The shape smrt bench generates for an input: unknown dims become `batch`
// (the first) or 1. InvalidArgument for an input of unknown rank.
absl::StatusOr<Shape> BatchShape(const TensorSpec& spec, int64_t batch);

struct SignatureMemory {
  std::string key;
  int64_t batch = 1;
  std::map<std::string, Shape> input_shapes;
  std::string error;  // why there is no plan (e.g. an input of unknown rank); empty when planned
  MemoryPlan plan;    // when error is empty
  // What the signature needs at once: weights plus the activation arena
  // (feeds and fetched outputs excluded; they are the caller's).
  int64_t predicted_bytes() const { return plan.weight_bytes + plan.peak_bytes; }
};

// Plans each of `keys` (signatures of `model`) at `batch`, in order.
std::vector<SignatureMemory> PlanSignatures(const Model& model,
                                            const std::vector<std::string>& keys, int64_t batch);

// "1105920 B (1.05 MiB)".
std::string ByteCount(int64_t bytes);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_MEMORY_REPORT_H_
