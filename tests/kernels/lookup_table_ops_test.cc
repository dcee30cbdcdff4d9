// Lookup-table kernels against TensorFlow goldens
// (tests/generators/kernel_goldens/strings.py, tests/data/kernels/strings/tables.rec)
// and hand-written cases: initialization rules, errors that name the table,
// text-file initializers and concurrent use.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "kernels/string_goldens.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

using Strings = std::vector<std::string>;

AttrMap TableAttrs(DataType key, DataType value) {
  AttrMap a;
  a.Set("key_dtype", key);
  a.Set("value_dtype", value);
  return a;
}

// One table resource, driven through the registered kernels as the executor
// does: the handle op owns it, consumers see it as resource(0).
class Table {
 public:
  Table(const std::string& op, DataType key, DataType value, const std::string& name = "table")
      : name_(name) {
    const OpSpec* spec = KernelRegistry::Default().FindOp(op);
    EXPECT_NE(spec, nullptr) << op;
    EXPECT_TRUE(spec->make_resource) << op;
    AttrMap attrs = TableAttrs(key, value);
    ApplyAttrDefaults(*spec, attrs);
    absl::StatusOr<std::unique_ptr<Resource>> r = spec->make_resource(attrs);
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok()) resource_ = *std::move(r);
    // Run the handle op once, as a graph would before any consumer.
    absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, attrs);
    EXPECT_TRUE(k.ok()) << k.status();
    KernelContext ctx(name_, op, attrs, {}, 1);
    ctx.set_node_resource(resource_.get());
    EXPECT_TRUE((*k)->compute(ctx).ok());
    EXPECT_FALSE(ctx.output(0).valid());  // a handle carries no data
  }

  // Runs `op` with the table as input 0 followed by `inputs`.
  absl::StatusOr<std::vector<Tensor>> Run(const std::string& op, AttrMap attrs,
                                          std::vector<Tensor> inputs) const {
    const KernelRegistry& registry = KernelRegistry::Default();
    const OpSpec* spec = registry.FindOp(op);
    if (spec == nullptr) return absl::NotFoundError(op);
    ApplyAttrDefaults(*spec, attrs);
    std::vector<ValueInfo> infos = {ValueInfo{DataType::kResource, PartialShape::Known({})}};
    for (const Tensor& t : inputs) infos.push_back(ValueInfo{t.dtype(), PartialShape::Known(t.shape())});
    absl::StatusOr<std::vector<ValueInfo>> inferred = InferOp(op, attrs, infos);
    if (!inferred.ok()) return inferred.status();
    absl::StatusOr<const KernelSpec*> kernel = registry.FindKernel(op, kCpu, attrs);
    if (!kernel.ok()) return kernel.status();
    inputs.insert(inputs.begin(), Tensor());
    KernelContext ctx("consumer", op, attrs, inputs, static_cast<int>(inferred->size()),
                      {resource_.get()});
    if (absl::Status s = (*kernel)->compute(ctx); !s.ok()) return s;
    for (size_t i = 0; i < inferred->size(); ++i) {
      const Tensor& out = ctx.outputs()[i];
      if (out.dtype() != (*inferred)[i].dtype || !(*inferred)[i].shape.IsCompatibleWith(out.shape())) {
        return absl::InternalError(absl::StrCat(op, " output ", i, " ", out.DebugString(),
                                                " does not match inference ",
                                                (*inferred)[i].shape.ToString()));
      }
    }
    return ctx.outputs();
  }

  absl::Status Init(const Tensor& keys, const Tensor& values) const {
    return Run("InitializeTableV2", {}, {keys, values}).status();
  }
  absl::Status Import(const Tensor& keys, const Tensor& values) const {
    return Run("LookupTableImportV2", {}, {keys, values}).status();
  }
  absl::StatusOr<Tensor> Find(const Tensor& keys, const Tensor& fallback) const {
    AttrMap a;
    a.Set("Tin", keys.dtype());
    a.Set("Tout", fallback.dtype());
    absl::StatusOr<std::vector<Tensor>> out = Run("LookupTableFindV2", a, {keys, fallback});
    if (!out.ok()) return out.status();
    return (*out)[0];
  }
  int64_t Size() const {
    absl::StatusOr<std::vector<Tensor>> out = Run("LookupTableSizeV2", {}, {});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? (*out)[0].data<int64_t>()[0] : -1;
  }
  // Exported (key, value) pairs as text, sorted.
  std::vector<std::pair<std::string, std::string>> Export(DataType key, DataType value) const {
    AttrMap a;
    a.Set("Tkeys", key);
    a.Set("Tvalues", value);
    absl::StatusOr<std::vector<Tensor>> out = Run("LookupTableExportV2", a, {});
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    return Pairs((*out)[0], (*out)[1]);
  }

  static std::string Text(const Tensor& t, int64_t i) {
    switch (t.dtype()) {
      case DataType::kString: return t.data<std::string>()[i];
      case DataType::kInt64: return absl::StrCat(t.data<int64_t>()[i]);
      case DataType::kInt32: return absl::StrCat(t.data<int32_t>()[i]);
      case DataType::kFloat: return absl::StrCat(t.data<float>()[i]);
      default: return "?";
    }
  }
  static std::vector<std::pair<std::string, std::string>> Pairs(const Tensor& k, const Tensor& v) {
    std::vector<std::pair<std::string, std::string>> p;
    for (int64_t i = 0; i < k.num_elements(); ++i) p.emplace_back(Text(k, i), Text(v, i));
    std::sort(p.begin(), p.end());
    return p;
  }

  Resource* resource() const { return resource_.get(); }

 private:
  std::string name_;
  std::unique_ptr<Resource> resource_;
};

