// SparseFillEmptyRows, SparseReshape, SparseReorder, SparseConcat, SparseSlice,
// SparseAdd, SparseTensorDenseAdd, SparseReduceSum, SparseSegmentSum/Mean/SqrtN (and
// WithNumSegments), SparseToDense, SparseTensorDenseMatMul, DynamicPartition,
// DynamicStitch and ParallelDynamicStitch (sparse_ops.cc) against TensorFlow
// 2.21's CPU kernels (tests/generators/kernel_goldens/sparse.py): values,
// index outputs bit for bit, and its error messages.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/sparse/" + name); }

// A .strings golden (flat), with `shape`.
Tensor GoldenStrings(const std::string& name, const Shape& shape) {
  absl::StatusOr<Tensor> flat = smrt::testing::ReadGoldenTensor(
      smrt::testing::TestDataDir() + "/kernels/sparse/" + name + ".strings");
  EXPECT_TRUE(flat.ok()) << flat.status();
  Tensor t = *Tensor::Create(DataType::kString, shape);
  EXPECT_EQ(t.num_elements(), flat.ok() ? flat->num_elements() : -1) << name;
  for (int64_t i = 0; flat.ok() && i < t.num_elements() && i < flat->num_elements(); ++i) {
    t.data<std::string>()[i] = flat->data<std::string>()[i];
  }
  return t;
}

// TensorFlow's error message for each case of messages.txt ("\n" written as
// the two characters \n).
const std::map<std::string, std::string>& Messages() {
  static const auto* messages = [] {
    auto* m = new std::map<std::string, std::string>;
    absl::StatusOr<std::string> text =
        file::ReadAll(smrt::testing::TestDataDir() + "/kernels/sparse/messages.txt");
    EXPECT_TRUE(text.ok()) << text.status();
    for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
      (*m)[parts[0]] = absl::StrReplaceAll(parts.size() > 1 ? parts[1] : "", {{"\\n", "\n"}});
    }
    return m;
  }();
  return *messages;
}

// InvalidArgument with TensorFlow's message for `name`, after the
// "<op> node '<name>': " smrt puts before it.
void ExpectTfError(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& name) {
  ASSERT_EQ(Messages().count(name), 1u) << name;
  ASSERT_FALSE(out.ok()) << name;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << name << out.status();
  EXPECT_TRUE(absl::EndsWith(out.status().message(), Messages().at(name)))
      << name << ": " << out.status() << "\nwant: " << Messages().at(name);
}

