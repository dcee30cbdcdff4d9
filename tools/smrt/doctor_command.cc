#include "smrt/doctor_command.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/cli_support.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "smrt/check.h"
#include "smrt/flags.h"
#include "smrt/json_values.h"
#include "smrt/memory_report.h"
#include "smrt/model.h"

namespace smrt::cli {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;

std::string Bytes(int64_t b) {
  if (b >= (int64_t{1} << 30)) return absl::StrFormat("%.2f GiB", b / double(int64_t{1} << 30));
  if (b >= (1 << 20)) return absl::StrFormat("%.2f MiB", b / double(1 << 20));
  if (b >= (1 << 10)) return absl::StrFormat("%.1f KiB", b / 1024.0);
  return absl::StrCat(b, " B");
}


void LibraryText(const device::LibraryProbe& p, std::ostream& out) {
  out << "  " << p.role << ": ";
  if (p.found()) {
    out << (p.version.empty() ? "found" : p.version) << " at " << p.path << "\n";
  } else {
    out << "NOT FOUND; tried " << absl::StrJoin(p.tried, ", ") << "\n";
  }
}

// "3.67 MiB (weights 3.15 MiB + activation peak 540.0 KiB)", or why not.
std::string MemoryText(const SignatureMemory& m) {
  if (!m.error.empty()) return absl::StrCat("not planned: ", m.error);
  std::string text = absl::StrCat(Bytes(m.predicted_bytes()), " (weights ",
                                   Bytes(m.plan.weight_bytes), " + activation peak ",
                                   Bytes(m.plan.peak_bytes));
  if (!m.plan.unplanned.empty()) {
    absl::StrAppend(&text, "; ", m.plan.unplanned.size(), " tensors sized only at run time");
  }
  return absl::StrCat(text, ")");
}

Value MemoryJson(const SignatureMemory& m) {
  Value v;
  auto& f = *v.mutable_struct_value()->mutable_fields();
  f["batch"] = Num(static_cast<double>(m.batch));
  f["error"] = Str(m.error);
  f["weight_bytes"] = Num(static_cast<double>(m.plan.weight_bytes));
  f["mapped_weight_bytes"] = Num(static_cast<double>(m.plan.mapped_weight_bytes));
  f["activation_peak_bytes"] = Num(static_cast<double>(m.plan.peak_bytes));
  f["predicted_bytes"] = Num(static_cast<double>(m.predicted_bytes()));
  f["naive_activation_bytes"] = Num(static_cast<double>(m.plan.naive_bytes));
  f["planned_tensors"] = Num(static_cast<double>(m.plan.tensors.size()));
  f["unplanned_tensors"] = Num(static_cast<double>(m.plan.unplanned.size()));
  return v;
}

// Where the default intra_op_threads stands among what overrides it.
constexpr char kThreadsPrecedence[] =
    "the default intra_op_threads; OMP_NUM_THREADS, when set, wins over it, and an explicit "
    "--threads / LoadOptions::intra_op_threads over both";

Value CpuBudgetJson(const CpuBudget& b, const char* omp_num_threads) {
  Value v;
  auto& f = *v.mutable_struct_value()->mutable_fields();
  f["threads"] = Num(b.threads);
  f["online_cpus"] = Num(b.online_cpus);
  f["affinity_cpus"] = Num(b.affinity_cpus);
  f["quota_cpus"] = Num(b.quota_cpus);
  f["quota_source"] = Str(b.quota_source);
  f["explain"] = Str(b.Explain());
  f["omp_num_threads"] = Str(omp_num_threads ? omp_num_threads : "");
  f["precedence"] = Str(kThreadsPrecedence);
  return v;
}

}  // namespace

