// This machine's peak per precision, as far as oneDNN's matmul reaches it:
// the ceiling that BENCHMARKS.md compares each mode's model timings with
// (issue 34). Square matrices, args = {size, threads}, float32 accumulation
// for bf16 and int32 for int8 (u8 x s8, the form AVX2, VNNI and AMX-INT8
// all run). Each benchmark's label is the implementation oneDNN chose
// (e.g. "brg:avx512_core_amx", "gemm:jit"); where oneDNN has only its
// reference loops ("ref:any": no fast path on this CPU) it is skipped, saying so.
// BM_OneDnnSgemmPeak (kernel_bench.cc) is the float32 GEMM that the earlier tables used.
#include <algorithm>
#include <string>

#include "benchmark/benchmark.h"
#include "kernels/cpu/intra_op_threads.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace smrt {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

void MatmulPeak(benchmark::State& state, dt src_type, dt weights_type, dt dst_type) {
  const dnnl::memory::dim size = state.range(0);
  kernels::IntraOpThreadsScope threads(static_cast<int>(state.range(1)));
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc src({size, size}, src_type, tag::ab);
  // Weights in the layout oneDNN prefers, reordered once, as the
  // convolution and matmul kernels keep constant weights.
  const dnnl::memory::desc weights_any({size, size}, weights_type, tag::any);
  const dnnl::memory::desc dst({size, size}, dst_type, tag::ab);
  dnnl::matmul::primitive_desc pd;
  try {
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights_any, dst), engine);
  } catch (const dnnl::error& e) {
    state.SkipWithError((std::string("oneDNN has no matmul for these types: ") + e.what()).c_str());
    return;
  }
  const std::string impl = pd.impl_info_str();
  if (impl.rfind("ref", 0) == 0) {
    // oneDNN's reference loops: minutes per call at these sizes, and no
    // ceiling worth the name.
    state.SkipWithError(("no fast path on this CPU (oneDNN offers " + impl + ")").c_str());
    return;
  }
  state.SetLabel(impl);
  // Zero-filled operands: the instructions a matmul runs do not depend on
  // the values, and zeros are valid in every type.
  dnnl::memory a(src, engine), b(pd.weights_desc(), engine), c(dst, engine);
  for (dnnl::memory* m : {&a, &b}) {
    auto* bytes = static_cast<unsigned char*>(m->get_data_handle());
    std::fill(bytes, bytes + m->get_desc().get_size(), 0);
  }
  dnnl::matmul prim(pd);
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    stream.wait();
  }
  state.counters["OPS"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2.0 * size * size * size,
                         benchmark::Counter::kIsRate);
}

void BM_OneDnnMatmulPeakF32(benchmark::State& state) {
  MatmulPeak(state, dt::f32, dt::f32, dt::f32);
}
void BM_OneDnnMatmulPeakBf16(benchmark::State& state) {
  MatmulPeak(state, dt::bf16, dt::bf16, dt::f32);
}
void BM_OneDnnMatmulPeakInt8(benchmark::State& state) {
  MatmulPeak(state, dt::u8, dt::s8, dt::s32);
}

#define SMRT_PEAK_ARGS \
  Args({1024, 1})->Args({2048, 1})->Args({2048, 2})->Unit(benchmark::kMillisecond)->UseRealTime()
BENCHMARK(BM_OneDnnMatmulPeakF32)->SMRT_PEAK_ARGS;
BENCHMARK(BM_OneDnnMatmulPeakBf16)->SMRT_PEAK_ARGS;
BENCHMARK(BM_OneDnnMatmulPeakInt8)->SMRT_PEAK_ARGS;
#undef SMRT_PEAK_ARGS

}  // namespace
}  // namespace smrt