Tensor Cast(const Tensor& t, DataType to) {
  if (t.dtype() == to) return t;
  AttrMap a;
  a.Set("SrcT", t.dtype());
  a.Set("DstT", to);
  absl::StatusOr<std::vector<Tensor>> out = RunOp("Cast", a, {t});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

void ExpectExact(const Tensor& actual, const Tensor& expected, const std::string& what) {
  EXPECT_TRUE(TensorsNear(actual, expected, 0, 0)) << what;
}

Tensor I64(Shape shape, const std::vector<int64_t>& v) { return MakeTensor<int64_t>(shape, v); }
Tensor I32(Shape shape, const std::vector<int32_t>& v) { return MakeTensor<int32_t>(shape, v); }
Tensor F32(Shape shape, const std::vector<float>& v) { return MakeTensor<float>(shape, v); }

// ---------------------------------------------------------------------------
// SparseFillEmptyRows.

absl::StatusOr<std::vector<Tensor>> Fill(const Tensor& indices, const Tensor& values,
                                         const Tensor& shape, const Tensor& dflt) {
  AttrMap a;
  a.Set("T", values.dtype());
  return RunOp("SparseFillEmptyRows", a, {indices, values, shape, dflt});
}

TEST(SparseOpsTest, FillEmptyRowsMatchesTensorFlow) {
  for (const char* c :
       {"gaps", "unordered", "full", "full_unordered", "rank3", "strings", "none", "zero_rows"}) {
    SCOPED_TRACE(c);
    const std::string p = absl::StrCat("fill_", c, "_");
    const bool strings = std::string(c) == "strings";
    const Tensor ind = Golden(p + "ind");
    const Tensor val = strings ? GoldenStrings(p + "val", {ind.shape()[0]}) : Golden(p + "val");
    const Tensor dflt = strings ? GoldenStrings(p + "dflt", {}) : Golden(p + "dflt");
    absl::StatusOr<std::vector<Tensor>> out = Fill(ind, val, Golden(p + "shape"), dflt);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor out_ind = Golden(p + "out_ind");
    ExpectExact((*out)[0], out_ind, "output_indices");
    ExpectExact(
        (*out)[1],
        strings ? GoldenStrings(p + "out_val", {out_ind.shape()[0]}) : Golden(p + "out_val"),
        "output_values");
    ExpectExact((*out)[2], Golden(p + "empty"), "empty_row_indicator");
    ExpectExact((*out)[3], Golden(p + "rmap"), "reverse_index_map");
  }
}

TEST(SparseOpsTest, FillEmptyRowsErrorsAreTensorFlows) {
  const Tensor shape = I64({2}, {6, 4});
  const Tensor zero = Scalar<float>(0);
  ExpectTfError(Fill(I64({2, 2}, {0, 0, 7, 1}), F32({2}, {1, 2}), shape, zero), "fill_row_big");
  ExpectTfError(Fill(I64({2, 2}, {0, 0, -1, 1}), F32({2}, {1, 2}), shape, zero), "fill_row_neg");
  ExpectTfError(Fill(I64({1, 2}, {0, 0}), F32({1}, {1}), I64({2}, {0, 4}), zero), "fill_zero_rows");
  ExpectTfError(Fill(I64({2, 2}, {0, 0, 1, 1}), F32({1}, {1}), shape, zero), "fill_lengths");
  ExpectTfError(Fill(I64({1, 2}, {0, 0}), F32({1}, {1}), shape, F32({1}, {0})), "fill_default");
  ExpectTfError(Fill(I64({2}, {0, 1}), F32({2}, {1, 2}), shape, zero), "fill_indices");
  ExpectTfError(Fill(I64({1, 2}, {0, 0}), F32({1, 1}, {1}), shape, zero), "fill_values");
  ExpectTfError(Fill(I64({1, 2}, {0, 0}), F32({1}, {1}), I64({1, 2}, {6, 4}), zero), "fill_shape");
  ExpectTfError(Fill(I64({0, 0}, {}), F32({0}, {}), I64({0}, {}), zero), "fill_shape_empty");
  ExpectTfError(Fill(I64({1, 2}, {0, 0}), F32({1}, {1}), I64({2}, {-5, 4}), zero),
                "fill_shape_neg");
}

// ---------------------------------------------------------------------------
// SparseReshape.

absl::StatusOr<std::vector<Tensor>> Reshape(const Tensor& indices, const Tensor& shape,
                                            const Tensor& new_shape) {
  return RunOp("SparseReshape", {}, {indices, shape, new_shape});
}

TEST(SparseOpsTest, ReshapeMatchesTensorFlow) {
  const std::map<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {"m1", {{2, 3, 4}, {6, -1}}},
      {"flat", {{2, 3, 4}, {-1}}},
      {"same", {{2, 3, 4}, {2, 3, 4}}},
      {"more", {{2, 3, 4}, {2, 2, 3, 2}}},
      {"first_m1", {{2, 3, 4}, {-1, 4, 3}}}};
  for (const auto& [name, shapes] : cases) {
    SCOPED_TRACE(name);
    const auto& [from, to] = shapes;
    absl::StatusOr<std::vector<Tensor>> out =
        Reshape(Golden("reshape_ind"), I64({static_cast<int64_t>(from.size())}, from),
                I64({static_cast<int64_t>(to.size())}, to));
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectExact((*out)[0], Golden("reshape_" + name + "_ind"), "output_indices");
    ExpectExact((*out)[1], Golden("reshape_" + name + "_shape"), "output_shape");
  }
  absl::StatusOr<std::vector<Tensor>> out =
      Reshape(I64({0, 2}, {}), I64({2}, {0, 3}), I64({3}, {3, 0, 5}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("reshape_empty_ind"), "empty output_indices");
  ExpectExact((*out)[1], Golden("reshape_empty_shape"), "empty output_shape");
}

TEST(SparseOpsTest, ReshapeErrorsAreTensorFlows) {
  const Tensor ind = I64({1, 2}, {0, 0});
  const Tensor shape = I64({2}, {2, 3});
  ExpectTfError(Reshape(ind, shape, I64({2}, {-1, -1})), "reshape_two_m1");
  ExpectTfError(Reshape(ind, shape, I64({2}, {3, -2})), "reshape_negative");
  ExpectTfError(Reshape(ind, shape, I64({2}, {0, -1})), "reshape_infer_empty");
  ExpectTfError(Reshape(ind, shape, I64({2}, {4, -1})), "reshape_multiple");
  ExpectTfError(Reshape(ind, shape, I64({2}, {2, 2})), "reshape_size");
  ExpectTfError(Reshape(ind, I64({3}, {2, 3, 1}), I64({1}, {6})), "reshape_rank");
  ExpectTfError(Reshape(I64({2}, {0, 0}), shape, I64({1}, {6})), "reshape_indices");
  ExpectTfError(Reshape(ind, I64({1, 2}, {2, 3}), I64({1}, {6})), "reshape_shape");
  ExpectTfError(Reshape(ind, shape, I64({1, 1}, {6})), "reshape_new_shape");
  ExpectTfError(Reshape(ind, I64({2}, {0, 3}), I64({2}, {3, 0})), "reshape_nnz_empty");
  ExpectTfError(Reshape(ind, I64({2}, {-2, 3}), I64({1}, {6})), "reshape_shape_neg");
}

// ---------------------------------------------------------------------------
// SparseReorder.

absl::StatusOr<std::vector<Tensor>> Reorder(const Tensor& indices, const Tensor& values,
                                            const Tensor& shape) {
  AttrMap a;
  a.Set("T", values.dtype());
  return RunOp("SparseReorder", a, {indices, values, shape});
}

TEST(SparseOpsTest, ReorderMatchesTensorFlow) {
  for (const char* c : {"mat", "rank3", "sorted", "bounds", "strings"}) {
    SCOPED_TRACE(c);
    const std::string p = absl::StrCat("reorder_", c, "_");
    const bool strings = std::string(c) == "strings";
    const Tensor ind = Golden(p + "ind");
    const Shape n = {ind.shape()[0]};
    absl::StatusOr<std::vector<Tensor>> out = Reorder(
        ind, strings ? GoldenStrings(p + "val", n) : Golden(p + "val"), Golden(p + "shape"));
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectExact((*out)[0], Golden(p + "out_ind"), "output_indices");
    ExpectExact((*out)[1], strings ? GoldenStrings(p + "out_val", n) : Golden(p + "out_val"),
                "output_values");
  }
}

TEST(SparseOpsTest, ReorderErrorsAreTensorFlows) {
  const Tensor ind = I64({1, 2}, {0, 1});
  const Tensor one = F32({1}, {1});
  const Tensor s22 = I64({2}, {2, 2});
  ExpectTfError(Reorder(ind, F32({2}, {1, 2}), s22), "reorder_lengths");
  ExpectTfError(Reorder(ind, one, I64({3}, {2, 2, 2})), "reorder_rank");
  ExpectTfError(Reorder(I64({2}, {0, 1}), one, s22), "reorder_indices");
  ExpectTfError(Reorder(ind, F32({1, 1}, {1}), s22), "reorder_values");
  ExpectTfError(Reorder(ind, one, I64({1, 2}, {2, 2})), "reorder_shape");
}

// ---------------------------------------------------------------------------
// SparseConcat.

struct SparseInput {
  Tensor indices, values, shape;
};

absl::StatusOr<std::vector<Tensor>> Concat(const std::vector<SparseInput>& in, int64_t dim) {
  AttrMap a;
  a.Set("T", in[0].values.dtype());
  a.Set("N", static_cast<int64_t>(in.size()));
  a.Set("concat_dim", dim);
  std::vector<Tensor> inputs;
  for (const SparseInput& s : in) inputs.push_back(s.indices);
  for (const SparseInput& s : in) inputs.push_back(s.values);
  for (const SparseInput& s : in) inputs.push_back(s.shape);
  return RunOp("SparseConcat", a, inputs);
}

TEST(SparseOpsTest, ConcatMatchesTensorFlow) {
  const SparseInput ca = {Golden("ca_ind"), Golden("ca_val"), I64({2}, {2, 3})};
  const SparseInput cb = {Golden("cb_ind"), Golden("cb_val"), I64({2}, {3, 3})};
  const SparseInput cc = {Golden("cc_ind"), Golden("cc_val"), I64({2}, {2, 1})};
  const SparseInput ce = {I64({0, 2}, {}), F32({0}, {}), I64({2}, {2, 4})};
  const SparseInput r3a = {I64({2, 3}, {0, 1, 1, 0, 0, 2}), I32({2}, {1, 2}), I64({3}, {1, 2, 3})};
  const SparseInput r3b = {I64({1, 3}, {0, 1, 0}), I32({1}, {3}), I64({3}, {1, 2, 1})};
  Tensor sa = *Tensor::Create(DataType::kString, {2});
  sa.data<std::string>()[0] = "a";
  sa.data<std::string>()[1] = "b";
  Tensor sb = *Tensor::Create(DataType::kString, {1});
  sb.data<std::string>()[0] = "cc";
  const SparseInput str_a = {I64({2, 1}, {1, 0}), sa, I64({1}, {2})};
  const SparseInput str_b = {I64({1, 1}, {0}), sb, I64({1}, {1})};
  const struct {
    const char* name;
    std::vector<SparseInput> in;
    int64_t dim;
  } cases[] = {{"d0", {ca, cb}, 0},    {"d1", {ca, cc, ca}, 1},  {"dm1", {cc, ca}, -1},
               {"empty", {ca, ce}, 1}, {"rank3", {r3a, r3b}, 2}, {"strings", {str_a, str_b}, 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string p = absl::StrCat("concat_", c.name, "_");
    absl::StatusOr<std::vector<Tensor>> out = Concat(c.in, c.dim);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor ind = Golden(p + "ind");
    ExpectExact((*out)[0], ind, "output_indices");
    ExpectExact((*out)[1],
                std::string(c.name) == "strings" ? GoldenStrings(p + "val", {ind.shape()[0]})
                                                 : Golden(p + "val"),
                "output_values");
    ExpectExact((*out)[2], Golden(p + "shape"), "output_shape");
  }
}

TEST(SparseOpsTest, ConcatErrorsAreTensorFlows) {
  const SparseInput ca = {Golden("ca_ind"), Golden("ca_val"), I64({2}, {2, 3})};
  const SparseInput cb = {Golden("cb_ind"), Golden("cb_val"), I64({2}, {3, 3})};
  ExpectTfError(Concat({ca, cb}, 2), "concat_dim");
  ExpectTfError(Concat({ca, cb}, -3), "concat_dim_neg");
  ExpectTfError(Concat({ca, cb}, 1), "concat_dims");
  ExpectTfError(Concat({ca, {cb.indices, cb.values, I64({3}, {3, 3, 1})}}, 0), "concat_ranks");
  ExpectTfError(Concat({ca, {I64({2}, {0, 1}), cb.values, cb.shape}}, 0), "concat_indices");
  ExpectTfError(Concat({ca, {cb.indices, F32({1, 1}, {1}), cb.shape}}, 0), "concat_values");
  ExpectTfError(Concat({ca, {cb.indices, cb.values, I64({1, 2}, {3, 3})}}, 0), "concat_shapes");
  ExpectTfError(Concat({ca, {cb.indices, F32({1}, {1}), cb.shape}}, 0), "concat_lengths");
  ExpectTfError(Concat({ca, {I64({1, 3}, {0, 1, 0}), F32({1}, {1}), cb.shape}}, 0),
                "concat_index_rank");
}

// ---------------------------------------------------------------------------
// SparseSlice.

absl::StatusOr<std::vector<Tensor>> Slice(const Tensor& indices, const Tensor& values,
                                          const Tensor& shape, const std::vector<int64_t>& start,
                                          const std::vector<int64_t>& size) {
  AttrMap a;
  a.Set("T", values.dtype());
  return RunOp("SparseSlice", a,
               {indices, values, shape, I64({static_cast<int64_t>(start.size())}, start),
                I64({static_cast<int64_t>(size.size())}, size)});
}

TEST(SparseOpsTest, SliceMatchesTensorFlow) {
  const Tensor v = F32({4}, {1, 2, 3, 4});
  const Tensor s34 = I64({2}, {3, 4});
  const std::map<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {"inside", {{1, 0}, {2, 3}}},
      {"past", {{1, 1}, {5, 5}}},
      {"beyond", {{4, 0}, {1, 1}}},
      {"neg", {{-1, 0}, {2, 2}}}};
  for (const auto& [name, range] : cases) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::vector<Tensor>> out =
        Slice(Golden("slice_ind"), v, s34, range.first, range.second);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectExact((*out)[0], Golden("slice_" + name + "_ind"), "output_indices");
    ExpectExact((*out)[1], Golden("slice_" + name + "_val"), "output_values");
    ExpectExact((*out)[2], Golden("slice_" + name + "_shape"), "output_shape");
  }
  // Indices out of bounds are not checked: they fall outside the slice.
  absl::StatusOr<std::vector<Tensor>> out =
      Slice(I64({3, 2}, {0, 1, 9, 0, 1, -3}), I32({3}, {1, 2, 3}), s34, {0, 0}, {2, 2});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("slice_unchecked_ind"), "unchecked output_indices");
  ExpectExact((*out)[1], Golden("slice_unchecked_val"), "unchecked output_values");
  ExpectExact((*out)[2], Golden("slice_unchecked_shape"), "unchecked output_shape");
}

