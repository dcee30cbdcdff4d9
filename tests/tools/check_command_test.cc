// `smrt check` lists every op a SavedModel's signatures need and fails naming
// the ones smrt cannot run.
#include "smrt/check_command.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/cuda_build.h"
#include "smrt/check.h"
#include "smrt/model.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

using ::smrt::testing::SharedModel;

TEST(CheckCommandTest, EverySupportedOpIsListed) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::ostringstream out;
  absl::Status s = RunCheck({"--dir", SharedModel("community/sentiment_bilstm")}, out);
  ASSERT_TRUE(s.ok()) << s;
  const std::string text = out.str();
  // The init op fills the TextVectorization table; serving_default runs the
  // LSTMs in While loops: ops inside the loop bodies are listed too.
  EXPECT_TRUE(absl::StrContains(text, "signature (init op)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "signature serving_default")) << text;
  EXPECT_TRUE(absl::StrContains(text, "While")) << text;
  EXPECT_TRUE(absl::StrContains(text, "StringSplitV2")) << text;
  EXPECT_TRUE(absl::StrContains(text, "every op is supported on CPU")) << text;
  EXPECT_FALSE(absl::StrContains(text, "MISSING")) << text;
}

TEST(CheckCommandTest, RefusedOpsFailNamingOpSignatureAndNode) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::ostringstream out;
  // mobile_train_mnist's save/restore signatures write and read checkpoint
  // files: smrt does not run Save/Restore (inference only).
  absl::Status s = RunCheck({"--dir", SharedModel("community/mobile_train_mnist"),
                             "--signature_def", "save", "--missing_only"},
                            out);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Save (")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "in save")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "runs inference only")) << s;
  // Save is a core TensorFlow op smrt refuses on purpose, not one it lacks.
  EXPECT_TRUE(absl::StrContains(s.message(), "1 op type refused by design")) << s;
  EXPECT_FALSE(absl::StrContains(s.message(), "missing")) << s;
  EXPECT_TRUE(absl::StrContains(out.str(), "REFUSED")) << out.str();
  EXPECT_FALSE(absl::StrContains(out.str(), "MISSING")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "e.g. '")) << out.str();
  absl::StatusOr<ModelCheck> c = CheckModel(SharedModel("community/mobile_train_mnist"));
  ASSERT_TRUE(c.ok()) << c.status();
  int refused = 0;
  for (const SignatureCheck& sig : c->signatures) {
    for (const OpCheck& op : sig.ops) {
      if (op.op == "Save" || op.op == "Restore") {
        EXPECT_TRUE(op.refused) << op.op;
        ++refused;
      } else {
        EXPECT_FALSE(op.refused) << op.op;
      }
    }
  }
  EXPECT_EQ(refused, 2);
}

// A signature that saves or restores cannot run; the message points at what
// works (serving only the serving signatures), not at allowed_ops.
TEST(CheckCommandTest, ATrainingSignaturePointsAtTheSignaturesOption) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  LoadOptions o;
  o.signatures = {"save"};
  absl::Status s = Model::Load(SharedModel("community/mobile_train_mnist"), o).status();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "LoadOptions::signatures")) << s;
  EXPECT_FALSE(absl::StrContains(s.message(), "allowed_ops")) << s;
}

TEST(CheckCommandTest, OpsWithoutAKernelAreMissingNotRefused) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::ostringstream out;
  // This build has no CUDA kernels: every op is missing on CUDA, none refused.
  absl::Status s =
      RunCheck({"--dir", SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"),
                "--device", "cuda", "--missing_only"},
               out);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "missing on CUDA")) << s;
  EXPECT_FALSE(absl::StrContains(s.message(), "refused")) << s;
  EXPECT_TRUE(absl::StrContains(out.str(), "MISSING")) << out.str();
  EXPECT_FALSE(absl::StrContains(out.str(), "REFUSED")) << out.str();
}

