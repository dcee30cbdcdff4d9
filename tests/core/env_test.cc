#include "core/env.h"

#include <unistd.h>

#include <filesystem>

#include "core/file.h"
#include "core/mapped_file.h"
#include "gtest/gtest.h"

namespace smrt {
namespace {

TEST(MemoryEnvTest, ReadsTheFilesItHolds) {
  absl::StatusOr<std::shared_ptr<const MemoryEnv>> env =
      NewMemoryEnv({{"saved_model.pb", "abc"}, {"variables/variables.index", "xyz12"}});
  ASSERT_TRUE(env.ok()) << env.status();
  const MemoryEnv &e = **env;
  const std::string root = e.root();
  EXPECT_EQ(root.rfind("mem://", 0), 0u) << root;
  EXPECT_TRUE(e.IsDirectory(root));
  EXPECT_TRUE(e.IsDirectory(file::JoinPath(root, "variables")));
  EXPECT_FALSE(e.IsDirectory(file::JoinPath(root, "saved_model.pb")));
  EXPECT_TRUE(e.Exists(file::JoinPath(root, "saved_model.pb")));
  EXPECT_FALSE(e.Exists(file::JoinPath(root, "assets")));
  absl::StatusOr<uint64_t> size = e.Size(file::JoinPath(root, "variables/variables.index"));
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 5u);
  EXPECT_EQ(e.Size(file::JoinPath(root, "variables")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*e.ReadAll(file::JoinPath(root, "saved_model.pb")), "abc");
  EXPECT_EQ(e.ReadAll(file::JoinPath(root, "saved_model.pb"), 2).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(*e.ReadRange(file::JoinPath(root, "variables/variables.index"), 1, 3), "yz1");
  absl::StatusOr<std::string> past = e.ReadRange(file::JoinPath(root, "saved_model.pb"), 2, 5);
  EXPECT_EQ(past.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(past.status().message().find("the file has 3 bytes"), std::string::npos);
  EXPECT_EQ(e.ReadAll(file::JoinPath(root, "nope")).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(*e.ListFiles(root),
            (std::vector<std::string>{"saved_model.pb", "variables/variables.index"}));
  EXPECT_EQ(*e.ListFiles(file::JoinPath(root, "variables")),
            (std::vector<std::string>{"variables.index"}));
  EXPECT_TRUE(e.ListFiles(file::JoinPath(root, "assets"))->empty());
  // Memory files are not mapped: readers copy them.
  absl::StatusOr<std::shared_ptr<const file::MappedFile>> mapped =
      e.Map(file::JoinPath(root, "saved_model.pb"));
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(*mapped, nullptr);
}

TEST(MemoryEnvTest, SeesOnlyItsOwnFilesAndNotTheDisk) {
  auto a = NewMemoryEnv({{"f", "a"}});
  auto b = NewMemoryEnv({{"f", "b"}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->root(), (*b)->root());
  EXPECT_EQ(*(*b)->ReadAll(file::JoinPath((*b)->root(), "f")), "b");
  // Another Env's paths and real files do not exist here.
  EXPECT_FALSE((*a)->Exists(file::JoinPath((*b)->root(), "f")));
  EXPECT_FALSE((*a)->Exists("/etc/hostname"));
  // And no global mount: the disk's Env does not see memory paths.
  EXPECT_FALSE(Env::Default()->Exists(file::JoinPath((*a)->root(), "f")));
}

TEST(MemoryEnvTest, RejectsPathsThatLeaveTheRoot) {
  for (const char *bad : {"", "/etc/passwd", "../x", "a//b", "a/./b"}) {
    EXPECT_EQ(NewMemoryEnv({{bad, "x"}}).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(MemoryEnvTest, CheckInsideIsLexical) {
  auto env = NewMemoryEnv({{"assets/vocab.txt", "a\nb\n"}});
  ASSERT_TRUE(env.ok());
  const std::string root = (*env)->root();
  EXPECT_TRUE((*env)->CheckInside(root, root + "/assets/vocab.txt", "the model").ok());
  EXPECT_TRUE((*env)->CheckInside(root, root + "/assets/../assets/vocab.txt", "the model").ok());
  absl::Status up = (*env)->CheckInside(root, root + "/assets/../../x", "the model");
  EXPECT_EQ(up.code(), absl::StatusCode::kPermissionDenied) << up;
  EXPECT_EQ((*env)->CheckInside(root, "/etc/hostname", "the model").code(),
            absl::StatusCode::kPermissionDenied);
}

class PosixEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    dir_ = fs::temp_directory_path() / ("smrt_env_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "model" / "sub");
    ASSERT_TRUE(file::WriteAll((dir_ / "model" / "sub" / "b.txt").string(), "bbb").ok());
    ASSERT_TRUE(file::WriteAll((dir_ / "model" / "a.txt").string(), "0123456789").ok());
    ASSERT_TRUE(file::WriteAll((dir_ / "outside.txt").string(), "secret").ok());
    fs::create_symlink(dir_ / "outside.txt", dir_ / "model" / "link.txt");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Model() const { return (dir_ / "model").string(); }

  std::filesystem::path dir_;
};

TEST_F(PosixEnvTest, ReadsListsAndResolvesLinks) {
  std::shared_ptr<const Env> env = Env::Default();
  EXPECT_EQ(*env->ReadRange(Model() + "/a.txt", 3, 4), "3456");
  EXPECT_EQ(env->ReadRange(Model() + "/a.txt", 8, 4).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(env->Stat(Model() + "/none").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(env->Stat(Model() + "/a.txt/x").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(*env->ListFiles(Model()), (std::vector<std::string>{"a.txt", "link.txt", "sub/b.txt"}));
  EXPECT_TRUE(env->ListFiles(Model() + "/none")->empty());
  EXPECT_TRUE(env->CheckInside(Model(), Model() + "/sub/../a.txt", "the model directory").ok());
  absl::Status link = env->CheckInside(Model(), Model() + "/link.txt", "the model directory");
  EXPECT_EQ(link.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(link.message().find("outside.txt, outside the model directory"), std::string::npos)
      << link;
  absl::StatusOr<std::shared_ptr<const file::MappedFile>> mapped = env->Map(Model() + "/a.txt");
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  ASSERT_NE(*mapped, nullptr);
  EXPECT_EQ((*mapped)->size(), 10u);
}

}  // namespace
}  // namespace smrt
