#include "graph/frames.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/dataflow_order.h"

namespace smrt::graph {
namespace {

bool Is(absl::string_view op, absl::string_view base) {
  return op == base || (op.size() == base.size() + 3 && op.substr(0, 3) == "Ref" &&
                        op.substr(3) == base);
}

}  // namespace

std::string LoopFrames::Describe(int frame) const {
  if (frame == 0) return "the root frame";
  return absl::StrCat("frame '", frames[frame].name, "'");
}

absl::StatusOr<LoopFrames> AssignFrames(const Graph& g, const std::vector<NodeId>& order) {
  LoopFrames lf;
  lf.frames.push_back({"", -1, 0, 1});
  absl::flat_hash_map<NodeId, int> index;
  for (size_t i = 0; i < order.size(); ++i) index[order[i]] = static_cast<int>(i);
  lf.in_frame.assign(order.size(), -1);
  lf.out_frame.assign(order.size(), -1);
  lf.child_frame.assign(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const Node& n = g.node(order[i]);
    int& in = lf.in_frame[i];
    std::string first_input;
    auto take = [&](NodeId src) -> absl::Status {
      if (IsLoopBackEdge(g, src, n.id)) return absl::OkStatus();
      auto it = index.find(src);
      if (it == index.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n.name, "' reads '", g.node(src).name, "', which is not in the order"));
      }
      const int f = lf.out_frame[it->second];
      if (in < 0) {
        in = f;
        first_input = g.node(src).name;
      } else if (in != f) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n.name, "' (", n.op, ") has inputs from different while-loop frames: '",
            first_input, "' is in ", lf.Describe(in), ", '", g.node(src).name, "' in ",
            lf.Describe(f)));
      }
      return absl::OkStatus();
    };
    for (const Endpoint& e : n.inputs) {
      if (absl::Status s = take(e.node); !s.ok()) return s;
    }
    for (NodeId c : n.control_inputs) {
      if (absl::Status s = take(c); !s.ok()) return s;
    }
    if (in < 0) {
      if (Is(n.op, "Merge") && !n.inputs.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Merge '", n.name, "' has only NextIteration inputs: its loop has no Enter"));
      }
      in = 0;
    }
    lf.out_frame[i] = in;
    if (Is(n.op, "Enter")) {
      absl::StatusOr<std::string> name = n.attrs.Get<std::string>("frame_name");
      if (!name.ok() || name->empty()) {
        return absl::InvalidArgumentError(absl::StrCat("Enter '", n.name, "' has no frame_name"));
      }
      int child = -1;
      for (size_t f = 1; f < lf.frames.size(); ++f) {
        if (lf.frames[f].name != *name) continue;
        if (lf.frames[f].parent != in) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Enter '", n.name, "' enters frame '", *name, "' from ", lf.Describe(in),
              ", but other Enters of that frame are in ", lf.Describe(lf.frames[f].parent)));
        }
        child = static_cast<int>(f);
      }
      if (child < 0) {
        absl::StatusOr<int64_t> parallel = n.attrs.GetOr<int64_t>("parallel_iterations", 10);
        child = static_cast<int>(lf.frames.size());
        lf.frames.push_back(
            {*name, in, 0, parallel.ok() && *parallel > 0 ? static_cast<int>(*parallel) : 1});
      }
      ++lf.frames[child].num_enters;
      lf.child_frame[i] = child;
      lf.out_frame[i] = child;
    } else if (Is(n.op, "Exit")) {
      if (in == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Exit '", n.name, "' is not inside a while loop: no Enter leads to it"));
      }
      lf.out_frame[i] = lf.frames[in].parent;
    } else if (Is(n.op, "NextIteration") && in == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "NextIteration '", n.name, "' is not inside a while loop: no Enter leads to it"));
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const Node& n = g.node(order[i]);
    if (!Is(n.op, "Merge")) continue;
    for (const Endpoint& e : n.inputs) {
      if (!IsLoopBackEdge(g, e.node, n.id)) continue;
      auto it = index.find(e.node);
      if (it == index.end()) continue;
      const int f = lf.out_frame[it->second];
      if (f != lf.in_frame[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Merge '", n.name, "' is in ", lf.Describe(lf.in_frame[i]),
            " but its NextIteration input '", g.node(e.node).name, "' is in ", lf.Describe(f)));
      }
    }
  }
  return lf;
}

}  // namespace smrt::graph
