#include "smrt/model.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "api/load_options.h"
#include "api/model_internals.h"
#include "api/model_state.h"
#include "api/caller_status.h"
#include "api/custom_ops.h"
#include "api/profile_recorder.h"
#include "core/buffer_cache.h"
#include "core/file.h"
#include "core/log.h"
#include "core/env.h"
#include "core/run_control.h"
#include "core/run_limits.h"
#include "device/cpu_info.h"
#include "device/cuda_runtime.h"
#include "device/device_registry.h"
#include "exec/cuda_device_context.h"
#include "exec/memory_plan.h"
#include "exec/profile.h"
#include "exec/program.h"
#include "exec/kernel_choice.h"
#include "exec/tuning_cache.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/parallel_for.h"
#include "graph/importer.h"
#include "graph/variable_keys.h"
#include "kernels/registry.h"
#include "loader/saved_model_bundle.h"
#include "loader/tensor_proto.h"
#include "memory/allocator_options.h"
#include "passes/pipeline.h"
#include "passes/place_nodes.h"

namespace smrt {
namespace {

// "the model has: a, b", or says in words that it has none.
std::string SignaturesItHas(const std::vector<std::string>& keys) {
  if (keys.empty()) {
    return "the model has no signatures (a TF1 export without a SignatureDef, or a TF2 "
           "export saved without signatures=)";
  }
  return absl::StrCat("the model has: ", absl::StrJoin(keys, ", "));
}

constexpr char kInitOpSignature[] = "__saved_model_init_op";

// The tensors a loaded model feeds itself: asset paths.
struct ConstantFeed {
  std::string tensor;
  Tensor value;
};

struct PreparedSignature {
  SignatureInfo info;
  std::unique_ptr<exec::Program> program;
  std::vector<std::string> pass_log;
  std::vector<passes::FusionRecord> fusions;
  std::vector<passes::PlacementRecord> placement;  // empty on the CPU
  // Per input (info.inputs' order): whether Run checks the fed shape against
  // the declared one. Not for a tensor that is no placeholder (a TF1
  // signature fed at any tensor, e.g. half_plus_two's x:0, an Identity):
  // TensorFlow takes any shape there and the ops downstream check it.
  std::vector<bool> check_shape;
};

// A signature imported but not yet optimized and compiled.
struct ImportedSignature {
  PreparedSignature prepared;
  graph::ImportResult imported;
  std::string where;
};

// Ops that change a variable's value.
bool WritesVariable(absl::string_view op) {
  for (absl::string_view prefix : {"Assign", "ResourceApply", "ResourceSparseApply",
                                   "ResourceScatter", "Scatter", "Apply", "SparseApply",
                                   "ResourceStridedSliceAssign", "StridedSliceAssign"}) {
    if (absl::StartsWith(op, prefix)) return true;
  }
  return false;
}

// Whether the graph, or a library function it calls (control-flow bodies),
// writes a variable.
bool GraphWritesVariables(const graph::Graph& g, const tfproto::GraphDef& library) {
  absl::flat_hash_map<std::string, const tfproto::FunctionDef*> functions;
  for (const auto& f : library.library().function()) functions[f.signature().name()] = &f;
  std::vector<std::string> pending;
  absl::flat_hash_map<std::string, bool> seen;
  auto called = [&](const std::string& name) {
    if (functions.count(name) && !seen[name]) {
      seen[name] = true;
      pending.push_back(name);
    }
  };
  for (const graph::Node& n : g.nodes()) {
    if (WritesVariable(n.op)) return true;
    for (const auto& [k, v] : n.attrs.all()) {
      if (const auto* f = std::get_if<FuncAttr>(&v)) called(f->name);
      if (const auto* fs = std::get_if<std::vector<FuncAttr>>(&v)) {
        for (const FuncAttr& f : *fs) called(f.name);
      }
    }
  }
  while (!pending.empty()) {
    const tfproto::FunctionDef* f = functions.at(pending.back());
    pending.pop_back();
    for (const auto& n : f->node_def()) {
      if (WritesVariable(n.op())) return true;
      called(n.op());
      for (const auto& [k, v] : n.attr()) {
        if (v.has_func()) called(v.func().name());
        for (const auto& lf : v.list().func()) called(lf.name());
      }
    }
  }
  return false;
}

constexpr char kSmrtVersion[] = SMRT_VERSION_STRING;

// Whether LoadOptions::device names the CPU ("" is the default, the CPU).
bool NamesCpu(const std::string& name) {
  return name.empty() || absl::AsciiStrToUpper(name) == "CPU" ||
         absl::AsciiStrToUpper(name) == "CPU:0";
}

// What a CallerContextGuard needs around calls that may make the model's GPU
// current on the calling thread (none for a CPU model).
const device::CudaRuntimeApi* CallerApi(const exec::CudaDeviceContext* device) {
  return device != nullptr ? &device->api() : nullptr;
}

// The context for LoadOptions::device: null for the CPU.
absl::StatusOr<std::unique_ptr<exec::CudaDeviceContext>> MakeDeviceContext(
    const std::string& name) {
  if (NamesCpu(name)) return nullptr;
  absl::StatusOr<const device::DeviceInfo*> info = device::DeviceRegistry::Get().Find(name);
  if (!info.ok()) {
    return absl::Status(info.status().code(),
                        absl::StrCat("LoadOptions::device: ", info.status().message()));
  }
  if ((*info)->kind == device::DeviceKind::kCpu) return nullptr;
  AttrMap probe;
  probe.Set("T", DataType::kFloat);
  if (!kernels::KernelRegistry::Default().FindKernel(kernels::kToDeviceOp, "CUDA", probe).ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "LoadOptions::device is ", (*info)->name, " (", (*info)->description,
        "), but this build of smrt has no CUDA kernels: build it with -DSMRT_WITH_CUDA=ON"));
  }
  absl::StatusOr<memory::GpuAllocatorOptions> allocator =
      memory::ApplyGpuAllocatorEnvironment(memory::GpuAllocatorOptions{});
  if (!allocator.ok()) return allocator.status();
  return exec::CudaDeviceContext::Create((*info)->index, *allocator);
}

