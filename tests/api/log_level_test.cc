// LoadOptions::log_level: a model's own minimum level for the messages of
// its load and runs, beside the process's (SetMinLogLevel, SMRT_LOG_LEVEL).
// float16 on the CPU is a fallback (the products are widened to float32),
// which the load reports with a warning.
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "smrt/log.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/paths.h"

namespace smrt {
namespace {

std::string Mlp() { return testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model"; }

// Collects the warnings logged while it lives, at a process level of WARNING.
class Warnings {
 public:
  Warnings() : before_(MinLogLevel()) {
    SetMinLogLevel(LogLevel::kWarning);
    SetLogSink([this](LogLevel level, std::string_view message) {
      if (level == LogLevel::kWarning) messages_.emplace_back(message);
    });
  }
  ~Warnings() {
    SetLogSink(nullptr);
    SetMinLogLevel(before_);
  }
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  LogLevel before_;
  std::vector<std::string> messages_;  // loads run on the test's thread
};

TEST(LogLevelTest, ErrorSilencesTheWarningsOfAModelThatFallsBack) {
  Warnings warnings;
  LoadOptions quiet;
  quiet.precision = "float16";
  quiet.log_level = LogLevel::kError;
  absl::StatusOr<std::unique_ptr<Model>> a = Model::Load(Mlp(), quiet);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(warnings.messages().empty()) << warnings.messages()[0];

  LoadOptions loud;
  loud.precision = "float16";
  absl::StatusOr<std::unique_ptr<Model>> b = Model::Load(Mlp(), loud);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(warnings.messages().size(), 1u);
  EXPECT_NE(warnings.messages()[0].find("precision=float16 on the CPU"), std::string::npos)
      << warnings.messages()[0];
  EXPECT_EQ(MinLogLevel(), LogLevel::kWarning);  // the process's level is untouched
}

TEST(LogLevelTest, AModelsLevelBelowTheProcesssShowsItsWarnings) {
  Warnings warnings;
  SetMinLogLevel(LogLevel::kError);
  LoadOptions options;
  options.precision = "float16";
  options.log_level = LogLevel::kWarning;
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Mlp(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(warnings.messages().size(), 1u);
  options.log_level.reset();  // the process's ERROR again
  model = Model::Load(Mlp(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(warnings.messages().size(), 1u);
}

TEST(LogLevelTest, TheTextKeyTakesLevelNames) {
  LoadOptions options;
  ASSERT_TRUE(SetLoadOption(&options, "log_level", "error").ok());
  EXPECT_EQ(options.log_level, LogLevel::kError);
  ASSERT_TRUE(SetLoadOption(&options, "log_level", "1").ok());
  EXPECT_EQ(options.log_level, LogLevel::kInfo);
  ASSERT_TRUE(SetLoadOption(&options, "log_level", "").ok());
  EXPECT_FALSE(options.log_level.has_value());
  absl::Status s = SetLoadOption(&options, "log_level", "loud");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("load option 'log_level': cannot parse 'loud'"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace smrt
