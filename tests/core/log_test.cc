// smrt's one logging facility (core/log.h, include/smrt/log.h): levels and
// SMRT_LOG_LEVEL, the default stderr sink, a sink of the program's, and
// many threads logging while the sink is replaced.
#include "core/log.h"

#include <stdlib.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace smrt {
namespace {

// Messages a sink received, in order.
class Collected {
 public:
  LogSink Sink() {
    return [this](LogLevel level, std::string_view message) {
      std::lock_guard<std::mutex> lock(mu_);
      messages_.emplace_back(level, std::string(message));
    };
  }
  std::vector<std::pair<LogLevel, std::string>> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(messages_, {});
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> messages_;
};

// Each test starts and ends with the defaults: stderr, SMRT_LOG_LEVEL unset
// and not yet read.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }
  void TearDown() override { Reset(); }
  static void Reset() {
    SetLogSink(nullptr);
    ::unsetenv("SMRT_LOG_LEVEL");
    ResetMinLogLevelForTesting();
  }
};

TEST_F(LogTest, LevelsParseInAnyCaseOrAsNumbers) {
  EXPECT_EQ(ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel("INFO"), LogLevel::kInfo);
  EXPECT_EQ(ParseLogLevel("Warning"), LogLevel::kWarning);
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarning);
  EXPECT_EQ(ParseLogLevel(" error\n"), LogLevel::kError);
  EXPECT_EQ(ParseLogLevel("0"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel("3"), LogLevel::kError);
  EXPECT_EQ(ParseLogLevel("4"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("verbose"), std::nullopt);
  EXPECT_EQ(ParseLogLevel(""), std::nullopt);
  EXPECT_STREQ(LogLevelName(LogLevel::kDebug), "DEBUG");
  EXPECT_STREQ(LogLevelName(LogLevel::kError), "ERROR");
}

TEST_F(LogTest, TheDefaultIsOneStderrLinePerWarningAndInfoIsQuiet) {
  EXPECT_EQ(MinLogLevel(), LogLevel::kWarning);
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kDebug, "debug detail");
  Log(LogLevel::kInfo, "what smrt did");
  Log(LogLevel::kWarning, "tuning cache x ignored: stale");
  Log(LogLevel::kError, "arena y: ignoring free");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "smrt: tuning cache x ignored: stale\nsmrt: arena y: ignoring free\n");
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kWarning));
}

TEST_F(LogTest, TheMinimumLevelFiltersBeforeTheSink) {
  Collected got;
  SetLogSink(got.Sink());
  SetMinLogLevel(LogLevel::kError);
  Log(LogLevel::kWarning, "a fallback");
  Log(LogLevel::kError, "a failure");
  SetMinLogLevel(LogLevel::kDebug);
  Log(LogLevel::kDebug, "detail");
  const std::vector<std::pair<LogLevel, std::string>> want = {
      {LogLevel::kError, "a failure"}, {LogLevel::kDebug, "detail"}};
  EXPECT_EQ(got.Take(), want);
}

TEST_F(LogTest, TheEnvironmentSetsTheLevelUntilTheProgramDoes) {
  for (const auto& [text, level] : std::vector<std::pair<const char*, LogLevel>>{
           {"error", LogLevel::kError}, {"Info", LogLevel::kInfo}, {"0", LogLevel::kDebug},
           {"", LogLevel::kWarning}}) {
    ::setenv("SMRT_LOG_LEVEL", text, 1);
    ResetMinLogLevelForTesting();
    EXPECT_EQ(MinLogLevel(), level) << "SMRT_LOG_LEVEL=" << text;
  }
  // Read once: a later change of the variable does not apply...
  ::setenv("SMRT_LOG_LEVEL", "error", 1);
  ResetMinLogLevelForTesting();
  ASSERT_EQ(MinLogLevel(), LogLevel::kError);
  ::setenv("SMRT_LOG_LEVEL", "debug", 1);
  EXPECT_EQ(MinLogLevel(), LogLevel::kError);
  // ...and the program's level wins over it, set before the first message
  // or after.
  SetMinLogLevel(LogLevel::kInfo);
  EXPECT_EQ(MinLogLevel(), LogLevel::kInfo);
  ResetMinLogLevelForTesting();
  SetMinLogLevel(LogLevel::kWarning);
  EXPECT_EQ(MinLogLevel(), LogLevel::kWarning);
}

TEST_F(LogTest, AnUnknownEnvironmentLevelIsReportedAndWarningUsed) {
  Collected got;
  SetLogSink(got.Sink());
  ::setenv("SMRT_LOG_LEVEL", "loud", 1);
  ResetMinLogLevelForTesting();
  Log(LogLevel::kInfo, "dropped");
  EXPECT_EQ(MinLogLevel(), LogLevel::kWarning);
  const std::vector<std::pair<LogLevel, std::string>> messages = got.Take();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].first, LogLevel::kWarning);
  EXPECT_EQ(messages[0].second,
            "SMRT_LOG_LEVEL is 'loud', not DEBUG, INFO, WARNING, ERROR or 0 to 3: logging at "
            "WARNING");
}