// Under device_policy "prefer", one warning per op type that runs on the CPU
// instead (never a silent fallback); with log_placement, one line per node,
// logged at WARNING too: asked for, they show wherever warnings show
// (include/smrt/log.h).
void ReportPlacement(const std::string& key, const std::string& device,
                     const PreparedSignature& sig, bool log_placement) {
  std::map<std::string, std::pair<int, std::string>> fallbacks;  // op -> count, first node
  for (const passes::PlacementRecord& r : sig.placement) {
    if (!r.fell_back) continue;
    auto& [count, first] = fallbacks[r.op];
    if (count++ == 0) first = r.node;
  }
  for (const auto& [op, entry] : fallbacks) {
    Log(LogLevel::kWarning,
        absl::StrCat("signature '", key, "' on ", device, ": ", op, " has no kernel there; ",
                     entry.first, " node(s) run on the CPU (e.g. '", entry.second, "')"));
  }
  if (!log_placement) return;
  for (const passes::PlacementRecord& r : sig.placement) {
    Log(LogLevel::kWarning,
        absl::StrCat("placement '", key, "': ", r.node, " (", r.op, ") -> ", r.device));
  }
}

}  // namespace

std::string TensorSpec::ShapeString() const {
  return known_rank ? ShapeToString(shape) : "unknown_rank";
}

struct Model::Impl {
  // LoadOptions::device when it is a GPU; declared first so that it goes
  // last, after the programs whose device tensors it holds.
  std::unique_ptr<exec::CudaDeviceContext> device_context;
  // The load's custom ops over KernelRegistry::Default() (null: none); the
  // programs point into it, so it goes after them.
  std::shared_ptr<const kernels::KernelRegistry> custom_registry;
  const kernels::KernelRegistry& registry() const {
    return custom_registry != nullptr ? *custom_registry : kernels::KernelRegistry::Default();
  }
  // Measured CPU kernel choices (exec/kernel_choice.h); outlives the programs.
  std::unique_ptr<exec::FileTuningCache> cpu_tuning_cache;
  std::string cpu_kernels = exec::kMeasureKernels;  // LoadOptions::cpu_kernels
  std::unique_ptr<loader::SavedModelBundle> bundle;
  std::unique_ptr<ModelState> state;  // variables, tables; reads bundle's checkpoint
  // While Load prepares the signatures: folds they share.
  std::unique_ptr<passes::FoldCache> fold_cache;
  std::vector<ConstantFeed> constant_feeds;
  std::map<std::string, PreparedSignature> signatures;
  // From LoadOptions: installed on the thread for Load and every Run.
  RunLimits run_limits;
  int intra_op_threads = 0;  // LoadOptions::intra_op_threads
  // LoadOptions::inter_op_threads - 1 workers (the caller is the other one);
  // null when signatures run in order.
  std::unique_ptr<exec::ThreadPool> inter_op_pool;
  graph::ImportLimits import_limits;
  std::vector<std::string> allowed_ops;

  absl::StatusOr<graph::ImportResult> Import(graph::ImportRequest request,
                                             const std::string& what);
  // Runs the passes (when `passes` is set) and makes the Program.
  absl::StatusOr<std::unique_ptr<exec::Program>> Build(graph::ImportResult imported,
                                                       const std::string& what,
                                                       const passes::PipelineOptions* passes,
                                                       bool freeze_variables,
                                                       PreparedSignature* report);
  absl::Status RunInitOp();
  absl::StatusOr<ImportedSignature> Import(const std::string& key,
                                           const tfproto::SignatureDef& def);
  absl::Status Prepare(ImportedSignature sig, const passes::PipelineOptions& passes,
                       bool freeze_variables);
};

