// The tensorflow_text kernels (WordpieceTokenizeWithOffsets,
// RegexSplitWithOffsets, CaseFoldUTF8, NormalizeUTF8), UnicodeScript /
// UnsortedSegmentJoin and the ragged ops a BERT preprocessor needs with them
// (RaggedRange, RaggedGather) against TF Text 2.21's and TensorFlow 2.21's answers and
// error messages (tests/generators/kernel_goldens/tf_text.py,
// tests/data/kernels/tf_text/*.rec). Each golden case stores its inputs and
// attrs, so every case runs here exactly as it ran in TensorFlow.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/goldens.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

using ::smrt::testing::RecGoldens;

// Runs `op` as the executor would: the inference (unless `infer` is false:
// TensorFlow's eager kernels run without their shape functions, so a refusal
// is the kernel's), then the CPU kernel, whose outputs must match the
// inference.
absl::StatusOr<std::vector<Tensor>> RunText(const std::string& op, AttrMap attrs,
                                            std::vector<Tensor> inputs,
                                            std::vector<Resource*> resources = {},
                                            bool infer = true) {
  const KernelRegistry& registry = KernelRegistry::Default();
  const OpSpec* spec = registry.FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(op);
  ApplyAttrDefaults(*spec, attrs);
  std::vector<ValueInfo> infos;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool handle = i < resources.size() && resources[i] != nullptr;
    infos.push_back(handle ? ValueInfo{DataType::kResource, PartialShape::Known({})}
                           : ValueInfo{inputs[i].dtype(), PartialShape::Known(inputs[i].shape())});
  }
  absl::StatusOr<std::vector<ValueInfo>> inferred = InferOp(op, attrs, infos);
  if (infer && !inferred.ok()) return inferred.status();
  int num_outputs = 1;
  if (spec->num_outputs) {
    absl::StatusOr<int> n = spec->num_outputs(attrs, static_cast<int>(inputs.size()));
    if (!n.ok()) return n.status();
    num_outputs = *n;
  }
  absl::StatusOr<const KernelSpec*> kernel = registry.FindKernel(op, kCpu, attrs);
  if (!kernel.ok()) return kernel.status();
  KernelContext ctx("node", op, attrs, std::move(inputs), num_outputs, std::move(resources));
  if (absl::Status s = (*kernel)->compute(ctx); !s.ok()) return s;
  if (inferred.ok()) {
    for (size_t i = 0; i < inferred->size(); ++i) {
      const Tensor& out = ctx.outputs()[i];
      if (out.dtype() != (*inferred)[i].dtype ||
          !(*inferred)[i].shape.IsCompatibleWith(out.shape())) {
        return absl::InternalError(absl::StrCat(op, " output ", i, " ", out.DebugString(),
                                                " does not match inference ",
                                                (*inferred)[i].shape.ToString()));
      }
    }
  }
  return ctx.outputs();
}

