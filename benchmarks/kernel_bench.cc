// Per-op and end-to-end benchmarks (Google Benchmark). Build with
// -DSMRT_BUILD_BENCHMARKS=ON; run build/bin/smrt_bench. Report medians:
//   build/bin/smrt_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// SMRT_BENCH_MODEL=DIR (and SMRT_BENCH_SIGNATURE, default serving_default)
// adds an end-to-end run of that model with zero-filled inputs (unknown dims = 1).
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "kernels/registry.h"
#include "smrt/model.h"

namespace smrt {
namespace {

Tensor Filled(DataType dtype, Shape shape) {
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, std::move(shape));
  if (dtype == DataType::kFloat) {
    for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = 0.001f * (i % 1000);
  }
  return *t;
}

// Runs one kernel through the registry, as the executor does.
void RunKernel(benchmark::State& state, const std::string& op, AttrMap attrs,
               std::vector<Tensor> inputs) {
  const kernels::KernelRegistry& r = kernels::KernelRegistry::Default();
  kernels::ApplyAttrDefaults(*r.FindOp(op), attrs);
  absl::StatusOr<const kernels::KernelSpec*> k = r.FindKernel(op, kernels::kCpu, attrs);
  if (!k.ok()) {
    state.SkipWithError(std::string(k.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    kernels::KernelContext ctx("bench", op, attrs, inputs, 1);
    absl::Status s = (*k)->compute(ctx);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(ctx.output(0).raw_data());
  }
}

// Conv2D NHWC, SAME, 3x3: args = {batch, size, in_channels, out_channels}.
void BM_Conv2D(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), ci = state.range(2), co = state.range(3);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("padding", std::string("SAME"));
  RunKernel(state, "Conv2D", attrs,
            {Filled(DataType::kFloat, {n, hw, hw, ci}), Filled(DataType::kFloat, {3, 3, ci, co})});
  state.SetItemsProcessed(state.iterations() * n * hw * hw * ci * co * 9 * 2);  // flops
}
BENCHMARK(BM_Conv2D)->Args({1, 56, 64, 64})->Args({1, 28, 128, 128})->Args({8, 28, 128, 128})
    ->Unit(benchmark::kMicrosecond);

// MatMul: args = {m, k, n}.
void BM_MatMul(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  RunKernel(state, "MatMul", attrs,
            {Filled(DataType::kFloat, {m, k}), Filled(DataType::kFloat, {k, n})});
  state.SetItemsProcessed(state.iterations() * m * k * n * 2);
}
BENCHMARK(BM_MatMul)->Args({1, 768, 768})->Args({128, 768, 3072})->Args({512, 512, 512})
    ->Unit(benchmark::kMicrosecond);

void BM_Model(benchmark::State& state, std::string dir, std::string signature) {
  LoadOptions options;
  options.signatures = {signature};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, options);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  NamedTensors inputs;
  for (const TensorSpec& spec : (*model)->signature(signature).value()->inputs) {
    Shape shape = spec.shape;
    for (int64_t& d : shape) d = d < 0 ? 1 : d;
    inputs[spec.name] = Filled(spec.dtype, shape);
  }
  for (auto _ : state) {
    absl::StatusOr<NamedTensors> out = (*model)->Run(signature, inputs);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
  }
}

}  // namespace
}  // namespace smrt

int main(int argc, char** argv) {
  const char* dir = std::getenv("SMRT_BENCH_MODEL");
  const char* sig = std::getenv("SMRT_BENCH_SIGNATURE");
  std::string model_dir = dir != nullptr ? dir : SMRT_DEMO_MODEL_DIR;
  benchmark::RegisterBenchmark("BM_Model", smrt::BM_Model, model_dir,
                               std::string(sig != nullptr ? sig : "serving_default"))
      ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
