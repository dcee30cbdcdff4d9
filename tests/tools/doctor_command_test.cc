// `smrt doctor` reports the machine without aborting whatever is installed,
// and checks a model on both devices.
#include "smrt/doctor_command.h"

#include <map>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "device/cuda_libraries.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

TEST(DoctorCommandTest, JsonDescribesCpuCudaAndModel) {
  std::ostringstream out;
  const std::string model = testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model";
  absl::Status s = RunDoctor({"--dir", model, "--json"}, out);
  ASSERT_TRUE(s.ok()) << s;
  google::protobuf::Struct root;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out.str(), &root).ok()) << out.str();
  const auto& f = root.fields();
  ASSERT_TRUE(f.count("cpu") && f.count("cuda") && f.count("model")) << out.str();
  const auto& cpu = f.at("cpu").struct_value().fields();
  EXPECT_FALSE(cpu.at("onednn_version").string_value().empty());
  EXPECT_FALSE(cpu.at("onednn_isa").string_value().empty());
  // What precision=bfloat16 does here (device/cpu_info.h).
  EXPECT_NE(cpu.at("bfloat16").string_value().find("precision=bfloat16 on the CPU"),
            std::string::npos);
  EXPECT_GE(cpu.at("logical_cores").number_value(), 1);
  const auto& cuda = f.at("cuda").struct_value().fields();
  EXPECT_EQ(cuda.at("libraries").list_value().values_size(), 5);
  // Either a GPU is usable, or the problems say why not.
  EXPECT_TRUE(cuda.at("usable").string_value() == "yes" ||
              cuda.at("problems").list_value().values_size() > 0);
  const auto& m = f.at("model").struct_value().fields();
  EXPECT_GT(m.at("variable_bytes").number_value(), 1000);
  bool serving = false;
  for (const auto& sig : m.at("signatures").list_value().values()) {
    const auto& sf = sig.struct_value().fields();
    if (sf.at("key").string_value() != "serving_default") continue;
    serving = true;
    EXPECT_EQ(sf.at("missing_on_cpu").list_value().values_size(), 0);
  }
  EXPECT_TRUE(serving);
}

// The predicted memory is Model::PlanMemory's, at batch 1 and --batch.
TEST(DoctorCommandTest, PredictsMemoryPerSignatureAtTwoBatchSizes) {
  const std::string dir = testing::TestDataDir() + "/zoo/mobilenetv2_035_96/saved_model";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  std::map<int64_t, MemoryPlan> plans;
  for (int64_t batch : {1, 4}) {
    absl::StatusOr<MemoryPlan> plan =
        (*model)->PlanMemory("serving_default", {{"keras_tensor", {batch, 96, 96, 3}}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    plans[batch] = *plan;
  }
  std::ostringstream json;
  ASSERT_TRUE(RunDoctor({"--dir", dir, "--json", "--batch", "4"}, json).ok());
  google::protobuf::Struct root;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.str(), &root).ok()) << json.str();
  int found = 0;
  for (const auto& sig : root.fields().at("model").struct_value().fields().at("signatures")
                             .list_value().values()) {
    const auto& sf = sig.struct_value().fields();
    if (sf.at("key").string_value() != "serving_default") continue;
    const auto& memory = sf.at("memory").list_value().values();
    ASSERT_EQ(memory.size(), 2);
    for (const auto& m : memory) {
      const auto& f = m.struct_value().fields();
      const MemoryPlan& plan = plans.at(static_cast<int64_t>(f.at("batch").number_value()));
      EXPECT_EQ(f.at("error").string_value(), "");
      EXPECT_EQ(f.at("weight_bytes").number_value(), plan.weight_bytes);
      EXPECT_EQ(f.at("mapped_weight_bytes").number_value(), plan.mapped_weight_bytes);
      EXPECT_EQ(f.at("activation_peak_bytes").number_value(), plan.peak_bytes);
      EXPECT_EQ(f.at("predicted_bytes").number_value(), plan.weight_bytes + plan.peak_bytes);
      EXPECT_EQ(f.at("naive_activation_bytes").number_value(), plan.naive_bytes);
      EXPECT_EQ(f.at("planned_tensors").number_value(), plan.tensors.size());
      EXPECT_EQ(f.at("unplanned_tensors").number_value(), plan.unplanned.size());
      ++found;
    }
  }
  EXPECT_EQ(found, 2);

  std::ostringstream text;
  ASSERT_TRUE(RunDoctor({"--dir", dir}, text).ok());  // default second batch: 8
  EXPECT_TRUE(absl::StrContains(text.str(), "    predicted memory: batch 1: ")) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "; batch 8: ")) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), " + activation peak ")) << text.str();
  std::ostringstream ignored;
  EXPECT_EQ(RunDoctor({"--dir", dir, "--batch", "x"}, ignored).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DoctorCommandTest, TextNamesWhatItLookedFor) {
  std::ostringstream out;
  ASSERT_TRUE(RunDoctor({}, out).ok());
  EXPECT_TRUE(absl::StrContains(out.str(), "oneDNN")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "cuDNN (libcudnn)")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "GPU use: ")) << out.str();
}

TEST(CudaProbeTest, ReportIsConsistent) {
  const device::CudaReport r = device::ProbeCuda();
  for (const device::LibraryProbe* p : {&r.driver, &r.runtime, &r.cublas, &r.cublaslt, &r.cudnn}) {
    EXPECT_FALSE(p->tried.empty()) << p->role;
    EXPECT_EQ(p->found(), !p->path.empty());
    if (!p->found()) {
      EXPECT_FALSE(p->error.empty()) << p->role;
    }
  }
  EXPECT_EQ(r.usable(), r.problems.empty() && !r.gpus.empty());
  if (!r.driver.found()) {
    EXPECT_FALSE(r.usable());
  }
}

}  // namespace
}  // namespace smrt::cli
