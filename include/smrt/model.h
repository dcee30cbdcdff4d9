// Loading a TensorFlow SavedModel and calling its signatures.
//
//   absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(dir);
//   smrt::Tensor x = *smrt::Tensor::Create(smrt::DataType::kFloat, {2, 1});
//   absl::StatusOr<smrt::NamedTensors> y = (*model)->Run("serving_default", {{"x", x}});
//
// A loaded Model is immutable apart from its variables; any number of threads
// may call Run at once. Signatures that update variables (TF1 Assign ops)
// change the model's state for every later call.
#ifndef SMRT_MODEL_H_
#define SMRT_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "smrt/custom_op.h"
#include "smrt/log.h"
#include "smrt/memory_plan.h"
#include "smrt/profile.h"
#include "smrt/tensor.h"

namespace smrt {

using NamedTensors = std::map<std::string, Tensor>;

// A SavedModel directory's files held in memory, by path relative to the
// directory: "saved_model.pb", "variables/variables.index",
// "variables/variables.data-00000-of-00001", "assets/vocab.txt"...
using ModelFiles = std::map<std::string, std::string>;

struct LoadOptions {
  // The MetaGraphDef to load, by tag set.
  std::vector<std::string> tags = {"serve"};
  // Signatures to prepare; empty means every signature. A signature whose ops
  // smrt cannot run fails the load with a list of those ops, so name only the
  // signatures you call when a model also carries e.g. training signatures.
  std::vector<std::string> signatures;
  // Graph passes (folding, fusions) to skip, by name, for bisecting a wrong
  // answer; "all" skips every pass. SMRT_DISABLE_PASSES=a,b adds to these.
  // `smrt show --fusions` lists what the passes did.
  std::vector<std::string> disabled_passes;
  // When set, each signature's graph is written there before and after the
  // passes, as text and Graphviz dot (<key>.before.txt, <key>.after.dot...).
  // SMRT_DUMP_GRAPH=DIR does the same when this is empty.
  std::string dump_graph_dir;

  // A SavedModel is untrusted input: these bound what loading and running it
  // may cost. Going over one is ResourceExhausted naming the limit. Lower
  // them when serving models from untrusted sources; 0 means "no limit" for
  // the fields that say so.
  struct Limits {
    // Storage of any one tensor: Const values, checkpoint tensors and every
    // tensor an op allocates at run time (Fill, Tile, Range, BroadcastTo of
    // shapes computed from inputs).
    uint64_t max_tensor_bytes = uint64_t{4} << 30;
    // saved_model.pb plus all variables data shards.
    uint64_t max_model_bytes = uint64_t{64} << 30;
    // Nodes of one imported signature graph, counted while functions are
    // inlined (about 2 KB each at import: the default bounds an import at
    // about 2 GB).
    int max_nodes = 1 << 20;
    // Nested function calls (inlined calls and control-flow bodies).
    int max_function_depth = 32;
    // Iterations of one loop per execution: a TF2 While node, or one
    // instance of a TF1 while frame; 0: no limit. Ten million stops a loop
    // that never ends (each iteration runs at least one op, so this is
    // seconds to minutes of work) far above what inference loops run
    // (sequence lengths, decoding steps); raise it for longer loops.
    int64_t max_while_iterations = 10'000'000;
    // Bytes of all tensors the model holds at once (variables and the values
    // of every Run in flight, including outputs not yet freed); 0: no limit.
    uint64_t memory_limit_bytes = 0;
  };
  Limits limits;

  // Ops refused by design because they touch files, the network, the process
  // or Python (ReadFile, WriteFile, SaveV2, RestoreV2, PyFunc, ...) load only
  // when named here, and only where smrt has a kernel for them.
  std::vector<std::string> allowed_ops;

  // Checks every floating-point value an op produces: the first NaN or Inf
  // fails the Run with InvalidArgument naming the node and op (like
  // tf.debugging.enable_check_numerics). The environment variable
  // SMRT_CHECK_NUMERICS=1 turns it on too. Costs one pass over each output.
  bool check_numerics = false;

  // Threads one op may use (oneDNN's convolutions and matmuls, smrt's own
  // kernels), on teams smrt owns. 0: the CPUs this process may use (its
  // affinity mask and cgroup CPU quota; OMP_NUM_THREADS when set), shared
  // between the Runs in flight: a Run that starts while k - 1 others run
  // takes 1/k of them (at least one thread), so many callers do not ask for
  // every core each. N > 0: N threads for every Run, whatever else runs.
  int intra_op_threads = 0;
  // Threads that run independent ops of one call at once (Inception's
  // branches, attention's Q/K/V projections): 1 runs ops in order on the
  // calling thread; N > 1 adds a pool of N - 1 threads to the model. Idle
  // pool threads sleep. Results are the same either way.
  int inter_op_threads = 1;

