// Shared pieces of the libFuzzer targets: tight limits, a scratch directory,
// and signature inputs made from fuzzer bytes.
#ifndef SMRT_TESTS_FUZZ_FUZZ_UTIL_H_
#define SMRT_TESTS_FUZZ_FUZZ_UTIL_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <string>

#include "smrt/model.h"

namespace smrt::fuzz {

// Limits small enough that no input can take the fuzzer past its own
// memory limit (-rss_limit_mb=2048) or make one run take seconds.
LoadOptions TightOptions();

// A directory of this process, created once (removed at exit).
const std::string& ScratchDir();

// One tensor per signature input: dtype as declared, unknown dims and rank
// chosen from the bytes (at most 16 elements), values from the bytes.
NamedTensors MakeInputs(const SignatureInfo& sig, FuzzedDataProvider& bytes);

// Runs every signature of `model` once with inputs made from `bytes`.
void RunAll(const Model& model, FuzzedDataProvider& bytes);

}  // namespace smrt::fuzz

#endif  // SMRT_TESTS_FUZZ_FUZZ_UTIL_H_
