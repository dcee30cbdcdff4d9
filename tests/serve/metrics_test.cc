// The Prometheus text: parsed line by line as a scraper reads it, with TF
// Serving's names, labels and bucket semantics.
#include "serve/metrics.h"

#include <map>
#include <sstream>

#include "gtest/gtest.h"

namespace smrt::serve {
namespace {

// "name{labels} value" lines by "name{labels}"; TYPE lines by name.
struct Exposition {
  std::map<std::string, std::string> samples;
  std::map<std::string, std::string> types;
};

Exposition Parse(const std::string& text) {
  Exposition out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_FALSE(line.empty());
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      words >> name >> type;
      EXPECT_EQ(out.types.count(name), 0u) << "TYPE twice for " << name;
      out.types[name] = type;
      continue;
    }
    const size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    out.samples[line.substr(0, space)] = line.substr(space + 1);
  }
  EXPECT_TRUE(text.empty() || text.back() == '\n');
  return out;
}

TEST(MetricsTest, RequestCountsAndLatencyHistogramsAsTfServingNamesThem) {
  Metrics metrics;
  metrics.RecordRequest("m", "predict", "REST", absl::OkStatus(), absl::Microseconds(15));
  metrics.RecordRequest("m", "predict", "REST", absl::OkStatus(), absl::Microseconds(18));
  metrics.RecordRequest("m", "predict", "GRPC", absl::InvalidArgumentError("x"),
                        absl::Seconds(5000));
  const Exposition e = Parse(metrics.PrometheusText());
  EXPECT_EQ(e.types.at(":tensorflow:serving:request_count"), "counter");
  EXPECT_EQ(e.samples.at(":tensorflow:serving:request_count{model_name=\"m\",status=\"OK\"}"), "2");
  EXPECT_EQ(e.samples.at(
                ":tensorflow:serving:request_count{model_name=\"m\",status=\"INVALID_ARGUMENT\"}"),
            "1");
  const std::string h = ":tensorflow:serving:request_latency";
  EXPECT_EQ(e.types.at(h), "histogram");
  const std::string rest = "model_name=\"m\",API=\"predict\",entrypoint=\"REST\"";
  // Buckets 10 * 1.8^i; a value counts in the first bucket whose limit is
  // above it (TensorFlow's histogram), so 18 is not in le="18".
  EXPECT_EQ(e.samples.at(h + "_bucket{" + rest + ",le=\"10\"}"), "0");
  EXPECT_EQ(e.samples.at(h + "_bucket{" + rest + ",le=\"18\"}"), "1");
  EXPECT_EQ(e.samples.at(h + "_bucket{" + rest + ",le=\"32.4\"}"), "2");
  EXPECT_EQ(e.samples.at(h + "_bucket{" + rest + ",le=\"+Inf\"}"), "2");
  EXPECT_EQ(e.samples.at(h + "_sum{" + rest + "}"), "33");
  EXPECT_EQ(e.samples.at(h + "_count{" + rest + "}"), "2");
  // 33 finite buckets and +Inf.
  int buckets = 0;
  for (const auto& [key, value] : e.samples) {
    if (key.rfind(h + "_bucket{" + rest, 0) == 0) ++buckets;
  }
  EXPECT_EQ(buckets, 34);
  const std::string grpc = "model_name=\"m\",API=\"predict\",entrypoint=\"GRPC\"";
  // 5000 s is past the last finite bucket (10 * 1.8^32 us, about 20 minutes).
  EXPECT_EQ(e.samples.at(h + "_bucket{" + grpc + ",le=\"+Inf\"}"), "1");
  EXPECT_EQ(e.samples.count(h + "_bucket{" + grpc + ",le=\"+Inf\"}"), 1u);
  EXPECT_EQ(e.samples.at(h + "_sum{" + grpc + "}"), "5e+09");
}

TEST(MetricsTest, BatchSizesAndGauges) {
  Metrics metrics;
  metrics.RecordBatch("m", 3, 4);
  metrics.RecordBatch("m", 8, 8);
  metrics.SetGauges([](const auto& emit) {
    emit(":smrt:serving:requests_in_flight", "", 2);
    emit(":smrt:serving:model_memory_bytes", "model_name=\"a\\\"b\",version=\"1\"", 123456789012);
  });
  const int id = metrics.AddGauges([](const auto& emit) {
    emit(":smrt:serving:model_memory_bytes", "model_name=\"c\",version=\"2\"", 0.5);
  });
  Exposition e = Parse(metrics.PrometheusText());
  const std::string p = ":tensorflow:serving:batching_session:processed_batch_size";
  EXPECT_EQ(e.types.at(p), "histogram");
  EXPECT_EQ(e.samples.at(p + "_bucket{model_name=\"m\",le=\"4\"}"), "0");
  EXPECT_EQ(e.samples.at(p + "_bucket{model_name=\"m\",le=\"8\"}"), "1");
  EXPECT_EQ(e.samples.at(p + "_bucket{model_name=\"m\",le=\"16\"}"), "2");
  EXPECT_EQ(e.samples.at(p + "_sum{model_name=\"m\"}"), "12");
  const std::string pad = ":tensorflow:serving:batching_session:padding_size";
  EXPECT_EQ(e.samples.at(pad + "_sum{model_name=\"m\",execution_batch_size=\"4\"}"), "1");
  EXPECT_EQ(e.samples.at(pad + "_sum{model_name=\"m\",execution_batch_size=\"8\"}"), "0");
  EXPECT_EQ(e.types.at(":smrt:serving:model_memory_bytes"), "gauge");
  EXPECT_EQ(e.samples.at(":smrt:serving:requests_in_flight"), "2");
  EXPECT_EQ(e.samples.at(":smrt:serving:model_memory_bytes{model_name=\"a\\\"b\",version=\"1\"}"),
            "123456789012");
  EXPECT_EQ(e.samples.at(":smrt:serving:model_memory_bytes{model_name=\"c\",version=\"2\"}"),
            "0.5");
  metrics.RemoveGauges(id);
  e = Parse(metrics.PrometheusText());
  EXPECT_EQ(e.samples.count(":smrt:serving:model_memory_bytes{model_name=\"c\",version=\"2\"}"),
            0u);
  EXPECT_EQ(PrometheusLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

}  // namespace
}  // namespace smrt::serve