TEST(SparseOpsTest, SliceErrorsAreTensorFlows) {
  const Tensor ind = Golden("slice_ind");
  const Tensor v = F32({4}, {1, 2, 3, 4});
  const Tensor s34 = I64({2}, {3, 4});
  ExpectTfError(Slice(ind, v, s34, {0, 0}, {-1, 2}), "slice_size_neg");
  ExpectTfError(Slice(ind, v, s34, {0}, {2, 2}), "slice_start_len");
  ExpectTfError(Slice(ind, v, s34, {0, 0}, {2}), "slice_size_len");
  AttrMap a;
  a.Set("T", DataType::kFloat);
  ExpectTfError(RunOp("SparseSlice", a, {ind, v, s34, I64({1, 2}, {0, 0}), I64({2}, {2, 2})}),
                "slice_start_vec");
  ExpectTfError(RunOp("SparseSlice", a, {ind, v, s34, I64({2}, {0, 0}), I64({1, 2}, {2, 2})}),
                "slice_size_vec");
  ExpectTfError(Slice(ind, v, I64({2}, {3, -4}), {0, 0}, {2, 2}), "slice_shape_neg");
  ExpectTfError(Slice(ind, v, I64({3}, {3, 4, 1}), {0, 0}, {2, 2}), "slice_rank");
}

