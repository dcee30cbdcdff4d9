// CudaDeviceContext on a second GPU, against a fake libcudart acting out a
// machine with two devices and a current device per thread (as cudaSetDevice
// keeps it). Whatever the context makes (streams, memory) must land on its
// own device whichever device the calling thread had current, and MakeCurrent
// must switch any thread to it. The real runtime is exercised by the GPU
// tests.
#include "exec/cuda_device_context.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace smrt::exec {
namespace {

using device::CudaRuntimeApi;

constexpr int kDevices = 2;
constexpr int kInvalidDevice = 101;  // cudaErrorInvalidDevice

thread_local int current = 0;  // the thread's current device, as cudaSetDevice keeps it
// The driver's view: the thread's current context (null: none), which
// cudaSetDevice sets to the device's primary context.
int primary[kDevices];
thread_local void* current_context = nullptr;
int context_sets = 0;             // cuCtxSetCurrent calls
bool driver_initialized = true;   // false: cuCtxGetCurrent says CUDA_ERROR_NOT_INITIALIZED

struct FakeMachine {
  std::mutex mu;
  std::map<void*, int> streams;  // stream -> device it was made on
  std::map<void*, int> memory;   // cudaMalloc'd -> device
  std::map<void*, void*> pool_allocated_on, pool_freed_on;  // pointer -> stream
  int next = 1;
  int destroyed = 0;
};
FakeMachine* machine = nullptr;

void* Next() { return reinterpret_cast<void*>(uintptr_t{0x1000} * machine->next++); }

CudaRuntimeApi FakeApi() {
  CudaRuntimeApi api;
  api.GetDeviceCount = [](int* n) {
    *n = kDevices;
    return 0;
  };
  api.SetDevice = [](int d) {
    if (d < 0 || d >= kDevices) return kInvalidDevice;
    current = d;
    current_context = &primary[d];
    driver_initialized = true;  // the runtime calls cuInit
    return 0;
  };
  api.CtxGetCurrent = [](void** c) {
    if (!driver_initialized) return device::kCuErrorNotInitialized;
    *c = current_context;
    return 0;
  };
  api.CtxSetCurrent = [](void* c) {
    ++context_sets;
    current_context = c;
    for (int d = 0; d < kDevices; ++d) {
      if (c == &primary[d]) current = d;
    }
    return 0;
  };
  api.StreamCreate = [](void** s) {
    std::lock_guard<std::mutex> lock(machine->mu);
    *s = Next();
    machine->streams[*s] = current;
    return 0;
  };
  api.StreamDestroy = [](void* s) {
    std::lock_guard<std::mutex> lock(machine->mu);
    machine->streams.erase(s);
    ++machine->destroyed;
    return 0;
  };
  api.StreamSynchronize = [](void*) { return 0; };
  api.MemGetInfo = [](size_t* free_bytes, size_t* total) {
    *free_bytes = size_t{1} << 30;
    *total = size_t{2} << 30;
    return 0;
  };
  api.Malloc = [](void** p, size_t) {
    std::lock_guard<std::mutex> lock(machine->mu);
    *p = Next();
    machine->memory[*p] = current;
    return 0;
  };
  api.Free = [](void* p) {
    std::lock_guard<std::mutex> lock(machine->mu);
    machine->memory.erase(p);
    return 0;
  };
  api.DeviceGetAttribute = [](int* v, int attr, int) {
    *v = attr == device::kCudaDevAttrMemoryPoolsSupported ? 1 : 0;
    return 0;
  };
  static int pool = 0;
  api.DeviceGetDefaultMemPool = [](void** p, int) {
    *p = &pool;
    return 0;
  };
  api.MemPoolSetAttribute = [](void*, int, void*) { return 0; };
  api.MallocFromPoolAsync = [](void** p, size_t, void*, void* stream) {
    std::lock_guard<std::mutex> lock(machine->mu);
    *p = Next();
    machine->pool_allocated_on[*p] = stream;
    return 0;
  };
  api.FreeAsync = [](void* p, void* stream) {
    std::lock_guard<std::mutex> lock(machine->mu);
    machine->pool_freed_on[p] = stream;
    return 0;
  };
  return api;
}

class CudaDeviceContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    machine = &fake_;
    current = 0;
  }
  void TearDown() override { machine = nullptr; }
  FakeMachine fake_;
  CudaRuntimeApi api_ = FakeApi();
  memory::GpuAllocatorOptions options_;
};

