// --model_config_file and --batching_parameters_file in TF Serving's text
// formats, with its checks.
#include "serve/config.h"

#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace smrt::serve {
namespace {

using smrt::testing::IsError;

TEST(ConfigTest, ModelConfigListWithPoliciesAndLabels) {
  absl::StatusOr<std::vector<ModelConfig>> models =
      ParseModelConfig(R"pb(
                         model_config_list {
                           config { name: "a" base_path: "/models/a" model_platform: "tensorflow" }
                           config {
                             name: "b"
                             base_path: "/models/b"
                             model_version_policy { specific { versions: 1 versions: 3 } }
                             version_labels { key: "stable" value: 1 }
                             version_labels { key: "canary" value: 3 }
                           }
                           config {
                             name: "c"
                             base_path: "/models/c"
                             model_version_policy { all {} }
                           }
                           config {
                             name: "d"
                             base_path: "/models/d"
                             model_version_policy { latest { num_versions: 2 } }
                           }
                         }
                       )pb",
                       "models.config");
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 4u);
  EXPECT_EQ((*models)[0].name, "a");
  EXPECT_EQ((*models)[0].base_path, "/models/a");
  EXPECT_EQ((*models)[0].policy.kind, VersionPolicy::Kind::kLatest);
  EXPECT_EQ((*models)[0].policy.num_versions, 1u);
  EXPECT_EQ((*models)[1].policy.kind, VersionPolicy::Kind::kSpecific);
  EXPECT_EQ((*models)[1].policy.versions, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ((*models)[1].version_labels.at("stable"), 1);
  EXPECT_EQ((*models)[1].version_labels.at("canary"), 3);
  EXPECT_EQ((*models)[2].policy.kind, VersionPolicy::Kind::kAll);
  EXPECT_EQ((*models)[3].policy.num_versions, 2u);
}

TEST(ConfigTest, ModelConfigErrors) {
  EXPECT_TRUE(IsError(
      ParseModelConfig("model_config_list {\n config { nme: \"a\" } }", "m.cfg").status(),
      absl::StatusCode::kInvalidArgument, "Invalid protobuf file: 'm.cfg': line 2 column 14: "));
  EXPECT_TRUE(IsError(ParseModelConfig(R"(model_config_list {
      config { name: "a" base_path: "/a" } config { name: "a" base_path: "/b" } })",
                                       "m.cfg")
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "Illegal to list model a multiple times in config list"));
  EXPECT_TRUE(IsError(ParseModelConfig(R"(model_config_list {
      config { name: "a" base_path: "/a" model_platform: "tflite" } })",
                                       "m.cfg")
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "Model a requests unsupported platform tflite"));
  EXPECT_TRUE(IsError(ParseModelConfig(R"(model_config_list {
      config { name: "a" base_path: "/a" model_platform: "tensorflow" model_type: TENSORFLOW } })",
                                       "m.cfg")
                          .status(),
                      absl::StatusCode::kInvalidArgument, "Illegal setting both"));
  EXPECT_TRUE(
      IsError(ParseModelConfig(R"(model_config_list { config { name: "a" } })", "m.cfg").status(),
              absl::StatusCode::kInvalidArgument, "model a has no base_path"));
  EXPECT_TRUE(
      IsError(ParseModelConfig(
                  R"(custom_model_config { type_url: "type.googleapis.com/x.Config" })", "m.cfg")
                  .status(),
              absl::StatusCode::kInvalidArgument, "custom_model_config is not supported"));
  EXPECT_TRUE(IsError(ReadModelConfigFile("/nonexistent/models.config").status(),
                      absl::StatusCode::kNotFound, "/nonexistent/models.config"));
}

TEST(ConfigTest, BatchingParametersWithTfServingsDefaultsAndChecks) {
  absl::StatusOr<BatchingOptions> options =
      ParseBatchingParameters(R"pb(
                                max_batch_size { value: 32 }
                                batch_timeout_micros { value: 2000 }
                                num_batch_threads { value: 4 }
                                allowed_batch_sizes: 8
                                allowed_batch_sizes: 32
                                pad_variable_length_inputs: true
                              )pb",
                              "batching.cfg");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_TRUE(options->enabled);
  EXPECT_EQ(options->max_batch_size, 32);
  EXPECT_EQ(options->batch_timeout, absl::Microseconds(2000));
  EXPECT_EQ(options->num_batch_threads, 4);
  EXPECT_EQ(options->max_enqueued_batches, 10);  // TF Serving's default
  EXPECT_EQ(options->allowed_batch_sizes, (std::vector<int64_t>{8, 32}));
  EXPECT_TRUE(options->pad_variable_length_inputs);

  options = ParseBatchingParameters("", "batching.cfg");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->max_batch_size, 1000);
  EXPECT_EQ(options->batch_timeout, absl::ZeroDuration());

  EXPECT_TRUE(IsError(
      ParseBatchingParameters("max_batch_size { value: 16 } allowed_batch_sizes: 8", "batching.cfg")
          .status(),
      absl::StatusCode::kInvalidArgument,
      "batching.cfg: Last entry in allowed_batch_sizes must match max_batch_size; "
      "last entry was 8; expected 16"));
  EXPECT_TRUE(IsError(ParseBatchingParameters("max_batch_size { value: 16 } allowed_batch_sizes: "
                                              "8 allowed_batch_sizes: 4 allowed_batch_sizes: 16",
                                              "batching.cfg")
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "allowed_batch_sizes entries must be monotonically increasing"));
  EXPECT_TRUE(IsError(ParseBatchingParameters("max_batch_size: 16", "batching.cfg").status(),
                      absl::StatusCode::kInvalidArgument, "Invalid protobuf file: 'batching.cfg'"));
}

}  // namespace
}  // namespace smrt::serve
