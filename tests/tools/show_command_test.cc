// `smrt show` prints what TensorFlow's saved_model_cli prints. Expected texts
// in tests/data/show/ were produced by saved_model_cli itself.
#include "smrt/show_command.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

using ::smrt::testing::SharedModel;

absl::StatusOr<std::string> Show(std::vector<std::string> args) {
  std::ostringstream out;
  absl::Status s = RunShow(args, out);
  if (!s.ok()) return s;
  return out.str();
}

std::string Expected(const std::string& name) {
  absl::StatusOr<std::string> text =
      file::ReadAll(file::JoinPath(testing::TestDataDir(), "show/" + name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

struct Case {
  const char* model;
  std::vector<std::string> extra_args;
  const char* expected_file;
};

TEST(ShowCommandTest, MatchesSavedModelCli) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const std::string tf1 = "tf-serving/saved_model_half_plus_two_cpu/00000123";
  const std::string tf2 = "tf-serving/saved_model_half_plus_two_tf2_cpu/00000123";
  const std::vector<Case> cases = {
      {"tf-serving/saved_model_half_plus_two_cpu/00000123", {}, "tf1_tag_sets.txt"},
      {"tf-serving/saved_model_half_plus_two_cpu/00000123", {"--tag_set", "serve"},
       "tf1_signature_keys.txt"},
      {"tf-serving/saved_model_half_plus_two_cpu/00000123",
       {"--tag_set", "serve", "--signature_def", "classify_x_to_y"}, "tf1_classify.txt"},
      {"tf-serving/saved_model_half_plus_two_tf2_cpu/00000123", {"--tag_set", "serve"},
       "tf2_signature_keys.txt"},
      {"tf-serving/saved_model_half_plus_two_tf2_cpu/00000123",
       {"--tag_set", "serve", "--signature_def", "serving_default"}, "tf2_serving.txt"},
      {"tf-serving/saved_model_counter/00000123",
       {"--tag_set", "serve", "--signature_def", "incr_counter_by"}, "counter_incr_by.txt"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"--dir", SharedModel(c.model)};
    args.insert(args.end(), c.extra_args.begin(), c.extra_args.end());
    absl::StatusOr<std::string> out = Show(args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*out, Expected(c.expected_file)) << c.expected_file;
  }
}

TEST(ShowCommandTest, AllListsEverySignatureWithShapes) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::string> out =
      Show({"--dir", SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"),
            "--all"});
  ASSERT_TRUE(out.ok()) << out.status();
  // The signature part of saved_model_cli's --all output, verbatim.
  std::string expected = Expected("tf1_all_signatures.txt");
  EXPECT_EQ(out->substr(0, expected.size()), expected);
  EXPECT_NE(out->find("The MetaGraph with tag set ['serve'] contains the following ops: {"),
            std::string::npos);
  EXPECT_NE(out->find("'ParseExample'"), std::string::npos);
  EXPECT_NE(out->find("'RestoreV2'"), std::string::npos);
}

// The ops line lists what TensorFlow's ops_used_by_graph_def lists: graph ops
// plus ops of the library functions the graph reaches. Expected set from
// saved_model_cli (sorted; Python prints a set in arbitrary order).
TEST(ShowCommandTest, AllListsTheOpsTensorFlowLists) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::string> out =
      Show({"--dir", SharedModel("community/gan_mnist_disc"), "--all"});
  ASSERT_TRUE(out.ok()) << out.status();
  size_t at = out->find("contains the following ops: {");
  ASSERT_NE(at, std::string::npos);
  std::string ops = out->substr(at + 29);
  ops = ops.substr(0, ops.find('}'));
  std::string expected;
  for (absl::string_view line : absl::StrSplit(Expected("gan_mnist_disc_ops.txt"), '\n',
                                                 absl::SkipEmpty())) {
    absl::StrAppend(&expected, expected.empty() ? "" : ", ", "'", line, "'");
  }
  EXPECT_EQ(ops, expected);
}