TEST_F(CudaDeviceContextTest, ASecondGpuGetsItsStreamsAndMemoryWhateverTheThreadHadCurrent) {
  absl::StatusOr<std::unique_ptr<CudaDeviceContext>> context =
      CudaDeviceContext::Create(api_, 1, options_);
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ((*context)->device(), 1);
  EXPECT_EQ(fake_.streams.at((*context)->stream()), 1);
  // The application (or a model on CUDA:0) switches this thread back.
  current = 0;
  absl::StatusOr<Tensor> t = (*context)->Allocate(DataType::kFloat, Shape{256}, "x");
  ASSERT_TRUE(t.ok()) << t.status();
  for (const auto& [ptr, device] : fake_.memory) EXPECT_EQ(device, 1);
  EXPECT_FALSE(fake_.memory.empty());
  // A run's stream, asked for from a thread whose current device is 0.
  current = 0;
  std::unique_ptr<kernels::DeviceContext> run = (*context)->ForRun();
  ASSERT_NE(run, nullptr);
  EXPECT_NE(run->stream(), (*context)->stream());
  EXPECT_EQ(fake_.streams.at(run->stream()), 1);
  // MakeCurrent, through the run's context too, on another thread.
  int seen = -1;
  std::thread other([&] {
    current = 0;
    absl::Status s = run->MakeCurrent();
    EXPECT_TRUE(s.ok()) << s;
    seen = current;
  });
  other.join();
  EXPECT_EQ(seen, 1);
  run.reset();
  t = Tensor();
  context->reset();
  EXPECT_TRUE(fake_.streams.empty());  // the model's stream and the run's, destroyed
  EXPECT_EQ(fake_.destroyed, 2);
}

// Loading, running or destroying a model on CUDA:1 makes it current on the
// calling thread (Model::Load and Model::Run hold a CallerContextGuard, the
// destructor its own); the thread's own context comes back after. A thread
// that had none is left with none: setting device 0 back would create a
// context there.
TEST_F(CudaDeviceContextTest, TheCallersCurrentContextComesBack) {
  std::thread caller([&] {
    std::unique_ptr<CudaDeviceContext> context;
    {
      device::CallerContextGuard keep(&api_);
      absl::StatusOr<std::unique_ptr<CudaDeviceContext>> made =
          CudaDeviceContext::Create(api_, 1, options_);
      ASSERT_TRUE(made.ok()) << made.status();
      context = *std::move(made);
      EXPECT_EQ(current_context, &primary[1]);
    }
    EXPECT_EQ(current_context, nullptr);
    ASSERT_EQ(api_.SetDevice(0), 0);  // the application's own CUDA work
    {
      device::CallerContextGuard keep(&api_);
      ASSERT_TRUE(context->MakeCurrent().ok());
      EXPECT_EQ(current_context, &primary[1]);
    }
    EXPECT_EQ(current_context, &primary[0]);
    EXPECT_EQ(current, 0);
    const int sets = context_sets;
    {
      device::CallerContextGuard keep(&api_);  // nothing changed: nothing set
    }
    EXPECT_EQ(context_sets, sets);
    context.reset();  // frees its streams with CUDA:1 current
    EXPECT_EQ(current_context, &primary[0]);
  });
  caller.join();
  // The process's first GPU load comes before any cuInit: the thread had no
  // context, and has none after.
  std::thread first([&] {
    driver_initialized = false;
    {
      device::CallerContextGuard keep(&api_);
      absl::StatusOr<std::unique_ptr<CudaDeviceContext>> made =
          CudaDeviceContext::Create(api_, 1, options_);
      ASSERT_TRUE(made.ok()) << made.status();
      EXPECT_EQ(current_context, &primary[1]);
      made->reset();
    }
    EXPECT_EQ(current_context, nullptr);
  });
  first.join();
  // Without the driver's context calls (no libcuda.so.1), nothing is kept.
  api_.CtxGetCurrent = nullptr;
  current_context = nullptr;
  {
    device::CallerContextGuard keep(&api_);
    ASSERT_EQ(api_.SetDevice(1), 0);
  }
  EXPECT_EQ(current_context, &primary[1]);
  device::CallerContextGuard none(nullptr);
}