// A HashTableV2 (string -> int64: each key its index) made and filled by the
// table kernels, as a model's init program fills it.
class Vocab {
 public:
  explicit Vocab(const Tensor& keys) {
    AttrMap attrs;
    attrs.Set("key_dtype", DataType::kString);
    attrs.Set("value_dtype", DataType::kInt64);
    const OpSpec* spec = KernelRegistry::Default().FindOp("HashTableV2");
    ApplyAttrDefaults(*spec, attrs);
    absl::StatusOr<std::unique_ptr<Resource>> r = spec->make_resource(attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return;
    table_ = *std::move(r);
    Tensor values = *Tensor::Create(DataType::kInt64, keys.shape());
    for (int64_t i = 0; i < values.num_elements(); ++i) values.data<int64_t>()[i] = i;
    absl::StatusOr<std::vector<Tensor>> init =
        RunText("InitializeTableV2", {}, {Tensor(), keys, values}, {table_.get()});
    EXPECT_TRUE(init.ok()) << init.status();
  }
  Resource* get() const { return table_.get(); }

 private:
  std::unique_ptr<Resource> table_;
};

struct Case {
  std::vector<Tensor> inputs;
  AttrMap attrs;
};

// The cases of a .rec file: <case>.in.<k> and <case>.attr.<name>.
std::map<std::string, Case> CasesOf(const RecGoldens& g) {
  std::map<std::string, Case> cases;
  for (const auto& [key, t] : g.All()) {
    if (size_t p = key.find(".in."); p != std::string::npos) {
      Case& c = cases[key.substr(0, p)];
      const size_t k = std::stoul(key.substr(p + 4));
      if (c.inputs.size() <= k) c.inputs.resize(k + 1);
      c.inputs[k] = t;
    } else if (size_t q = key.find(".attr."); q != std::string::npos) {
      Case& c = cases[key.substr(0, q)];
      const std::string attr = key.substr(q + 6);
      if (t.dtype() == DataType::kString && attr == "Tsplits") {
        c.attrs.Set(attr,
                    t.data<std::string>()[0] == "int32" ? DataType::kInt32 : DataType::kInt64);
      } else if (t.dtype() == DataType::kString) {
        c.attrs.Set(attr, t.data<std::string>()[0]);
      } else if (t.dtype() == DataType::kBool) {
        c.attrs.Set(attr, t.data<bool>()[0]);
      } else {
        c.attrs.Set(attr, t.data<int64_t>()[0]);
      }
    }
  }
  return cases;
}

// Checks `got` against the case's goldens: outputs <name>.0, .1, ... bit for
// bit, or TensorFlow's message (<name>.error) and status code (<name>.code).
void ExpectMatches(const RecGoldens& g, const std::string& name,
                   const absl::StatusOr<std::vector<Tensor>>& got) {
  SCOPED_TRACE(name);
  if (g.IsError(name)) {
    const int code = static_cast<int>(g.Get(name + ".code").data<int64_t>()[0]);
    g.ExpectError(name, got.status(), static_cast<absl::StatusCode>(code));
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status();
  size_t k = 0;
  for (;; ++k) {
    const std::string key = absl::StrCat(name, ".", k);
    if (!g.Has(key)) break;
    ASSERT_LT(k, got->size());
    EXPECT_TRUE(::smrt::testing::BitIdentical((*got)[k], g.Get(key)))
        << key << ": got " << (*got)[k].DebugString() << "\nwant " << g.Get(key).DebugString();
  }
  EXPECT_EQ(k, got->size());
}

RecGoldens Golden(const std::string& group) {
  return RecGoldens(absl::StrCat(::smrt::testing::TestDataDir(), "/kernels/tf_text/", group, ".rec"));
}

// Every case of `group` through `op`; returns how many ran.
int RunGroup(const std::string& group, const std::string& op, std::vector<Resource*> resources = {},
             const std::string& prefix = "") {
  const RecGoldens g = Golden(group);
  int n = 0;
  for (auto& [name, c] : CasesOf(g)) {
    if (!absl::StartsWith(name, prefix)) continue;
    if (op == "RaggedGather") {
      c.attrs.Set("PARAMS_RAGGED_RANK", static_cast<int64_t>(c.inputs.size()) - 2);
    }
    std::vector<Tensor> inputs = c.inputs;
    for (size_t i = 0; i < resources.size(); ++i) {
      if (resources[i] != nullptr) inputs.insert(inputs.begin() + i, Tensor());
    }
    ExpectMatches(g, name, RunText(op, c.attrs, inputs, resources, /*infer=*/!g.IsError(name)));
    ++n;
  }
  return n;
}

TEST(TextOpsTest, WordpieceMatchesTfText) {
  const RecGoldens g = Golden("wordpiece");
  Vocab vocab(g.Get("vocab"));
  // Every mix of suffix, max_bytes_per_word, max_chars_per_token,
  // use_unknown_token, split_unknown_characters and row partition on words
  // with accents, CJK, ill-formed UTF-8, no match and partial matches.
  EXPECT_GE(RunGroup("wordpiece", "WordpieceTokenizeWithOffsets", {nullptr, vocab.get()}), 40);
}

TEST(TextOpsTest, WordpieceNeedsAStringToInt64Table) {
  Tensor words = *Tensor::Create(DataType::kString, {1});
  AttrMap a;
  a.Set("suffix_indicator", std::string("##"));
  a.Set("max_bytes_per_word", int64_t{100});
  a.Set("use_unknown_token", true);
  a.Set("unknown_token", std::string("[UNK]"));
  absl::StatusOr<std::vector<Tensor>> no_table =
      RunText("WordpieceTokenizeWithOffsets", a, {words, Tensor()});
  EXPECT_EQ(no_table.status().code(), absl::StatusCode::kFailedPrecondition) << no_table.status();
  a.Set("output_row_partition_type", std::string("row_offsets"));
  absl::StatusOr<std::vector<Tensor>> bad =
      RunText("WordpieceTokenizeWithOffsets", a, {words, Tensor()});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "output_row_partition_type"))
      << bad.status();
}