// ---------------------------------------------------------------------------
// SparseAdd, SparseTensorDenseAdd.

absl::StatusOr<std::vector<Tensor>> Add(const Tensor& ai, const Tensor& av, const Tensor& as,
                                        const Tensor& bi, const Tensor& bv, const Tensor& bs,
                                        const Tensor& thresh) {
  AttrMap a;
  a.Set("T", av.dtype());
  a.Set("Treal", thresh.dtype());
  return RunOp("SparseAdd", a, {ai, av, as, bi, bv, bs, thresh});
}

absl::StatusOr<std::vector<Tensor>> DenseAdd(const Tensor& ai, const Tensor& av, const Tensor& as,
                                             const Tensor& b) {
  AttrMap a;
  a.Set("T", av.dtype());
  a.Set("Tindices", ai.dtype());
  return RunOp("SparseTensorDenseAdd", a, {ai, av, as, b});
}

TEST(SparseOpsTest, AddMatchesTensorFlow) {
  const Tensor s33 = I64({2}, {3, 3});
  const Tensor av = Golden("add_av");
  const Tensor bi = Golden("add_bi");
  const Tensor bv = Golden("add_bv");
  const struct {
    const char* name;
    Tensor ai;
    float thresh;
  } cases[] = {{"t0", Golden("add_ai"), 0},
               {"t1", Golden("add_ai"), 1},
               {"t85", Golden("add_ai"), 8.5f},
               {"unsorted", I64({3, 2}, {1, 1, 0, 0, 2, 2}), 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string p = absl::StrCat("add_", c.name, "_");
    absl::StatusOr<std::vector<Tensor>> out =
        Add(c.ai, av, s33, bi, bv, s33, Scalar<float>(c.thresh));
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectExact((*out)[0], Golden(p + "ind"), "sum_indices");
    ExpectExact((*out)[1], Golden(p + "val"), "sum_values");
    ExpectExact((*out)[2], Golden(p + "shape"), "sum_shape");
  }
  absl::StatusOr<std::vector<Tensor>> out = Add(Golden("add_ai"), I32({3}, {1, 2, 3}), s33, bi,
                                                I32({3}, {4, -2, 5}), s33, Scalar<int32_t>(1));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("add_i32_ind"), "i32 sum_indices");
  ExpectExact((*out)[1], Golden("add_i32_val"), "i32 sum_values");

  out = DenseAdd(I64({3, 2}, {0, 1, 1, 0, 0, 1}), av, s33, Golden("dadd_b"));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("dadd"), "dense");
  out = DenseAdd(I32({2, 2}, {0, 1, 2, 0}), I32({2}, {5, 7}), I32({2}, {3, 2}),
                 I32({3, 2}, {0, 1, 2, 3, 4, 5}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("dadd_i32"), "dense i32");
}

TEST(SparseOpsTest, AddErrorsAreTensorFlows) {
  const Tensor s33 = I64({2}, {3, 3});
  const Tensor ai = Golden("add_ai");
  const Tensor av = Golden("add_av");
  const Tensor bi = Golden("add_bi");
  const Tensor bv = Golden("add_bv");
  const Tensor t0 = Scalar<float>(0);
  ExpectTfError(Add(ai, av, s33, I64({1, 3}, {0, 1, 0}), F32({1}, {1}), s33, t0), "add_dims");
  ExpectTfError(Add(ai, av, s33, I64({2}, {0, 1}), bv, s33, t0), "add_matrices");
  ExpectTfError(Add(ai, av, s33, bi, F32({1, 3}, {1, 2, 3}), s33, t0), "add_vectors");
  ExpectTfError(Add(ai, av, s33, bi, F32({2}, {1, 2}), s33, t0), "add_lengths");
  ExpectTfError(Add(ai, av, s33, bi, bv, I64({1, 2}, {3, 3}), t0), "add_shape_vectors");
  ExpectTfError(Add(ai, av, s33, bi, bv, I64({2}, {3, 4}), t0), "add_shapes");
  ExpectTfError(Add(ai, av, I64({3}, {3, 3, 1}), bi, bv, s33, t0), "add_shape_len");
  ExpectTfError(Add(ai, av, s33, bi, bv, s33, F32({1}, {0})), "add_thresh");

  const Tensor ones = MakeTensor<float>({3, 3}, std::vector<float>(9, 1));
  ExpectTfError(DenseAdd(I64({3, 2}, {0, 1, 9, 0, 2, 2}), av, s33, ones), "dadd_bounds");
  ExpectTfError(DenseAdd(I64({3, 2}, {0, 1, 1, -1, 2, 2}), av, s33, ones), "dadd_bounds_neg");
  ExpectTfError(DenseAdd(ai, av, s33, MakeTensor<float>({3, 4}, std::vector<float>(12, 1))),
                "dadd_dims");
  ExpectTfError(DenseAdd(ai, av, s33, F32({3}, {1, 1, 1})), "dadd_ranks");
  ExpectTfError(DenseAdd(I64({3}, {0, 1, 2}), av, s33, ones), "dadd_matrix");
  ExpectTfError(DenseAdd(ai, F32({1, 3}, {1, 2, 3}), s33, ones), "dadd_vectors");
  ExpectTfError(DenseAdd(ai, F32({2}, {1, 2}), s33, ones), "dadd_lengths");
}

