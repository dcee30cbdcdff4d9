// smrt: inspect and run TensorFlow SavedModels without TensorFlow.
#include <iostream>
#include <string>
#include <vector>

#include "smrt/bench_command.h"
#include "smrt/check_command.h"
#include "smrt/devices_command.h"
#include "smrt/doctor_command.h"
#include "smrt/ops_command.h"
#include "smrt/quantize_command.h"
#include "smrt/run_command.h"
#include "smrt/show_command.h"

namespace {

constexpr char kUsage[] =
    "usage: smrt COMMAND [options]\n"
    "commands:\n"
    "  show    what a SavedModel holds: tag sets, signatures, variables, assets\n"
    "  run     call a signature with inputs from .npy files or literals\n"
    "  check   which ops the signatures need and whether smrt runs them on a device\n"
    "  ops     every op this build runs, per device and dtype\n"
    "  bench   load time, first-run and steady latency, throughput, peak RSS\n"
    "  quantize measure int8 input ranges on calibration inputs; write a quantization file\n"
    "  doctor  CPU, oneDNN, CUDA libraries and GPUs found; with --dir, a model's needs\n"
    "  devices CPU and CUDA devices; without a GPU, exactly why not\n"
    "run `smrt COMMAND --help` for a command's options\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");

  if (command == "devices") {
    if (help) {
      std::cout << smrt::cli::kDevicesUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunDevices(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt devices: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "show") {
    if (help) {
      std::cout << smrt::cli::kShowUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunShow(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt show: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "run") {
    if (help) {
      std::cout << smrt::cli::kRunUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunRun(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt run: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "check") {
    if (help) {
      std::cout << smrt::cli::kCheckUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunCheck(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt check: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "doctor") {
    if (help) {
      std::cout << smrt::cli::kDoctorUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunDoctor(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt doctor: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "bench") {
    if (help) {
      std::cout << smrt::cli::kBenchUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunBench(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt bench: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "quantize") {
    if (help) {
      std::cout << smrt::cli::kQuantizeUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunQuantize(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt quantize: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (command == "ops") {
    if (help) {
      std::cout << smrt::cli::kOpsUsage;
      return 0;
    }
    absl::Status status = smrt::cli::RunOps(args, std::cout);
    if (!status.ok()) {
      std::cerr << "smrt ops: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << "smrt: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
