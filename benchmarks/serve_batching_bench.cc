// smrt_serve's dynamic batching, in process (no network): N client threads
// each call Servable::Run with one image at a time on the zoo's MobileNetV2
// (alpha 0.35, 96x96), with and without a Batcher. Prints items/s and the
// p50 / p99 latency of a call for 1, 8 and 32 clients.
//
//   build/bin/smrt_serve_batching_bench [seconds per point, default 3]
//       [model dir, default tests/data/zoo/mobilenetv2_035_96/saved_model]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/batcher.h"
#include "serve/servable.h"
#include "smrt/model.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Point {
  double items_per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  int errors = 0;
};

Point Measure(const smrt::serve::Servable& servable, const smrt::NamedTensors& inputs, int clients,
              double seconds) {
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::vector<double>> latencies(clients);
  std::vector<std::thread> threads;
  const Clock::time_point start = Clock::now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      while (!stop.load(std::memory_order_relaxed)) {
        const Clock::time_point t0 = Clock::now();
        absl::StatusOr<smrt::NamedTensors> out = servable.Run("serve", inputs);
        const Clock::time_point t1 = Clock::now();
        if (!out.ok()) ++errors;
        latencies[c].push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  Point p;
  p.errors = errors;
  if (all.empty()) return p;
  p.items_per_second = static_cast<double>(all.size()) / elapsed;
  p.p50_ms = all[all.size() / 2];
  p.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  const std::string dir =
      argc > 2 ? argv[2] : std::string(SMRT_ZOO_DIR) + "/mobilenetv2_035_96/saved_model";
  absl::StatusOr<smrt::Tensor> image = smrt::Tensor::Create(smrt::DataType::kFloat, {1, 96, 96, 3});
  if (!image.ok()) return 1;
  for (int64_t i = 0; i < image->num_elements(); ++i) {
    image->data<float>()[i] = static_cast<float>(i % 255) / 255.0f;
  }
  const smrt::NamedTensors inputs = {{"keras_tensor", *image}};

  std::printf("model %s, %u hardware threads, %.1f s per point\n", dir.c_str(),
              std::thread::hardware_concurrency(), seconds);
  std::printf("%-10s %8s %12s %10s %10s %7s\n", "batching", "clients", "items/s", "p50 ms",
              "p99 ms", "errors");
  for (bool batching : {false, true}) {
    absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(dir);
    if (!model.ok()) {
      std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
      return 1;
    }
    std::unique_ptr<smrt::serve::Batcher> batcher;
    if (batching) {
      smrt::serve::BatchingOptions options;
      options.enabled = true;
      options.max_batch_size = 32;
      options.batch_timeout = absl::Microseconds(1000);
      options.max_enqueued_batches = 100;
      options.num_batch_threads = std::max(1u, std::thread::hardware_concurrency());
      absl::StatusOr<std::unique_ptr<smrt::serve::Batcher>> created =
          smrt::serve::Batcher::Create(model->get(), "mobilenet", options, nullptr);
      if (!created.ok()) {
        std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
        return 1;
      }
      batcher = *std::move(created);
    }
    smrt::serve::Servable servable("mobilenet", 1, dir, *std::move(model), std::move(batcher),
                                   nullptr);
    Measure(servable, inputs, 1, 0.5);  // first calls: plans, kernel choices
    for (int clients : {1, 8, 32}) {
      const Point p = Measure(servable, inputs, clients, seconds);
      std::printf("%-10s %8d %12.1f %10.2f %10.2f %7d\n", batching ? "on" : "off", clients,
                  p.items_per_second, p.p50_ms, p.p99_ms, p.errors);
    }
  }
  return 0;
}