// ---------------------------------------------------------------------------
// SparseReduceSum.

absl::StatusOr<std::vector<Tensor>> ReduceSum(const Tensor& values, const Tensor& shape,
                                              const Tensor& axes, bool keep_dims = false,
                                              const Tensor* indices = nullptr) {
  AttrMap a;
  a.Set("T", values.dtype());
  a.Set("keep_dims", keep_dims);
  return RunOp("SparseReduceSum", a,
               {indices != nullptr ? *indices : Golden("reduce_ind"), values, shape, axes});
}

TEST(SparseOpsTest, ReduceSumMatchesTensorFlow) {
  const Tensor v = Golden("reduce_val");
  const Tensor s = I64({3}, {2, 3, 3});
  const struct {
    const char* name;
    Tensor axes;
    bool keep;
  } cases[] = {{"a1", I32({1}, {1}), false},
               {"am1_keep", I32({1}, {-1}), true},
               {"a0", Scalar<int32_t>(0), false},
               {"all", I32({3}, {0, 1, 2}), false},
               {"all_keep", I32({3}, {0, 2, 1}), true},
               {"twice", I32({2}, {1, 1}), false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> out = ReduceSum(v, s, c.axes, c.keep);
    ASSERT_TRUE(out.ok()) << out.status();
    // Groups of fewer than 8 values: summed in TensorFlow's order, bit for bit.
    ExpectExact((*out)[0], Golden(absl::StrCat("reduce_", c.name)), c.name);
  }
  absl::StatusOr<std::vector<Tensor>> out =
      ReduceSum(I32({6}, {1, 2, 3, 4, 5, 6}), s, I32({2}, {0, 2}));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("reduce_i32"), "i32");
}

TEST(SparseOpsTest, ReduceSumErrorsAreTensorFlows) {
  const Tensor v = Golden("reduce_val");
  const Tensor s = I64({3}, {2, 3, 3});
  ExpectTfError(ReduceSum(v, s, I32({1}, {3})), "reduce_axis");
  ExpectTfError(ReduceSum(v, s, I32({1}, {-4})), "reduce_axis_neg");
  ExpectTfError(ReduceSum(v, s, I32({1, 1}, {0})), "reduce_axes_rank");
  ExpectTfError(ReduceSum(v, I64({1, 3}, {2, 3, 3}), I32({1}, {0})), "reduce_shape_vec");
  ExpectTfError(ReduceSum(F32({3}, {1, 2, 3}), s, I32({1}, {0})), "reduce_lengths");
  ExpectTfError(ReduceSum(v, I64({2}, {2, 3}), I32({1}, {0})), "reduce_rank");
}

// ---------------------------------------------------------------------------
// DynamicPartition, DynamicStitch, ParallelDynamicStitch.

absl::StatusOr<std::vector<Tensor>> Partition(const Tensor& data, const Tensor& partitions,
                                              int64_t num) {
  AttrMap a;
  a.Set("T", data.dtype());
  a.Set("num_partitions", num);
  return RunOp("DynamicPartition", a, {data, partitions});
}

absl::StatusOr<std::vector<Tensor>> Stitch(const std::vector<Tensor>& indices,
                                           const std::vector<Tensor>& data,
                                           const std::string& op = "DynamicStitch") {
  AttrMap a;
  a.Set("T", data[0].dtype());
  a.Set("N", static_cast<int64_t>(indices.size()));
  std::vector<Tensor> inputs = indices;
  inputs.insert(inputs.end(), data.begin(), data.end());
  return RunOp(op, a, inputs);
}

// Rows [begin, end) of a [rows, 3] float tensor.
Tensor Rows(const Tensor& t, int64_t begin, int64_t end) {
  std::vector<float> v(t.data<float>() + begin * 3, t.data<float>() + end * 3);
  return F32({end - begin, 3}, v);
}

TEST(SparseOpsTest, DynamicPartitionAndStitchMatchTensorFlow) {
  const Tensor d = Golden("dyn_data");
  absl::StatusOr<std::vector<Tensor>> out = Partition(d, I32({4}, {1, 0, 1, 1}), 3);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  for (int k = 0; k < 3; ++k) ExpectExact((*out)[k], Golden(absl::StrCat("dynpart_", k)), "1-D");
  out = Partition(d, I32({4, 3}, {1, 0, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2}), 3);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int k = 0; k < 3; ++k) {
    ExpectExact((*out)[k], Golden(absl::StrCat("dynpart2d_", k)), "2-D");
  }
  out = Stitch({I32({2}, {0, 2}), I32({2}, {1, 4})}, {Rows(d, 0, 2), Rows(d, 2, 4)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("dynstitch_gap"), "gap");
  out = Stitch({I32({2}, {0, 2}), I32({2}, {2, 1})}, {Rows(d, 0, 2), Rows(d, 2, 4)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("dynstitch_twice"), "twice");
  Tensor first = Rows(d, 0, 2);
  first = *first.Reshaped({1, 2, 3});
  Tensor third = *Rows(d, 2, 3).Reshaped({3});
  out = Stitch({I32({1, 2}, {0, 2}), Scalar<int32_t>(1)}, {first, third});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("dynstitch_2d"), "2-D indices");
  out = Stitch({I32({2}, {0, 2}), I32({2}, {3, 1})}, {Rows(d, 0, 2), Rows(d, 2, 4)},
               "ParallelDynamicStitch");
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("pdynstitch"), "parallel");
}

