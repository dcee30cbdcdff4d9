#include "smrt/check.h"

#include <algorithm>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/caller_status.h"
#include "api/custom_ops.h"
#include "api/load_options.h"
#include "api/model_internals.h"
#include "graph/importer.h"
#include "graph/op_inventory.h"
#include "graph/op_packages.h"
#include "graph/variable_keys.h"
#include "kernels/cuda_build.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"
#include "loader/saved_model_bundle.h"
#include "loader/tensor_proto.h"
#include "ops/fused_ops.h"

namespace smrt {
namespace {

constexpr char kInitOpSignature[] = "__saved_model_init_op";

std::string InitOpName(const tfproto::MetaGraphDef& mg) {
  if (auto sig = mg.signature_def().find(kInitOpSignature); sig != mg.signature_def().end()) {
    if (auto out = sig->second.outputs().find(kInitOpSignature);
        out != sig->second.outputs().end()) {
      return out->second.name();
    }
  }
  for (const char* collection : {"saved_model_main_op", "legacy_init_op"}) {
    auto c = mg.collection_def().find(collection);
    if (c != mg.collection_def().end() && c->second.node_list().value_size() > 0) {
      return c->second.node_list().value(0);
    }
  }
  return "";
}

// Whether a variable has a value when a signature runs, decided as
// ModelState::Bind decides it at run time: its checkpoint key (from the
// restore function or the object graph, else its own name) is in the
// checkpoint, or the init op or the signature itself assigns it.
struct VariableBinding {
  absl::flat_hash_map<std::string, std::string> keys;  // variable id -> key
  const loader::TensorBundleReader* checkpoint = nullptr;
  absl::flat_hash_set<std::string> assigned_by_init;
  // The checkpoint's data is missing, so its keys may not be known (a TF2
  // model's are in its object graph, in the data): no variable is called
  // unbound, ModelCheck::missing_variable_data says why.
  bool unknown = false;

  bool InCheckpoint(const std::string& id) const {
    if (unknown) return true;
    auto k = keys.find(id);
    return checkpoint != nullptr && checkpoint->Find(k != keys.end() ? k->second : id) != nullptr;
  }
};

// Ids of the variables that Assign / AssignVariableOp nodes of g write.
absl::flat_hash_set<std::string> AssignedVariables(const graph::Graph& g) {
  absl::flat_hash_set<std::string> ids;
  for (const graph::Node& n : g.nodes()) {
    if ((n.op != "Assign" && n.op != "AssignVariableOp") || n.inputs.empty()) continue;
    const graph::Node* var = &g.node(n.inputs[0].node);
    while (var->op == "Identity" && !var->inputs.empty()) var = &g.node(var->inputs[0].node);
    if (graph::IsVariableNode(*var)) ids.insert(graph::VariableId(*var));
  }
  return ids;
}

// `custom`: the custom ops of the check's options, sorted.
std::vector<OpCheck> ToOpChecks(std::vector<graph::OpUse> ops,
                                const std::vector<std::string>& custom) {
  std::vector<OpCheck> checks;
  for (graph::OpUse& u : ops) {
    const bool refused = !u.missing.empty() && !graph::RefusedOpReason(u.op).empty();
    const bool is_custom = std::binary_search(custom.begin(), custom.end(), u.op);
    checks.push_back({std::move(u.op), u.count, std::move(u.example_node), std::move(u.missing),
                      refused, is_custom});
  }
  return checks;
}

// `binding`: for the init op, receives what it assigns; for a signature,
// says which variables it reads would be unbound.
SignatureCheck CheckRequest(const std::string& key, const tfproto::GraphDef& graph_def,
                            const graph::ImportRequest& request, absl::string_view device,
                            const graph::ImportLimits& limits, VariableBinding& binding,
                            bool is_init, const kernels::KernelRegistry& registry,
                            const std::vector<std::string>& custom) {
  SignatureCheck check;
  check.key = key;
  check.device = std::string(device);
  absl::StatusOr<graph::ImportResult> imported =
      graph::ImportGraph(graph_def, request, registry, limits);
  if (!imported.ok()) {
    check.error = api::ShortenModelText(imported.status().message());
    return check;
  }
  absl::StatusOr<std::vector<graph::OpUse>> ops =
      graph::InventoryOps(imported->graph, graph_def, registry, device);
  if (!ops.ok()) {
    check.error = api::ShortenModelText(ops.status().message());
    return check;
  }
  for (const graph::Node& n : imported->graph.nodes()) {
    if (n.op != "Const") continue;
    if (const AttrValue* v = n.attrs.Find("value")) {
      if (const Tensor* t = std::get_if<Tensor>(v)) {
        check.constant_bytes += static_cast<int64_t>(t->byte_size());
      }
    }
  }
  check.ops = ToOpChecks(*std::move(ops), custom);
  const absl::flat_hash_set<std::string> assigned = AssignedVariables(imported->graph);
  if (is_init) {
    binding.assigned_by_init.insert(assigned.begin(), assigned.end());
    return check;
  }
  for (const graph::Node& n : imported->graph.nodes()) {
    if (!graph::IsVariableNode(n)) continue;
    const std::string id = graph::VariableId(n);
    if (!binding.InCheckpoint(id) && !binding.assigned_by_init.contains(id) &&
        !assigned.contains(id)) {
      check.unbound_variables.push_back(n.name);
    }
  }
  std::sort(check.unbound_variables.begin(), check.unbound_variables.end());
  return check;
}

// On a device other than the CPU, what runs is the graph after the load-time
// passes: batch norms folded into convolutions, lookups of frozen tables made
// gathers, fusions with their own device kernels. Loads the model on the CPU
// with the passes the device would get (attention and dense einsums are not
// fused where the device has no kernel for them) and checks each signature's rewritten graph in
// place of its imported one. A model that does not load keeps the import
// check, which says why.
void CheckAfterPasses(const std::string& dir, const LoadOptions& options,
                      const tfproto::GraphDef& library, const kernels::KernelRegistry& registry,
                      const std::vector<std::string>& custom, ModelCheck& result) {
  LoadOptions cpu = options;
  cpu.device = kernels::kCpu;
  AttrMap float32;
  float32.Set("T", DataType::kFloat);
  if (!registry.FindKernel(kernels::kAttention, result.device, float32).ok()) {
    cpu.disabled_passes.push_back("fuse_attention");
  }
  AttrMap einsum = float32;
  einsum.Set("equation", std::string("abc,cd->abd"));
  einsum.Set("fused_ops", std::vector<std::string>{"BiasAdd"});
  if (!registry.FindKernel(kernels::kFusedEinsum, result.device, einsum).ok()) {
    cpu.disabled_passes.push_back("fuse_einsum");
  }
  cpu.disabled_passes.push_back("widen_16bit");  // a GPU runs 16-bit ops as exported
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, cpu);
  if (!model.ok()) return;
  for (SignatureCheck& s : result.signatures) {
    if (s.device == kernels::kCpu || !s.error.empty()) continue;
    absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**model, s.key);
    if (!report.ok()) continue;
    absl::StatusOr<std::vector<graph::OpUse>> ops =
        graph::InventoryOps(*report->graph, library, registry, s.device);
    if (!ops.ok()) continue;
    s.ops = ToOpChecks(*std::move(ops), custom);
    s.after_passes = true;
  }
}

}  // namespace