TEST(CheckCommandTest, CudaHasNoKernelsInThisBuildAndSaysSo) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<ModelCheck> c = CheckModel(
      SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"), {}, "cuda");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->device, "CUDA");
  EXPECT_FALSE(c->ok());
  if (kernels::ThisCudaBuild().runtime_version == 0) {
    for (const SignatureCheck& s : c->signatures) {
      for (const OpCheck& op : s.ops) {
        if (s.device == "CUDA" && !op.supported()) {
          EXPECT_TRUE(absl::StrContains(op.missing, "built without the CUDA backend")) << op.missing;
        }
      }
    }
  }
  // The device names run and bench take are accepted; the index does not
  // change which ops exist.
  for (const char* name : {"CUDA:0", "GPU:0", "gpu", "Cuda"}) {
    absl::StatusOr<ModelCheck> named = CheckModel(
        SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"), {}, name);
    ASSERT_TRUE(named.ok()) << name << ": " << named.status();
    EXPECT_EQ(named->device, "CUDA") << name;
  }
  absl::StatusOr<ModelCheck> cpu0 = CheckModel(
      SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"), {}, "CPU:0");
  ASSERT_TRUE(cpu0.ok()) << cpu0.status();
  EXPECT_TRUE(cpu0->ok());
  for (const char* bad : {"tpu", "CUDA:x", "CUDA:-1"}) {
    EXPECT_EQ(CheckModel(SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"), {},
                         bad)
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  absl::StatusOr<ModelCheck> cpu =
      CheckModel(SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"));
  ASSERT_TRUE(cpu.ok());
  EXPECT_TRUE(cpu->ok());
}

// The init op runs once on the CPU while the model loads, whatever the
// device: a CUDA check looks for CPU kernels there (the string table fill
// had been reported missing on CUDA).
TEST(CheckCommandTest, TheInitOpIsCheckedOnTheCpu) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<ModelCheck> c = CheckModel(SharedModel("community/sentiment_bilstm"), {}, "cuda");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_FALSE(c->signatures.empty());
  const SignatureCheck& init = c->signatures.front();
  ASSERT_EQ(init.key, "(init op)");
  EXPECT_EQ(init.device, "CPU");
  EXPECT_FALSE(init.ops.empty());
  for (const OpCheck& op : init.ops) EXPECT_TRUE(op.supported()) << op.op << ": " << op.missing;
  for (size_t i = 1; i < c->signatures.size(); ++i) EXPECT_EQ(c->signatures[i].device, "CUDA");
  std::ostringstream out;
  ASSERT_FALSE(RunCheck({"--dir", SharedModel("community/sentiment_bilstm"), "--device", "cuda"},
                        out)
                   .ok());
  EXPECT_TRUE(absl::StrContains(out.str(), "signature (init op) (runs on CPU):")) << out.str();
}

// For a GPU the check reads the graph the load passes leave, as placement
// does: MobileNetV2's batch norms (Keras 3 exports them as Rsqrt/Mul/Sub of
// variable reads) are folded into its convolutions, so a device needs no
// kernel for them. The CPU check lists the imported graph's ops.
TEST(CheckCommandTest, ADeviceCheckReadsTheGraphAfterTheLoadPasses) {
  const std::string dir = testing::TestDataDir() + "/zoo/mobilenetv2_035_96/saved_model";
  auto has_op = [](const SignatureCheck& s, const std::string& op) {
    for (const OpCheck& o : s.ops) {
      if (o.op == op) return true;
    }
    return false;
  };
  absl::StatusOr<ModelCheck> cpu = CheckModel(dir);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<ModelCheck> cuda = CheckModel(dir, {}, "cuda");
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  int checked = 0;
  for (const SignatureCheck& s : cuda->signatures) {
    if (s.key == "(init op)") continue;
    ++checked;
    EXPECT_TRUE(s.after_passes) << s.key;
    EXPECT_FALSE(has_op(s, "Rsqrt")) << s.key;
    EXPECT_FALSE(has_op(s, "ReadVariableOp")) << s.key;
    EXPECT_TRUE(has_op(s, "_SmrtFusedConv2D")) << s.key;
  }
  EXPECT_GT(checked, 0);
  for (const SignatureCheck& s : cpu->signatures) {
    if (s.key == "(init op)") continue;
    EXPECT_FALSE(s.after_passes) << s.key;
    EXPECT_TRUE(has_op(s, "Rsqrt")) << s.key;
  }
  std::ostringstream out;
  RunCheck({"--dir", dir, "--device", "cuda"}, out).IgnoreError();
  EXPECT_TRUE(absl::StrContains(out.str(), "signature serving_default (after the load passes):"))
      << out.str();
}

TEST(CheckCommandTest, BadArguments) {
  std::ostringstream out;
  EXPECT_EQ(RunCheck({}, out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunCheck({"--dir", "/nonexistent"}, out).code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(CheckModel("/nonexistent", {}, "tpu").ok());
}

}  // namespace
}  // namespace smrt::cli
