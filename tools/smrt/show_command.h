// `smrt show`: what is inside a SavedModel, printed the way TensorFlow's
// `saved_model_cli show` prints it, plus --variables and --assets.
#ifndef SMRT_TOOLS_SHOW_COMMAND_H_
#define SMRT_TOOLS_SHOW_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kShowUsage[] =
    "usage: smrt show --dir DIR [--tag_set TAGS] [--signature_def KEY] [--all]\n"
    "                 [--variables] [--assets] [--fusions] [--memory [--batch N]]\n"
    "                 [--precision float32|tf32|float16|bfloat16] [--quantization FILE]\n"
    "  no options        the tag sets of the SavedModel\n"
    "  --tag_set TAGS    the SignatureDef keys of that MetaGraphDef (e.g. serve)\n"
    "  --signature_def   inputs, outputs and method of one SignatureDef\n"
    "  --all             every MetaGraphDef, SignatureDef and the ops used\n"
    "  --variables       checkpoint key, dtype, shape and bytes of each variable\n"
    "  --assets          asset files the graph reads, and assets.extra/ files\n"
    "  --fusions         what the graph passes fused in each signature (or the one\n"
    "                    --signature_def names), and why candidates were left unfused\n"
    "  --memory          per signature (or the --signature_def one), for inputs whose\n"
    "                    unknown dims are --batch N (first dim, default 1) or 1: weight\n"
    "                    bytes, the planned activation peak (one 64-byte aligned arena,\n"
    "                    best fit over tensor lifetimes), the naive sum, and the tensors\n"
    "                    left unplanned because their size is known only at run time\n"
    "  --precision       with --fusions / --memory: load as LoadOptions::precision says\n"
    "                    (the reduce_precision pass's log; 16-bit weight bytes)\n"
    "  --quantization    with --fusions / --memory: load with an int8 quantization file\n"
    "                    (the nodes quantize_int8 made int8, and why others stayed float)\n";

// Runs `smrt show` with the arguments after "show". Output goes to `out`;
// errors are returned (the caller prints them and exits non-zero).
absl::Status RunShow(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_SHOW_COMMAND_H_
