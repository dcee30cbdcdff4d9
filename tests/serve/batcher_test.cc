// Dynamic batching: concurrent calls merged, padded and split back give each
// caller what an unbatched Model::Run gives it (the concurrency tests run
// under TSan: scripts/test.sh --tsan).
#include "serve/batcher.h"

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "serve/metrics.h"
#include "serve/servable.h"
#include "serve_test_util.h"
#include "testing/paths.h"
#include "testing/status_matchers.h"

namespace smrt::serve {
namespace {

using smrt::testing::IsError;
using testing::Floats;
using testing::FloatTensor;

// matrix_half_plus_two: x (-1, 3, 3) -> 0.5x + 2.
std::string MatrixHalfPlusTwo() {
  return smrt::testing::SharedModel("tf-serving/matrix_half_plus_two/1");
}

class BatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(testing::HalfPlusTwo());
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *std::move(model);
  }

  std::unique_ptr<Batcher> MakeBatcher(BatchingOptions options, const Model* model = nullptr) {
    absl::StatusOr<std::unique_ptr<Batcher>> batcher =
        Batcher::Create(model != nullptr ? model : model_.get(), "hp", options, &metrics_);
    EXPECT_TRUE(batcher.ok()) << batcher.status();
    return batcher.ok() ? *std::move(batcher) : nullptr;
  }

  std::unique_ptr<Model> model_;
  Metrics metrics_;
};

TEST_F(BatcherTest, OptionsAreCheckedAsTfServingChecksThem) {
  BatchingOptions options;
  options.max_batch_size = 8;
  options.allowed_batch_sizes = {2, 4};
  EXPECT_TRUE(IsError(ValidateBatchingOptions(options), absl::StatusCode::kInvalidArgument,
                      "Last entry in allowed_batch_sizes must match max_batch_size; last entry "
                      "was 4; expected 8"));
  options.allowed_batch_sizes = {4, 2, 8};
  EXPECT_TRUE(IsError(ValidateBatchingOptions(options), absl::StatusCode::kInvalidArgument,
                      "allowed_batch_sizes entries must be monotonically increasing"));
  options.allowed_batch_sizes = {2, 4, 8};
  EXPECT_TRUE(ValidateBatchingOptions(options).ok());
  EXPECT_EQ(RoundToAllowedBatchSize(options, 1), 2);
  EXPECT_EQ(RoundToAllowedBatchSize(options, 3), 4);
  EXPECT_EQ(RoundToAllowedBatchSize(options, 8), 8);
}