TEST(TextOpsTest, RegexSplitMatchesTfText) {
  // BERT's delimiters, whitespace with and without keeping it, a pattern
  // without a group, a NUL byte that ends the string, bad patterns.
  EXPECT_GE(RunGroup("regex_split", "RegexSplitWithOffsets"), 10);
}

TEST(TextOpsTest, RegexSplitRefusesAnEmptyDelimiterMatch) {
  // TF Text's kernel loops forever on these; smrt says why it stops.
  Tensor text = *Tensor::Create(DataType::kString, {1});
  text.data<std::string>()[0] = "a b";
  for (const char* pattern : {"(x*)", "(\\s*)", "()"}) {
    Tensor delim = *Tensor::Create(DataType::kString, {});
    delim.data<std::string>()[0] = pattern;
    Tensor keep = *Tensor::Create(DataType::kString, {});
    absl::StatusOr<std::vector<Tensor>> got =
        RunText("RegexSplitWithOffsets", {}, {text, delim, keep});
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << pattern;
    EXPECT_TRUE(absl::StrContains(got.status().message(), "matches the empty string"))
        << got.status();
  }
}

TEST(TextOpsTest, CaseFoldAndNormalizeMatchTfText) {
  // NFKC_Casefold and the four forms (any case; unknown forms refused) on
  // ligatures, compatibility characters, Hangul, combining marks, final
  // sigma, ill-formed UTF-8; 1-D and 2-D.
  EXPECT_EQ(RunGroup("normalize", "CaseFoldUTF8", {}, "casefold"), 2);
  EXPECT_EQ(RunGroup("normalize", "NormalizeUTF8", {}, "norm_"), 10);
}

TEST(TextOpsTest, UnicodeScriptMatchesTensorFlow) {
  EXPECT_EQ(RunGroup("core", "UnicodeScript", {}, "script"), 2);
}

TEST(TextOpsTest, UnsortedSegmentJoinMatchesTensorFlow) {
  // Separators (one cut at its NUL), empty strings, 1-D to 3-D inputs with
  // 1-D and 2-D ids, int32/int64 ids and counts, and TensorFlow's refusals.
  EXPECT_EQ(RunGroup("core", "UnsortedSegmentJoin", {}, "join"), 13);
}

TEST(TextOpsTest, RaggedRangeMatchesTensorFlow) {
  // What rt[:, :n] runs: scalars and vectors, broadcasting, negative and
  // float deltas (values by repeated addition), int32 splits, refusals.
  EXPECT_EQ(RunGroup("ragged", "RaggedRange", {}, "range_"), 9);
}

TEST(TextOpsTest, RaggedGatherMatchesTensorFlow) {
  // What tf.concat of ragged rows runs: string, float and int64 values, 1-D
  // and 2-D indices, two ragged dims, and TensorFlow's checks of indices and
  // splits.
  EXPECT_EQ(RunGroup("ragged", "RaggedGather", {}, "gather_"), 10);
}

}  // namespace
}  // namespace smrt::kernels