const char kHash[] = "HashTableV2";
const char kMutable[] = "MutableHashTableV2";

TEST(LookupTableTest, StringToInt64MatchesTensorFlow) {
  GoldenFile g("tables");
  Table t(kHash, DataType::kString, DataType::kInt64);
  ASSERT_TRUE(t.Init(g.Get("s2i.keys"), g.Get("s2i.values")).ok());
  const Tensor queries = g.Get("s2i.queries");
  absl::StatusOr<Tensor> found = t.Find(queries, Scalar<int64_t>(-1));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_TRUE(TensorsNear(*found, g.Get("s2i.find.0")));
  // A per-key default uses its first element for every miss, as in TensorFlow.
  absl::StatusOr<Tensor> full = t.Find(queries, MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}));
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_TRUE(TensorsNear(*full, g.Get("s2i.find_full_default.0")));
  EXPECT_EQ(t.Size(), g.Get("s2i.size.0").data<int64_t>()[0]);

  // Re-initializing with as many entries is accepted and changes nothing.
  EXPECT_TRUE(t.Init(MakeTensor<std::string>({4}, {"w", "x", "y", "z"}), g.Get("s2i.values")).ok());
  absl::StatusOr<Tensor> again = t.Find(queries, Scalar<int64_t>(-1));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(TensorsNear(*again, g.Get("s2i.find_after_reinit.0")));
  ASSERT_TRUE(g.IsError("s2i.reinit_other_count"));
  absl::Status other = t.Init(MakeTensor<std::string>({1}, {"w"}), MakeTensor<int64_t>({1}, {1}));
  EXPECT_EQ(other.code(), absl::StatusCode::kFailedPrecondition) << other;
  EXPECT_NE(other.message().find("already initialized"), std::string::npos) << other;

  ASSERT_TRUE(g.IsError("s2i.bad_default"));
  absl::StatusOr<Tensor> bad = t.Find(queries, MakeTensor<int64_t>({2}, {1, 2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("default_value"), std::string::npos) << bad.status();
}

TEST(LookupTableTest, Int64ToStringImportFindExport) {
  GoldenFile g("tables");
  Table t(kHash, DataType::kInt64, DataType::kString);
  ASSERT_TRUE(t.Import(g.Get("i2s.keys"), g.Get("i2s.values")).ok());
  absl::StatusOr<Tensor> found = t.Find(g.Get("i2s.queries"), Scalar<std::string>("UNK"));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_TRUE(TensorsNear(*found, g.Get("i2s.find.0")));
  EXPECT_EQ(t.Export(DataType::kInt64, DataType::kString),
            Table::Pairs(g.Get("i2s.export.0"), g.Get("i2s.export.1")));
  // Export attrs must name the table's dtypes.
  AttrMap wrong;
  wrong.Set("Tkeys", DataType::kString);
  wrong.Set("Tvalues", DataType::kString);
  EXPECT_EQ(t.Run("LookupTableExportV2", wrong, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LookupTableTest, DuplicateKeysAndUninitializedTables) {
  GoldenFile g("tables");
  Table dup(kHash, DataType::kString, DataType::kFloat, "dup_table");
  ASSERT_TRUE(g.IsError("dup.init"));
  absl::Status s = dup.Init(MakeTensor<std::string>({3}, {"a", "b", "a"}),
                            MakeTensor<float>({3}, {1, 2, 3}));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("different values for the same key"), std::string::npos) << s;
  EXPECT_NE(s.message().find("dup_table"), std::string::npos) << s;

  Table same(kHash, DataType::kString, DataType::kFloat);
  EXPECT_TRUE(same.Init(MakeTensor<std::string>({3}, {"a", "b", "a"}),
                        MakeTensor<float>({3}, {1, 2, 1}))
                  .ok());
  EXPECT_EQ(same.Size(), g.Get("dup_same.size.0").data<int64_t>()[0]);

  Table uninit(kHash, DataType::kString, DataType::kInt64, "vocab_lookup");
  ASSERT_TRUE(g.IsError("uninit.find"));
  absl::StatusOr<Tensor> found = uninit.Find(g.Get("s2i.keys"), Scalar<int64_t>(0));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(found.status().message().find("table 'vocab_lookup' is not initialized"),
            std::string::npos)
      << found.status();
  EXPECT_EQ(uninit.Size(), g.Get("uninit.size.0").data<int64_t>()[0]);
}

TEST(LookupTableTest, MutableTableMatchesTensorFlow) {
  GoldenFile g("tables");
  Table m(kMutable, DataType::kInt64, DataType::kFloat);
  const Tensor q = g.Get("mut.queries");
  absl::StatusOr<Tensor> empty = m.Find(q, Scalar<float>(-1));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(TensorsNear(*empty, g.Get("mut.find_empty.0")));
  ASSERT_TRUE(m.Run("LookupTableInsertV2", {},
                    {MakeTensor<int64_t>({3}, {1, 2, 3}), MakeTensor<float>({3}, {0.5, 1.5, 2.5})})
                  .ok());
  ASSERT_TRUE(
      m.Run("LookupTableInsertV2", {}, {MakeTensor<int64_t>({1}, {2}), MakeTensor<float>({1}, {9})})
          .ok());
  EXPECT_TRUE(TensorsNear(*m.Find(q, Scalar<float>(-1)), g.Get("mut.find_inserted.0")));
  ASSERT_TRUE(m.Run("LookupTableRemoveV2", {}, {MakeTensor<int64_t>({2}, {1, 4})}).ok());
  EXPECT_TRUE(TensorsNear(*m.Find(q, Scalar<float>(-1)), g.Get("mut.find_removed.0")));
  EXPECT_EQ(m.Size(), g.Get("mut.size.0").data<int64_t>()[0]);
  ASSERT_TRUE(m.Import(MakeTensor<int64_t>({1}, {4}), MakeTensor<float>({1}, {4.5})).ok());
  EXPECT_TRUE(TensorsNear(*m.Find(q, Scalar<float>(-1)), g.Get("mut.find_imported.0")));
  // A mutable table has no initializer.
  EXPECT_EQ(m.Init(MakeTensor<int64_t>({1}, {1}), MakeTensor<float>({1}, {1})).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LookupTableTest, InitializeFromTextFileMatchesTensorFlow) {
  GoldenFile g("tables");
  const std::string vocab = absl::StrCat(SMRT_TEST_DATA_DIR, "/kernels/strings/vocab.txt");
  struct Case {
    const char* name;
    DataType key, value;
    int64_t key_index, value_index;
    AttrMap extra;
  };
  auto attrs = [](std::initializer_list<std::pair<const char*, AttrValue>> kv) {
    AttrMap a;
    for (const auto& [k, v] : kv) a.Set(k, v);
    return a;
  };
  const std::vector<Case> cases = {
      {"line_to_id", DataType::kString, DataType::kInt64, -2, -1, {}},
      {"line_to_id_offset", DataType::kString, DataType::kInt64, -2, -1,
       attrs({{"offset", int64_t{5}}})},
      {"col0_to_col1", DataType::kString, DataType::kInt64, 0, 1, {}},
      {"col0_to_col1_i32_offset", DataType::kString, DataType::kInt32, 0, 1,
       attrs({{"offset", int64_t{100}}})},
      {"col0_to_col2_float", DataType::kString, DataType::kFloat, 0, 2, {}},
      {"id_to_col0", DataType::kInt64, DataType::kString, -1, 0, {}},
      {"col1_to_line", DataType::kInt64, DataType::kString, 1, -2, {}},
      {"vocab2", DataType::kString, DataType::kInt64, -2, -1, attrs({{"vocab_size", int64_t{2}}})},
      {"vocab9", DataType::kString, DataType::kInt64, -2, -1, attrs({{"vocab_size", int64_t{9}}})},
      {"col5", DataType::kString, DataType::kInt64, 0, 5, {}},
      {"col0_as_int", DataType::kString, DataType::kInt64, 1, 0, {}},
      {"space_delim", DataType::kString, DataType::kInt64, 0, -1,
       attrs({{"delimiter", std::string(" ")}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Table t(kHash, c.key, c.value);
    AttrMap a = c.extra;
    a.Set("key_index", c.key_index);
    a.Set("value_index", c.value_index);
    const std::string name = absl::StrCat("file.", c.name);
    absl::StatusOr<std::vector<Tensor>> init =
        t.Run("InitializeTableFromTextFileV2", a, {Scalar<std::string>(vocab)});
    if (g.IsError(name + ".init")) {
      ASSERT_FALSE(init.ok());
      EXPECT_EQ(init.status().code(), absl::StatusCode::kInvalidArgument) << init.status();
      continue;
    }
    ASSERT_TRUE(init.ok()) << init.status();
    EXPECT_EQ(t.Export(c.key, c.value),
              Table::Pairs(g.Get(name + ".export.0"), g.Get(name + ".export.1")));
    // Running the initializer again (another signature's init) is accepted.
    EXPECT_TRUE(t.Run("InitializeTableFromTextFileV2", a, {Scalar<std::string>(vocab)}).ok());
  }

  ASSERT_TRUE(g.IsError("file.empty_line.init"));
  Table t(kHash, DataType::kString, DataType::kInt64);
  AttrMap a;
  a.Set("key_index", int64_t{-2});
  a.Set("value_index", int64_t{-1});
  absl::StatusOr<std::vector<Tensor>> empty_line = t.Run(
      "InitializeTableFromTextFileV2", a,
      {Scalar<std::string>(absl::StrCat(SMRT_TEST_DATA_DIR, "/kernels/strings/vocab_empty_line.txt"))});
  ASSERT_FALSE(empty_line.ok());
  EXPECT_NE(empty_line.status().message().find("empty"), std::string::npos) << empty_line.status();

  absl::StatusOr<std::vector<Tensor>> missing =
      t.Run("InitializeTableFromTextFileV2", a, {Scalar<std::string>("/no/such/vocab.txt")});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/no/such/vocab.txt"), std::string::npos)
      << missing.status();

  AttrMap two_char = a;
  two_char.Set("delimiter", std::string("::"));
  EXPECT_EQ(t.Run("InitializeTableFromTextFileV2", two_char, {Scalar<std::string>(vocab)})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  AttrMap line_key = a;
  line_key.Set("key_index", int64_t{-1});  // line numbers need int64 keys
  EXPECT_EQ(t.Run("InitializeTableFromTextFileV2", line_key, {Scalar<std::string>(vocab)})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LookupTableTest, DtypeAndWiringErrors) {
  Table t(kHash, DataType::kString, DataType::kInt64, "words");
  absl::Status wrong_keys = t.Init(MakeTensor<int64_t>({1}, {1}), MakeTensor<int64_t>({1}, {1}));
  EXPECT_EQ(wrong_keys.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_keys.message().find("keys must be DT_STRING for table 'words'"),
            std::string::npos)
      << wrong_keys;
  absl::Status sizes = t.Init(MakeTensor<std::string>({2}, {"a", "b"}), MakeTensor<int64_t>({1}, {1}));
  EXPECT_EQ(sizes.code(), absl::StatusCode::kInvalidArgument);
  absl::Status matrix =
      t.Init(MakeTensor<std::string>({1, 1}, {"a"}), MakeTensor<int64_t>({1, 1}, {1}));
  EXPECT_EQ(matrix.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(t.Init(MakeTensor<std::string>({1}, {"a"}), MakeTensor<int64_t>({1}, {1})).ok());
  EXPECT_EQ(t.Find(MakeTensor<std::string>({1}, {"a"}), Scalar<int32_t>(0)).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Zero keys (and a per-key default of zero elements) give an empty result.
  absl::StatusOr<Tensor> none =
      t.Find(MakeTensor<std::string>({0, 2}, {}), MakeTensor<int64_t>({0, 2}, {}));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), (Shape{0, 2}));
  // Scalar keys give a scalar.
  absl::StatusOr<Tensor> one = t.Find(Scalar<std::string>("a"), Scalar<int64_t>(0));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Values<int64_t>(*one), (std::vector<int64_t>{1}));
  // A HashTable is read-only after initialization.
  EXPECT_EQ(t.Run("LookupTableInsertV2", {}, {MakeTensor<std::string>({1}, {"b"}),
                                              MakeTensor<int64_t>({1}, {2})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);

  // A consumer whose input 0 is not a table.
  AttrMap attrs;
  attrs.Set("Tin", DataType::kString);
  attrs.Set("Tout", DataType::kInt64);
  absl::StatusOr<const KernelSpec*> k =
      KernelRegistry::Default().FindKernel("LookupTableFindV2", kCpu, attrs);
  ASSERT_TRUE(k.ok());
  KernelContext ctx("orphan_find", "LookupTableFindV2", attrs,
                    {Tensor(), Scalar<std::string>("a"), Scalar<int64_t>(0)}, 1);
  absl::Status orphan = (*k)->compute(ctx);
  EXPECT_EQ(orphan.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(orphan.message().find("orphan_find"), std::string::npos) << orphan;

  // Table dtypes outside what smrt holds fail when the model loads.
  const OpSpec* spec = KernelRegistry::Default().FindOp(kHash);
  ASSERT_NE(spec, nullptr);
  absl::StatusOr<std::unique_ptr<Resource>> bad_key =
      spec->make_resource(TableAttrs(DataType::kFloat, DataType::kInt64));
  EXPECT_EQ(bad_key.status().code(), absl::StatusCode::kUnimplemented);
  absl::StatusOr<std::unique_ptr<Resource>> bad_value =
      spec->make_resource(TableAttrs(DataType::kString, DataType::kHalf));
  EXPECT_EQ(bad_value.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(LookupTableTest, Inference) {
  AttrMap attrs;
  attrs.Set("Tin", DataType::kString);
  attrs.Set("Tout", DataType::kInt64);
  absl::StatusOr<std::vector<ValueInfo>> find =
      InferOp("LookupTableFindV2", attrs,
              {ValueInfo{DataType::kResource, PartialShape::Known({})},
               ValueInfo{DataType::kString, PartialShape::Known({-1, 3})},
               ValueInfo{DataType::kInt64, PartialShape::Known({})}});
  ASSERT_TRUE(find.ok()) << find.status();
  EXPECT_EQ((*find)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*find)[0].shape, PartialShape::Known({-1, 3}));
  absl::StatusOr<std::vector<ValueInfo>> handle =
      InferOp(kHash, TableAttrs(DataType::kString, DataType::kInt64), {});
  ASSERT_TRUE(handle.ok());
  EXPECT_EQ((*handle)[0].dtype, DataType::kResource);
  absl::StatusOr<std::vector<ValueInfo>> init =
      InferOp("InitializeTableV2", {},
              {ValueInfo{DataType::kResource, PartialShape::Known({})},
               ValueInfo{DataType::kString, PartialShape::Known({2, 2})},
               ValueInfo{DataType::kInt64, PartialShape::Known({4})}});
  EXPECT_FALSE(init.ok());
  absl::StatusOr<std::vector<ValueInfo>> text =
      InferOp("InitializeTableFromTextFileV2",
              [] {
                AttrMap a;
                a.Set("key_index", int64_t{-2});
                a.Set("value_index", int64_t{-1});
                return a;
              }(),
              {ValueInfo{DataType::kResource, PartialShape::Known({})},
               ValueInfo{DataType::kString, PartialShape::Known({2})}});
  EXPECT_FALSE(text.ok());
}

TEST(LookupTableTest, ConcurrentLookupsAndInserts) {
  Table t(kHash, DataType::kInt64, DataType::kInt64);
  std::vector<int64_t> keys(1000), vals(1000);
  for (int i = 0; i < 1000; ++i) keys[i] = i, vals[i] = 3 * i;
  ASSERT_TRUE(t.Init(MakeTensor<int64_t>({1000}, keys), MakeTensor<int64_t>({1000}, vals)).ok());
  Table m(kMutable, DataType::kString, DataType::kInt64);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 8; ++w) {
    threads.emplace_back([&, w] {
      for (int iter = 0; iter < 200; ++iter) {
        absl::StatusOr<Tensor> f = t.Find(MakeTensor<int64_t>({3}, {iter, 999, 5000}),
                                          Scalar<int64_t>(-1));
        if (!f.ok() || Values<int64_t>(*f) != std::vector<int64_t>{3 * iter, 2997, -1}) ++wrong;
        std::string key = absl::StrCat("k", w);
        if (!m.Run("LookupTableInsertV2", {},
                   {MakeTensor<std::string>({1}, {key}), MakeTensor<int64_t>({1}, {iter})})
                 .ok()) {
          ++wrong;
        }
        absl::StatusOr<Tensor> g = m.Find(MakeTensor<std::string>({1}, {key}), Scalar<int64_t>(-1));
        if (!g.ok() || g->data<int64_t>()[0] != iter) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(m.Size(), 8);
}

}  // namespace
}  // namespace smrt::kernels
