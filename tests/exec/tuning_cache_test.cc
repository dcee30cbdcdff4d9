// The tuning cache's store: choices survive a new process (a new instance on
// the same directory), a file measured elsewhere (another GPU or library
// version) or damaged on disk is ignored with a warning, never trusted.
#include "exec/tuning_cache.h"

#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "gtest/gtest.h"

namespace smrt::exec {
namespace {

class TuningCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            absl::StrCat("smrt_tuning_", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                         "_", ::getpid()))
               .string();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

constexpr char kScope[] = "device=NVIDIA H200 cc9.0;cudnn=9.14.0;smrt=0.1.0";

TEST_F(TuningCacheTest, ChoicesSurviveANewInstanceOnTheSameDirectory) {
  {
    auto cache = FileTuningCache::Open(dir_ + "/nested", "model1", kScope);
    EXPECT_FALSE(cache->Lookup("conv/1x8x8x3").has_value());
    cache->Store("conv/1x8x8x3", "algo=1");
    cache->Store("conv/4x8x8x3", "algo=6");
    cache->Store("conv/1x8x8x3", "algo=2");  // replaces
    EXPECT_EQ(cache->Lookup("conv/1x8x8x3"), "algo=2");
  }
  auto again = FileTuningCache::Open(dir_ + "/nested", "model1", kScope);
  EXPECT_EQ(again->load_warning(), "");
  EXPECT_EQ(again->size(), 2u);
  EXPECT_EQ(again->Lookup("conv/1x8x8x3"), "algo=2");
  EXPECT_EQ(again->Lookup("conv/4x8x8x3"), "algo=6");
  // Another model has a file of its own.
  auto other = FileTuningCache::Open(dir_ + "/nested", "model2", kScope);
  EXPECT_EQ(other->size(), 0u);
  EXPECT_NE(again->path(), other->path());
}

TEST_F(TuningCacheTest, AFileFromAnotherScopeIsStaleAndReplaced) {
  FileTuningCache::Open(dir_, "m", kScope)->Store("k", "v");
  auto upgraded = FileTuningCache::Open(dir_, "m", "device=NVIDIA H200 cc9.0;cudnn=9.15.0");
  EXPECT_TRUE(absl::StartsWith(upgraded->load_warning(), "stale")) << upgraded->load_warning();
  EXPECT_NE(upgraded->load_warning().find("cudnn=9.14.0"), std::string::npos);
  EXPECT_FALSE(upgraded->Lookup("k").has_value());
  upgraded->Store("k", "w");
  auto reread = FileTuningCache::Open(dir_, "m", "device=NVIDIA H200 cc9.0;cudnn=9.15.0");
  EXPECT_EQ(reread->load_warning(), "");
  EXPECT_EQ(reread->Lookup("k"), "w");
}

TEST_F(TuningCacheTest, ADamagedFileIsIgnoredWithAWarning) {
  auto cache = FileTuningCache::Open(dir_, "m", kScope);
  cache->Store("k", "v");
  absl::StatusOr<std::string> text = file::ReadAll(cache->path());
  ASSERT_TRUE(text.ok());
  for (const std::string& damaged :
       {absl::StrCat(text->substr(0, text->size() / 2)),               // cut short
        std::string(*text).replace(text->find("\tv"), 2, "\tX"),        // a value changed
        std::string("garbage"), std::string("")}) {
    ASSERT_TRUE(file::WriteAll(cache->path(), damaged).ok());
    auto reread = FileTuningCache::Open(dir_, "m", kScope);
    EXPECT_TRUE(absl::StartsWith(reread->load_warning(), "corrupt")) << reread->load_warning();
    EXPECT_EQ(reread->size(), 0u);
  }
}

TEST_F(TuningCacheTest, MemoryOnlyWithoutADirectoryAndUnstorableTextIsDropped) {
  auto cache = FileTuningCache::Open("", "m", kScope);
  EXPECT_EQ(cache->path(), "");
  cache->Store("k", "v");
  cache->Store("bad\tkey", "v");
  cache->Store("k2", "two\nlines");
  EXPECT_EQ(cache->Lookup("k"), "v");
  EXPECT_EQ(cache->size(), 1u);
}

TEST_F(TuningCacheTest, ManyThreadsStoreAndTheFileHoldsThemAll) {
  auto cache = FileTuningCache::Open(dir_, "m", kScope);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 25; ++i) cache->Store(absl::StrCat("k", t, "_", i), absl::StrCat(i));
    });
  }
  for (std::thread& t : threads) t.join();
  auto reread = FileTuningCache::Open(dir_, "m", kScope);
  EXPECT_EQ(reread->load_warning(), "");
  EXPECT_EQ(reread->size(), 100u);
  EXPECT_EQ(reread->Lookup("k3_24"), "24");
}

TEST(ModelKeyTest, IsTheChecksumAndSize) {
  EXPECT_EQ(ModelKey(0x0234abcd, 255), "0234abcd-ff");
  EXPECT_NE(ModelKey(1, 3), ModelKey(1, 4));
}

}  // namespace
}  // namespace smrt::exec