TEST_F(BatcherTest, SignaturesWithoutABatchDimensionRunUnbatched) {
  std::unique_ptr<Batcher> batcher = MakeBatcher({});
  ASSERT_NE(batcher, nullptr);
  EXPECT_TRUE(batcher->Batches("serving_default"));
  // The classify signature's input has an unknown rank in the TF1 export.
  EXPECT_FALSE(batcher->Batches("classify_x_to_y"));
  absl::StatusOr<std::unique_ptr<Model>> three = Model::Load(testing::HalfPlusThree());
  ASSERT_TRUE(three.ok()) << three.status();
  std::unique_ptr<Batcher> scalar = MakeBatcher({}, three->get());
  EXPECT_FALSE(scalar->Batches("serving_default"));  // x is a scalar
  absl::StatusOr<NamedTensors> y = scalar->Run("serving_default", {{"x", FloatTensor({}, {2})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Floats(y->at("y"))[0], 4.0f);
  // A call that does not fit the signature gets Model::Run's own error.
  absl::StatusOr<NamedTensors> wrong =
      batcher->Run("serving_default", {{"x", FloatTensor({2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(wrong.status(),
            model_->Run("serving_default", {{"x", FloatTensor({2, 2}, {1, 2, 3, 4})}}).status());
}

TEST_F(BatcherTest, TooLargeCallIsRefusedWithTfServingsText) {
  BatchingOptions options;
  options.max_batch_size = 4;
  std::unique_ptr<Batcher> batcher = MakeBatcher(options);
  EXPECT_TRUE(IsError(batcher->Run("serving_default", {{"x", FloatTensor({5, 1}, {})}}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "Task size 5 is larger than maximum input batch size 4"));
}

// Many threads, calls of 1 to 3 rows, padding to allowed sizes: every caller
// gets its own rows of 0.5x + 2, as Model::Run alone gives them.
TEST_F(BatcherTest, ConcurrentCallsMergeAndSplitBackExactly) {
  BatchingOptions options;
  options.max_batch_size = 16;
  options.batch_timeout = absl::Milliseconds(2);
  options.allowed_batch_sizes = {4, 8, 16};
  options.num_batch_threads = 2;
  options.max_enqueued_batches = 1000;
  std::unique_ptr<Batcher> batcher = MakeBatcher(options);
  ASSERT_NE(batcher, nullptr);
  constexpr int kThreads = 16;
  constexpr int kCalls = 40;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCalls; ++c) {
        const int rows = 1 + (t + c) % 3;
        std::vector<float> x;
        for (int r = 0; r < rows; ++r) x.push_back(1000.0f * t + 10.0f * c + r);
        absl::StatusOr<NamedTensors> y =
            batcher->Run("serving_default", {{"x", FloatTensor({rows, 1}, x)}});
        if (!y.ok() || y->at("y").shape() != Shape{rows, 1}) {
          ++wrong;
          continue;
        }
        for (int r = 0; r < rows; ++r) {
          if (Floats(y->at("y"))[r] != 0.5f * x[r] + 2) ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // Fewer batches than calls ran (calls were merged), each padded to an
  // allowed size (none below 4).
  const std::string text = metrics_.PrometheusText();
  const std::string count =
      ":tensorflow:serving:batching_session:processed_batch_size_count{"
      "model_name=\"hp\"} ";
  const size_t at = text.find(count);
  ASSERT_NE(at, std::string::npos) << text;
  const int batches = std::stoi(text.substr(at + count.size()));
  EXPECT_GT(batches, 0);
  EXPECT_LT(batches, kThreads * kCalls) << text;
  EXPECT_NE(text.find(":tensorflow:serving:batching_session:processed_batch_size_bucket{"
                      "model_name=\"hp\",le=\"4\"} 0\n"),
            std::string::npos)
      << text;
}

// Each call's rows come back alone, with or without variable-length padding
// (the shapes agree here, so padding must change nothing).
TEST_F(BatcherTest, ConcurrentCallsOnMatricesMatchModelRun) {
  absl::StatusOr<std::unique_ptr<Model>> matrix = Model::Load(MatrixHalfPlusTwo());
  ASSERT_TRUE(matrix.ok()) << matrix.status();
  for (bool pad : {false, true}) {
    BatchingOptions options;
    options.max_batch_size = 8;
    options.batch_timeout = absl::Milliseconds(5);
    options.num_batch_threads = 2;
    options.pad_variable_length_inputs = pad;
    std::unique_ptr<Batcher> batcher = MakeBatcher(options, matrix->get());
    ASSERT_TRUE(batcher->Batches("serving_default"));
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int c = 0; c < 10; ++c) {
          Tensor x = *Tensor::Create(DataType::kFloat, {1, 3, 3});
          for (int i = 0; i < 9; ++i) x.data<float>()[i] = t * 100 + c * 10 + i;
          absl::StatusOr<NamedTensors> y = batcher->Run("serving_default", {{"x", x}});
          absl::StatusOr<NamedTensors> alone = (*matrix)->Run("serving_default", {{"x", x}});
          if (!y.ok() || !alone.ok() || Floats(y->at("y")) != Floats(alone->at("y"))) ++wrong;
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0) << "pad_variable_length_inputs " << pad;
  }
}

// Sequences of different lengths through the zoo's SimpleRNN (inputs
// (-1, -1, 6), outputs every step): without padding they batch apart and
// come back as Model::Run gives them; with pad_variable_length_inputs they
// merge, padded to the longest with each call's first element, and (as in
// TF Serving) come back padded: the steps of the call's own length match.
TEST_F(BatcherTest, ConcurrentVariableLengthCallsApartOrPadded) {
  absl::StatusOr<std::unique_ptr<Model>> rnn =
      Model::Load(smrt::testing::TestDataDir() + "/zoo/simplernn/saved_model");
  ASSERT_TRUE(rnn.ok()) << rnn.status();
  for (bool pad : {false, true}) {
    BatchingOptions options;
    // Six callers and batches of six: most batches hold several lengths.
    options.max_batch_size = 6;
    options.batch_timeout = absl::Milliseconds(50);
    options.num_batch_threads = 2;
    options.pad_variable_length_inputs = pad;
    std::unique_ptr<Batcher> batcher = MakeBatcher(options, rnn->get());
    ASSERT_TRUE(batcher->Batches("serving_default"));
    std::atomic<int> wrong{0}, padded{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&, t] {
        for (int c = 0; c < 5; ++c) {
          const int64_t steps = 2 + (t + c) % 4;
          Tensor x = *Tensor::Create(DataType::kFloat, {1, steps, 6});
          for (int64_t i = 0; i < x.num_elements(); ++i) {
            x.data<float>()[i] = 0.01f * static_cast<float>((t * 31 + c * 7 + i) % 97) - 0.4f;
          }
          absl::StatusOr<NamedTensors> y = batcher->Run("serving_default", {{"inputs", x}});
          absl::StatusOr<NamedTensors> alone = (*rnn)->Run("serving_default", {{"inputs", x}});
          if (!y.ok() || !alone.ok()) {
            ++wrong;
            continue;
          }
          const Tensor& got = y->at("output_0");
          const Tensor& want = alone->at("output_0");
          if (got.dim(0) != 1 || got.dim(2) != 4 || got.dim(1) < steps ||
              (!pad && got.dim(1) != steps)) {
            ++wrong;
            continue;
          }
          if (got.dim(1) > steps) ++padded;
          for (int64_t s = 0; s < steps; ++s) {
            for (int k = 0; k < 4; ++k) {
              if (std::abs(got.data<float>()[s * 4 + k] - want.data<float>()[s * 4 + k]) > 1e-5f) {
                ++wrong;
              }
            }
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0) << "pad_variable_length_inputs " << pad;
    if (pad) {
      EXPECT_GT(padded.load(), 0);
    }
  }
}

TEST_F(BatcherTest, ConcurrentCallsFindTheQueueFull) {
  BatchingOptions options;
  options.max_batch_size = 1;
  options.max_enqueued_batches = 1;
  options.num_batch_threads = 1;
  options.batch_timeout = absl::Seconds(0);
  std::unique_ptr<Batcher> batcher = MakeBatcher(options);
  // Enough concurrent callers that some find the one batch slot taken.
  std::atomic<int> ok{0}, unavailable{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int c = 0; c < 20; ++c) {
        absl::StatusOr<NamedTensors> y =
            batcher->Run("serving_default", {{"x", FloatTensor({1, 1}, {1})}});
        if (y.ok()) {
          ++ok;
        } else if (y.status().code() == absl::StatusCode::kUnavailable &&
                   y.status().message() ==
                       "The batch scheduling queue to which this task was submitted is full") {
          ++unavailable;
        } else {
          ++other;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(unavailable.load(), 0);
  EXPECT_EQ(other.load(), 0);
}

TEST_F(BatcherTest, ServableRunsThroughItsBatcher) {
  BatchingOptions options;
  options.max_batch_size = 4;
  options.allowed_batch_sizes = {4};
  auto model = Model::Load(testing::HalfPlusTwo());
  ASSERT_TRUE(model.ok());
  Metrics metrics;
  auto batcher = Batcher::Create(model->get(), "hp", options, &metrics);
  ASSERT_TRUE(batcher.ok());
  Servable servable("hp", 1, testing::HalfPlusTwo(), *std::move(model), *std::move(batcher),
                    &metrics);
  absl::StatusOr<NamedTensors> y = servable.Run("", {{"x", FloatTensor({1, 1}, {6})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at("y").shape(), (Shape{1, 1}));
  EXPECT_EQ(Floats(y->at("y"))[0], 5.0f);
  // One call of one row, padded to 4.
  EXPECT_NE(metrics.PrometheusText().find(
                ":tensorflow:serving:batching_session:padding_size_count{model_name=\"hp\","
                "execution_batch_size=\"4\"} 1\n"),
            std::string::npos)
      << metrics.PrometheusText();
}

}  // namespace
}  // namespace smrt::serve