bool ModelCheck::ok() const {
  if (!missing_variable_data.empty()) return false;
  for (const SignatureCheck& s : signatures) {
    if (!s.error.empty() || !s.unbound_variables.empty()) return false;
    for (const OpCheck& op : s.ops) {
      if (!op.supported()) return false;
    }
  }
  return true;
}

namespace {

absl::StatusOr<ModelCheck> CheckModelUnguarded(const std::string& dir, const LoadOptions& options,
                                               const std::string& device) {
  ModelCheck result;
  // The names run and bench take: "cpu", "cuda", "gpu", with or without an
  // index ("CUDA:0"); ops are checked per kind, so the index does not matter.
  std::string lower = absl::AsciiStrToLower(device);
  int64_t index = 0;
  if (size_t colon = lower.find(':'); colon != std::string::npos) {
    if (!absl::SimpleAtoi(lower.substr(colon + 1), &index) || index < 0) lower = "?";
    lower.resize(std::min(colon, lower.size()));
  }
  if (lower == "cpu") {
    result.device = kernels::kCpu;
  } else if (lower == "cuda" || lower == "gpu") {
    result.device = "CUDA";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown device '", device, "'; use CPU or CUDA (also as CUDA:0, GPU:0)"));
  }
  // The limits Model::Load would apply: check reads and builds the same.
  absl::StatusOr<ResolvedLoadOptions> resolved = ResolveLoadOptions(dir, options);
  if (!resolved.ok()) return resolved.status();
  // Custom ops count as supported on the CPU, as Model::Load would run them.
  absl::StatusOr<api::CustomOps> custom = api::LoadCustomOps(options);
  if (!custom.ok()) return custom.status();
  const kernels::KernelRegistry& registry =
      custom->registry != nullptr ? *custom->registry : kernels::KernelRegistry::Default();
  // The ops are listed without the variables' values: a model whose data
  // shards are missing is checked all the same, and the missing files named.
  resolved->bundle.require_variable_data = false;
  RunLimitsScope limits_scope(&resolved->run_limits);
  absl::StatusOr<std::unique_ptr<loader::SavedModelBundle>> bundle =
      loader::LoadSavedModelBundle(dir, resolved->bundle);
  if (!bundle.ok()) return bundle.status();
  const tfproto::MetaGraphDef& mg = *(*bundle)->meta_graph;
  const tfproto::GraphDef& graph_def = mg.graph_def();
  if ((*bundle)->variables != nullptr) {
    for (const loader::BundleEntry& e : (*bundle)->variables->entries()) {
      if (e.key == "_CHECKPOINTABLE_OBJECT_GRAPH" ||
          e.key.find("/.OPTIMIZER_SLOT/") != std::string::npos) {
        continue;
      }
      result.variable_bytes += e.size;
    }
  }

  VariableBinding binding;
  binding.checkpoint = (*bundle)->variables.get();
  if (binding.checkpoint != nullptr && !binding.checkpoint->missing_shards().empty()) {
    result.missing_variable_data = binding.checkpoint->missing_shards();
    binding.unknown = true;
  } else {
    absl::StatusOr<absl::flat_hash_map<std::string, std::string>> checkpoint_keys =
        graph::CheckpointKeys(mg, kernels::KernelRegistry::Default(), binding.checkpoint);
    if (!checkpoint_keys.ok()) return checkpoint_keys.status();
    binding.keys = *std::move(checkpoint_keys);
  }

  // What runs at load: the init op, with asset paths fed as constants.
  if (std::string init = InitOpName(mg); !init.empty()) {
    graph::ImportRequest request;
    if (absl::StatusOr<std::pair<std::string, int>> t = graph::ParseTensorName(init); t.ok()) {
      init = t->first;
    }
    request.targets.push_back(init);
    for (const loader::Asset& asset : (*bundle)->assets) {
      request.feeds.push_back({asset.tensor_name, DataType::kString, PartialShape::Known({})});
    }
    // Model::Load runs it on the CPU (no placement): check it there.
    result.signatures.push_back(CheckRequest("(init op)", graph_def, request, kernels::kCpu,
                                             resolved->import_limits, binding, /*is_init=*/true,
                                             registry, custom->ops));
  }

  std::vector<std::string> keys = options.signatures;
  if (keys.empty()) {
    for (const auto& [k, v] : mg.signature_def()) {
      if (k != kInitOpSignature) keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end());
  }
  for (const std::string& key : keys) {
    auto it = mg.signature_def().find(key);
    if (it == mg.signature_def().end()) {
      std::vector<std::string> have;
      for (const auto& [k, v] : mg.signature_def()) {
        if (k != kInitOpSignature) have.push_back(k);
      }
      std::sort(have.begin(), have.end());
      return absl::NotFoundError(absl::StrCat(
          "SavedModel ", dir, " has no signature '", key, "'; ",
          have.empty() ? "it has no signatures (export with signatures=...)"
                       : absl::StrCat("it has: ", absl::StrJoin(have, ", "))));
    }
    graph::ImportRequest request;
    for (const auto& [k, info] : it->second.inputs()) {
      if (info.name().empty()) continue;  // composite: reported by Model::Load
      request.feeds.push_back(
          {info.name(), DataTypeFromProto(info.dtype()), PartialShape::Unknown()});
    }
    for (const auto& [k, info] : it->second.outputs()) {
      if (!info.name().empty()) request.fetches.push_back(info.name());
    }
    result.signatures.push_back(CheckRequest(key, graph_def, request, result.device,
                                             resolved->import_limits, binding,
                                             /*is_init=*/false, registry, custom->ops));
  }
  if (result.device != kernels::kCpu) {
    CheckAfterPasses(dir, options, graph_def, registry, custom->ops, result);
  }
  if (result.device != kernels::kCpu && kernels::ThisCudaBuild().runtime_version == 0) {
    // Say why every op is missing, rather than "no CUDA kernel" for each.
    for (SignatureCheck& s : result.signatures) {
      if (s.device == kernels::kCpu) continue;
      for (OpCheck& op : s.ops) {
        if (!op.supported() && !op.refused) {
          op.missing = "this smrt was built without the CUDA backend (-DSMRT_WITH_CUDA=ON)";
        }
      }
    }
  }
  return result;
}

}  // namespace