TEST_F(LogTest, ASinkReplacesStderrUntilItIsReset) {
  Collected got;
  SetLogSink(got.Sink());
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarning, "to the sink");
  SetLogSink(nullptr);
  Log(LogLevel::kWarning, "to stderr");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "smrt: to stderr\n");
  const std::vector<std::pair<LogLevel, std::string>> want = {
      {LogLevel::kWarning, "to the sink"}};
  EXPECT_EQ(got.Take(), want);
}

TEST_F(LogTest, ASinkThatThrowsOrLogsOrReplacesItselfDoesNotStopTheCaller) {
  SetLogSink([](LogLevel, std::string_view) { throw std::runtime_error("sink failed"); });
  Log(LogLevel::kWarning, "dropped");  // no exception reaches the caller

  // A message logged from inside the sink goes to stderr, not to the sink
  // again; the sink may replace itself (it cannot wait for its own call).
  int calls = 0;
  SetLogSink([&calls](LogLevel, std::string_view message) {
    ++calls;
    Log(LogLevel::kError, absl::StrCat("while sinking '", std::string(message), "'"));
    SetLogSink(nullptr);
  });
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarning, "first");
  Log(LogLevel::kWarning, "second");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "smrt: while sinking 'first'\nsmrt: second\n");
  EXPECT_EQ(calls, 1);
}

// Threads log while another replaces the sink back and forth: every message
// reaches exactly one sink whole, and a replaced sink is never entered once
// SetLogSink has returned (so what it uses may be freed).
TEST_F(LogTest, ThreadsLogWhileTheSinkIsReplaced) {
  constexpr int kThreads = 8;
  constexpr int kMinMessages = 500;     // per thread, and until...
  constexpr int kMinReplacements = 20;  // ...the sink was replaced this often
  struct CountingSink {
    std::atomic<int> messages{0};
    std::atomic<int> malformed{0};
    std::atomic<bool> retired{false};
    std::atomic<int> called_after_retired{0};
    LogSink Sink() {
      return [this](LogLevel level, std::string_view message) {
        if (retired.load()) called_after_retired.fetch_add(1);
        if (level != LogLevel::kWarning || message.substr(0, 7) != "thread ") {
          malformed.fetch_add(1);
        }
        messages.fetch_add(1);
      };
    }
  };
  std::vector<std::unique_ptr<CountingSink>> sinks;
  sinks.push_back(std::make_unique<CountingSink>());
  SetLogSink(sinks.back()->Sink());

  std::atomic<int> replacements{0};
  std::atomic<int> logged{0};
  std::atomic<int> threads_done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kMinMessages || replacements.load() < kMinReplacements; ++i) {
        Log(LogLevel::kWarning, absl::StrCat("thread ", t, " message ", i));
        Log(LogLevel::kInfo, "below the level: never delivered");
        logged.fetch_add(1);
      }
      threads_done.fetch_add(1);
    });
  }
  std::thread replacer([&] {
    while (threads_done.load() < kThreads) {
      CountingSink* previous = sinks.back().get();
      sinks.push_back(std::make_unique<CountingSink>());
      SetLogSink(sinks.back()->Sink());
      previous->retired.store(true);
      replacements.fetch_add(1);
      std::this_thread::yield();
    }
  });
  for (std::thread& t : threads) t.join();
  replacer.join();
  SetLogSink(nullptr);

  int total = 0;
  for (const std::unique_ptr<CountingSink>& s : sinks) {
    total += s->messages.load();
    EXPECT_EQ(s->malformed.load(), 0);
    EXPECT_EQ(s->called_after_retired.load(), 0);
  }
  EXPECT_EQ(total, logged.load());
  EXPECT_GE(replacements.load(), kMinReplacements);
}

// The default sink writes each message as one line, even from many threads.
TEST_F(LogTest, StderrLinesFromManyThreadsDoNotInterleave) {
  constexpr int kThreads = 4;
  constexpr int kMessages = 200;
  const std::string body(100, 'x');
  ::testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&body] {
      for (int i = 0; i < kMessages; ++i) Log(LogLevel::kWarning, body);
    });
  }
  for (std::thread& t : threads) t.join();
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> lines = absl::StrSplit(err, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), static_cast<size_t>(kThreads * kMessages));
  for (const std::string& line : lines) ASSERT_EQ(line, "smrt: " + body);
}

}  // namespace
}  // namespace smrt