absl::StatusOr<graph::ImportResult> Model::Impl::Import(graph::ImportRequest request,
                                                        const std::string& what) {
  for (const ConstantFeed& f : constant_feeds) {
    request.feeds.push_back({f.tensor, f.value.dtype(), PartialShape::Known(f.value.shape())});
  }
  const kernels::KernelRegistry& registry = this->registry();
  absl::StatusOr<graph::ImportResult> imported =
      graph::ImportGraph(bundle->meta_graph->graph_def(), request, registry, import_limits);
  if (!imported.ok()) {
    return absl::Status(imported.status().code(),
                        absl::StrCat(what, ": ", imported.status().message()));
  }
  return imported;
}

absl::StatusOr<std::unique_ptr<exec::Program>> Model::Impl::Build(
    graph::ImportResult imported, const std::string& what, const passes::PipelineOptions* options,
    bool freeze_variables, PreparedSignature* report) {
  const kernels::KernelRegistry& registry = this->registry();
  exec::ProgramSpec spec;
  spec.graph = std::move(imported.graph);
  spec.feeds = std::move(imported.feed_nodes);
  spec.fetches = std::move(imported.fetch_endpoints);
  spec.effects = std::move(imported.effect_nodes);
  spec.library = &bundle->meta_graph->graph_def();
  if (options != nullptr) {
    passes::PassContext ctx{spec.graph, spec.feeds, spec.fetches, spec.effects, registry};
    ctx.fold_cache = fold_cache.get();
    if (freeze_variables) {
      state->Prefetch(spec.graph);
      ctx.variable_value = [this](const graph::Node& handle) -> std::optional<Tensor> {
        absl::StatusOr<kernels::Resource*> r = state->Bind(handle, /*held=*/false);
        if (!r.ok() || *r == nullptr) return std::nullopt;
        auto* v = dynamic_cast<kernels::VariableResource*>(*r);
        if (v == nullptr) return std::nullopt;
        return v->Read();
      };
    }
    if (absl::Status s = passes::RunPipeline(ctx, *options); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
    }
    if (report != nullptr) {
      report->pass_log = std::move(ctx.log);
      report->fusions = std::move(ctx.fusions);
      report->placement = std::move(ctx.placement);
    }
  }
  spec.device = device_context.get();
  if (options != nullptr && spec.device != nullptr) {
    // Bodies of the loops and branches placed on the device, placed there
    // too; their records join the signature's.
    spec.place_body = [&registry, options, freeze_variables, report](
                          absl::string_view function, graph::ImportResult& body,
                          const std::vector<bool>& device_feeds,
                          const std::vector<bool>& device_fetches,
                          const std::vector<kernels::Resource*>& feed_resources) {
      passes::PlacementOptions placement = options->placement;
      placement.device_feeds = device_feeds;
      placement.device_fetches = device_fetches;
      std::vector<passes::PlacementRecord> records;
      std::vector<std::string> log;
      absl::Status s = passes::PlaceBody(registry, placement, function, body, feed_resources,
                                         freeze_variables, options->tf32, records, log);
      if (report != nullptr) {
        for (passes::PlacementRecord& r : records) report->placement.push_back(std::move(r));
        for (std::string& line : log) report->pass_log.push_back(std::move(line));
      }
      return s;
    };
  }
  spec.cpu_kernels = cpu_kernels;
  spec.cpu_tuning_cache = cpu_tuning_cache.get();
  spec.import_limits = import_limits;
  spec.allowed_ops = allowed_ops;
  const bool kept = options != nullptr;  // a signature's program, not the init op's
  absl::StatusOr<std::unique_ptr<exec::Program>> program = exec::Program::Create(
      std::move(spec), registry,
      [this, kept](const graph::Node& n) { return state->Bind(n, /*held=*/kept); });
  if (!program.ok()) {
    return absl::Status(program.status().code(),
                        absl::StrCat(what, ": ", program.status().message()));
  }
  return program;
}

absl::Status Model::Impl::RunInitOp() {
  const tfproto::MetaGraphDef& mg = *bundle->meta_graph;
  std::string init;
  auto sig = mg.signature_def().find(kInitOpSignature);
  if (sig != mg.signature_def().end()) {
    auto out = sig->second.outputs().find(kInitOpSignature);
    if (out != sig->second.outputs().end()) init = out->second.name();
  }
  for (const char* collection : {"saved_model_main_op", "legacy_init_op"}) {
    if (!init.empty()) break;
    auto c = mg.collection_def().find(collection);
    if (c != mg.collection_def().end() && c->second.node_list().value_size() > 0) {
      init = c->second.node_list().value(0);
    }
  }
  if (init.empty()) return absl::OkStatus();
  if (absl::StatusOr<std::pair<std::string, int>> t = graph::ParseTensorName(init); t.ok()) {
    init = t->first;
  }
  graph::ImportRequest request;
  request.targets.push_back(init);
  const std::string what = absl::StrCat("init op '", init, "'");
  absl::StatusOr<graph::ImportResult> imported = Import(std::move(request), what);
  if (!imported.ok()) return imported.status();
  // No passes: the init op runs once, before variables have their values.
  absl::StatusOr<std::unique_ptr<exec::Program>> program =
      Build(*std::move(imported), what, nullptr, false, nullptr);
  if (!program.ok()) return program.status();
  std::vector<Tensor> feeds;
  for (const ConstantFeed& f : constant_feeds) feeds.push_back(f.value);
  absl::StatusOr<std::vector<Tensor>> ran = (*program)->Run(std::move(feeds));
  if (!ran.ok()) {
    return absl::Status(ran.status().code(),
                        absl::StrCat("running init op '", init, "': ", ran.status().message()));
  }
  return absl::OkStatus();
}

