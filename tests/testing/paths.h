// Where tests find the shared, read-only test data (real TensorFlow models).
#ifndef SMRT_TESTS_TESTING_PATHS_H_
#define SMRT_TESTS_TESTING_PATHS_H_

#include <string>

namespace smrt::testing {

// $SMRT_SHARED_DIR when set, else the SMRT_SHARED_DIR compile definition
// (the build sets it to "<repo>/../shared").
std::string SharedDir();

// SharedDir() + "/models".
std::string SharedModelsDir();

// True when SharedModelsDir() is a directory.
bool HaveSharedModels();

// True when env SMRT_REQUIRE_SHARED=1: missing shared data fails tests
// instead of skipping them.
bool SharedModelsRequired();

// A path under the shared models, e.g.
// SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123").
std::string SharedModel(const std::string& relative);

// <repo>/tests/data: SMRT_TEST_DATA_DIR, else the build's, else ./tests/data
// when the build's is not on this machine (a bundle run from a checkout).
std::string TestDataDir();

// A new empty directory under $TMPDIR (default /tmp), unique per call.
std::string MakeTempDir();

// Copies a directory tree and makes the copy writable (shared/ is read-only;
// corruption tests work on a copy).
void CopyTree(const std::string& from, const std::string& to);

}  // namespace smrt::testing

// Use first in a GoogleTest body that needs SharedModelsDir(): skips the test
// when the directory is missing, or fails it under SMRT_REQUIRE_SHARED=1.
#define SMRT_SKIP_IF_NO_SHARED_MODELS()                                      \
  do {                                                                       \
    if (!::smrt::testing::HaveSharedModels()) {                              \
      if (::smrt::testing::SharedModelsRequired()) {                         \
        FAIL() << "shared models dir " << ::smrt::testing::SharedModelsDir() \
               << " is missing and SMRT_REQUIRE_SHARED=1";                   \
      }                                                                      \
      GTEST_SKIP() << "shared models dir "                                   \
                   << ::smrt::testing::SharedModelsDir()                     \
                   << " is missing; set SMRT_SHARED_DIR to run this test";   \
    }                                                                        \
  } while (0)

#endif  // SMRT_TESTS_TESTING_PATHS_H_
