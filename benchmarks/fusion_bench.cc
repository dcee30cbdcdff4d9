// Fused conv + batch norm + relu (what the passes make) against the unfused
// chain the graph holds before them, on a ResNet-like 3x3 56x56x64 layer.
//   BM_ConvBnRelu_Unfused     Conv2D, FusedBatchNormV3, Relu: reference kernels
//   BM_ConvBnRelu_Fused/<be>  _SmrtFusedConv2D{BiasAdd, Relu}, BN folded into
//                             the weights, on backend <be> (reference, onednn)
// args = {batch, size, channels}.
//   BM_DenseBiasRelu/<be>     _SmrtFusedMatMul{BiasAdd, Relu} with constant
//                             weights on backend <be>; args = {m, k, n}
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"

namespace smrt {
namespace {

Tensor Values(Shape shape, float scale, float offset = 0) {
  Tensor t = *Tensor::Create(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    t.data<float>()[i] = offset + scale * static_cast<float>((i * 7919) % 1000) / 1000.0f;
  }
  return t;
}

const kernels::KernelSpec* Kernel(const std::string& op, const AttrMap& attrs,
                                  const std::string& backend) {
  for (const kernels::KernelSpec& k : kernels::KernelRegistry::Default().Kernels(op)) {
    if (k.backend == backend) {
      static std::vector<std::unique_ptr<kernels::KernelSpec>> keep;
      keep.push_back(std::make_unique<kernels::KernelSpec>(k));
      return keep.back().get();
    }
  }
  absl::StatusOr<const kernels::KernelSpec*> k =
      kernels::KernelRegistry::Default().FindKernel(op, kernels::kCpu, attrs);
  return k.ok() && (*k)->backend == backend ? *k : nullptr;
}

AttrMap ConvAttrs() {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  a.Set("padding", std::string("SAME"));
  kernels::ApplyAttrDefaults(*kernels::KernelRegistry::Default().FindOp("Conv2D"), a);
  return a;
}

absl::Status Step(const kernels::KernelSpec& k, const AttrMap& attrs, std::vector<Tensor> in,
                  Tensor& out, kernels::KernelState* state = nullptr) {
  kernels::KernelContext ctx("bench", k.op, attrs, std::move(in), 1);
  ctx.set_kernel_state(state);
  if (absl::Status s = k.compute(ctx); !s.ok()) return s;
  out = ctx.output(0);
  return absl::OkStatus();
}

void BM_ConvBnRelu_Unfused(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2);
  AttrMap conv = ConvAttrs();
  AttrMap bn;
  bn.Set("T", DataType::kFloat);
  bn.Set("U", DataType::kFloat);
  bn.Set("epsilon", 0.001f);
  bn.Set("is_training", false);
  kernels::ApplyAttrDefaults(*kernels::KernelRegistry::Default().FindOp("FusedBatchNormV3"), bn);
  AttrMap relu;
  relu.Set("T", DataType::kFloat);
  const kernels::KernelSpec* k_conv = Kernel("Conv2D", conv, "reference");
  const kernels::KernelSpec* k_bn = Kernel("FusedBatchNormV3", bn, "reference");
  const kernels::KernelSpec* k_relu = Kernel("Relu", relu, "reference");
  Tensor x = Values({n, hw, hw, c}, 1), w = Values({3, 3, c, c}, 0.1f, -0.05f);
  Tensor scale = Values({c}, 1, 0.5f), offset = Values({c}, 0.1f), mean = Values({c}, 0.1f),
         var = Values({c}, 1, 0.5f);
  for (auto _ : state) {
    Tensor y, z, r;
    if (!Step(*k_conv, conv, {x, w}, y).ok()) return state.SkipWithError("conv failed");
    kernels::KernelContext ctx("bench", "FusedBatchNormV3", bn, {y, scale, offset, mean, var}, 6);
    if (!k_bn->compute(ctx).ok()) return state.SkipWithError("batch norm failed");
    if (!Step(*k_relu, relu, {ctx.output(0)}, r).ok()) return state.SkipWithError("relu failed");
    benchmark::DoNotOptimize(r.raw_data());
  }
  state.SetItemsProcessed(state.iterations() * n * hw * hw * c * c * 9 * 2);  // flops
}
BENCHMARK(BM_ConvBnRelu_Unfused)->Args({1, 56, 64})->Unit(benchmark::kMicrosecond);

void BM_ConvBnRelu_Fused(benchmark::State& state, std::string backend) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2);
  AttrMap attrs = ConvAttrs();
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  attrs.Set("weights_constant", true);
  kernels::ApplyAttrDefaults(*kernels::KernelRegistry::Default().FindOp(kernels::kFusedConv2D),
                             attrs);
  const kernels::KernelSpec* k = Kernel(kernels::kFusedConv2D, attrs, backend);
  if (k == nullptr) return state.SkipWithError(("no backend " + backend).c_str());
  std::unique_ptr<kernels::KernelState> kernel_state = k->make_state ? k->make_state() : nullptr;
  Tensor x = Values({n, hw, hw, c}, 1), w = Values({3, 3, c, c}, 0.1f, -0.05f);
  Tensor bias = Values({c}, 0.1f);
  for (auto _ : state) {
    Tensor y;
    if (!Step(*k, attrs, {x, w, bias}, y, kernel_state.get()).ok()) {
      return state.SkipWithError("fused conv failed");
    }
    benchmark::DoNotOptimize(y.raw_data());
  }
  state.SetItemsProcessed(state.iterations() * n * hw * hw * c * c * 9 * 2);
}
BENCHMARK_CAPTURE(BM_ConvBnRelu_Fused, reference, std::string("reference"))
    ->Args({1, 56, 64})->Args({1, 7, 512})->Args({1, 4, 32})->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ConvBnRelu_Fused, onednn, std::string("onednn"))
    ->Args({1, 56, 64})->Args({1, 7, 512})->Args({1, 4, 32})->Unit(benchmark::kMicrosecond);

}  // namespace

