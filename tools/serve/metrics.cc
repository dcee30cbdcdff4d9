#include "serve/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace smrt::serve {
namespace {

// monitoring::Buckets::Exponential(scale, growth, count): `count` finite
// limits, then one bucket for everything above.
std::vector<double> ExponentialBuckets(double scale, double growth, int count) {
  std::vector<double> limits;
  double limit = scale;
  for (int i = 0; i < count; ++i, limit *= growth) limits.push_back(limit);
  return limits;
}

const std::vector<double>& LatencyBuckets() {
  static const std::vector<double> buckets = ExponentialBuckets(10, 1.8, 33);
  return buckets;
}

const std::vector<double>& BatchBuckets() {
  static const std::vector<double> buckets = ExponentialBuckets(1, 2, 14);
  return buckets;
}

struct Histogram {
  explicit Histogram(const std::vector<double>* limits)
      : limits(limits), counts(limits->size() + 1, 0) {}
  // As tensorflow::histogram::Histogram::Add: the first bucket whose limit
  // is above the value.
  void Add(double value) {
    const size_t b = std::upper_bound(limits->begin(), limits->end(), value) - limits->begin();
    ++counts[b];
    sum += value;
  }
  const std::vector<double>* limits;
  std::vector<int64_t> counts;
  double sum = 0;
};

std::string Number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9.0e15) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  return absl::StrFormat("%.17g", value);
}

void AppendHistogram(const std::string& name, const std::string& labels, const Histogram& h,
                     std::string* out) {
  const std::string prefix = labels.empty() ? "" : labels + ",";
  int64_t cumulative = 0;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    cumulative += h.counts[i];
    const std::string le = i < h.limits->size() ? absl::StrCat((*h.limits)[i]) : "+Inf";
    absl::StrAppend(out, name, "_bucket{", prefix, "le=\"", le, "\"} ", cumulative, "\n");
  }
  absl::StrAppend(out, name, "_sum{", labels, "} ", absl::StrCat(h.sum), "\n");
  absl::StrAppend(out, name, "_count{", labels, "} ", cumulative, "\n");
}

std::string Label(std::string_view name, std::string_view value) {
  return absl::StrCat(std::string(name), "=\"", PrometheusLabelValue(value), "\"");
}

}  // namespace

std::string PrometheusLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

struct Metrics::Impl {
  mutable std::mutex mu;
  std::map<std::pair<std::string, std::string>, int64_t> request_count;  // model, status
  std::map<std::tuple<std::string, std::string, std::string>, Histogram> request_latency;
  std::map<std::string, Histogram> processed_batch_size;              // model
  std::map<std::pair<std::string, int64_t>, Histogram> padding_size;  // model, size

  // Gauge sources; a scrape holds gauge_mu while it calls them.
  mutable std::mutex gauge_mu;
  GaugeFn set_gauges;
  std::map<int, GaugeFn> added_gauges;
  int next_gauge_id = 0;
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

void Metrics::RecordRequest(std::string_view model, std::string_view api,
                            std::string_view entrypoint, const absl::Status& status,
                            absl::Duration latency) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  ++impl_->request_count[{std::string(model), absl::StatusCodeToString(status.code())}];
  auto key = std::make_tuple(std::string(model), std::string(api), std::string(entrypoint));
  auto it = impl_->request_latency.find(key);
  if (it == impl_->request_latency.end()) {
    it = impl_->request_latency.emplace(key, Histogram(&LatencyBuckets())).first;
  }
  it->second.Add(absl::ToDoubleMicroseconds(latency));
}

void Metrics::RecordBatch(std::string_view model, int64_t batch_size, int64_t padded_size) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->processed_batch_size.find(std::string(model));
  if (it == impl_->processed_batch_size.end()) {
    it = impl_->processed_batch_size.emplace(std::string(model), Histogram(&BatchBuckets())).first;
  }
  it->second.Add(static_cast<double>(padded_size));
  auto key = std::make_pair(std::string(model), padded_size);
  auto pad = impl_->padding_size.find(key);
  if (pad == impl_->padding_size.end()) {
    pad = impl_->padding_size.emplace(key, Histogram(&BatchBuckets())).first;
  }
  pad->second.Add(static_cast<double>(padded_size - batch_size));
}

void Metrics::SetGauges(GaugeFn gauges) {
  std::lock_guard<std::mutex> lock(impl_->gauge_mu);
  impl_->set_gauges = std::move(gauges);
}

int Metrics::AddGauges(GaugeFn gauges) {
  std::lock_guard<std::mutex> lock(impl_->gauge_mu);
  const int id = impl_->next_gauge_id++;
  impl_->added_gauges.emplace(id, std::move(gauges));
  return id;
}

void Metrics::RemoveGauges(int id) {
  std::lock_guard<std::mutex> lock(impl_->gauge_mu);
  impl_->added_gauges.erase(id);
}

std::string Metrics::PrometheusText() const {
  std::string out;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->request_count.empty()) {
      const std::string name = ":tensorflow:serving:request_count";
      absl::StrAppend(&out, "# TYPE ", name, " counter\n");
      for (const auto& [key, count] : impl_->request_count) {
        absl::StrAppend(&out, name, "{", Label("model_name", key.first), ",",
                        Label("status", key.second), "} ", count, "\n");
      }
    }
    if (!impl_->request_latency.empty()) {
      const std::string name = ":tensorflow:serving:request_latency";
      absl::StrAppend(&out, "# TYPE ", name, " histogram\n");
      for (const auto& [key, histogram] : impl_->request_latency) {
        AppendHistogram(
            name,
            absl::StrCat(Label("model_name", std::get<0>(key)), ",", Label("API", std::get<1>(key)),
                         ",", Label("entrypoint", std::get<2>(key))),
            histogram, &out);
      }
    }
    if (!impl_->processed_batch_size.empty()) {
      const std::string name = ":tensorflow:serving:batching_session:processed_batch_size";
      absl::StrAppend(&out, "# TYPE ", name, " histogram\n");
      for (const auto& [model, histogram] : impl_->processed_batch_size) {
        AppendHistogram(name, Label("model_name", model), histogram, &out);
      }
      const std::string padding = ":tensorflow:serving:batching_session:padding_size";
      absl::StrAppend(&out, "# TYPE ", padding, " histogram\n");
      for (const auto& [key, histogram] : impl_->padding_size) {
        AppendHistogram(padding,
                        absl::StrCat(Label("model_name", key.first), ",",
                                     Label("execution_batch_size", absl::StrCat(key.second))),
                        histogram, &out);
      }
    }
  }
  // Gauges, grouped by name in the order first emitted.
  std::vector<std::string> names;
  std::map<std::string, std::string> lines;
  auto emit = [&](std::string_view name_view, std::string_view labels_view, double value) {
    const std::string name(name_view), labels(labels_view);
    auto [it, inserted] = lines.emplace(name, "");
    if (inserted) names.push_back(name);
    if (labels.empty()) {
      absl::StrAppend(&it->second, name, " ", Number(value), "\n");
    } else {
      absl::StrAppend(&it->second, name, "{", labels, "} ", Number(value), "\n");
    }
  };
  {
    std::lock_guard<std::mutex> lock(impl_->gauge_mu);
    if (impl_->set_gauges) impl_->set_gauges(emit);
    for (const auto& [id, gauges] : impl_->added_gauges) gauges(emit);
  }
  for (const std::string& name : names) {
    absl::StrAppend(&out, "# TYPE ", name, " gauge\n", lines[name]);
  }
  return out;
}

}  // namespace smrt::serve
