// TF1 control flow with hostile wiring: every Switch, Merge, Enter, Exit,
// NextIteration and LoopCond of the committed TF1 zoo models gets its inputs
// dropped, emptied, reversed or turned into control inputs, one mutation per
// model. Each mutant must load and run or fail with a Status; none may crash
// (a Switch left with one data input used to read past its inputs).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "smrt/tfproto/saved_model.pb.h"
#include "testing/paths.h"

namespace smrt {
namespace {

bool IsControlFlow(const std::string& op) {
  for (const char* cf : {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"}) {
    if (op == cf || op == absl::StrCat("Ref", cf)) return true;
  }
  return false;
}

// The mutations of one node's inputs: each drops, empties, reverses or turns
// data inputs into control inputs.
std::vector<std::vector<std::string>> Mutations(const tfproto::NodeDef& n) {
  std::vector<std::string> data;
  std::vector<std::string> control;
  for (const std::string& in : n.input()) (absl::StartsWith(in, "^") ? control : data).push_back(in);
  std::vector<std::vector<std::string>> out;
  out.push_back(control);  // every data input gone
  for (size_t i = 0; i < data.size(); ++i) {
    std::vector<std::string> dropped = data;
    dropped.erase(dropped.begin() + static_cast<std::ptrdiff_t>(i));
    dropped.insert(dropped.end(), control.begin(), control.end());
    out.push_back(dropped);
    std::vector<std::string> as_control = data;
    as_control[i] = absl::StrCat("^", as_control[i].substr(0, as_control[i].find(':')));
    out.push_back(as_control);
  }
  if (data.size() > 1) {
    std::vector<std::string> reversed(data.rbegin(), data.rend());
    out.push_back(reversed);
  }
  std::vector<std::string> doubled = data;
  doubled.insert(doubled.end(), data.begin(), data.end());
  out.push_back(doubled);
  return out;
}

// Zeros for every input of every signature (unknown dims as 1).
NamedTensors Zeros(const SignatureInfo& sig) {
  NamedTensors inputs;
  for (const TensorSpec& spec : sig.inputs) {
    Shape shape;
    for (int64_t d : spec.shape) shape.push_back(d < 0 ? 1 : d);
    absl::StatusOr<Tensor> t = Tensor::Create(spec.dtype, shape);
    if (t.ok()) inputs[spec.name] = *std::move(t);
  }
  return inputs;
}

void MutateModel(const std::string& name) {
  const std::string dir = testing::TestDataDir() + "/zoo/" + name + "/saved_model";
  ModelFiles files;
  for (const char* f : {"saved_model.pb", "variables/variables.index",
                        "variables/variables.data-00000-of-00001"}) {
    absl::StatusOr<std::string> bytes = file::ReadAll(dir + "/" + f);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    files[f] = *std::move(bytes);
  }
  tfproto::SavedModel original;
  ASSERT_TRUE(original.ParseFromString(files["saved_model.pb"]));
  LoadOptions options;
  options.limits.max_while_iterations = 1000;
  int mutants = 0;
  int loaded = 0;
  const tfproto::GraphDef& graph = original.meta_graphs(0).graph_def();
  for (int n = 0; n < graph.node_size(); ++n) {
    if (!IsControlFlow(graph.node(n).op())) continue;
    for (const std::vector<std::string>& inputs : Mutations(graph.node(n))) {
      tfproto::SavedModel mutant = original;
      tfproto::NodeDef* node = mutant.mutable_meta_graphs(0)->mutable_graph_def()->mutable_node(n);
      node->clear_input();
      for (const std::string& in : inputs) node->add_input(in);
      ModelFiles mutant_files = files;
      mutant_files["saved_model.pb"] = mutant.SerializeAsString();
      ++mutants;
      SCOPED_TRACE(absl::StrCat(name, ": node '", node->name(), "' (", node->op(), ") with ",
                                inputs.size(), " inputs"));
      absl::StatusOr<std::unique_ptr<Model>> model =
          Model::LoadFromMemory(std::move(mutant_files), options);
      if (!model.ok()) {
        EXPECT_FALSE(model.status().message().empty());
        continue;
      }
      ++loaded;
      for (const std::string& key : (*model)->signature_keys()) {
        absl::StatusOr<NamedTensors> out = (*model)->Run(key, Zeros(**(*model)->signature(key)));
        if (!out.ok()) {
          EXPECT_FALSE(out.status().message().empty());
        }
      }
    }
  }
  EXPECT_GT(mutants, 20) << name;
  std::printf("%s: %d mutants, %d loaded\n", name.c_str(), mutants, loaded);
}

TEST(ControlFlowMutationTest, TfCond) { MutateModel("tf1_cond"); }
TEST(ControlFlowMutationTest, TfWhile) { MutateModel("tf1_while"); }
TEST(ControlFlowMutationTest, TfDynamicRnn) { MutateModel("tf1_dynamic_rnn"); }

}  // namespace
}  // namespace smrt
