// Placement: which device each node of a signature runs on, and the copies
// between them. Runs after the other passes when a model is loaded for a
// device other than the CPU (LoadOptions::device).
//
// A node goes to the device when the device has a kernel for it (its op and
// dtype); otherwise, under device_policy "prefer", it runs on the CPU and the
// fallback is logged; under "require" the load fails listing every op type
// the device lacks. The nodes of graph::KeptOnHost stay on the CPU whatever
// the device has: Placeholders (the caller's inputs, in host memory), NoOps,
// variable ops, and nodes whose outputs are all int32 (shape arithmetic,
// which TensorFlow also keeps in host memory on GPUs). A Const goes to the device when everything reading
// it reads it there, so weights are uploaded once, when the Program is made.
// Where a value crosses devices the pass adds one copy node per value and
// direction (_SmrtToDevice, _SmrtToHost), including before every fetch: the
// caller always gets host tensors. Inputs a device kernel reads on the host
// (KernelSpec::host_memory_inputs: shapes, axes) get host values.
#ifndef SMRT_PASSES_PLACE_NODES_H_
#define SMRT_PASSES_PLACE_NODES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/importer.h"
#include "passes/pass.h"

namespace smrt::passes {

struct PlacementOptions {
  std::string device;    // "CUDA:0": the requested device, type and index
  bool require = false;  // device_policy "require": no CPU fallback
  // For a function body (PlaceBody): whether each feed arrives, and each
  // fetch must leave, in device memory. Empty: all in host memory (a
  // signature's feeds and fetches).
  std::vector<bool> device_feeds;
  std::vector<bool> device_fetches;
};

// Sets Node::assigned_device on every live node ("" for the CPU) and adds the
// copies. Records every node in ctx.placement and, in ctx.log, each fallback. InvalidArgument for a malformed device
// name; FailedPrecondition under `require` when an op has no device kernel.
absl::Status PlaceNodes(PassContext& ctx, const PlacementOptions& options);

// Prepares the body of a function that a node placed on the device calls
// (While, If; exec::ProgramSpec::place_body), with options.device_feeds and
// device_fetches where its caller has them. When `freeze`, the model's
// variables are constants (no signature writes them): a read of the
// variable a feed refers to (`feed_resources`) becomes a Const, as
// freeze_variables does for a signature, so that a loop's weights go to the
// device once rather than every iteration. When `tf32` (the precision option
// "tf32"), its float32 products are marked as allow_tf32 does for a
// signature. Then PlaceNodes. Its records and
// log lines are appended to `records` and `log`, named "function/node".
absl::Status PlaceBody(const ops::KernelCatalog& kernels, const PlacementOptions& options,
                       absl::string_view function, graph::ImportResult& body,
                       const std::vector<ops::Resource*>& feed_resources, bool freeze,
                       bool tf32, std::vector<PlacementRecord>& records,
                       std::vector<std::string>& log);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_PLACE_NODES_H_
