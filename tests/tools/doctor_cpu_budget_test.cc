// `smrt doctor` states the CPU budget (core/cpu_budget.h) that sets the
// default intra_op_threads, and what overrides it.
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "core/cpu_budget.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "smrt/doctor_command.h"

namespace smrt::cli {
namespace {

// Sets (or with nullptr unsets) OMP_NUM_THREADS for a scope.
class ScopedOmpNumThreads {
 public:
  explicit ScopedOmpNumThreads(const char* value) {
    if (const char* old = std::getenv("OMP_NUM_THREADS")) old_ = old;
    Set(value);
  }
  ~ScopedOmpNumThreads() { Set(old_ ? old_->c_str() : nullptr); }

 private:
  static void Set(const char* value) {
    if (value != nullptr) {
      ::setenv("OMP_NUM_THREADS", value, 1);
    } else {
      ::unsetenv("OMP_NUM_THREADS");
    }
  }
  std::optional<std::string> old_;
};

TEST(DoctorCpuBudgetTest, TextAndJsonShowTheBudget) {
  ScopedOmpNumThreads unset(nullptr);
  const CpuBudget budget = DetectCpuBudget();
  std::ostringstream text;
  ASSERT_TRUE(RunDoctor({}, text).ok());
  EXPECT_TRUE(absl::StrContains(text.str(), "budget: " + budget.Explain() + "\n")) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "default intra_op_threads")) << text.str();
  EXPECT_FALSE(absl::StrContains(text.str(), "OMP_NUM_THREADS=")) << text.str();

  std::ostringstream json;
  ASSERT_TRUE(RunDoctor({"--json"}, json).ok());
  google::protobuf::Struct root;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.str(), &root).ok()) << json.str();
  const auto& b = root.fields().at("cpu").struct_value().fields().at("budget").struct_value().fields();
  EXPECT_EQ(b.at("threads").number_value(), budget.threads);
  EXPECT_EQ(b.at("affinity_cpus").number_value(), budget.affinity_cpus);
  EXPECT_EQ(b.at("explain").string_value(), budget.Explain());
}

TEST(DoctorCpuBudgetTest, SaysWhenOmpNumThreadsOverridesIt) {
  ScopedOmpNumThreads three("3");
  std::ostringstream text;
  const absl::Status s = RunDoctor({}, text);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(absl::StrContains(text.str(), "OMP_NUM_THREADS=3 is set")) << text.str();
}

}  // namespace
}  // namespace smrt::cli