void BM_DenseBiasRelu(benchmark::State& state, std::string backend) {
  const int64_t m = state.range(0), k_dim = state.range(1), n = state.range(2);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  attrs.Set("weights_constant", true);
  kernels::ApplyAttrDefaults(*kernels::KernelRegistry::Default().FindOp(kernels::kFusedMatMul),
                             attrs);
  const kernels::KernelSpec* k = Kernel(kernels::kFusedMatMul, attrs, backend);
  if (k == nullptr) return state.SkipWithError(("no backend " + backend).c_str());
  std::unique_ptr<kernels::KernelState> kernel_state = k->make_state ? k->make_state() : nullptr;
  Tensor x = Values({m, k_dim}, 1), w = Values({k_dim, n}, 0.1f, -0.05f), bias = Values({n}, 0.1f);
  for (auto _ : state) {
    Tensor y;
    if (!Step(*k, attrs, {x, w, bias}, y, kernel_state.get()).ok()) {
      return state.SkipWithError("fused matmul failed");
    }
    benchmark::DoNotOptimize(y.raw_data());
  }
  state.SetItemsProcessed(state.iterations() * m * k_dim * n * 2);  // flops
}
BENCHMARK_CAPTURE(BM_DenseBiasRelu, reference, std::string("reference"))
    ->Args({1, 1280, 1000})->Args({1, 2048, 1000})->Args({16, 2048, 1000})
    ->Args({128, 768, 768})->Args({128, 768, 3072})->Args({128, 3072, 768})->Args({2048, 768, 3072})->Args({2048, 3072, 768})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_DenseBiasRelu, onednn, std::string("onednn"))
    ->Args({1, 1280, 1000})->Args({1, 2048, 1000})->Args({16, 2048, 1000})
    ->Args({128, 768, 768})->Args({128, 768, 3072})->Args({128, 3072, 768})->Args({2048, 768, 3072})->Args({2048, 3072, 768})
    ->Unit(benchmark::kMicrosecond);

}  // namespace smrt
