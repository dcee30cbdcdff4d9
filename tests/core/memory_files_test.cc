#include "core/memory_files.h"

#include "core/file.h"
#include "gtest/gtest.h"

namespace smrt::file {
namespace {

TEST(MemoryFilesTest, FileFunctionsSeeMountedFiles) {
  absl::StatusOr<std::shared_ptr<const MemoryDirectory>> dir =
      MemoryDirectory::Mount({{"saved_model.pb", "abc"}, {"variables/variables.index", "xyz12"}});
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string root = (*dir)->root();
  EXPECT_TRUE(IsMemoryPath(root));
  EXPECT_TRUE(IsDirectory(root));
  EXPECT_TRUE(IsDirectory(JoinPath(root, "variables")));
  EXPECT_FALSE(IsDirectory(JoinPath(root, "saved_model.pb")));
  EXPECT_TRUE(Exists(JoinPath(root, "saved_model.pb")));
  EXPECT_FALSE(Exists(JoinPath(root, "assets")));
  absl::StatusOr<uint64_t> size = Size(JoinPath(root, "variables/variables.index"));
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 5u);
  absl::StatusOr<std::string> all = ReadAll(JoinPath(root, "saved_model.pb"));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, "abc");
  absl::StatusOr<std::string> part = ReadRange(JoinPath(root, "variables/variables.index"), 1, 3);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(*part, "yz1");
  absl::StatusOr<std::string> past = ReadRange(JoinPath(root, "saved_model.pb"), 2, 5);
  EXPECT_EQ(past.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ReadAll(JoinPath(root, "nope")).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(WriteAll(JoinPath(root, "new"), "x").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ListMemoryFiles(root),
            (std::vector<std::string>{"saved_model.pb", "variables/variables.index"}));
  EXPECT_EQ(ListMemoryFiles(JoinPath(root, "variables")),
            (std::vector<std::string>{"variables.index"}));
}

TEST(MemoryFilesTest, UnmountedWhenReleased) {
  std::string root;
  {
    absl::StatusOr<std::shared_ptr<const MemoryDirectory>> dir =
        MemoryDirectory::Mount({{"a", "1"}});
    ASSERT_TRUE(dir.ok());
    root = (*dir)->root();
    EXPECT_TRUE(Exists(JoinPath(root, "a")));
  }
  EXPECT_FALSE(Exists(JoinPath(root, "a")));
  EXPECT_FALSE(IsDirectory(root));
}

TEST(MemoryFilesTest, MountsAreDistinct) {
  auto a = MemoryDirectory::Mount({{"f", "a"}});
  auto b = MemoryDirectory::Mount({{"f", "b"}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->root(), (*b)->root());
  EXPECT_EQ(*ReadAll(JoinPath((*b)->root(), "f")), "b");
}

TEST(MemoryFilesTest, RejectsPathsThatLeaveTheRoot) {
  for (const char* bad : {"", "/etc/passwd", "../x", "a//b", "a/./b"}) {
    absl::StatusOr<std::shared_ptr<const MemoryDirectory>> dir =
        MemoryDirectory::Mount({{bad, "x"}});
    EXPECT_EQ(dir.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace smrt::file
