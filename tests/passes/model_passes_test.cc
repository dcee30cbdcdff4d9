// The pipeline as a Model runs it: variables are frozen only when no
// prepared signature writes them, options and ModelInternals report it.
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "api/model_internals.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

bool HasLine(const std::vector<std::string>& log, const std::string& text) {
  for (const std::string& line : log) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ModelPassesTest, ReadOnlyModelsHaveTheirVariablesFrozenAndGiveTheSameAnswers) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "mlp_bn_dropout") continue;
    const testing::ConformanceCase& c = m.cases.at(0);
    absl::StatusOr<std::unique_ptr<Model>> on = Model::Load(m.dir);
    ASSERT_TRUE(on.ok()) << on.status();
    absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**on, c.signature);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(HasLine(*report->log, "freeze_variables: froze")) << report->log->size();
    EXPECT_TRUE(HasLine(*report->log, "constant_folding: folded"));
    // Keras's reads were the function's effects; frozen, none is left to run.
    EXPECT_FALSE(HasLine(*report->log, "(0 were kept as effects)"));
    for (int id = 0; id < report->graph->num_nodes(); ++id) {
      EXPECT_NE(report->graph->node(id).op, "ReadVariableOp") << report->graph->node(id).name;
    }

    LoadOptions off_options;
    off_options.disabled_passes = {"all"};
    absl::StatusOr<std::unique_ptr<Model>> off = Model::Load(m.dir, off_options);
    ASSERT_TRUE(off.ok()) << off.status();
    absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
    ASSERT_TRUE(in.ok()) << in.status();
    absl::StatusOr<NamedTensors> a = (*on)->Run(c.signature, *in);
    absl::StatusOr<NamedTensors> b = (*off)->Run(c.signature, *in);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(testing::CompareOutputs(c, *a, m.tolerance).ok);
    EXPECT_TRUE(testing::CompareOutputs(c, *b, m.tolerance).ok);
    return;
  }
  FAIL() << "mlp_bn_dropout is not in tests/data/zoo";
}

TEST(ModelPassesTest, VariablesThatASignatureWritesAreNotFrozen) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  // mobile_train_mnist's "train" signature updates the weights "infer" reads.
  const std::string dir = testing::SharedModel("community/mobile_train_mnist");
  LoadOptions both;
  both.signatures = {"infer", "train"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, both);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**model, "infer");
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(HasLine(*report->log, "froze"));
  EXPECT_TRUE(HasLine(*report->log, "variables stay variables"));

  LoadOptions infer_only;
  infer_only.signatures = {"infer"};
  model = Model::Load(dir, infer_only);
  ASSERT_TRUE(model.ok()) << model.status();
  report = ModelInternals::Passes(**model, "infer");
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(HasLine(*report->log, "froze"));
}

// An embedding lookup of a frozen table, ResourceGather(handle, ids), becomes
// a GatherV2 of the table's Const, which every device has a kernel for. The
// conformance suite checks the answers (community/tfrs_two_tower, goldens).
TEST(ModelPassesTest, LookupsInFrozenTablesBecomeGathers) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::SharedModel("community/tfrs_two_tower"));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<ModelInternals::PassReport> report =
      ModelInternals::Passes(**model, "serving_default");
  ASSERT_TRUE(report.ok()) << report.status();
  int gathers = 0;
  for (int id = 0; id < report->graph->num_nodes(); ++id) {
    const graph::Node& n = report->graph->node(id);
    EXPECT_NE(n.op, "ResourceGather") << n.name;
    if (n.op == "GatherV2" && absl::EndsWith(n.name, "/frozen")) ++gathers;
  }
  EXPECT_EQ(gathers, 2);  // the user and the movie towers' embeddings
  EXPECT_TRUE(HasLine(*report->log, "variable reads and lookups"));
}

// Lines of a graph dump whose op is `op` and whose node name contains `scope`.
int CountOps(const std::string& dump, const std::string& op, const std::string& scope) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(dump, '\n')) {
    const size_t eq = line.find(" = " + op + "(");
    if (eq != absl::string_view::npos &&
        line.substr(0, eq).find(scope) != absl::string_view::npos) {
      ++n;
    }
  }
  return n;
}

