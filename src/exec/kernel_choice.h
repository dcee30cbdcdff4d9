// Which of several CPU kernels runs a node. oneDNN's primitives are the
// preferred kernels for convolutions, matmuls, softmax and attention, but
// they are not the fastest at every shape: a batch-1 dense layer runs faster
// through sgemm and the reference post-ops on some machines. Where a kernel
// that may beat the preferred one also serves a node (KernelSpec::contends:
// the reference fused matmul and attention; not the reference convolutions,
// 1.4-3x slower at every shape BM_ConvBnRelu_Fused tries and far slower
// depthwise), a KernelChoice measures both on the node's real inputs the
// first time a set of input shapes reaches it and keeps the faster one for
// those shapes (at times within 5 %, the one whose KernelState holds less
// memory): in the node, in a table the whole process
// shares (so every model in a process agrees, bit for bit, on a shape), and
// in the model's tuning cache (kernels::TuningCache; on disk with
// LoadOptions::cache_dir), so a second process does not measure again.
#ifndef SMRT_EXEC_KERNEL_CHOICE_H_
#define SMRT_EXEC_KERNEL_CHOICE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace smrt::exec {

// LoadOptions::cpu_kernels: "measure" (the default), "preferred" (always
// the highest-priority kernel, as registered), or a backend's name
// ("onednn", "reference"): that backend's kernel wherever it has one, for
// bisecting a wrong answer to a backend.
inline constexpr char kMeasureKernels[] = "measure";
inline constexpr char kPreferredKernels[] = "preferred";

// InvalidArgument naming the accepted values when `mode` is none of them.
absl::Status CheckCpuKernelMode(absl::string_view mode);

class KernelChoice {
 public:
  // `candidates`: at least two, highest priority first; `cache` may be null.
  KernelChoice(std::vector<const kernels::KernelSpec*> candidates, kernels::TuningCache* cache);

  struct Pick {
    const kernels::KernelSpec* kernel = nullptr;
    kernels::KernelState* state = nullptr;  // valid while the KernelChoice lives
  };
  // The kernel for a call of `node` on `inputs`. The first call with these
  // input shapes finds the choice in the process's table or the tuning cache,
  // else measures: each candidate runs on copies of the inputs' handles (so
  // none writes in place over them) into outputs of its own, which are then
  // dropped. A candidate that fails is not chosen; when every one fails, the
  // preferred one is, and the caller's call reports its error.
  Pick For(const graph::Node& node, const std::vector<Tensor>& inputs,
           const std::vector<kernels::Resource*>& resources);

  // The backend chosen per set of input shapes so far ("onednn", "reference").
  std::map<std::vector<Shape>, std::string> Choices() const;

  // Past this many shape sets a node takes the preferred kernel for new ones
  // unmeasured (a model fed ever new shapes would otherwise keep measuring).
  static constexpr size_t kMaxShapes = 64;

 private:
  struct Candidate {
    const kernels::KernelSpec* spec;
    std::shared_ptr<kernels::KernelState> state;  // made on first use
    int chosen = 0;                               // shape sets it runs
  };
  int Measure(const graph::Node& node, const std::vector<Tensor>& inputs,
              const std::vector<kernels::Resource*>& resources);
  kernels::KernelState* StateOf(Candidate& c);

  mutable std::mutex mu_;
  std::vector<Candidate> candidates_;
  kernels::TuningCache* cache_;
  std::map<std::vector<Shape>, int> chosen_;  // input shapes -> candidate
  bool pinned_preferred_ = false;  // past kMaxShapes: the preferred kernel keeps its state
};

// How a CPU node gets its kernel under `mode`, from `candidates` (every
// kernel that serves it, highest priority first; KernelRegistry::FindKernels):
// `fixed` when that is decided now, else `choice`, which measures the
// preferred kernel against the ones that contend with it. Both null when
// there are no candidates.
struct CpuKernel {
  const kernels::KernelSpec* fixed = nullptr;
  std::shared_ptr<KernelChoice> choice;
};
CpuKernel ChooseCpuKernel(absl::string_view mode,
                          const std::vector<const kernels::KernelSpec*>& candidates,
                          kernels::TuningCache* cache);

}  // namespace smrt::exec

#endif  // SMRT_EXEC_KERNEL_CHOICE_H_