  // Where signatures run: "CPU" (the default) or a GPU, "CUDA:0", "CUDA:1"...
  // (also "GPU:0", as TensorFlow spells it). Models on different GPUs may be
  // run from the same threads: each run switches the thread's current CUDA
  // device to its model's (cudaSetDevice) and leaves it there. On a GPU
  // each op runs there when smrt has a kernel for it on that device, with
  // copies where values cross (`smrt devices` lists the GPUs and, when
  // there is none, says why). The
  // GPU arena follows SMRT_GPU_ALLOCATOR=bfc|cuda_malloc_async and
  // SMRT_GPU_ALLOW_GROWTH (like TF_GPU_ALLOCATOR, TF_FORCE_GPU_ALLOW_GROWTH).
  // Inputs and outputs of Run are host tensors either way.
  std::string device = "CPU";
  // For ops the device has no kernel for: "prefer" runs them on the CPU and
  // prints one line per op type to stderr (never silently); "require" fails
  // the load, listing every such op.
  std::string device_policy = "prefer";
  // Prints every node's device to stderr at load (like
  // tf.debugging.set_log_device_placement).
  bool log_placement = false;
  // What a float32 model's products (convolutions, matmuls, einsums and
  // what the passes fused into them, with the bias, activation and pooling
  // chains around them) compute in: "float32" (the default) as exported;
  // "tf32" lets a GPU compute the products alone on TF32 tensor cores
  // (operands rounded to 10 mantissa bits, fp32 accumulation; TensorFlow's
  // and ONNX Runtime's default on Ampere and later GPUs; the CPU computes in
  // float32); "float16" or "bfloat16" converts them, as TensorFlow's
  // auto_mixed_precision does, for GPUs' tensor cores. Softmax, reductions,
  // layer norm and the rest stay float32; inputs and outputs keep their
  // dtypes. Results move by about one 16-bit rounding of each layer:
  // docs/precision.md has the measured differences (the CPU runs these
  // types by widening them, slower than float32). Models exported in mixed
  // precision run as exported either way.
  std::string precision = "float32";
  // The path of an int8 quantization file that `smrt quantize` (or
  // smrt::Quantize, smrt/quantize.h) made for this model, on the local file
  // system: the convolutions, matmuls and dense einsums it gives ranges run
  // in int8 on the CPU (8-bit inputs per tensor, 8-bit weights per output
  // channel, 8-bit values between int8 ops, through residual sums and max
  // pools); every other op runs in `precision` (docs/precision.md has the
  // measured differences). Used with precision "float32" or "bfloat16" on
  // the CPU. A file made for another model fails the load with
  // FailedPrecondition; a malformed one with InvalidArgument. Empty: none.
  std::string quantization;
  // How a CPU node that more than one kernel serves gets its kernel.
  // "measure" (the default): where a kernel that may beat the preferred
  // oneDNN one also serves it (sgemm for dense layers, the plain attention),
  // the first call with a set of input shapes times both on its inputs (only
  // where the preferred one takes under 5 ms) and keeps the faster for those
  // shapes, for every model of the process and in cache_dir. "preferred":
  // always oneDNN's kernels (the same kernels, so the same bits, on every
  // machine). "onednn" or "reference": that backend's kernel wherever it has
  // one, for bisecting a wrong answer. SMRT_CPU_KERNELS sets it when left at
  // "measure" (an option set in code wins over the environment).
  std::string cpu_kernels = "measure";
  // Where measured kernel choices (CPU kernels, cuDNN algorithms per shape) are kept
  // across processes, one file per model, keyed by the device and library
  // versions: a second process's first run then skips the measuring. Empty:
  // SMRT_CACHE_DIR, else memory only. A stale or corrupt file is ignored with
  // a warning on stderr.
  std::string cache_dir;
  // Whether the checkpoint's data files are mapped into memory and weights
  // used from the mapping (where an entry's offset and size are 64-byte
  // multiples: all of BERT-base's; in checkpoints where one odd-sized entry
  // misaligns the rest, fewer) instead of read into copies:
  // loading copies nothing, and weights that oneDNN keeps reordered give
  // their plain pages back to the OS. The files must then not be truncated
  // or rewritten in place while the model is loaded (write a new export
  // elsewhere, or rename over the old one); false reads copies.
  // SMRT_MAP_VARIABLES=0|1 sets it when left at true.
  bool map_variables = true;

  // Shared libraries of custom ops (smrt/custom_op.h) for op types smrt
  // lacks: each is opened (dlopen, once per process) and its
  // SmrtRegisterCustomOps called. The ops are this model's alone. A library
  // that does not open, lacks the entry point or fails to register fails the
  // load, naming the library and why.
  std::vector<std::string> custom_op_libraries;
  // Functions of this program that register custom ops the same way,
  // called after the libraries.
  std::vector<SmrtRegisterCustomOpsFn> custom_op_functions;