TEST(ModelPassesTest, TransformerLayerNormsAreFusedAndMatchTensorFlow) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "transformer_small") continue;
    LoadOptions options;
    options.dump_graph_dir = ::testing::TempDir() + "/smrt_layer_norm_dump";
    std::error_code ec;
    std::filesystem::create_directories(options.dump_graph_dir, ec);
    ASSERT_FALSE(ec) << ec.message();
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    const std::string sig = m.cases.at(0).signature;
    absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**model, sig);
    ASSERT_TRUE(report.ok()) << report.status();
    absl::StatusOr<std::string> before =
        file::ReadAll(file::JoinPath(options.dump_graph_dir, sig + ".before.txt"));
    absl::StatusOr<std::string> after =
        file::ReadAll(file::JoinPath(options.dump_graph_dir, sig + ".after.txt"));
    ASSERT_TRUE(before.ok() && after.ok()) << before.status() << after.status();
    // One Rsqrt per Keras LayerNormalization layer in the graph as loaded.
    const int layers = CountOps(*before, "Rsqrt", "layer_normalization");
    EXPECT_EQ(layers, 5);  // embedding + 2 per encoder block
    int fused = 0;
    for (const passes::FusionRecord& r : *report->fusions) {
      if (r.pass != "fuse_layer_norm") continue;
      EXPECT_TRUE(r.fused) << r.node << ": " << r.reason;
      fused += r.fused ? 1 : 0;
    }
    EXPECT_EQ(fused, layers);
    EXPECT_EQ(CountOps(*after, "_SmrtLayerNorm", ""), layers);
    EXPECT_EQ(CountOps(*after, "Rsqrt", ""), 0);
    for (const testing::ConformanceCase& c : m.cases) {
      absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
      ASSERT_TRUE(in.ok()) << in.status();
      absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *in);
      ASSERT_TRUE(out.ok()) << out.status();
      testing::Comparison cmp = testing::CompareOutputs(c, *out, m.tolerance);
      EXPECT_TRUE(cmp.ok) << c.name << ": " << cmp.detail;
    }
    return;
  }
  FAIL() << "transformer_small is not in tests/data/zoo";
}

TEST(ModelPassesTest, UnknownPassIsALoadError) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok() && !models->empty());
  LoadOptions options;
  options.disabled_passes = {"fold_everything"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(models->front().dir, options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("unknown pass 'fold_everything'"), std::string::npos)
      << model.status();
}

// LoadOptions::precision on whole models: the products run in 16 bits, the
// answers stay within what docs/precision.md states for these models
// (measured there with smrt_conformance --precision), and float32 is the
// default.
TEST(ModelPassesTest, PrecisionOptionKeepsTheZooWithinItsStatedTolerance) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  struct Bound {
    const char* precision;
    double max_rel;  // over every case of these models
  };
  const Bound bounds[] = {{"float32", 1e-4}, {"float16", 5e-3}, {"bfloat16", 5e-2}};
  int checked = 0;
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "unet_small" && m.name != "transformer_small" && m.name != "conv_autoencoder") {
      continue;
    }
    for (const Bound& b : bounds) {
      SCOPED_TRACE(absl::StrCat(m.name, " ", b.precision));
      LoadOptions options;
      options.precision = b.precision;
      absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
      ASSERT_TRUE(model.ok()) << model.status();
      double worst = 0;
      for (const testing::ConformanceCase& c : m.cases) {
        absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
        ASSERT_TRUE(in.ok()) << in.status();
        absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *in);
        ASSERT_TRUE(out.ok()) << out.status();
        const testing::Comparison cmp = testing::CompareOutputs(c, *out, b.max_rel);
        EXPECT_TRUE(cmp.ok) << c.name << ": " << cmp.detail;
        worst = std::max(worst, cmp.max_rel);
      }
      absl::StatusOr<ModelInternals::PassReport> report =
          ModelInternals::Passes(**model, m.cases.at(0).signature);
      ASSERT_TRUE(report.ok()) << report.status();
      if (std::string(b.precision) == "float32") {
        EXPECT_FALSE(HasLine(*report->log, "nodes compute in"));
      } else {
        EXPECT_TRUE(HasLine(*report->log, absl::StrCat("nodes compute in ", b.precision)));
        EXPECT_GT(worst, 1e-5);  // 16-bit arithmetic shows
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9);
}

