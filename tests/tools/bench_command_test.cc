// `smrt bench` times a signature and reports what a deployer compares.
#include "smrt/bench_command.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "gtest/gtest.h"
#include "testing/mini_json.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

// The value after "key": in the one-line JSON.
double JsonNumber(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1;
  at += key.size() + 4;
  size_t end = json.find_first_of(",}", at);
  double v = -1;
  if (!absl::SimpleAtod(json.substr(at, end - at), &v)) return -1;
  return v;
}

TEST(BenchCommandTest, ReportsLatencyThroughputAndMemory) {
  std::ostringstream out;
  absl::Status s = RunBench({"--dir", testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model",
                             "--batch", "4", "--warmup", "1", "--iters", "7", "--json"},
                            out);
  ASSERT_TRUE(s.ok()) << s;
  const std::string json = out.str();
  EXPECT_EQ(JsonNumber(json, "batch"), 4) << json;
  EXPECT_EQ(JsonNumber(json, "iters"), 7) << json;
  const double p50 = JsonNumber(json, "p50_ms"), p90 = JsonNumber(json, "p90_ms"),
               p99 = JsonNumber(json, "p99_ms");
  EXPECT_GT(p50, 0) << json;
  EXPECT_LE(p50, p90) << json;
  EXPECT_LE(p90, p99) << json;
  EXPECT_GT(JsonNumber(json, "load_ms"), 0) << json;
  EXPECT_GT(JsonNumber(json, "first_run_ms"), 0) << json;
  // items/s at batch 4 is 4000 / mean ms.
  EXPECT_NEAR(JsonNumber(json, "throughput_per_s"), 4000.0 / JsonNumber(json, "mean_ms"),
              0.05 * JsonNumber(json, "throughput_per_s")) << json;  // ms printed to 3 decimals
  EXPECT_GT(JsonNumber(json, "peak_rss_mb"), 1) << json;

  std::ostringstream text;
  ASSERT_TRUE(RunBench({"--dir", testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model",
                        "--iters", "2"}, text).ok());
  EXPECT_TRUE(absl::StrContains(text.str(), "p99")) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "peak RSS")) << text.str();
}

TEST(BenchCommandTest, ShapesFillUnknownDims) {
  std::ostringstream out;
  absl::Status s = RunBench(
      {"--dir", testing::TestDataDir() + "/zoo/transformer_small/saved_model", "--shapes",
       "input_ids=2,16;attention_mask=2,16", "--int_max", "50", "--iters", "2", "--warmup", "0",
       "--json"},
      out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_GT(JsonNumber(out.str(), "p50_ms"), 0) << out.str();
}

TEST(BenchCommandTest, BadArgumentsSayWhatIsWrong) {
  std::ostringstream out;
  absl::Status s = RunBench({"--iters", "3"}, out);
  EXPECT_TRUE(absl::StrContains(s.message(), "--dir")) << s;
  s = RunBench({"--dir", testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model", "--iters",
                "0"}, out);
  EXPECT_TRUE(absl::StrContains(s.message(), "--iters expects an integer >= 1")) << s;
  s = RunBench({"--dir", testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model", "--shapes",
                "features"}, out);
  EXPECT_TRUE(absl::StrContains(s.message(), "--shapes expects")) << s;
}

TEST(BenchCommandTest, ProfileWritesATraceAndOpStatsPrintTables) {
  const std::string trace = testing::MakeTempDir() + "/trace.json";
  std::ostringstream out;
  absl::Status s = RunBench({"--dir", testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model",
                             "--iters", "2", "--warmup", "0", "--profile", trace,
                             "--profile_runs", "3", "--op_stats"},
                            out);
  ASSERT_TRUE(s.ok()) << s;
  std::ifstream file(trace);
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<testing::Json> json = testing::ParseJson(text.str());
  ASSERT_TRUE(json.ok()) << json.status();
  int runs = 0, steps = 0;
  for (const testing::Json& e : json->Find("traceEvents")->array) {
    (e.Find("cat")->string == "run" ? runs : steps) += 1;
  }
  EXPECT_EQ(runs, 3);
  EXPECT_GT(steps, 30);
  EXPECT_EQ(steps % 3, 0);  // the same steps each run
  const std::string report = out.str();
  EXPECT_TRUE(absl::StrContains(report, "by op type")) << report;
  EXPECT_TRUE(absl::StrContains(report, "by node")) << report;
  EXPECT_TRUE(absl::StrContains(report, "MatMul")) << report;
  EXPECT_TRUE(absl::StrContains(report, "3 profiled runs")) << report;
}

}  // namespace
}  // namespace smrt::cli