// cuda_malloc_async: what a run allocates is ordered on the run's stream
// (memory allocated on the model's stream is usable on another only once
// that stream got there); it is freed on the model's stream after the run
// waited for its own.
TEST_F(CudaDeviceContextTest, AsyncArenaAllocatesOnTheRunsStream) {
  options_.kind = memory::GpuAllocatorKind::kCudaMallocAsync;
  absl::StatusOr<std::unique_ptr<CudaDeviceContext>> context =
      CudaDeviceContext::Create(api_, 0, options_);
  ASSERT_TRUE(context.ok()) << context.status();
  void* const model_stream = (*context)->stream();
  absl::StatusOr<Tensor> weights = (*context)->Allocate(DataType::kFloat, Shape{8}, "weights");
  ASSERT_TRUE(weights.ok()) << weights.status();
  EXPECT_EQ(fake_.pool_allocated_on.at(weights->raw_data()), model_stream);
  std::unique_ptr<kernels::DeviceContext> run = (*context)->ForRun();
  ASSERT_NE(run, nullptr);
  ASSERT_NE(run->stream(), model_stream);
  absl::StatusOr<Tensor> t = run->Allocate(DataType::kFloat, Shape{256}, "t");
  ASSERT_TRUE(t.ok()) << t.status();
  void* const p = t->raw_data();
  EXPECT_EQ(fake_.pool_allocated_on.at(p), run->stream());
  t = Tensor();
  run.reset();
  EXPECT_EQ(fake_.pool_freed_on.at(p), model_stream);
}

// A GPU this build's kernels hold no code for fails the load saying so,
// not the first kernel with cudaErrorNoKernelImageForDevice.
TEST_F(CudaDeviceContextTest, AGpuTheKernelsCannotRunOnFailsTheLoadSayingWhy) {
  device::DeviceDiscovery found;
  found.cuda.driver_version = 13000;
  device::DeviceInfo a100;
  a100.kind = device::DeviceKind::kCuda;
  a100.index = 1;
  a100.description = "NVIDIA A100";
  a100.cc_major = 8;
  found.devices.push_back(a100);
  kernels::CudaBuild build;
  build.runtime_version = 13000;
  build.architectures = "90";
  absl::Status s = CudaDeviceContext::CheckKernelsRun(build, found, 1);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "CUDA:1 (NVIDIA A100) cannot run smrt's CUDA "
                                             "kernels: smrt's CUDA kernels hold code for sm_90"))
      << s;
  EXPECT_TRUE(CudaDeviceContext::CheckKernelsRun(build, found, 0).ok());  // not known here
  found.devices[0].cc_major = 9;
  EXPECT_TRUE(CudaDeviceContext::CheckKernelsRun(build, found, 1).ok());
}

TEST_F(CudaDeviceContextTest, AGpuThatIsNotThereIsNamedWithTheCount) {
  absl::StatusOr<std::unique_ptr<CudaDeviceContext>> context =
      CudaDeviceContext::Create(api_, 2, options_);
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(context.status().message(),
                                "CUDA:2 does not exist: this machine has 2 CUDA device(s)"))
      << context.status();
}

TEST_F(CudaDeviceContextTest, MakeCurrentSaysWhichDeviceCouldNotBeSet) {
  absl::StatusOr<std::unique_ptr<CudaDeviceContext>> context =
      CudaDeviceContext::Create(api_, 1, options_);
  ASSERT_TRUE(context.ok()) << context.status();
  // The device went away (a driver reset): cudaSetDevice now fails.
  api_.SetDevice = [](int) { return kInvalidDevice; };
  absl::Status s = (*context)->MakeCurrent();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "CUDA:1: cudaSetDevice failed")) << s;
  // No stream made on the wrong device: the run queues on the model's.
  std::unique_ptr<kernels::DeviceContext> run = (*context)->ForRun();
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->stream(), (*context)->stream());
  EXPECT_EQ((*context)->run_streams(), 0);
  api_ = FakeApi();
}

// Out of streams: the run shares the model's stream, and what it frees still
// waits (parked) until the run has waited for that stream, so a concurrent
// run on a stream of its own is never handed a buffer this one still reads.
TEST_F(CudaDeviceContextTest, ARunWithoutAStreamOfItsOwnStillParksWhatItFrees) {
  absl::StatusOr<std::unique_ptr<CudaDeviceContext>> context =
      CudaDeviceContext::Create(api_, 0, options_);
  ASSERT_TRUE(context.ok()) << context.status();
  api_.StreamCreate = [](void**) { return 2; };  // cudaErrorMemoryAllocation
  std::unique_ptr<kernels::DeviceContext> run = (*context)->ForRun();
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->stream(), (*context)->stream());
  absl::StatusOr<Tensor> t = run->Allocate(DataType::kFloat, Shape{256}, "t");
  ASSERT_TRUE(t.ok()) << t.status();
  const int64_t in_use = (*context)->allocator().GetStats().bytes_in_use;
  EXPECT_GT(in_use, 0);
  t = Tensor();  // parked: the model's stream may still be reading it
  EXPECT_EQ((*context)->allocator().GetStats().bytes_in_use, in_use);
  run.reset();
  EXPECT_EQ((*context)->allocator().GetStats().bytes_in_use, 0);
  api_ = FakeApi();
}

}  // namespace
}  // namespace smrt::exec
