// The one internal header the smrt CLI (tools/smrt) includes; everything
// else it uses is a public header (include/smrt). The CLI is a tool over the
// library, not a user of the API alone: `show` reads saved_model.pb as
// saved_model_cli does (the loader), `doctor` and `devices` report what the
// device probes and the kernel builds found, and `run`, `bench` and
// `quantize` read and write .npy files. What it may reach is listed here, so
// that a change below is checked against one file (tests/layers:
// layer_includes fails when a file in tools/ includes any other internal
// header).
#ifndef SMRT_API_CLI_SUPPORT_H_
#define SMRT_API_CLI_SUPPORT_H_

// Files and .npy tensors: run, bench, quantize, show (asset sizes); UTF-8
// for the escapes in --input_exprs strings.
#include "core/file.h"
#include "core/npy.h"
#include "core/utf8.h"
// smrt_serve (tools/serve): TFRecord framing of warm-up files (crc32c) and
// the log lines of version loads and unloads (smrt's log sink).
#include "core/crc32c.h"
#include "core/log.h"
// One JSON writer for bench --json and the profile.
#include "core/json_writer.h"
// The thread budget and the CUDA library folders doctor and devices report.
#include "core/cpu_budget.h"
#include "core/cuda_library_dirs.h"
// What the device probes found: CPU features, GPUs, CUDA libraries.
#include "device/cpu_info.h"
#include "device/cuda_libraries.h"
#include "device/device_registry.h"
// Which OpenMP runtime oneDNN uses and what this build's CUDA kernels need.
#include "kernels/cpu/openmp_binding.h"
#include "kernels/cuda_build.h"
// show: the SavedModel as written (tag sets, meta graphs, variables, assets,
// constants) and the graph after the passes.
#include "api/model_internals.h"
#include "loader/meta_graph_select.h"
#include "loader/saved_model_bundle.h"
#include "loader/saved_model_reader.h"
#include "loader/tensor_proto.h"

#endif  // SMRT_API_CLI_SUPPORT_H_
