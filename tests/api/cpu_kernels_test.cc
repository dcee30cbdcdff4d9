// LoadOptions::cpu_kernels on a real model: every mode gives TensorFlow's
// answers, runs the backend it names (as the profile shows), and measured
// choices are written to the CPU tuning cache in cache_dir.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "smrt/profile.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

testing::ConformanceModel MobileNet() {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  EXPECT_TRUE(models.ok()) << models.status();
  for (const testing::ConformanceModel& m : *models) {
    if (m.name == "mobilenetv2_035_96") return m;
  }
  ADD_FAILURE() << "mobilenetv2_035_96 is not in tests/data/zoo";
  return {};
}

// Runs every case of `m` under `options`; checks TensorFlow's answers and
// returns the backends that ran each fused op type ("op:backend").
std::set<std::string> RunCases(const testing::ConformanceModel& m, const LoadOptions& options) {
  std::set<std::string> ran;
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return ran;
  for (const testing::ConformanceCase& c : m.cases) {
    absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
    EXPECT_TRUE(in.ok()) << in.status();
    if (!in.ok()) return ran;
    for (int call = 0; call < 2; ++call) {  // the first call measures; the second uses the choice
      RunProfile profile;
      RunOptions run_options;
      run_options.profile = &profile;
      NamedTensors out;
      absl::Status s = (*model)->Run(c.signature, *in, &out, run_options);
      EXPECT_TRUE(s.ok()) << s;
      testing::Comparison cmp = testing::CompareOutputs(c, out, m.tolerance);
      EXPECT_TRUE(cmp.ok) << options.cpu_kernels << " " << c.name << ": " << cmp.detail;
      for (const ProfileEvent& e : profile.events) {
        if (e.op.rfind("_Smrt", 0) == 0) ran.insert(e.op + ":" + e.kernel);
      }
    }
  }
  return ran;
}

TEST(CpuKernelsTest, EachModeGivesTensorFlowsAnswersWithTheKernelsItNames) {
  const testing::ConformanceModel m = MobileNet();
  LoadOptions options;
  ASSERT_TRUE(SetLoadOption(&options, "cpu_kernels", "reference").ok());
  EXPECT_EQ(RunCases(m, options), (std::set<std::string>{"_SmrtFusedConv2D:reference",
                                                          "_SmrtFusedMatMul:reference"}));
  for (const char* mode : {"onednn", "preferred"}) {
    options.cpu_kernels = mode;
    EXPECT_EQ(RunCases(m, options),
              (std::set<std::string>{"_SmrtFusedConv2D:onednn", "_SmrtFusedMatMul:onednn"}))
        << mode;
  }
  // Measured: the convolutions have no contender; the dense layer runs
  // whichever was faster here, per batch size.
  options.cpu_kernels = "measure";
  std::set<std::string> measured = RunCases(m, options);
  EXPECT_EQ(measured.count("_SmrtFusedConv2D:onednn"), 1u);
  EXPECT_EQ(measured.count("_SmrtFusedConv2D:reference"), 0u);
  EXPECT_GE(measured.count("_SmrtFusedMatMul:onednn") + measured.count("_SmrtFusedMatMul:reference"),
            1u);
}

TEST(CpuKernelsTest, AnUnknownModeIsRefusedAndTheEnvironmentSetsTheDefault) {
  const testing::ConformanceModel m = MobileNet();
  LoadOptions options;
  options.cpu_kernels = "fastest";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("cpu_kernels is 'fastest'"), std::string::npos)
      << model.status();

  // The variable applies where the option keeps its default...
  ::setenv("SMRT_CPU_KERNELS", "reference", 1);
  std::set<std::string> ran = RunCases(m, LoadOptions());
  EXPECT_EQ(ran.count("_SmrtFusedConv2D:reference"), 1u);
  EXPECT_EQ(ran.count("_SmrtFusedConv2D:onednn"), 0u);
  // ...and an option set in code wins over it.
  options.cpu_kernels = "onednn";
  ran = RunCases(m, options);
  ::unsetenv("SMRT_CPU_KERNELS");
  EXPECT_EQ(ran.count("_SmrtFusedConv2D:reference"), 0u);
  EXPECT_EQ(ran.count("_SmrtFusedConv2D:onednn"), 1u);
}

TEST(CpuKernelsTest, MeasuredChoicesGoToTheCpuTuningCache) {
  const testing::ConformanceModel m = MobileNet();
  const std::string dir = ::testing::TempDir() + "/cpu_kernels_cache";
  std::filesystem::remove_all(dir);
  LoadOptions options;
  options.cache_dir = dir;
  RunCases(m, options);
  std::string text;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_NE(entry.path().filename().string().find("-cpu.smrt-tune"), std::string::npos)
        << entry.path();
    std::ifstream in(entry.path());
    std::stringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  ASSERT_EQ(files, 1);
  EXPECT_NE(text.find("scope cpu="), std::string::npos) << text;
  EXPECT_NE(text.find("cpu-kernel _SmrtFusedMatMul {"), std::string::npos) << text;
  EXPECT_EQ(text.find("cpu-kernel _SmrtFusedConv2D"), std::string::npos) << text;
}

}  // namespace
}  // namespace smrt

namespace smrt {
namespace {

// map_variables on and off (and SMRT_MAP_VARIABLES) give TensorFlow's
// answers on a real model; a bad SMRT_MAP_VARIABLES fails the load.
TEST(MapVariablesTest, MappedOrReadTheWeightsGiveTensorFlowsAnswers) {
  const testing::ConformanceModel m = MobileNet();
  LoadOptions options;
  options.cpu_kernels = "preferred";
  for (const char* map : {"true", "false"}) {
    SCOPED_TRACE(map);
    ASSERT_TRUE(SetLoadOption(&options, "map_variables", map).ok());
    RunCases(m, options);
  }
  ::setenv("SMRT_MAP_VARIABLES", "0", 1);
  options.map_variables = true;
  RunCases(m, options);
  ::setenv("SMRT_MAP_VARIABLES", "yes", 1);
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
  ::unsetenv("SMRT_MAP_VARIABLES");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("SMRT_MAP_VARIABLES is 'yes'"), std::string::npos)
      << model.status();
}

}  // namespace
}  // namespace smrt
