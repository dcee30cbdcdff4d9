// Per-op and end-to-end benchmarks (Google Benchmark). Build with
// -DSMRT_BUILD_BENCHMARKS=ON; run build/bin/smrt_bench. Report medians:
//   build/bin/smrt_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// SMRT_BENCH_MODEL=DIR (and SMRT_BENCH_SIGNATURE, default serving_default)
// adds an end-to-end run of that model with zero-filled inputs (unknown dims = 1).
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"
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

// DepthwiseConv2dNative NHWC, SAME, 3x3, multiplier 1: args = {batch, size, channels}.
void BM_DepthwiseConv2D(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("padding", std::string("SAME"));
  RunKernel(state, "DepthwiseConv2dNative", attrs,
            {Filled(DataType::kFloat, {n, hw, hw, c}), Filled(DataType::kFloat, {3, 3, c, 1})});
  state.SetItemsProcessed(state.iterations() * n * hw * hw * c * 9 * 2);  // flops
}
BENCHMARK(BM_DepthwiseConv2D)->Args({1, 112, 32})->Args({1, 56, 144})->Args({8, 28, 192})
    ->Unit(benchmark::kMicrosecond);

// The squeeze-excite pair of EfficientNet/MobileNetV3: Mean over H and W
// (keep_dims), then x * scale[N,1,1,C]. args = {batch, size, channels, threads}.
void BM_SqueezeMean(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2);
  kernels::IntraOpThreadsScope threads(static_cast<int>(state.range(3)));
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("Tidx", DataType::kInt32);
  attrs.Set("keep_dims", true);
  Tensor axes = Filled(DataType::kInt32, {2});
  axes.data<int32_t>()[0] = 1;
  axes.data<int32_t>()[1] = 2;
  RunKernel(state, "Mean", attrs, {Filled(DataType::kFloat, {n, hw, hw, c}), axes});
  state.SetBytesProcessed(state.iterations() * n * hw * hw * c * 4);
}
BENCHMARK(BM_SqueezeMean)->Args({1, 112, 32, 1})->Args({1, 112, 32, 2})->Args({1, 14, 480, 2})->Args({16, 56, 144, 2})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_ExciteMul(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2);
  kernels::IntraOpThreadsScope threads(static_cast<int>(state.range(3)));
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  RunKernel(state, "Mul", attrs,
            {Filled(DataType::kFloat, {n, hw, hw, c}), Filled(DataType::kFloat, {n, 1, 1, c})});
  state.SetBytesProcessed(state.iterations() * n * hw * hw * c * 4 * 2);
}
BENCHMARK(BM_ExciteMul)->Args({1, 112, 32, 1})->Args({1, 112, 32, 2})->Args({1, 14, 480, 2})->Args({16, 56, 144, 2})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();

// _SmrtAttention (what fuse_attention makes of Keras's MultiHeadAttention):
// q, k, v [batch, seq, 12, 64] and a [batch, 1, 1, seq] bool select mask.
// args = {batch, seq, threads}.
void BM_Attention(benchmark::State& state) {
  const int64_t n = state.range(0), seq = state.range(1);
  kernels::IntraOpThreadsScope threads(static_cast<int>(state.range(2)));
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("mask", std::string("select"));
  attrs.Set("mask_fill", -1e9f);
  attrs.Set("fill_masked_probs", true);
  Tensor mask = *Tensor::Create(DataType::kBool, {n, 1, 1, seq});
  for (int64_t i = 0; i < mask.num_elements(); ++i) mask.data<bool>()[i] = i % seq < seq - 7;
  RunKernel(state, kernels::kAttention, attrs,
            {Filled(DataType::kFloat, {n, seq, 12, 64}), Filled(DataType::kFloat, {n, seq, 12, 64}),
             Filled(DataType::kFloat, {n, seq, 12, 64}), mask});
  state.SetItemsProcessed(state.iterations() * n * 12 * seq * seq * 64 * 4);  // flops
}
BENCHMARK(BM_Attention)->Args({1, 128, 2})->Args({16, 128, 2})->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// _SmrtLayerNorm over the last dim (what fuse_layer_norm makes of Keras's
// LayerNormalization): args = {rows, depth}. BERT-base: 128 tokens x 768.
void BM_LayerNorm(benchmark::State& state) {
  const int64_t rows = state.range(0), depth = state.range(1);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("epsilon", 1e-3f);
  RunKernel(state, "_SmrtLayerNorm", attrs,
            {Filled(DataType::kFloat, {rows, depth}), Filled(DataType::kFloat, {depth}),
             Filled(DataType::kFloat, {depth})});
  state.SetBytesProcessed(state.iterations() * rows * depth * 4 * 2);  // read x, write y
}
BENCHMARK(BM_LayerNorm)->Args({128, 768})->Args({2048, 768})->Unit(benchmark::kMicrosecond);

// This machine's fp32 peak, as far as a GEMM reaches it: oneDNN's sgemm on
// square matrices, args = {size, threads}. The FLOPS counter is the number the
// model benchmarks (BENCHMARKS.md) compare their convolutions with.
void BM_OneDnnSgemmPeak(benchmark::State& state) {
  const int64_t size = state.range(0);
  kernels::IntraOpThreadsScope threads(static_cast<int>(state.range(1)));
  std::vector<float> a(size * size, 0.5f), b(size * size, 0.25f), c(size * size);
  for (auto _ : state) {
    if (!kernels::OneDnnSgemm(false, false, size, size, size, a.data(), size, b.data(), size,
                              c.data(), size)) {
      state.SkipWithError("oneDNN refused the sgemm");
      return;
    }
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["FLOPS"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * size * size * size,
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_OneDnnSgemmPeak)->Args({1024, 1})->Args({2048, 1})->Args({2048, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

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