  // The minimum level of the messages about this model's load and runs
  // (a fallback, a tuning cache not written), in place of the process's
  // (SetMinLogLevel, SMRT_LOG_LEVEL) for them: kError silences this model's
  // warnings, kDebug shows its details alone. Unset: the process's level.
  // Messages of threads smrt shares between models are the process's
  // (include/smrt/log.h).
  std::optional<LogLevel> log_level;
};

// One input or output of a signature.
struct TensorSpec {
  std::string name;         // the key callers use ("x")
  std::string tensor_name;  // the graph tensor ("x:0")
  DataType dtype = DataType::kInvalid;
  bool known_rank = true;
  Shape shape;  // -1 for unknown dims
  std::string ShapeString() const;
};

struct SignatureInfo {
  std::string key;
  std::string method_name;
  std::vector<TensorSpec> inputs;   // sorted by name
  std::vector<TensorSpec> outputs;  // sorted by name
};

// What a model's tensors hold in memory (like
// tf.config.experimental.get_memory_info, per model). Counts the storage of
// every tensor the model made (weights, constants, intermediates of runs in
// flight, outputs the caller still holds) until it is freed; not tensors the
// caller made, nor oneDNN's own reordered weights and scratch buffers.
struct MemoryStats {
  uint64_t bytes_in_use = 0;
  uint64_t peak_bytes_in_use = 0;  // since load or ResetPeakMemoryStats()
  uint64_t limit_bytes = 0;        // LoadOptions::limits.memory_limit_bytes; 0: none
  uint64_t allocation_count = 0;   // tensors allocated since load
  // On a GPU (LoadOptions::device), its arena: bytes held by device tensors,
  // their peak (reset with ResetPeakMemoryStats), and what the arena holds
  // from the device, used or not (TrimMemory gives the free part back).
  uint64_t device_bytes_in_use = 0;
  uint64_t device_peak_bytes_in_use = 0;
  uint64_t device_bytes_reserved = 0;
};

class Model {
 public:
  // Reads the SavedModel at `dir`, restores its variables, runs its init op
  // and prepares the requested signatures. Errors name the file, signature,
  // node or op at fault.
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& dir,
                                                     const LoadOptions& options = {});
  // Like Load, from files in memory (no file system needed). The Model keeps
  // the bytes for its lifetime, since assets may be read when signatures
  // run; dir() is then a "mem://<n>" name, which errors quote.
  static absl::StatusOr<std::unique_ptr<Model>> LoadFromMemory(ModelFiles files,
                                                               const LoadOptions& options = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Prepared signatures (the init-op signature "__saved_model_init_op" is
  // never listed), sorted by key.
  std::vector<std::string> signature_keys() const;
  // NotFound listing the available keys.
  absl::StatusOr<const SignatureInfo*> signature(absl::string_view key) const;

  // Calls a signature. Every input must be given, with the declared dtype and
  // a shape that fits the graph; errors say which input is unknown, missing,
  // of the wrong dtype or of the wrong rank/dim (expected vs given).
  absl::StatusOr<NamedTensors> Run(absl::string_view signature_key,
                                   const NamedTensors& inputs) const;

  // Like Run, but outputs already present in *outputs with the right dtype
  // and shape are filled in place (their storage, e.g. a Tensor::View over
  // caller memory, receives the values); others are set as new tensors.
  absl::Status Run(absl::string_view signature_key, const NamedTensors& inputs,
                   NamedTensors* outputs) const;

  // Like Run, with options (a per-op profile: smrt/profile.h).
  absl::Status Run(absl::string_view signature_key, const NamedTensors& inputs,
                   NamedTensors* outputs, const RunOptions& options) const;

  // The static memory plan (smrt/memory_plan.h) of a signature for inputs of
  // these shapes, one per input name, without running it; Run executes from
  // it. Once a Run of these shapes has shown which outputs are views or in
  // place, the plan counts each such group once. Errors as for Run when a
  // shape does not fit the signature.
  absl::StatusOr<MemoryPlan> PlanMemory(absl::string_view signature_key,
                                        const std::map<std::string, Shape>& input_shapes) const;

  const std::string& dir() const;

  // Safe to call while other threads run the model.
  MemoryStats GetMemoryStats() const;
  // Sets the peak to what is in use now, to measure the peak of what follows.
  void ResetPeakMemoryStats() const;
  // Returns the free memory of the model's GPU arena to the device (every
  // region with nothing in use); returns the bytes given back. 0 on the CPU.
  // Safe to call while other threads run the model.
  int64_t TrimMemory() const;

  struct Impl;

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  friend struct ModelInternals;  // src/api/model_internals.h: tools' view
  std::unique_ptr<Impl> impl_;
};

}  // namespace smrt

#endif  // SMRT_MODEL_H_