namespace {

TensorSpec SpecFromInfo(const std::string& key, const tfproto::TensorInfo& info) {
  TensorSpec spec;
  spec.name = key;
  spec.tensor_name = info.name();
  spec.dtype = DataTypeFromProto(info.dtype());
  absl::StatusOr<PartialShape> shape = loader::PartialShapeFromProto(info.tensor_shape());
  if (!info.has_tensor_shape()) {
    spec.known_rank = false;  // old exports leave the shape out: unknown
  } else if (shape.ok()) {
    spec.known_rank = shape->known_rank;
    spec.shape = shape->dims;
  } else {
    spec.known_rank = false;
  }
  return spec;
}

const tfproto::NodeDef* FindNode(const tfproto::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<ImportedSignature> Model::Impl::Import(const std::string& key,
                                                      const tfproto::SignatureDef& def) {
  PreparedSignature prepared;
  prepared.info.key = key;
  prepared.info.method_name = def.method_name();
  graph::ImportRequest request;
  std::vector<std::string> in_keys, out_keys;
  for (const auto& [k, v] : def.inputs()) in_keys.push_back(k);
  for (const auto& [k, v] : def.outputs()) out_keys.push_back(k);
  std::sort(in_keys.begin(), in_keys.end());
  std::sort(out_keys.begin(), out_keys.end());
  const std::string where = absl::StrCat("signature '", key, "'");

  for (const std::string& k : in_keys) {
    const tfproto::TensorInfo& info = def.inputs().at(k);
    if (info.name().empty()) {
      return absl::UnimplementedError(absl::StrCat(
          where, ": input '", k, "' is a sparse or composite tensor, which is not supported"));
    }
    TensorSpec spec = SpecFromInfo(k, info);
    // The graph, not the SignatureDef, decides what a placeholder accepts:
    // exported TensorInfos are sometimes wrong (half_plus_three declares a
    // scalar for a (-1, 1) placeholder).
    absl::StatusOr<std::pair<std::string, int>> t = graph::ParseTensorName(info.name());
    if (!t.ok()) return t.status();
    const tfproto::NodeDef* node = FindNode(bundle->meta_graph->graph_def(), t->first);
    if (node == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": input '", k, "' names tensor ",
                                                     info.name(), ", which is not in the graph"));
    }
    const bool placeholder = node->op() == "Placeholder" || node->op() == "PlaceholderV2" ||
                             node->op() == "PlaceholderWithDefault";
    if (placeholder) {
      if (auto d = node->attr().find("dtype"); d != node->attr().end()) {
        spec.dtype = DataTypeFromProto(d->second.type());
      }
      auto s = node->attr().find("shape");
      // Graphs from up to GraphDef version 21 wrote an empty shape to mean
      // "unknown", and TensorFlow still reads them that way.
      bool legacy_unknown = s != node->attr().end() && s->second.has_shape() &&
                            s->second.shape().dim_size() == 0 &&
                            !s->second.shape().unknown_rank() &&
                            bundle->meta_graph->graph_def().versions().producer() <= 21;
      if (s != node->attr().end() && s->second.has_shape() && !legacy_unknown) {
        absl::StatusOr<PartialShape> ps = loader::PartialShapeFromProto(s->second.shape());
        if (!ps.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(where, ": input '", k, "' (node '",
                                                         node->name(), "'): ", ps.status().message()));
        }
        spec.known_rank = ps->known_rank;
        spec.shape = ps->dims;
      } else {
        spec.known_rank = false;
        spec.shape.clear();
      }
    }
    if (spec.dtype == DataType::kInvalid) {
      return absl::UnimplementedError(
          absl::StrCat(where, ": input '", k, "' has an unsupported dtype"));
    }
    request.feeds.push_back({info.name(), spec.dtype,
                             spec.known_rank && placeholder ? PartialShape::Known(spec.shape)
                                                            : PartialShape::Unknown()});
    prepared.check_shape.push_back(placeholder);
    prepared.info.inputs.push_back(std::move(spec));
  }
  for (const std::string& k : out_keys) {
    const tfproto::TensorInfo& info = def.outputs().at(k);
    if (info.name().empty()) {
      return absl::UnimplementedError(absl::StrCat(
          where, ": output '", k, "' is a sparse or composite tensor, which is not supported"));
    }
    request.fetches.push_back(info.name());
    prepared.info.outputs.push_back(SpecFromInfo(k, info));
  }
  absl::StatusOr<graph::ImportResult> imported = Import(std::move(request), where);
  if (!imported.ok()) return imported.status();
  return ImportedSignature{std::move(prepared), *std::move(imported), where};
}

