// Seeded random ops through loaded models (tests/data/kernels/random/model and
// model_tf2, made by tests/generators/kernel_goldens/random.py): each node keeps its generator in
// the model, so successive Runs give TensorFlow's successive answers, a second
// load starts over, and concurrent Runs share the stream without losing or
// repeating a stretch of it.
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "smrt/model.h"
#include "testing/goldens.h"
#include "testing/paths.h"

namespace smrt {
namespace {

using testing::ReadGolden;
using kernels::testing::TensorsNear;
using kernels::testing::Values;

const char* const kOutputs[] = {"uniform", "action", "sample", "noise"};

std::unique_ptr<Model> LoadRandomModel() {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/kernels/random/model");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

NamedTensors Inputs() {
  return {{"shape", ReadGolden("kernels/random/model_in_shape")},
          {"logits", ReadGolden("kernels/random/model_in_logits")}};
}

Tensor Want(int call, const std::string& output) {
  return ReadGolden(absl::StrCat("kernels/random/model_call", call, "_", output));
}

TEST(RandomModelsTest, SuccessiveRunsGiveTensorFlowsSuccessiveAnswers) {
  for (int load = 0; load < 2; ++load) {  // a second load starts the streams over
    SCOPED_TRACE(absl::StrCat("load ", load));
    std::unique_ptr<Model> model = LoadRandomModel();
    ASSERT_NE(model, nullptr);
    for (int call = 0; call < 3; ++call) {
      SCOPED_TRACE(absl::StrCat("call ", call));
      absl::StatusOr<NamedTensors> out = model->Run("serving_default", Inputs());
      ASSERT_TRUE(out.ok()) << out.status();
      for (const char* name : kOutputs) {
        EXPECT_TRUE(TensorsNear(out->at(name), Want(call, name), 0, 0)) << name;
      }
    }
  }
}

// TF2: seeded tf.random ops inside a tf.function (inlined by smrt's importer)
// keep their state across signature calls too.
TEST(RandomModelsTest, Tf2FunctionKeepsItsStreamsAcrossCalls) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::TestDataDir() + "/kernels/random/model_tf2");
  ASSERT_TRUE(model.ok()) << model.status();
  for (int call = 0; call < 3; ++call) {
    SCOPED_TRACE(absl::StrCat("call ", call));
    absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", Inputs());
    ASSERT_TRUE(out.ok()) << out.status();
    for (const char* name : {"uniform", "normal", "sample"}) {
      const Tensor want =
          ReadGolden(absl::StrCat("kernels/random/model_tf2_call", call, "_", name));
      EXPECT_TRUE(TensorsNear(out->at(name), want, 0, 0)) << name;
    }
  }
}

TEST(RandomModelsTest, ConcurrentRunsEachGetOneOfTheAnswers) {
  std::unique_ptr<Model> model = LoadRandomModel();
  ASSERT_NE(model, nullptr);
  std::vector<NamedTensors> results(3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<NamedTensors> out = model->Run("serving_default", Inputs());
      if (out.ok()) results[t] = *std::move(out);
    });
  }
  for (std::thread& t : threads) t.join();
  // Per node, the three answers are TensorFlow's first three, in some order.
  // (Uniform floats are multiples of 2^-23, so scaling makes exact keys.)
  auto key = [](const Tensor& t) {
    std::vector<int64_t> k;
    if (t.dtype() == DataType::kFloat) {
      for (float v : Values<float>(t)) k.push_back(static_cast<int64_t>(v * (1 << 23)));
    } else {
      k = Values<int64_t>(t);
    }
    return k;
  };
  for (const char* name : {"uniform", "action"}) {
    SCOPED_TRACE(name);
    std::set<std::vector<int64_t>> want, got;
    for (int call = 0; call < 3; ++call) {
      ASSERT_EQ(results[call].count(name), 1u);
      want.insert(key(Want(call, name)));
      got.insert(key(results[call].at(name)));
    }
    EXPECT_EQ(got, want);
  }
}

}  // namespace
}  // namespace smrt