absl::Status RunDoctor(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir", "tag_set", "batch"};
  spec.switches = {"json"};
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  const bool json = flags->Switch("json");
  int64_t batch = 8;
  if (std::optional<std::string> b = flags->Get("batch");
      b && (!absl::SimpleAtoi(*b, &batch) || batch < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("--batch expects an integer >= 1, got '", *b, "'"));
  }

  const device::CpuInfo cpu = device::ProbeCpu();
  const CpuBudget budget = DetectCpuBudget();
  const char* omp_num_threads = std::getenv("OMP_NUM_THREADS");
  const device::CudaReport cuda = device::ProbeCuda();
  // What stops GPU use, whether this build's kernels run on each GPU
  // included (kernels/cuda_build.h).
  std::vector<std::string> gpu_problems = cuda.problems;
  const bool cuda_built = kernels::ThisCudaBuild().runtime_version != 0;
  if (!cuda_built) {
    gpu_problems.insert(gpu_problems.begin(),
                        "this smrt was built without the CUDA backend (configure with "
                        "-DSMRT_WITH_CUDA=ON; scripts/test.sh --cuda builds one)");
  }
  for (const device::GpuInfo& gpu : cuda.gpus) {
    const std::string why = kernels::WhyCudaBuildCannotRun(
        kernels::ThisCudaBuild(), cuda.driver_version, gpu.cc_major, gpu.cc_minor);
    if (!why.empty()) gpu_problems.push_back(absl::StrCat("GPU ", gpu.index, ": ", why));
  }
  const bool gpu_usable = gpu_problems.empty() && !cuda.gpus.empty();
  std::optional<ModelCheck> cpu_check, cuda_check;
  std::optional<std::string> dir = flags->Get("dir");
  if (dir) {
    LoadOptions options;
    if (std::optional<std::string> tags = flags->Get("tag_set")) {
      options.tags = absl::StrSplit(*tags, ',', absl::SkipEmpty());
    }
    absl::StatusOr<ModelCheck> c = CheckModel(*dir, options, "cpu");
    if (!c.ok()) return c.status();
    cpu_check = *std::move(c);
    absl::StatusOr<ModelCheck> g = CheckModel(*dir, options, "cuda");
    if (!g.ok()) return g.status();
    cuda_check = *std::move(g);
  }
  auto missing = [](const SignatureCheck& s) {
    std::vector<std::string> ops;
    for (const OpCheck& op : s.ops) {
      if (!op.supported()) ops.push_back(op.op);
    }
    return ops;
  };

  // Predicted memory at batch 1 and --batch of the signatures that import
  // with every op supported on CPU (the others cannot be loaded).
  std::map<std::string, std::vector<SignatureMemory>> memory;
  std::string memory_error;
  if (cpu_check) {
    LoadOptions load;
    if (std::optional<std::string> tags = flags->Get("tag_set")) {
      load.tags = absl::StrSplit(*tags, ',', absl::SkipEmpty());
    }
    for (const SignatureCheck& s : cpu_check->signatures) {
      if (s.key != "(init op)" && s.error.empty() && missing(s).empty()) {
        load.signatures.push_back(s.key);
      }
    }
    if (!load.signatures.empty()) {
      absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(*dir, load);
      if (!model.ok()) {
        memory_error = std::string(model.status().message());
      } else {
        for (int64_t b : batch == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{1, batch}) {
          for (SignatureMemory& m : PlanSignatures(**model, load.signatures, b)) {
            memory[m.key].push_back(std::move(m));
          }
        }
      }
    }
  }

  if (json) {
    Struct root;
    auto& f = *root.mutable_fields();
    Value c;
    auto& cf = *c.mutable_struct_value()->mutable_fields();
    cf["model"] = Str(cpu.model);
    cf["logical_cores"] = Num(cpu.logical_cores);
    cf["isa"] = List(cpu.isa);
    cf["onednn_version"] = Str(cpu.onednn_version);
    cf["onednn_isa"] = Str(cpu.onednn_isa);
    cf["bfloat16"] = Str(device::DescribeCpuPrecision(cpu, "bfloat16").text);
    cf["budget"] = CpuBudgetJson(budget, omp_num_threads);
    cf["onednn_threads"] = Str(kernels::OneDnnUsesSmrtTeams() ? "smrt" : "libgomp");
    f["cpu"] = c;
    Value g;
    auto& gf = *g.mutable_struct_value()->mutable_fields();
    for (const device::LibraryProbe* p :
         {&cuda.driver, &cuda.runtime, &cuda.cublas, &cuda.cublaslt, &cuda.cudnn}) {
      *gf["libraries"].mutable_list_value()->add_values() = LibraryJson(*p);
    }
    gf["driver_cuda_version"] = Str(cuda.driver_version ? device::CudaVersionString(cuda.driver_version) : "");
    gf["runtime_cuda_version"] = Str(cuda.runtime_version ? device::CudaVersionString(cuda.runtime_version) : "");
    gf["gpus"].mutable_list_value();
    for (const device::GpuInfo& gpu : cuda.gpus) {
      Value d;
      auto& df = *d.mutable_struct_value()->mutable_fields();
      df["index"] = Num(gpu.index);
      df["name"] = Str(gpu.name);
      df["compute_capability"] = Str(absl::StrCat(gpu.cc_major, ".", gpu.cc_minor));
      df["memory_bytes"] = Num(static_cast<double>(gpu.memory_bytes));
      *gf["gpus"].mutable_list_value()->add_values() = d;
    }
    gf["problems"] = List(gpu_problems);
    gf["usable"] = Str(gpu_usable ? "yes" : "no");
    f["cuda"] = g;
    if (cpu_check) {
      Value m;
      auto& mf = *m.mutable_struct_value()->mutable_fields();
      mf["dir"] = Str(*dir);
      mf["variable_bytes"] = Num(static_cast<double>(cpu_check->variable_bytes));
      for (size_t i = 0; i < cpu_check->signatures.size(); ++i) {
        const SignatureCheck& s = cpu_check->signatures[i];
        Value sv;
        auto& sf = *sv.mutable_struct_value()->mutable_fields();
        sf["key"] = Str(s.key);
        sf["error"] = Str(s.error);
        sf["op_types"] = Num(static_cast<double>(s.ops.size()));
        sf["constant_bytes"] = Num(static_cast<double>(s.constant_bytes));
        sf["missing_on_cpu"] = List(missing(s));
        sf["missing_on_cuda"] = List(missing(cuda_check->signatures[i]));
        sf["memory"].mutable_list_value();
        for (const SignatureMemory& mem : memory[s.key]) {
          *sf["memory"].mutable_list_value()->add_values() = MemoryJson(mem);
        }
        *mf["signatures"].mutable_list_value()->add_values() = sv;
      }
      if (!memory_error.empty()) mf["memory_error"] = Str(memory_error);
      f["model"] = m;
    }
    std::string text;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    (void)google::protobuf::util::MessageToJsonString(root, &text, options);
    out << text;
  } else {
    out << "CPU: " << cpu.model << ", " << cpu.logical_cores << " logical cores\n"
        << "  ISA: " << absl::StrJoin(cpu.isa, " ") << "\n"
        << "  oneDNN " << cpu.onednn_version << " dispatches to: " << cpu.onednn_isa << "\n"
        << "  " << device::DescribeCpuPrecision(cpu, "bfloat16").text << "\n"
        << "  budget: " << budget.Explain() << "\n"
        << "    (" << kThreadsPrecedence << ")\n"
        << (kernels::OneDnnUsesSmrtTeams()
                ? "  oneDNN runs on smrt's own thread teams (no spinning joins on a busy CPU)\n"
                : "  oneDNN runs on libgomp's threads, not smrt's: an OpenMP runtime loaded "
                  "ahead of libsmrt (LD_PRELOAD, or a program linking libgomp first) took its "
                  "entry points; on a busy CPU its spinning joins can slow every op\n");
    if (omp_num_threads != nullptr) {
      // Read as libgomp reads it: the first number of a list ("4,2").
      const bool used = std::strtol(omp_num_threads, nullptr, 10) > 0;
      out << "  OMP_NUM_THREADS=" << omp_num_threads
          << (used ? " is set: it replaces the budget above as the default\n"
                   : " is set but is not a thread count: ignored\n");
    }
    out << "CUDA:\n";
    for (const device::LibraryProbe* p :
         {&cuda.driver, &cuda.runtime, &cuda.cublas, &cuda.cublaslt, &cuda.cudnn}) {
      LibraryText(*p, out);
    }
    out << "  GPUs: " << (cuda.gpus.empty() ? "none" : "") << "\n";
    for (const device::GpuInfo& gpu : cuda.gpus) {
      out << "    " << gpu.index << ": " << gpu.name << ", compute capability " << gpu.cc_major
          << "." << gpu.cc_minor << ", " << Bytes(static_cast<int64_t>(gpu.memory_bytes)) << "\n";
    }
    int cuda_ops = 0;
    for (const SupportedOp& op : SupportedOps()) {
      cuda_ops += std::any_of(op.kernels.begin(), op.kernels.end(),
                              [](const OpKernels& k) { return k.device == "CUDA"; });
    }
    out << "  smrt CUDA kernels in this build: "
        << (cuda_built ? absl::StrCat(cuda_ops, " ops") : "none (built without the CUDA backend)")
        << "\n";
    if (gpu_usable) {
      out << "  GPU use: possible\n";
    } else {
      out << "  GPU use: not possible:\n";
      for (const std::string& p : gpu_problems) out << "    - " << p << "\n";
    }
    if (cpu_check) {
      out << "Model " << *dir << ":\n  weights (variables): " << Bytes(cpu_check->variable_bytes)
          << "\n";
      if (!memory_error.empty()) out << "  memory not predicted: " << memory_error << "\n";
      for (size_t i = 0; i < cpu_check->signatures.size(); ++i) {
        const SignatureCheck& s = cpu_check->signatures[i];
        if (!s.error.empty()) {
          out << "  " << s.key << ": cannot be imported: " << s.error << "\n";
          continue;
        }
        const std::vector<std::string> on_cpu = missing(s);
        const std::vector<std::string> on_cuda = missing(cuda_check->signatures[i]);
        out << "  " << s.key << ": " << s.ops.size() << " op types, constants "
            << Bytes(s.constant_bytes) << "; CPU: "
            << (on_cpu.empty() ? "all supported"
                               : absl::StrCat("missing ", absl::StrJoin(on_cpu, ", ")))
            << "; CUDA: "
            << (!cuda_built       ? "not in this build"
                : on_cuda.empty() ? "all supported"
                                  : absl::StrCat(on_cuda.size(), " op types missing"))
            << "\n";
        auto mem = memory.find(s.key);
        if (mem != memory.end()) {
          out << "    predicted memory:";
          for (const SignatureMemory& m : mem->second) {
            out << (&m == &mem->second.front() ? " " : "; ") << "batch " << m.batch << ": "
                << MemoryText(m);
          }
          out << "\n";
        }
      }
    }
  }
  if (cpu_check && !cpu_check->ok()) {
    return absl::FailedPreconditionError("the model needs ops smrt lacks on CPU (see above)");
  }
  return absl::OkStatus();
}

}  // namespace smrt::cli