absl::Status Model::Impl::Prepare(ImportedSignature sig, const passes::PipelineOptions& options,
                                  bool freeze_variables) {
  PreparedSignature& prepared = sig.prepared;
  const std::string key = prepared.info.key;
  passes::PipelineOptions named = options;
  named.dump_name = key;
  absl::StatusOr<std::unique_ptr<exec::Program>> program =
      Build(std::move(sig.imported), sig.where, &named, freeze_variables, &prepared);
  if (!program.ok()) return program.status();
  // Output dtypes as the graph computes them (TensorInfos may say *_REF).
  for (size_t i = 0; i < prepared.info.outputs.size(); ++i) {
    const graph::Endpoint& e = (*program)->spec().fetches[i];
    DataType actual = (*program)->graph().node(e.node).outputs[e.index].dtype;
    if (actual != DataType::kInvalid) prepared.info.outputs[i].dtype = actual;
  }
  prepared.program = *std::move(program);
  signatures[key] = std::move(prepared);
  return absl::OkStatus();
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
// Blocks the model's runs left for reuse go back to the system with it.
Model::~Model() {
  // Freeing device tensors (cudaFreeAsync, the arena's cudaFree) acts on the GPU.
  device::CallerContextGuard keep_callers(
      impl_ != nullptr ? CallerApi(impl_->device_context.get()) : nullptr);
  impl_.reset();
  TrimBufferCache();
}

const std::string& Model::dir() const { return impl_->bundle->dir; }

namespace {

absl::StatusOr<std::unique_ptr<Model::Impl>> LoadImpl(const std::string& dir,
                                                      const LoadOptions& options,
                                                      std::shared_ptr<const Env> env) {
  absl::StatusOr<ResolvedLoadOptions> resolved = ResolveLoadOptions(dir, options, std::move(env));
  if (!resolved.ok()) return resolved.status();
  auto impl = std::make_unique<Model::Impl>();
  impl->run_limits = resolved->run_limits;
  impl->import_limits = resolved->import_limits;
  impl->allowed_ops = options.allowed_ops;
  impl->intra_op_threads = options.intra_op_threads;
  if (options.inter_op_threads > 1) {
    impl->inter_op_pool = std::make_unique<exec::ThreadPool>(options.inter_op_threads - 1);
  }
  impl->cpu_kernels = resolved->cpu_kernels;
  // The model's messages follow LoadOptions::log_level from here on.
  RunLimitsScope limits_scope(&impl->run_limits);
  if (absl::StatusOr<api::CustomOps> custom = api::LoadCustomOps(options); custom.ok()) {
    impl->custom_registry = std::move(custom->registry);
  } else {
    return custom.status();
  }
  // A GPU load makes the device current on this thread (its streams, the
  // uploads, tuning); the caller's own current context comes back after.
  device::CallerContextGuard keep_callers(
      NamesCpu(options.device) ? nullptr : device::LoadCudaRuntime().value_or(nullptr));
  if (absl::StatusOr<std::unique_ptr<exec::CudaDeviceContext>> device =
          MakeDeviceContext(options.device);
      device.ok()) {
    impl->device_context = *std::move(device);
  } else {
    return device.status();
  }
  if (impl->device_context == nullptr) {
    // Never silently slower: 16-bit products the CPU cannot run are widened.
    const device::CpuPrecision precision =
        device::DescribeCpuPrecision(device::ProbeCpu(), options.precision);
    if (precision.slower_than_float32) Log(LogLevel::kWarning, precision.text);
  }
  kernels::IntraOpThreadsScope threads_scope(impl->intra_op_threads);

  absl::StatusOr<std::unique_ptr<loader::SavedModelBundle>> bundle =
      loader::LoadSavedModelBundle(dir, resolved->bundle);
  if (!bundle.ok()) return bundle.status();
  impl->bundle = *std::move(bundle);
  const tfproto::MetaGraphDef& mg = *impl->bundle->meta_graph;

  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> keys =
      graph::CheckpointKeys(mg, kernels::KernelRegistry::Default(), impl->bundle->variables.get());
  if (!keys.ok()) return keys.status();
  impl->state = std::make_unique<ModelState>(impl->bundle->variables.get(), *std::move(keys));

  for (const loader::Asset& asset : impl->bundle->assets) {
    absl::StatusOr<Tensor> path = Tensor::Create(DataType::kString, {});
    if (!path.ok()) return path.status();
    path->data<std::string>()[0] = asset.path;
    impl->constant_feeds.push_back({asset.tensor_name, *path});
  }
  if (absl::Status s = impl->RunInitOp(); !s.ok()) return s;
  {
    const std::string& cache_dir = resolved->cache_dir;
    const std::string model_key = exec::ModelKey(impl->bundle->graph_checksum.crc32c,
                                                 impl->bundle->graph_checksum.size);
    impl->cpu_tuning_cache = exec::FileTuningCache::Open(
        cache_dir, absl::StrCat(model_key, "-cpu"),
        absl::StrCat(exec::CpuTuningScope(), ";smrt=", kSmrtVersion));
    if (impl->device_context != nullptr) {
      impl->device_context->set_tuning_cache(exec::FileTuningCache::Open(
          cache_dir, model_key,
          absl::StrCat(impl->device_context->TuningScope(), ";smrt=", kSmrtVersion)));
    }
  }

  std::vector<std::string> wanted = options.signatures;
  if (wanted.empty()) {
    for (const auto& [k, v] : mg.signature_def()) {
      if (k != kInitOpSignature) wanted.push_back(k);
    }
    std::sort(wanted.begin(), wanted.end());
  }
  std::vector<ImportedSignature> imported;
  for (const std::string& key : wanted) {
    auto it = mg.signature_def().find(key);
    if (it == mg.signature_def().end()) {
      std::vector<std::string> have;
      for (const auto& [k, v] : mg.signature_def()) {
        if (k != kInitOpSignature) have.push_back(k);
      }
      std::sort(have.begin(), have.end());
      return absl::NotFoundError(absl::StrCat("SavedModel ", dir, " has no signature '", key,
                                              "'; ", SignaturesItHas(have)));
    }
    absl::StatusOr<ImportedSignature> sig = impl->Import(key, it->second);
    if (!sig.ok()) return sig.status();
    imported.push_back(*std::move(sig));
  }
  // Variables are constants, and may be folded into what reads them, when
  // no signature a caller can run writes them.
  bool read_only = true;
  for (const ImportedSignature& sig : imported) {
    if (GraphWritesVariables(sig.imported.graph, mg.graph_def())) read_only = false;
  }
  passes::PipelineOptions pass_options = resolved->passes;
  if (!options.quantization.empty()) {
    absl::StatusOr<passes::QuantizationFile> file =
        passes::ReadQuantizationFile(options.quantization);
    if (!file.ok()) return file.status();
    if (absl::Status s = passes::CheckQuantizationModel(
            *file, options.quantization, dir, impl->bundle->graph_checksum.crc32c,
            impl->bundle->graph_checksum.size);
        !s.ok()) {
      return s;
    }
    pass_options.quantization = std::make_shared<passes::QuantizationFile>(*std::move(file));
  }
  if (impl->device_context != nullptr) {
    pass_options.placement.device = absl::StrCat("CUDA:", impl->device_context->device());
    pass_options.placement.require = options.device_policy == "require";
  }
  impl->fold_cache = std::make_unique<passes::FoldCache>();
  for (ImportedSignature& sig : imported) {
    const std::string key = sig.prepared.info.key;
    if (absl::Status s = impl->Prepare(std::move(sig), pass_options, read_only); !s.ok()) return s;
    if (impl->device_context != nullptr) {
      ReportPlacement(key, pass_options.placement.device, impl->signatures.at(key),
                      options.log_placement);
    }
  }
  impl->fold_cache.reset();
  impl->state->ReleaseUnbound();
  // What loading freed (variables folded into constants, the passes'
  // intermediates) is not what runs allocate: give it back to the system
  // rather than keep it in the buffer cache.
  TrimBufferCache();
  return impl;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& dir,
                                                   const LoadOptions& options) {
  return api::CallerStatus(
      absl::StrCat("loading ", dir), [&]() -> absl::StatusOr<std::unique_ptr<Model>> {
        absl::StatusOr<std::unique_ptr<Impl>> impl = LoadImpl(dir, options, Env::Default());
        if (!impl.ok()) return impl.status();
        return std::unique_ptr<Model>(new Model(*std::move(impl)));
      });
}

absl::StatusOr<std::unique_ptr<Model>> Model::LoadFromMemory(ModelFiles files,
                                                             const LoadOptions& options) {
  return api::CallerStatus(
      "loading a model from memory", [&]() -> absl::StatusOr<std::unique_ptr<Model>> {
        // The Env lives as long as what reads it: the model's limits and its
        // checkpoint reader hold it.
        absl::StatusOr<std::shared_ptr<const MemoryEnv>> env = NewMemoryEnv(std::move(files));
        if (!env.ok()) return env.status();
        absl::StatusOr<std::unique_ptr<Impl>> impl = LoadImpl((*env)->root(), options, *env);
        if (!impl.ok()) return impl.status();
        return std::unique_ptr<Model>(new Model(*std::move(impl)));
      });
}

std::vector<std::string> Model::signature_keys() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : impl_->signatures) keys.push_back(k);
  return keys;
}

