// The server's counters and histograms, exported in Prometheus's text format
// at /monitoring/prometheus/metrics with TF Serving's metric names where it
// has them (":tensorflow:serving:request_count",
// ":tensorflow:serving:request_latency", ":tensorflow:serving:batching_session:..."),
// plus smrt's own (model memory). Thread-safe: every front end and batcher
// records into one Metrics.
#ifndef SMRT_TOOLS_SERVE_METRICS_H_
#define SMRT_TOOLS_SERVE_METRICS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace smrt::serve {

class Metrics {
 public:
  Metrics();
  ~Metrics();

  // One finished request: `api` is "predict", "classify", "regress",
  // "multi_inference", "metadata" or "status"; `entrypoint` "GRPC" or "REST".
  void RecordRequest(std::string_view model, std::string_view api, std::string_view entrypoint,
                     const absl::Status& status, absl::Duration latency);
  // One batch the batcher ran: how many requests' items it held, and its
  // padded size.
  void RecordBatch(std::string_view model, int64_t batch_size, int64_t padded_size);
  // Called at each scrape for gauges that are read, not recorded (model
  // memory from smrt::Model::GetMemoryStats, versions loaded, requests in
  // flight): `emit(name, labels, value)`, labels as Prometheus writes them
  // ("model=\"m\",version=\"1\"").
  using GaugeFn = std::function<void(
      const std::function<void(std::string_view name, std::string_view labels, double value)>&
          emit)>;
  void SetGauges(GaugeFn gauges);
  // More gauge sources beside SetGauges' (ServerCore adds its models' memory
  // and versions); the id removes one. RemoveGauges returns once no scrape
  // is in it any more, so what it reads may then be freed.
  int AddGauges(GaugeFn gauges);
  void RemoveGauges(int id);

  // The Prometheus text exposition (format 0.0.4): TF Serving's
  // ":tensorflow:serving:request_count{model_name,status}" counter, the
  // ":tensorflow:serving:request_latency{model_name,API,entrypoint}" histogram
  // (microseconds, TF Serving's buckets: 10 * 1.8^i, 33 of them), the
  // batching session's processed_batch_size and padding_size histograms, and
  // the gauges.
  std::string PrometheusText() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// A label value as Prometheus's text format writes it: \ " and newlines
// escaped.
std::string PrometheusLabelValue(std::string_view value);

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_METRICS_H_
