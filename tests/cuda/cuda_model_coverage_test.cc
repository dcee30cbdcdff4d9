// Which committed models run entirely on CUDA: smrt::CheckModel(dir, {},
// "cuda") loads each on the CPU with the passes a GPU load gets and asks the
// registry for a CUDA kernel per node (no GPU needed). A model that gains a
// fallback to the CPU, or an op that loses its kernel, fails here.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "smrt/check.h"
#include "testing/paths.h"

namespace smrt {
namespace {

// Op -> why, for the ops of every signature that CUDA lacks.
std::map<std::string, std::string> MissingOnCuda(const std::string& dir) {
  absl::StatusOr<ModelCheck> c = CheckModel(dir, {}, "cuda");
  EXPECT_TRUE(c.ok()) << dir << ": " << c.status();
  std::map<std::string, std::string> missing;
  if (!c.ok()) return missing;
  EXPECT_EQ(c->device, "CUDA");
  for (const SignatureCheck& s : c->signatures) {
    EXPECT_EQ(s.error, "") << dir << " " << s.key;
    if (s.key != "(init op)") {
      EXPECT_TRUE(s.after_passes) << dir << " " << s.key;
    }
    for (const OpCheck& op : s.ops) {
      if (!op.supported()) missing[op.op] = op.missing;
    }
  }
  return missing;
}

TEST(CudaModelCoverageTest, CommittedModelsRunEntirelyOnCuda) {
  // tf1_predict_classify parses tf.Examples (ParseExampleV2): that stays on
  // the host with its strings, as in TensorFlow, and is not a fallback. The
  // Keras recurrent layers (lstm, gru, simplernn, bilstm) and the op
  // sampler's loop and branch (tf_module) run their While and If on the
  // device, with their bodies and TensorLists; TF1's dynamic_rnn with its
  // TensorArrays. text_vectorization's tokens are split and looked up on the
  // host, with strings; its ids and their dense batch (RaggedTensorToTensor)
  // are on the device. mixed_f16_tfkeras (tf_keras mixed_float16) has
  // float16 batch norms, in training mode for its LayerNormalization, a
  // float16 Mean and float16 Softmax.
  for (const char* model :
       {"bilstm", "conv_autoencoder", "gru", "lstm", "mixed_bf16_mlp", "mixed_f16_cnn",
        "mixed_f16_tfkeras", "mlp_bn_dropout", "mobilenetv2_035_96", "simplernn",
        "text_vectorization", "tf1_cond", "tf1_dynamic_rnn", "tf1_predict_classify", "tf1_while",
        "tf_module", "transformer_small", "unet_small"}) {
    SCOPED_TRACE(model);
    const std::map<std::string, std::string> missing =
        MissingOnCuda(testing::TestDataDir() + "/zoo/" + model + "/saved_model");
    EXPECT_TRUE(missing.empty()) << "first missing: " << missing.begin()->first << ": "
                                 << missing.begin()->second;
  }
}

// Community models whose signatures tokenize text (sentiment_bilstm), sample,
// or compute losses and gradients: rllib's policy (Multinomial, RandomUniformInt, the sparse
// cross-entropy of its log-probability) and an on-device training signature
// (BiasAddGrad, ReluGrad, DivNoNan, softmax cross-entropy), loaded with the
// inference signature it updates (its save and restore signatures write and
// read checkpoints, which smrt refuses).
TEST(CudaModelCoverageTest, SamplingAndTrainingSignaturesRunOnCuda) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  EXPECT_TRUE(MissingOnCuda(testing::SharedModel("community/rllib_mouse_cheese")).empty());
  EXPECT_TRUE(MissingOnCuda(testing::SharedModel("community/sentiment_bilstm")).empty());
  LoadOptions infer_and_train;
  infer_and_train.signatures = {"infer", "train"};
  absl::StatusOr<ModelCheck> c =
      CheckModel(testing::SharedModel("community/mobile_train_mnist"), infer_and_train, "cuda");
  ASSERT_TRUE(c.ok()) << c.status();
  int checked = 0;
  for (const SignatureCheck& s : c->signatures) {
    if (s.key != "infer" && s.key != "train") continue;
    ++checked;
    EXPECT_TRUE(s.after_passes) << s.key;
    for (const OpCheck& op : s.ops) EXPECT_TRUE(op.supported()) << s.key << ": " << op.op;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace smrt