absl::StatusOr<const SignatureInfo*> Model::signature(absl::string_view key) const {
  auto it = impl_->signatures.find(std::string(key));
  if (it == impl_->signatures.end()) {
    return absl::NotFoundError(
        absl::StrCat("no signature '", key, "'; ", SignaturesItHas(signature_keys())));
  }
  return &it->second.info;
}

namespace {

absl::Status CheckShape(const std::string& sig, const TensorSpec& spec, const Shape& shape) {
  if (!spec.known_rank) return absl::OkStatus();
  if (shape.size() != spec.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "signature '", sig, "' input '", spec.name, "' must have rank ", spec.shape.size(),
        " (shape ", spec.ShapeString(), "), got shape ", ShapeToString(shape)));
  }
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    if (spec.shape[i] >= 0 && spec.shape[i] != shape[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "signature '", sig, "' input '", spec.name, "' dim ", i, " must be ", spec.shape[i],
          " (shape ", spec.ShapeString(), "), got shape ", ShapeToString(shape)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckInput(const std::string& sig, const TensorSpec& spec, const Tensor& t,
                        bool check_shape) {
  if (!t.valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("signature '", sig, "' input '", spec.name, "' is an empty Tensor"));
  }
  if (t.dtype() != spec.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "signature '", sig, "' input '", spec.name, "' must be ", DataTypeName(spec.dtype),
        " (", DataTypeShortName(spec.dtype), "), got ", DataTypeName(t.dtype())));
  }
  return check_shape ? CheckShape(sig, spec, t.shape()) : absl::OkStatus();
}

}  // namespace