// Loads m with `precision`, runs its first case and expects the bits of a
// load without the option; the pass log of that load (empty on a failure).
std::vector<std::string> ExpectTheBitsOfAPlainLoad(const testing::ConformanceModel& m,
                                                   const std::string& precision) {
  SCOPED_TRACE(absl::StrCat(m.name, " ", precision));
  const testing::ConformanceCase& c = m.cases.at(0);
  absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
  absl::StatusOr<std::unique_ptr<Model>> plain =
      in.ok() ? Model::Load(m.dir) : absl::StatusOr<std::unique_ptr<Model>>(in.status());
  LoadOptions options;
  if (absl::Status s = SetLoadOption(&options, "precision", precision); !s.ok()) plain = s;
  absl::StatusOr<std::unique_ptr<Model>> model =
      plain.ok() ? Model::Load(m.dir, options) : plain.status();
  if (!model.ok()) {
    ADD_FAILURE() << model.status();
    return {};
  }
  absl::StatusOr<NamedTensors> want = (*plain)->Run(c.signature, *in);
  absl::StatusOr<NamedTensors> got = (*model)->Run(c.signature, *in);
  absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**model, c.signature);
  if (!want.ok() || !got.ok() || !report.ok()) {
    ADD_FAILURE() << want.status() << " " << got.status() << " " << report.status();
    return {};
  }
  EXPECT_EQ(got->size(), want->size());
  for (const auto& [name, t] : *want) {
    const Tensor& g = got->at(name);
    EXPECT_EQ(g.byte_size(), t.byte_size()) << name;
    if (g.byte_size() == t.byte_size()) {
      EXPECT_EQ(std::memcmp(g.raw_data(), t.raw_data(), t.byte_size()), 0) << name;
    }
  }
  return *report->log;
}

// A mixed-precision export (Keras mixed_float16 / mixed_bfloat16, whose
// head stays float32 on purpose) runs as exported under every precision:
// the same bits as without the option, and the log says why.
TEST(ModelPassesTest, MixedPrecisionExportsRunAsExportedUnderThePrecisionOption) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  int checked = 0;
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "mixed_f16_cnn" && m.name != "mixed_bf16_mlp" &&
        m.name != "mixed_f16_tfkeras") {
      continue;
    }
    for (const char* precision : {"float16", "bfloat16"}) {
      const std::vector<std::string> log = ExpectTheBitsOfAPlainLoad(m, precision);
      EXPECT_TRUE(HasLine(log, "a mixed-precision export runs as exported")) << m.name;
      EXPECT_FALSE(HasLine(log, "nodes compute in")) << m.name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6);
}

// The CPU has no TF32: precision "tf32" gives float32's bits there, and the
// log says so.
TEST(ModelPassesTest, Tf32OnTheCpuIsFloat32) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  int checked = 0;
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "conv_autoencoder" && m.name != "transformer_small") continue;
    const std::vector<std::string> log = ExpectTheBitsOfAPlainLoad(m, "tf32");
    EXPECT_TRUE(HasLine(log, "allow_tf32: the CPU has no TF32")) << m.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(ModelPassesTest, AnUnknownPrecisionIsRefusedByName) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  LoadOptions options;
  ASSERT_TRUE(SetLoadOption(&options, "precision", "float16").ok());
  EXPECT_EQ(options.precision, "float16");
  options.precision = "fp8";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(models->at(0).dir, options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(model.status().message(),
                                "precision must be \"float32\", \"tf32\", \"float16\" or "
                                "\"bfloat16\", got \"fp8\""))
      << model.status();
}

}  // namespace
}  // namespace smrt