TEST(SparseOpsTest, DynamicPartitionAndStitchErrorsAreTensorFlows) {
  const Tensor d = Golden("dyn_data");
  ExpectTfError(Partition(d, I32({4}, {1, 0, 5, 1}), 3), "dynpart_range");
  ExpectTfError(Partition(d, I32({4, 3}, {1, 0, 1, 1, 1, 1, 0, -1, 0, 2, 2, 2}), 3), "dynpart_neg");
  ExpectTfError(Partition(d, I32({3}, {1, 0, 1}), 3), "dynpart_shape");
  ExpectTfError(Stitch({I32({2}, {0, -1}), I32({2}, {2, 1})}, {Rows(d, 0, 2), Rows(d, 2, 4)}),
                "dynstitch_range");
  ExpectTfError(Stitch({I32({2}, {0, 2}), I32({2}, {2, 1})}, {Rows(d, 0, 2), Rows(d, 2, 3)}),
                "dynstitch_prefix");
  const Tensor two_cols = F32({2, 2}, {1, 2, 3, 4});
  ExpectTfError(Stitch({I32({2}, {0, 2}), I32({2}, {2, 1})}, {Rows(d, 0, 2), two_cols}),
                "dynstitch_rows");
}

// ---------------------------------------------------------------------------
// SparseSegmentSum/Mean/SqrtN.

absl::StatusOr<std::vector<Tensor>> Segment(const std::string& op, const Tensor& data,
                                            const Tensor& indices, const Tensor& ids,
                                            const Tensor* num = nullptr) {
  AttrMap a;
  a.Set("T", data.dtype());
  a.Set("Tidx", indices.dtype());
  a.Set("Tsegmentids", ids.dtype());
  if (num == nullptr) return RunOp(op, a, {data, indices, ids});
  a.Set("Tnumsegments", num->dtype());
  return RunOp(op + "WithNumSegments", a, {data, indices, ids, *num});
}

TEST(SparseOpsTest, SegmentReductionsMatchTensorFlow) {
  const Tensor sd = Golden("sd");
  const Tensor sidx = Golden("sidx");
  const Tensor seg = Golden("seg");
  const Tensor no_idx = I32({0}, {});
  const Tensor n20 = Scalar<int32_t>(20);
  const Tensor n20_64 = Scalar<int64_t>(20);
  const Tensor n4 = Scalar<int32_t>(4);
  struct Case {
    const char* suffix;
    Tensor data, idx, ids;
    const Tensor* num;
    DataType dtype;
  };
  const std::vector<Case> cases = {
      {"_f32", sd, sidx, seg, nullptr, DataType::kFloat},
      {"_f64", Cast(sd, DataType::kDouble), Cast(sidx, DataType::kInt64),
       Cast(seg, DataType::kInt64), nullptr, DataType::kDouble},
      {"_f16", Cast(sd, DataType::kHalf), sidx, Cast(seg, DataType::kInt64), nullptr,
       DataType::kHalf},
      {"_bf16", Cast(sd, DataType::kBFloat16), Cast(sidx, DataType::kInt64), seg, nullptr,
       DataType::kBFloat16},
      {"_3d", Golden("sd3"), sidx, seg, nullptr, DataType::kFloat},
      {"_n20", sd, sidx, seg, &n20, DataType::kFloat},
      {"_n20_64", sd, Cast(sidx, DataType::kInt64), seg, &n20_64, DataType::kFloat},
      {"_n4_empty", sd, no_idx, no_idx, &n4, DataType::kFloat},
      {"_empty", sd, no_idx, no_idx, nullptr, DataType::kFloat},
  };
  for (const char* op : {"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"}) {
    for (const Case& c : cases) {
      const std::string name = std::string(op) + c.suffix;
      SCOPED_TRACE(name);
      absl::StatusOr<std::vector<Tensor>> out = Segment(op, c.data, c.idx, c.ids, c.num);
      ASSERT_TRUE(out.ok()) << out.status();
      // Summed in TensorFlow's order, scaled as TensorFlow scales: bit for bit.
      ExpectExact((*out)[0], Cast(Golden(name), c.dtype), name);
    }
  }
  for (const char* v : {"i32", "i8", "u8"}) {
    const std::string data = std::string(v) == "i32"  ? "sdi"
                             : std::string(v) == "i8" ? "sd8"
                                                      : "sdu8";
    absl::StatusOr<std::vector<Tensor>> out = Segment("SparseSegmentSum", Golden(data), sidx, seg);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectExact((*out)[0], Golden(absl::StrCat("SparseSegmentSum_", v)), v);
  }
  // int64 values beyond 2^53: summed exactly.
  Tensor big = Cast(Golden("sdi"), DataType::kInt64);
  for (int64_t i = 0; i < big.num_elements(); ++i) big.data<int64_t>()[i] *= int64_t{1} << 40;
  absl::StatusOr<std::vector<Tensor>> out = Segment("SparseSegmentSum", big, sidx, seg);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("SparseSegmentSum_i64"), "i64");
  out = Segment("SparseSegmentSum", Golden("sdi"), sidx, seg, &n20);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("SparseSegmentSum_n20_i32"), "n20_i32");
}