absl::StatusOr<NamedTensors> Model::Run(absl::string_view signature_key,
                                        const NamedTensors& inputs) const {
  NamedTensors outputs;
  if (absl::Status s = Run(signature_key, inputs, &outputs); !s.ok()) return s;
  return outputs;
}

absl::Status Model::Run(absl::string_view signature_key, const NamedTensors& inputs,
                        NamedTensors* outputs) const {
  return Run(signature_key, inputs, outputs, RunOptions());
}

absl::Status Model::Run(absl::string_view signature_key, const NamedTensors& inputs,
                        NamedTensors* outputs, const RunOptions& options) const {
  auto it = impl_->signatures.find(std::string(signature_key));
  if (it == impl_->signatures.end()) return signature(signature_key).status();
  const PreparedSignature& sig = it->second;
  const std::string& key = sig.info.key;

  std::vector<std::string> expected;
  for (const TensorSpec& spec : sig.info.inputs) expected.push_back(spec.name);
  for (const auto& [name, t] : inputs) {
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) {
      return absl::InvalidArgumentError(absl::StrCat("signature '", key, "' has no input '", name,
                                                     "'; its inputs are: ",
                                                     absl::StrJoin(expected, ", ")));
    }
  }
  std::vector<Tensor> feeds;
  for (size_t i = 0; i < sig.info.inputs.size(); ++i) {
    const TensorSpec& spec = sig.info.inputs[i];
    auto in = inputs.find(spec.name);
    if (in == inputs.end()) {
      return absl::InvalidArgumentError(absl::StrCat("signature '", key, "' input '", spec.name,
                                                     "' is missing; its inputs are: ",
                                                     absl::StrJoin(expected, ", ")));
    }
    if (absl::Status s = CheckInput(key, spec, in->second, sig.check_shape[i]); !s.ok()) {
      return s;
    }
    feeds.push_back(in->second);
  }
  for (const ConstantFeed& f : impl_->constant_feeds) feeds.push_back(f.value);

  RunLimitsScope limits_scope(&impl_->run_limits);
  const RunControl control{options.deadline, options.cancellation};
  RunControlScope control_scope(&control);
  if (absl::Status s = CheckRunControl(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("signature '", key, "': ", s.message()));
  }
  kernels::RunThreadsScope threads_scope(impl_->intra_op_threads);
  // Steps on a GPU make it current on this thread; the caller's comes back.
  device::CallerContextGuard keep_callers(CallerApi(impl_->device_context.get()));
  exec::ThreadPool* pool = impl_->inter_op_pool.get();
  absl::StatusOr<std::vector<Tensor>> results;
  if (options.profile != nullptr) {
    api::ProfileRecorder recorder(key, options.profile);
    exec::ScopedRunObserver observe(&recorder);
    results = api::CallerStatus(absl::StrCat("running signature '", key, "'"),
                                    [&] { return sig.program->Run(std::move(feeds), pool); });
    recorder.Finish();
  } else {
    results = api::CallerStatus(absl::StrCat("running signature '", key, "'"),
                                    [&] { return sig.program->Run(std::move(feeds), pool); });
  }
  if (!results.ok()) {
    return absl::Status(results.status().code(),
                        absl::StrCat("signature '", key, "': ", results.status().message()));
  }
  for (size_t i = 0; i < sig.info.outputs.size(); ++i) {
    const std::string& name = sig.info.outputs[i].name;
    Tensor& result = (*results)[i];
    // An output that is a weight (a signature returning a variable, or a
    // constant passed through) shares its storage with the model, or with
    // the read-only mapping of the checkpoint: the caller gets a copy it may
    // write, so no write can change the model or fault.
    if (result.valid() && !result.on_device() && result.dtype() != DataType::kVariant &&
        !result.sole_owner()) {
      absl::StatusOr<Tensor> copy = result.Clone();
      if (!copy.ok()) return copy.status();
      result = *std::move(copy);
    }
    auto existing = outputs->find(name);
    if (existing != outputs->end() && existing->second.valid() &&
        existing->second.dtype() == result.dtype() &&
        existing->second.shape() == result.shape() && IsFixedSize(result.dtype())) {
      if (result.byte_size() > 0) {
        std::memcpy(existing->second.raw_data(), result.raw_data(), result.byte_size());
      }
      continue;
    }
    (*outputs)[name] = std::move(result);
  }
  return absl::OkStatus();
}

