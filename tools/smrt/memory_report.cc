#include "smrt/memory_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace smrt::cli {

absl::StatusOr<Shape> BatchShape(const TensorSpec& spec, int64_t batch) {
  if (!spec.known_rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", spec.name, "' has unknown rank: give its shape explicitly"));
  }
  Shape shape;
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    const int64_t d = spec.shape[i];
    shape.push_back(d >= 0 ? d : (i == 0 ? batch : 1));
  }
  return shape;
}

std::vector<SignatureMemory> PlanSignatures(const Model& model,
                                            const std::vector<std::string>& keys, int64_t batch) {
  std::vector<SignatureMemory> result;
  for (const std::string& key : keys) {
    SignatureMemory m;
    m.key = key;
    m.batch = batch;
    absl::StatusOr<const SignatureInfo*> sig = model.signature(key);
    if (!sig.ok()) {
      m.error = std::string(sig.status().message());
      result.push_back(std::move(m));
      continue;
    }
    for (const TensorSpec& spec : (*sig)->inputs) {
      absl::StatusOr<Shape> shape = BatchShape(spec, batch);
      if (!shape.ok()) {
        m.error = std::string(shape.status().message());
        break;
      }
      m.input_shapes[spec.name] = *shape;
    }
    if (m.error.empty()) {
      absl::StatusOr<MemoryPlan> plan = model.PlanMemory(key, m.input_shapes);
      if (plan.ok()) {
        m.plan = *std::move(plan);
      } else {
        m.error = std::string(plan.status().message());
      }
    }
    result.push_back(std::move(m));
  }
  return result;
}

std::string ByteCount(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 30)) return absl::StrFormat("%d B (%.2f GiB)", bytes, b / (1 << 30));
  if (bytes >= (1 << 20)) return absl::StrFormat("%d B (%.2f MiB)", bytes, b / (1 << 20));
  if (bytes >= (1 << 10)) return absl::StrFormat("%d B (%.1f KiB)", bytes, b / 1024);
  return absl::StrCat(bytes, " B");
}

}  // namespace smrt::cli
