// TF1 while-loop frames, statically, as TensorFlow's executor assigns them:
// a node runs in the frame of its inputs (data and control; a NextIteration
// -> Merge back edge aside), an Enter's outputs are in the frame it names (a
// child of the frame the Enter is in), an Exit's in its frame's parent. The
// dataflow executor builds its plan from this, and the pass pipeline checks
// with it that a rewrite left every node in one frame.
#ifndef SMRT_GRAPH_FRAMES_H_
#define SMRT_GRAPH_FRAMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace smrt::graph {

struct LoopFrames {
  struct Frame {
    std::string name;  // the Enters' frame_name; "" for the root
    int parent = -1;
    int num_enters = 0;
    int parallel_iterations = 10;  // the first Enter's attr (at least 1)
  };
  std::vector<Frame> frames;  // [0]: the root frame
  // By position in the order given: the frame a node runs in, the frame of
  // its outputs, and for an Enter the frame it enters (else -1).
  std::vector<int> in_frame, out_frame, child_frame;

  // "the root frame" or "frame 'name'", for messages.
  std::string Describe(int frame) const;
};

// The frames of `order`'s nodes (every input of a node comes before it, back
// edges aside: DataflowOrder). InvalidArgument naming the node when a node
// has inputs from two frames, an Enter has no frame_name or enters a frame
// from another parent than its siblings, an Exit or NextIteration is outside
// any loop, or a Merge's NextIteration input is in another frame.
absl::StatusOr<LoopFrames> AssignFrames(const Graph& g, const std::vector<NodeId>& order);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_FRAMES_H_