MemoryStats Model::GetMemoryStats() const {
  device::CallerContextGuard keep_callers(CallerApi(impl_->device_context.get()));
  const MemoryCounters& memory = *impl_->run_limits.memory;
  MemoryStats stats;
  stats.bytes_in_use = memory.live_bytes.load();
  stats.peak_bytes_in_use = memory.peak_bytes.load();
  stats.limit_bytes = impl_->run_limits.memory_limit_bytes;
  stats.allocation_count = memory.allocations.load();
  if (impl_->device_context != nullptr) {
    const memory::AllocatorStats device = impl_->device_context->allocator().GetStats();
    stats.device_bytes_in_use = static_cast<uint64_t>(device.bytes_in_use);
    stats.device_peak_bytes_in_use = static_cast<uint64_t>(device.peak_bytes_in_use);
    stats.device_bytes_reserved = static_cast<uint64_t>(device.bytes_reserved);
  }
  return stats;
}

void Model::ResetPeakMemoryStats() const {
  impl_->run_limits.memory->ResetPeak();
  if (impl_->device_context != nullptr) impl_->device_context->allocator().ResetPeak();
}

int64_t Model::TrimMemory() const {
  device::CallerContextGuard keep_callers(CallerApi(impl_->device_context.get()));
  return impl_->device_context == nullptr ? 0 : impl_->device_context->allocator().TrimMemory();
}

absl::StatusOr<MemoryPlan> Model::PlanMemory(
    absl::string_view signature_key, const std::map<std::string, Shape>& input_shapes) const {
  auto it = impl_->signatures.find(std::string(signature_key));
  if (it == impl_->signatures.end()) return signature(signature_key).status();
  const PreparedSignature& sig = it->second;
  const std::string& key = sig.info.key;
  std::vector<Shape> feed_shapes;
  for (const TensorSpec& spec : sig.info.inputs) {
    auto in = input_shapes.find(spec.name);
    if (in == input_shapes.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("signature '", key, "' input '", spec.name, "' has no shape given"));
    }
    if (absl::Status s = CheckShape(key, spec, in->second); !s.ok()) return s;
    feed_shapes.push_back(in->second);
  }
  for (const ConstantFeed& f : impl_->constant_feeds) feed_shapes.push_back(f.value.shape());
  absl::StatusOr<exec::MemoryPlan> planned = exec::PlanMemory(*sig.program, feed_shapes);
  if (!planned.ok()) {
    return absl::Status(planned.status().code(),
                        absl::StrCat("signature '", key, "': ", planned.status().message()));
  }
  const graph::Graph& g = sig.program->graph();
  MemoryPlan plan;
  plan.signature = key;
  const exec::WeightTotals weights = exec::WeightBytes(*sig.program);
  plan.weight_bytes = weights.bytes;
  plan.mapped_weight_bytes = weights.mapped_bytes;
  plan.peak_bytes = planned->peak_bytes;
  plan.naive_bytes = planned->naive_bytes;
  for (graph::NodeId id : planned->steps) plan.steps.push_back(g.node(id).name);
  auto name = [&](const graph::Endpoint& e) { return absl::StrCat(g.node(e.node).name, ":", e.index); };
  for (const exec::PlannedValue& v : planned->planned) {
    PlannedTensor t;
    t.tensor = name(v.value);
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.bytes = v.lifetime.bytes;
    t.offset = v.offset;
    t.first_step = v.lifetime.first;
    t.last_step = v.lifetime.last;
    t.buffer = v.buffer;
    plan.tensors.push_back(std::move(t));
  }
  for (const graph::Endpoint& e : planned->unplanned) plan.unplanned.push_back(name(e));
  return plan;
}

absl::StatusOr<ModelInternals::PassReport> ModelInternals::Passes(const Model& model,
                                                                        absl::string_view key) {
  auto it = model.impl_->signatures.find(std::string(key));
  if (it == model.impl_->signatures.end()) return model.signature(key).status();
  return PassReport{&it->second.pass_log, &it->second.fusions, &it->second.program->graph()};
}

std::pair<uint32_t, uint64_t> ModelInternals::GraphChecksum(const Model& model) {
  return {model.impl_->bundle->graph_checksum.crc32c, model.impl_->bundle->graph_checksum.size};
}

}  // namespace smrt