TEST(SparseOpsTest, SegmentReductionsTakeTheSparseGradientAttr) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("sparse_gradient", true);
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "SparseSegmentMean", a, {F32({2, 1}, {1, 4}), I32({3}, {0, 1, 1}), I32({3}, {0, 0, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  // (1 + 4) * (1/2) for segment 0, nothing for 1, 4 for 2.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2.5f, 0, 4}));
}

TEST(SparseOpsTest, SegmentReductionErrorsAreTensorFlows) {
  const Tensor d4 = MakeTensor<float>({4, 2}, std::vector<float>(8, 1));
  auto idx = [](std::vector<int32_t> v) { return I32({static_cast<int64_t>(v.size())}, v); };
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 4, 1}), idx({0, 0, 1})), "sss_index");
  ExpectTfError(Segment("SparseSegmentMean", d4, idx({0, 1, -1}), idx({0, 1, 1})), "sss_index_neg");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1, 2}), idx({1, 1, 0})),
                "sss_not_increasing");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1, 2}), idx({-1, 0, 0})), "sss_negative");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1}), idx({-2, -1})), "sss_all_negative");
  ExpectTfError(Segment("SparseSegmentSqrtN", d4, idx({0, 1}), idx({0, -1})), "sss_last_negative");
  const Tensor n4 = Scalar<int32_t>(4);
  const Tensor nneg = Scalar<int32_t>(-1);
  const Tensor nvec = I32({1}, {4});
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1}), idx({0, 4}), &n4), "sss_num_segments");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1}), idx({0, 1}), &nneg),
                "sss_num_segments_neg");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1}), idx({0, 1}), &nvec),
                "sss_num_segments_shape");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1, 2}), idx({0, 1})), "sss_size");
  ExpectTfError(Segment("SparseSegmentSum", d4, I32({1, 2}, {0, 1}), idx({0, 1})),
                "sss_indices_vector");
  ExpectTfError(Segment("SparseSegmentSum", d4, idx({0, 1}), I32({1, 2}, {0, 1})),
                "sss_segments_vector");
  ExpectTfError(Segment("SparseSegmentSum", Scalar<float>(1), idx({0}), idx({0})),
                "sss_scalar_data");
  // Mean and SqrtN take floating-point data only, as TensorFlow registers them.
  EXPECT_EQ(Segment("SparseSegmentMean", I32({2}, {1, 2}), idx({0}), idx({0})).status().code(),
            absl::StatusCode::kUnimplemented);
}

// ---------------------------------------------------------------------------
// SparseToDense.

absl::StatusOr<std::vector<Tensor>> ToDense(const Tensor& indices, const Tensor& shape,
                                            const Tensor& values, const Tensor& dflt,
                                            bool validate = true) {
  AttrMap a;
  a.Set("T", values.dtype());
  a.Set("Tindices", indices.dtype());
  a.Set("validate_indices", validate);
  return RunOp("SparseToDense", a, {indices, shape, values, dflt});
}

TEST(SparseOpsTest, ToDenseMatchesTensorFlow) {
  for (const char* c :
       {"mat", "vec", "scalar_idx", "scalar_val", "strings", "bools", "unchecked"}) {
    SCOPED_TRACE(c);
    const std::string p = absl::StrCat("std_", c, "_");
    const bool strings = std::string(c) == "strings";
    const Tensor ind = Golden(p + "ind");
    const Tensor shape = Golden(p + "shape");
    const Tensor val = strings ? GoldenStrings(p + "val", {ind.shape()[0]}) : Golden(p + "val");
    const Tensor dflt = strings ? GoldenStrings(p + "dflt", {}) : Golden(p + "dflt");
    absl::StatusOr<std::vector<Tensor>> out =
        ToDense(ind, shape, val, dflt, std::string(c) != "unchecked");
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectExact((*out)[0],
                strings ? GoldenStrings(p + "out",
                                        Shape{shape.data<int64_t>()[0], shape.data<int64_t>()[1]})
                        : Golden(p + "out"),
                c);
  }
}

TEST(SparseOpsTest, ToDenseErrorsAreTensorFlows) {
  const Tensor s22 = I64({2}, {2, 2});
  const Tensor zero = Scalar<float>(0);
  ExpectTfError(ToDense(I64({2, 2}, {0, 1, 0, 0}), s22, F32({2}, {1, 2}), zero), "std_order");
  ExpectTfError(ToDense(I64({3, 2}, {0, 1, 1, 0, 1, 0}), s22, F32({3}, {1, 2, 3}), zero),
                "std_repeat");
  ExpectTfError(ToDense(I64({2, 2}, {0, 1, 2, 0}), s22, F32({2}, {1, 2}), zero), "std_bounds");
  ExpectTfError(ToDense(I64({1, 2}, {0, -1}), s22, F32({1}, {1}), zero), "std_bounds_neg");
  ExpectTfError(ToDense(I64({2}, {3, 1}), I64({1}, {4}), F32({2}, {1, 2}), zero), "std_vec_order");
  ExpectTfError(ToDense(I64({2}, {1, 4}), I64({1}, {4}), F32({2}, {1, 2}), zero), "std_vec_bounds");
  ExpectTfError(ToDense(I64({2, 2}, {0, 1, 2, 0}), s22, F32({2}, {1, 2}), zero, false),
                "std_unchecked_bounds");
  ExpectTfError(ToDense(I64({1, 1, 1}, {0}), I64({1}, {2}), F32({1}, {1}), zero), "std_rank");
  ExpectTfError(ToDense(I64({1, 2}, {0, 1}), I64({3}, {2, 2, 2}), F32({1}, {1}), zero),
                "std_shape_len");
  ExpectTfError(ToDense(I64({1, 2}, {0, 1}), I64({1, 2}, {2, 2}), F32({1}, {1}), zero),
                "std_shape_vector");
  ExpectTfError(ToDense(I64({1, 2}, {0, 1}), s22, F32({2}, {1, 2}), zero), "std_values");
  ExpectTfError(ToDense(I64({1, 2}, {0, 1}), s22, F32({1}, {1}), F32({1}, {0})), "std_default");
  ExpectTfError(ToDense(I64({1, 2}, {0, 1}), I64({2}, {2, -2}), F32({1}, {1}), zero),
                "std_negative_shape");
}

// ---------------------------------------------------------------------------
// SparseTensorDenseMatMul.

absl::StatusOr<std::vector<Tensor>> MatMul(const Tensor& ind, const Tensor& val,
                                           const Tensor& shape, const Tensor& b,
                                           bool adjoint_a = false, bool adjoint_b = false) {
  AttrMap a;
  a.Set("T", val.dtype());
  a.Set("Tindices", ind.dtype());
  a.Set("adjoint_a", adjoint_a);
  a.Set("adjoint_b", adjoint_b);
  return RunOp("SparseTensorDenseMatMul", a, {ind, val, shape, b});
}