absl::StatusOr<ModelCheck> CheckModel(const std::string& dir, const LoadOptions& options,
                                      const std::string& device) {
  return api::CallerStatus(absl::StrCat("checking ", dir),
                           [&] { return CheckModelUnguarded(dir, options, device); });
}

namespace {

std::vector<SupportedOp> ListOps(const kernels::KernelRegistry& registry,
                                 const std::vector<std::string>& custom) {
  std::vector<SupportedOp> ops;
  for (const std::string& op : registry.Ops()) {
    SupportedOp s;
    s.op = op;
    s.custom = std::binary_search(custom.begin(), custom.end(), op);
    for (const kernels::KernelSpec& k : registry.Kernels(op)) {
      s.kernels.push_back({k.device, k.type_attr, k.types});
    }
    ops.push_back(std::move(s));
  }
  for (const std::string& op : graph::OpsResolvedByImport()) {
    auto at =
        std::lower_bound(ops.begin(), ops.end(), op,
                         [](const SupportedOp& s, const std::string& name) { return s.op < name; });
    if (at == ops.end() || at->op != op) at = ops.insert(at, SupportedOp{op, {}});
    at->at_load = true;
  }
  return ops;
}

}  // namespace

std::vector<SupportedOp> SupportedOps() { return ListOps(kernels::KernelRegistry::Default(), {}); }

absl::StatusOr<std::vector<SupportedOp>> SupportedOps(const LoadOptions& options) {
  absl::StatusOr<api::CustomOps> custom = api::LoadCustomOps(options);
  if (!custom.ok()) return custom.status();
  if (custom->registry == nullptr) return SupportedOps();
  return ListOps(*custom->registry, custom->ops);
}

}  // namespace smrt