TEST(ShowCommandTest, VariablesAndAssets) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::string> vars = Show(
      {"--dir", SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"),
       "--variables"});
  ASSERT_TRUE(vars.ok()) << vars.status();
  EXPECT_EQ(*vars, Expected("tf1_variables.txt"));

  absl::StatusOr<std::string> assets = Show(
      {"--dir", SharedModel("tf-serving/saved_model_half_plus_two_tf2_cpu/00000123"),
       "--assets"});
  ASSERT_TRUE(assets.ok()) << assets.status();
  EXPECT_NE(assets->find("  foo.txt\n"), std::string::npos) << *assets;
  EXPECT_NE(assets->find("      bytes: "), std::string::npos);
}

TEST(ShowCommandTest, ErrorsAreStatuses) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const std::string dir = SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123");
  EXPECT_EQ(Show({}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Show({"--dir", dir, "--bogus"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Show({"--dir", "/no/such"}).status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::string> tags = Show({"--dir", dir, "--tag_set", "train"});
  EXPECT_EQ(tags.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(tags.status().message().find("'serve'"), std::string::npos);
  absl::StatusOr<std::string> sig = Show({"--dir", dir, "--signature_def", "nope"});
  EXPECT_EQ(sig.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(sig.status().message().find("serving_default"), std::string::npos);
}

TEST(ShowCommandTest, FusionsListsWhatWasFusedAndWhy) {
  // The committed MobileNetV2: conv + batch norm + relu6 blocks and
  // residual adds.
  const std::string dir = testing::TestDataDir() + "/zoo/mobilenetv2_035_96/saved_model";
  absl::StatusOr<std::string> out = Show({"--dir", dir, "--fusions", "--signature_def",
                                          "serving_default"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(out->find("signature 'serving_default': "), std::string::npos) << *out;
  EXPECT_NE(out->find("fused    Conv2D+Mul+AddV2"), std::string::npos) << *out;
  EXPECT_NE(out->find("fused    DepthwiseConv2dNative+BiasAdd+Relu6"), std::string::npos) << *out;
  EXPECT_NE(out->find("freeze_variables: froze"), std::string::npos) << *out;
  EXPECT_EQ(Show({"--dir", dir, "--fusions", "--signature_def", "nope"}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(ShowCommandTest, FusionsListsTheTransformersLayerNorms) {
  // The committed Keras 3 transformer: 5 LayerNormalization layers (one after
  // the embedding, two per encoder block), each one _SmrtLayerNorm that also
  // takes the sum before it (the embeddings', each block's residual).
  const std::string dir = testing::TestDataDir() + "/zoo/transformer_small/saved_model";
  absl::StatusOr<std::string> out =
      Show({"--dir", dir, "--fusions", "--signature_def", "serving_default"});
  ASSERT_TRUE(out.ok()) << out.status();
  int fused = 0;
  for (size_t at = out->find("fused    Add+LayerNorm(keras) at '"); at != std::string::npos;
       at = out->find("fused    Add+LayerNorm(keras) at '", at + 1)) {
    ++fused;
  }
  EXPECT_EQ(fused, 5) << *out;
  EXPECT_EQ(out->find("unfused  LayerNorm"), std::string::npos) << *out;
}

// The integer after `label` in the section of `text` that starts at `from`.
int64_t NumberAfter(const std::string& text, size_t from, const std::string& label) {
  const size_t at = text.find(label, from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no '" << label << "' in:\n" << text.substr(from);
    return -1;
  }
  const size_t start = at + label.size();
  int64_t n = -1;
  EXPECT_TRUE(absl::SimpleAtoi(text.substr(start, text.find(' ', start) - start), &n)) << text;
  return n;
}

TEST(ShowCommandTest, MemoryPrintsThePlanOfEachSignatureAtTheBatch) {
  const std::string dir = testing::TestDataDir() + "/zoo/mobilenetv2_035_96/saved_model";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  for (int64_t batch : {1, 3}) {
    absl::StatusOr<std::string> out =
        Show({"--dir", dir, "--memory", "--batch", absl::StrCat(batch)});
    ASSERT_TRUE(out.ok()) << out.status();
    for (const std::string& key : (*model)->signature_keys()) {
      SCOPED_TRACE(absl::StrCat(key, " at batch ", batch));
      absl::StatusOr<MemoryPlan> plan =
          (*model)->PlanMemory(key, {{"keras_tensor", {batch, 96, 96, 3}}});
      ASSERT_TRUE(plan.ok()) << plan.status();
      const size_t at = out->find(absl::StrCat("signature '", key, "' at batch ", batch, ":\n"));
      ASSERT_NE(at, std::string::npos) << *out;
      EXPECT_NE(out->find(absl::StrCat("inputs: keras_tensor (", batch, ", 96, 96, 3)"), at),
                std::string::npos);
      EXPECT_EQ(NumberAfter(*out, at, "weights: "), plan->weight_bytes);
      EXPECT_EQ(NumberAfter(*out, at, "activation peak: "), plan->peak_bytes);
      EXPECT_EQ(NumberAfter(*out, at, "one arena for "), static_cast<int64_t>(plan->tensors.size()));
      EXPECT_EQ(NumberAfter(*out, at, "naive sum: "), plan->naive_bytes);
      EXPECT_EQ(NumberAfter(*out, at, "unplanned tensors: "), 0);
      EXPECT_EQ(NumberAfter(*out, at, "predicted: "), plan->weight_bytes + plan->peak_bytes);
      EXPECT_GT(plan->peak_bytes, 0);
      EXPECT_LT(plan->peak_bytes, plan->naive_bytes);
    }
  }
  // One signature; loops name what they leave unplanned.
  const std::string lstm = testing::TestDataDir() + "/zoo/lstm/saved_model";
  absl::StatusOr<std::string> out =
      Show({"--dir", lstm, "--memory", "--signature_def", "serving_default"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->find("signature 'serve'"), std::string::npos) << *out;
  EXPECT_GT(NumberAfter(*out, 0, "unplanned tensors: "), 0);
  EXPECT_NE(out->find("(size known only at run time: "), std::string::npos) << *out;

  EXPECT_EQ(Show({"--dir", dir, "--memory", "--batch", "0"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Show({"--dir", dir, "--batch", "2"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Show({"--dir", dir, "--memory", "--signature_def", "nope"}).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace smrt::cli

namespace smrt::cli {
namespace {

// TF2 models: the "Concrete Functions" block that closes saved_model_cli's
// --all, from the object graph (tests/generators/show_concrete_functions.py
// wrote the expected blocks with saved_model_cli, TF 2.21): a tf.Module's
// functions; a tf_keras model's __call__ with two options (training True
// and False, then None: bool and NoneType arguments) and its bare
// _default_save_signature; a Keras 3 serve endpoint taking a list of specs.
TEST(ShowCommandTest, AllEndsWithTheConcreteFunctionsOfTf2Models) {
  for (const std::string name : {"tf_module", "mixed_f16_tfkeras", "transformer_small"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::string> out = Show(
        {"--dir", testing::TestDataDir() + "/zoo/" + name + "/saved_model", "--all"});
    ASSERT_TRUE(out.ok()) << out.status();
    size_t at = out->find("\nConcrete Functions:");
    ASSERT_NE(at, std::string::npos) << *out;
    EXPECT_EQ(out->substr(at), Expected(name + "_concrete_functions.txt"));
  }
}

TEST(ShowCommandTest, Tf1ModelsHaveNoConcreteFunctions) {
  absl::StatusOr<std::string> out =
      Show({"--dir", testing::TestDataDir() + "/zoo/tf1_cond/saved_model", "--all"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->find("Concrete Functions"), std::string::npos) << *out;
}

}  // namespace
}  // namespace smrt::cli