TEST(SparseOpsTest, SparseDenseMatMulMatchesTensorFlow) {
  // Summed in A's order, as TensorFlow sums: bit for bit.
  const Tensor av = Golden("spmm_av");
  for (int adj_a : {0, 1}) {
    for (int adj_b : {0, 1}) {
      const std::string name = absl::StrCat("spmm_", adj_a, adj_b);
      SCOPED_TRACE(name);
      absl::StatusOr<std::vector<Tensor>> out =
          MatMul(Golden(name + "_ind"), av, Golden(name + "_shape"), Golden(name + "_bin"),
                 adj_a == 1, adj_b == 1);
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectExact((*out)[0], Golden(name), name);
    }
  }
  const Tensor ai = Golden("spmm_ai");
  absl::StatusOr<std::vector<Tensor>> out =
      MatMul(Cast(ai, DataType::kInt32), Cast(av, DataType::kDouble), I64({2}, {3, 4}),
             Cast(Golden("spmm_b"), DataType::kDouble));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("spmm_f64"), "f64");
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    SCOPED_TRACE(DataTypeName(t));
    out = MatMul(ai, Cast(av, t), I64({2}, {3, 4}), Cast(Golden("spmm_b"), t));
    ASSERT_TRUE(out.ok()) << out.status();
    // float16 summed in float and rounded once; bfloat16 rounded after every
    // multiply and add (TensorFlow's SumType).
    ExpectExact((*out)[0], Cast(Golden(t == DataType::kHalf ? "spmm_f16" : "spmm_bf16"), t),
                std::string(DataTypeName(t)));
  }
  const Tensor bw = Golden("spmm_bw");
  out = MatMul(ai, av, I64({2}, {3, 4}), bw);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("spmm_wide"), "wide");
  AttrMap t;
  t.Set("T", DataType::kFloat);
  t.Set("Tperm", DataType::kInt32);
  absl::StatusOr<std::vector<Tensor>> bwt = RunOp("Transpose", t, {bw, I32({2}, {1, 0})});
  ASSERT_TRUE(bwt.ok()) << bwt.status();
  out = MatMul(ai, av, I64({2}, {3, 4}), (*bwt)[0], false, true);
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("spmm_wide_adj"), "wide adjoint_b");
  std::vector<int32_t> b(20);
  for (int i = 0; i < 20; ++i) b[i] = i;
  out = MatMul(ai, I32({6}, {1, 2, 3, 4, 5, 6}), I64({2}, {3, 4}), I32({4, 5}, b));
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectExact((*out)[0], Golden("spmm_i32"), "i32");
}

TEST(SparseOpsTest, SparseDenseMatMulErrorsAreTensorFlows) {
  const Tensor bm = Golden("spmm_b");
  const Tensor s34 = I64({2}, {3, 4});
  const Tensor two = F32({2}, {1, 1});
  const Tensor one = F32({1}, {1});
  ExpectTfError(MatMul(I64({2, 2}, {0, 1, 3, 0}), two, s34, bm), "spmm_bounds");
  ExpectTfError(MatMul(I64({2, 2}, {0, 1, 2, 5}), two, s34, bm), "spmm_bounds_col");
  ExpectTfError(MatMul(I64({2, 2}, {0, 1, 2, 5}), two, I64({2}, {4, 3}), bm, true),
                "spmm_bounds_adj");
  ExpectTfError(MatMul(I64({1, 2}, {0, 1}), one, I64({2}, {3, 5}), bm), "spmm_inner");
  ExpectTfError(MatMul(I64({1, 2}, {0, 1}), one, s34, bm, true, true), "spmm_inner_adj");
  ExpectTfError(MatMul(I64({1, 2}, {0, 1}), one, s34, F32({4}, {1, 1, 1, 1})), "spmm_b_rank");
  ExpectTfError(MatMul(I64({1, 2}, {0, 1}), one, I64({3}, {3, 4, 1}), bm), "spmm_shape");
  ExpectTfError(MatMul(I64({1, 2}, {0, 1}), two, s34, bm), "spmm_values");
  ExpectTfError(MatMul(I64({1, 3}, {0, 1, 1}), one, s34, bm), "spmm_indices_cols");
}

// ---------------------------------------------------------------------------
// Shape inference before running.

TEST(SparseOpsTest, InfersShapesFromWhatIsKnown) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("SparseFillEmptyRows", a,
              {{DataType::kInt64, PartialShape::Known({-1, 2})},
               {DataType::kFloat, PartialShape::Known({-1})},
               {DataType::kInt64, PartialShape::Known({2})},
               {DataType::kFloat, PartialShape::Known({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->size(), 4u);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, 2}));
  EXPECT_EQ((*info)[2].dtype, DataType::kBool);
  EXPECT_EQ((*info)[3].shape, PartialShape::Known({-1}));

  const Tensor n = Scalar<int32_t>(7);
  info = InferOp("SparseSegmentMeanWithNumSegments", a,
                 {{DataType::kFloat, PartialShape::Known({-1, 8})},
                  {DataType::kInt32, PartialShape::Known({-1})},
                  {DataType::kInt32, PartialShape::Known({-1})},
                  {DataType::kInt32, PartialShape::Known({})}},
                 {nullptr, nullptr, nullptr, &n});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({7, 8}));

  const Tensor shape = I64({2}, {3, 5});
  info = InferOp("SparseToDense", a,
                 {{DataType::kInt64, PartialShape::Known({-1, 2})},
                  {DataType::kInt64, PartialShape::Known({2})},
                  {DataType::kFloat, PartialShape::Known({-1})},
                  {DataType::kFloat, PartialShape::Known({})}},
                 {nullptr, &shape, nullptr, nullptr});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({3, 5}));

  info = InferOp("SparseReshape", {},
                 {{DataType::kInt64, PartialShape::Known({-1, 3})},
                  {DataType::kInt64, PartialShape::Known({4})},
                  {DataType::kInt64, PartialShape::Known({2})}});
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("Input tensor rank must match input shape length."),
            std::string::npos)
      << info.status();
}

}  // namespace
}  // namespace smrt::kernels
