// Tensors over a mapped file: they read the file's bytes, are never handed
// to a kernel to write in place, refuse ranges a tensor cannot live at,
// count against the memory limits, and give their pages back to the OS
// (checked in /proc/self/pagemap) without their values changing.
#include "core/mapped_file.h"

#include <filesystem>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/run_limits.h"
#include "gtest/gtest.h"
#include "testing/paths.h"
#include "testing/resident_pages.h"

namespace smrt::file {
namespace {

namespace fs = std::filesystem;

// A file of `header` bytes of 0x5a, then floats 0, 1, 2, ... (n of them).
std::string WriteFloats(const std::string& dir, size_t header, size_t n) {
  std::string bytes(header, '\x5a');
  for (size_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i);
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  const std::string path = dir + "/floats.bin";
  EXPECT_TRUE(WriteAll(path, bytes).ok());
  return path;
}

class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir(); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(MappedFileTest, ATensorReadsItsBytesAndIsNeverWrittenInPlace) {
  const std::string path = WriteFloats(dir_, 64, 256);
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Map(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->size(), 64u + 256 * 4);
  absl::StatusOr<Tensor> t = MappedTensor(*file, 64, DataType::kFloat, {16, 16});
  ASSERT_TRUE(t.ok()) << t.status();
  file->reset();  // the tensor keeps the mapping
  EXPECT_TRUE(t->mapped());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % kTensorAlignment, 0u);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(t->data<float>()[i], static_cast<float>(i)) << i;
  // The only copy, and still not the kernels' to write over.
  EXPECT_FALSE(t->sole_owner());
  absl::StatusOr<Tensor> flat = t->Reshaped({256});
  ASSERT_TRUE(flat.ok());
  EXPECT_TRUE(flat->mapped());
  absl::StatusOr<Tensor> copy = t->Clone();
  ASSERT_TRUE(copy.ok());
  EXPECT_FALSE(copy->mapped());
  EXPECT_TRUE(copy->sole_owner());
  EXPECT_EQ(copy->data<float>()[255], 255.0f);
}

TEST_F(MappedFileTest, RangesATensorCannotLiveAtAreRefused) {
  const std::string path = WriteFloats(dir_, 64, 256);
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Map(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_FALSE(CanMapTensorAt(4, 64));
  EXPECT_FALSE(CanMapTensorAt(64, 12));
  EXPECT_TRUE(CanMapTensorAt(128, 1024));
  // Misaligned, a size that is not a multiple of 64, past the end, strings.
  absl::StatusOr<Tensor> t = MappedTensor(*file, 68, DataType::kFloat, {16});
  EXPECT_TRUE(absl::IsInvalidArgument(t.status())) << t.status();
  t = MappedTensor(*file, 64, DataType::kFloat, {3});
  EXPECT_TRUE(absl::IsInvalidArgument(t.status())) << t.status();
  t = MappedTensor(*file, 64, DataType::kFloat, {512});
  EXPECT_TRUE(absl::IsOutOfRange(t.status())) << t.status();
  EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status();
  t = MappedTensor(*file, 64, DataType::kString, {4});
  EXPECT_TRUE(absl::IsInvalidArgument(t.status())) << t.status();
  absl::StatusOr<std::shared_ptr<const MappedFile>> missing = MappedFile::Map(dir_ + "/none");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
}

TEST_F(MappedFileTest, MappedTensorsCountAgainstTheMemoryLimit) {
  const std::string path = WriteFloats(dir_, 0, 1024);
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Map(path);
  ASSERT_TRUE(file.ok()) << file.status();
  RunLimits limits;
  limits.memory_limit_bytes = 3000;
  RunLimitsScope scope(&limits);
  absl::StatusOr<Tensor> t = MappedTensor(*file, 0, DataType::kFloat, {512});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(limits.memory->live_bytes.load(), 2048u);
  absl::StatusOr<Tensor> more = MappedTensor(*file, 2048, DataType::kFloat, {512});
  EXPECT_TRUE(absl::IsResourceExhausted(more.status())) << more.status();
  *t = Tensor();
  EXPECT_EQ(limits.memory->live_bytes.load(), 0u);
}

TEST_F(MappedFileTest, ReleasedPagesLeaveTheProcessAndComeBackFromTheFile) {
  constexpr size_t kFloats = 64 * 1024;  // 256 KiB: 64 pages of 4 KiB
  const std::string path = WriteFloats(dir_, 0, 2 * kFloats);
  absl::StatusOr<std::shared_ptr<const MappedFile>> file = MappedFile::Map(path);
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<Tensor> a = MappedTensor(*file, 0, DataType::kFloat, {kFloats});
  absl::StatusOr<Tensor> b = MappedTensor(*file, kFloats * 4, DataType::kFloat, {kFloats});
  ASSERT_TRUE(a.ok() && b.ok());
  auto sum = [](const Tensor& t) {
    double s = 0;
    for (int64_t i = 0; i < t.num_elements(); ++i) s += t.data<float>()[i];
    return s;
  };
  const double want = sum(*a);  // reads, so every page is present
  const int64_t pages = testing::PagesOf(a->raw_data(), a->byte_size());
  absl::StatusOr<int64_t> present = testing::PresentPages(a->raw_data(), a->byte_size());
  ASSERT_TRUE(present.ok()) << present.status();
  EXPECT_EQ(*present, pages);

  ReleaseResidentPages(*a);
  present = testing::PresentPages(a->raw_data(), a->byte_size());
  ASSERT_TRUE(present.ok());
  EXPECT_EQ(*present, 0);
  EXPECT_EQ(sum(*a), want);  // read again from the file
  present = testing::PresentPages(a->raw_data(), a->byte_size());
  ASSERT_TRUE(present.ok());
  EXPECT_EQ(*present, pages);

  // A tensor that is not mapped keeps its pages.
  absl::StatusOr<Tensor> heap = a->Clone();
  ASSERT_TRUE(heap.ok());
  ReleaseResidentPages(*heap);
  EXPECT_EQ(sum(*heap), want);
  present = testing::PresentPages(heap->raw_data(), heap->byte_size());
  ASSERT_TRUE(present.ok());
  EXPECT_GE(*present, pages - 1);

  // The last copy of a tensor gives its pages back; the file stays mapped
  // for the other one.
  const void* where = a->raw_data();
  const size_t bytes = a->byte_size();
  *a = Tensor();
  present = testing::PresentPages(where, bytes);
  ASSERT_TRUE(present.ok());
  EXPECT_EQ(*present, 0);
  EXPECT_EQ(b->data<float>()[0], static_cast<float>(kFloats));
}

}  // namespace
}  // namespace smrt::file
