#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/bincount/" + name); }

Tensor Empty(DataType t) { return *Tensor::Create(t, {0}); }

// A scalar `size` of the input's index dtype.
Tensor SizeOf(DataType index, int64_t size) {
  return index == DataType::kInt64 ? Scalar<int64_t>(size)
                                   : Scalar<int32_t>(static_cast<int32_t>(size));
}

absl::StatusOr<std::vector<Tensor>> Dense(const Tensor& in, int64_t size, const Tensor& w,
                                          bool binary) {
  AttrMap a;
  a.Set("Tidx", in.dtype());
  a.Set("T", w.dtype());
  a.Set("binary_output", binary);
  return RunOp("DenseBincount", a, {in, SizeOf(in.dtype(), size), w});
}

absl::StatusOr<std::vector<Tensor>> Sparse(const Tensor& arr, int32_t size, const Tensor& w) {
  AttrMap a;
  a.Set("T", w.dtype());
  return RunOp("Bincount", a, {arr, Scalar<int32_t>(size), w});
}

TEST(BincountOpsTest, BincountMatchesTensorFlow) {
  Tensor arr = Golden("arr");
  Tensor w = Golden("w");
  absl::StatusOr<std::vector<Tensor>> out = Sparse(arr, 7, Empty(DataType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bincount_counts"), 0, 0));
  out = Sparse(arr, 7, w);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bincount_w"), 1e-5, 1e-5));
  Tensor w64 = *Tensor::Create(DataType::kDouble, w.shape());
  for (int64_t i = 0; i < w.num_elements(); ++i) w64.data<double>()[i] = w.data<float>()[i];
  out = Sparse(arr, 10, w64);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bincount_w_f64"), 1e-12, 1e-12));
}

TEST(BincountOpsTest, DenseBincountMatchesTensorFlow) {
  Tensor arr = Golden("arr");
  Tensor arr64 = *Tensor::Create(DataType::kInt64, arr.shape());
  for (int64_t i = 0; i < arr.num_elements(); ++i)
    arr64.data<int64_t>()[i] = arr.data<int32_t>()[i];
  Tensor arr2 = Golden("arr2");
  const struct {
    const char* name;
    Tensor in;
    Tensor w;
    int64_t size;
    bool binary;
  } cases[] = {
      {"dense1d", arr64, Empty(DataType::kInt64), 7, false},
      {"dense1d_w", arr, Golden("w"), 8, false},
      {"dense1d_bin", arr, Empty(DataType::kFloat), 5, true},
      {"dense1d_bin_w", arr, Golden("w"), 5, true},
      {"dense2d", arr2, Empty(DataType::kInt32), 5, false},
      {"dense2d_w", arr2, Golden("w2"), 6, false},
      {"dense2d_bin", arr2, Empty(DataType::kDouble), 4, true},
      {"dense2d_bin_w", arr2, Golden("w2"), 7, true},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<Tensor>> out = Dense(c.in, c.size, c.w, c.binary);
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name), 1e-5, 1e-5)) << c.name;
  }
}

TEST(BincountOpsTest, ErrorsAndEmpty) {
  ExpectInvalid(Sparse(MakeTensor<int32_t>({2}, {1, -1}), 3, Empty(DataType::kFloat)),
                "non-negative");
  ExpectInvalid(Sparse(MakeTensor<int32_t>({1}, {1}), -1, Empty(DataType::kFloat)), "size (-1)");
  ExpectInvalid(Dense(MakeTensor<int64_t>({1, 2}, {1, -4}), 3, Empty(DataType::kFloat), false),
                "-4");
  ExpectInvalid(Dense(MakeTensor<int32_t>({1, 1, 1}, {1}), 3, Empty(DataType::kFloat), false),
                "1-D or 2-D");
  ExpectInvalid(Dense(MakeTensor<int32_t>({2}, {1, 2}), 3, MakeTensor<float>({1}, {1}), false),
                "same shape");
  absl::StatusOr<std::vector<Tensor>> out =
      Dense(MakeTensor<int32_t>({0}, {}), 4, Empty(DataType::kFloat), false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({4}, {0, 0, 0, 0}), 0, 0));
  out = Dense(MakeTensor<int32_t>({2, 0}, {}), 3, Empty(DataType::kInt32), true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<int32_t>({2, 3}, {0, 0, 0, 0, 0, 0}), 0, 0));
  out = Sparse(MakeTensor<int32_t>({3}, {0, 1, 2}), 0, Empty(DataType::kInt64));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
}

absl::StatusOr<std::vector<Tensor>> RevSeq(const Tensor& x, const Tensor& lens, int64_t seq,
                                           int64_t batch) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("Tlen", lens.dtype());
  a.Set("seq_dim", seq);
  a.Set("batch_dim", batch);
  return RunOp("ReverseSequence", a, {x, lens});
}

TEST(BincountOpsTest, ReverseSequenceMatchesTensorFlow) {
  Tensor x = Golden("rs_x");
  const struct {
    const char* name;
    Tensor lens;
    int64_t seq, batch;
  } cases[] = {
      {"rs_s1_b0", MakeTensor<int64_t>({3}, {5, 0, 3}), 1, 0},
      {"rs_s2_b0", MakeTensor<int32_t>({3}, {4, 1, 2}), 2, 0},
      {"rs_s0_b1", MakeTensor<int32_t>({5}, {3, 2, 0, 1, 3}), 0, 1},
      {"rs_s0_b2", MakeTensor<int64_t>({4}, {1, 3, 2, 0}), 0, 2},
      {"rs_s2_b1", MakeTensor<int64_t>({5}, {4, 4, 0, 2, 3}), 2, 1},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<Tensor>> out = RevSeq(x, c.lens, c.seq, c.batch);
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name), 0, 0)) << c.name;
  }
}

TEST(BincountOpsTest, ReverseSequenceStringsErrorsAndEmpty) {
  absl::StatusOr<std::vector<Tensor>> out =
      RevSeq(MakeTensor<std::string>({2, 2}, {"a", "b", "c", "d"}),
             MakeTensor<int32_t>({2}, {2, 1}), 1, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::Values<std::string>((*out)[0]),
            (std::vector<std::string>{"b", "a", "c", "d"}));
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(RevSeq(x, MakeTensor<int32_t>({2}, {1, 4}), 1, 0), "seq_lens(1)");
  ExpectInvalid(RevSeq(x, MakeTensor<int64_t>({2}, {-1, 0}), 1, 0), "seq_lens(0) < 0");
  ExpectInvalid(RevSeq(x, MakeTensor<int32_t>({3}, {1, 1, 1}), 1, 0), "seq_lengths");
  ExpectInvalid(RevSeq(x, MakeTensor<int32_t>({2}, {1, 1}), 0, 0), "batch_dim == seq_dim");
  ExpectInvalid(RevSeq(x, MakeTensor<int32_t>({2}, {1, 1}), -1, 0), "Invalid seq_dim");
  ExpectInvalid(RevSeq(x, MakeTensor<int32_t>({2}, {1, 1}), 1, 2), "Invalid batch_dim");
  out = RevSeq(MakeTensor<float>({2, 0}, {}), MakeTensor<int32_t>({2}, {0, 0}), 1, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 0}));
}

}  // namespace
}  // namespace smrt::kernels
