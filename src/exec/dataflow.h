// TF1 dataflow control flow (Switch, Merge, Enter, Exit, NextIteration,
// LoopCond, ControlTrigger and their Ref* forms) executed the way
// TensorFlow's executor defines it: values are tagged with a frame (one per
// while loop instance) and an iteration, a node with a dead input is dead
// (except Merge, which forwards its first live input), and dead tensors
// never reach a fetch. Programs without these ops never come here: they run
// on Program's static schedule.
#ifndef SMRT_EXEC_DATAFLOW_H_
#define SMRT_EXEC_DATAFLOW_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/dataflow_order.h"
#include "graph/graph.h"

namespace smrt::exec {

class DataflowPlan {
 public:
  // `order` comes from graph::DataflowOrder. Checks statically that every node's
  // inputs come from one frame, that Exit and NextIteration are inside a
  // loop and that fetches are outside every loop (InvalidArgument naming
  // the node otherwise).
  static absl::StatusOr<std::unique_ptr<DataflowPlan>> Create(
      const graph::Graph& g, const std::vector<graph::NodeId>& order,
      const std::vector<graph::NodeId>& feeds, const std::vector<graph::Endpoint>& fetches);

  // Computes the node at `index` in `order` from its (live) inputs.
  using ComputeFn =
      std::function<absl::Status(int index, std::vector<Tensor> inputs, std::vector<Tensor>& out)>;

  // Runs with one tensor per feed (parallel to Create's feeds); returns one
  // tensor per fetch. InvalidArgument when a fetch is dead (on an untaken
  // branch), ResourceExhausted when one loop instance runs more iterations
  // than the current RunLimits' max_while_iterations, Cancelled or
  // DeadlineExceeded as the current RunControl says (checked at every
  // iteration).
  absl::StatusOr<std::vector<Tensor>> Run(const ComputeFn& compute,
                                          std::vector<Tensor> feeds) const;

  struct Edge {
    int dst;
    int src_slot;
    int dst_slot;
  };
  enum class Kind { kNormal, kSwitch, kMerge, kEnter, kExit, kNextIteration, kLoopCond,
                    kControlTrigger };
  struct NodeInfo {
    std::string name;
    std::string op;
    Kind kind = Kind::kNormal;
    int num_data_inputs = 0;
    int num_control_inputs = 0;
    int num_outputs = 0;
    std::vector<Edge> out_edges;
    std::vector<int> out_control;
    int feed = -1;          // index into the run's feeds, or -1
    int child_frame = -1;   // Enter: the static frame it enters
    bool is_constant = false;
  };
  struct FrameInfo {
    std::string name;
    int parent = -1;
    int num_enters = 0;
    int parallel_iterations = 10;
  };

 private:
  class Runner;
  DataflowPlan() = default;

  std::vector<NodeInfo> nodes_;
  std::vector<FrameInfo> frames_;  // 0: the root
  std::vector<int> roots_;         // nodes without inputs
  std::vector<std::pair<int, int>> fetches_;  // (node index, output)
  int num_feeds_ = 0;
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_DATAFLOW_H_
