// Model::PlanMemory on committed zoo models: no two tensors live at the same
// time share bytes, and the peak lies between what must be live at once and
// the naive sum; the planned shapes are the ones a run produces.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "smrt/model.h"
#include "smrt/profile.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

int64_t learned_block_bytes(const MemoryPlan& plan) { return (plan.peak_bytes + 63) / 64 * 64; }

// Checks the plan's invariants and returns its lower bound: the most bytes
// live at any one step.
int64_t CheckPlan(const MemoryPlan& plan) {
  int64_t largest = 0, end = 0;
  std::vector<int64_t> live(plan.steps.size(), 0);
  for (const PlannedTensor& t : plan.tensors) {
    EXPECT_EQ(t.offset % 64, 0) << t.tensor;
    EXPECT_GE(t.offset, 0) << t.tensor;
    if (t.first_step < 0 || t.first_step > t.last_step ||
        static_cast<size_t>(t.last_step) >= plan.steps.size()) {
      ADD_FAILURE() << t.tensor << " lives from step " << t.first_step << " to " << t.last_step
                    << " of " << plan.steps.size();
      return 0;
    }
    int64_t elements = 1;
    for (int64_t d : t.shape) elements *= d;
    EXPECT_EQ(t.bytes, elements * static_cast<int64_t>(DataTypeSize(t.dtype))) << t.tensor;
    largest = std::max(largest, t.bytes);
    end = std::max(end, t.offset + t.bytes);
  }
  // Live bytes per step, each buffer once (at its largest tensor, over the
  // lifetimes of all its tensors).
  std::map<int, PlannedTensor> buffers;
  for (const PlannedTensor& t : plan.tensors) {
    auto [it, added] = buffers.emplace(t.buffer, t);
    if (added) continue;
    PlannedTensor& b = it->second;
    EXPECT_EQ(b.offset, t.offset) << t.tensor << " and " << b.tensor << " share a buffer";
    b.bytes = std::max(b.bytes, t.bytes);
    b.first_step = std::min(b.first_step, t.first_step);
    b.last_step = std::max(b.last_step, t.last_step);
  }
  for (const auto& [buffer, b] : buffers) {
    if (static_cast<size_t>(b.last_step) >= plan.steps.size() || b.first_step < 0) continue;
    for (int s = b.first_step; s <= b.last_step; ++s) live[s] += b.bytes;
  }
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    for (size_t j = i + 1; j < plan.tensors.size(); ++j) {
      const PlannedTensor& a = plan.tensors[i];
      const PlannedTensor& b = plan.tensors[j];
      if (a.last_step < b.first_step || b.last_step < a.first_step) continue;
      if (a.bytes == 0 || b.bytes == 0 || a.buffer == b.buffer) continue;
      EXPECT_TRUE(a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset)
          << a.tensor << " [" << a.offset << ", +" << a.bytes << ") and " << b.tensor << " ["
          << b.offset << ", +" << b.bytes << ") are live together";
    }
  }
  const int64_t most_live = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  EXPECT_EQ(plan.peak_bytes, end);
  EXPECT_GE(plan.peak_bytes, most_live);
  EXPECT_GE(plan.peak_bytes, largest);
  EXPECT_LE(plan.peak_bytes, plan.naive_bytes);
  int64_t naive = 0;
  for (const PlannedTensor& t : plan.tensors) naive += (t.bytes + 63) / 64 * 64;
  EXPECT_EQ(plan.naive_bytes, naive);
  return most_live;
}

std::unique_ptr<Model> LoadZoo(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/zoo/" + name + "/saved_model");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(MemoryPlanTest, MobileNetPlanNeverOverlapsLiveTensors) {
  std::unique_ptr<Model> model = LoadZoo("mobilenetv2_035_96");
  ASSERT_NE(model, nullptr);
  absl::StatusOr<MemoryPlan> plan =
      model->PlanMemory("serving_default", {{"keras_tensor", {2, 96, 96, 3}}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_GT(plan->tensors.size(), 40u);
  const int64_t most_live = CheckPlan(*plan);
  EXPECT_TRUE(plan->unplanned.empty()) << plan->unplanned.size() << ", first "
                                       << (plan->unplanned.empty() ? "" : plan->unplanned[0]);
  // A deep chain reuses most memory, and best fit comes close to the bound.
  EXPECT_LT(plan->peak_bytes, plan->naive_bytes / 3);
  EXPECT_LE(plan->peak_bytes, most_live + most_live / 8);
  // Weights: at least the checkpoint's float variables, which it reads.
  EXPECT_GT(plan->weight_bytes, 100 * 1000);
  // Activations scale with the batch.
  absl::StatusOr<MemoryPlan> one =
      model->PlanMemory("serving_default", {{"keras_tensor", {1, 96, 96, 3}}});
  ASSERT_TRUE(one.ok());
  EXPECT_LT(one->peak_bytes, plan->peak_bytes);
  EXPECT_EQ(one->weight_bytes, plan->weight_bytes);
}

TEST(MemoryPlanTest, TransformerAndLoopsReportUnplannedValues) {
  std::unique_ptr<Model> transformer = LoadZoo("transformer_small");
  ASSERT_NE(transformer, nullptr);
  absl::StatusOr<MemoryPlan> plan = transformer->PlanMemory(
      "serving_default", {{"input_ids", {2, 16}}, {"attention_mask", {2, 16}}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const int64_t most_live = CheckPlan(*plan);
  EXPECT_LE(plan->peak_bytes, most_live + most_live / 8);

  std::unique_ptr<Model> lstm = LoadZoo("lstm");
  ASSERT_NE(lstm, nullptr);
  absl::StatusOr<MemoryPlan> loops = lstm->PlanMemory("serving_default", {{"inputs", {2, 5, 6}}});
  ASSERT_TRUE(loops.ok()) << loops.status();
  CheckPlan(*loops);
  EXPECT_FALSE(loops->unplanned.empty());  // tensor lists: sizes known only at run time
}

// Every committed zoo case: the plan holds its invariants for the case's
// input shapes, and a profiled run of the same inputs executes the planned
// steps and makes tensors of the planned shapes.
TEST(MemoryPlanTest, ZooPlansMatchWhatARunMakes) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> zoo =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(zoo.ok()) << zoo.status();
  ASSERT_GE(zoo->size(), 10u);
  int checked_tensors = 0;
  for (const testing::ConformanceModel& m : *zoo) {
    SCOPED_TRACE(m.name);
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir);
    ASSERT_TRUE(model.ok()) << model.status();
    for (const testing::ConformanceCase& c : m.cases) {
      SCOPED_TRACE(c.name);
      absl::StatusOr<NamedTensors> inputs = testing::ReadInputs(c);
      ASSERT_TRUE(inputs.ok()) << inputs.status();
      for (const testing::CaseTensor& in : c.inputs) {  // .npy scalars are stored as [1]
        Tensor& t = (*inputs)[in.name];
        if (t.shape() != in.shape && t.num_elements() == 1) t = *t.Reshaped(in.shape);
      }
      std::map<std::string, Shape> shapes;
      for (const auto& [name, t] : *inputs) shapes[name] = t.shape();
      absl::StatusOr<MemoryPlan> plan = (*model)->PlanMemory(c.signature, shapes);
      ASSERT_TRUE(plan.ok()) << plan.status();
      CheckPlan(*plan);

      RunProfile profile;
      RunOptions options;
      options.profile = &profile;
      NamedTensors outputs;
      const int64_t held = (*model)->GetMemoryStats().bytes_in_use;
      (*model)->ResetPeakMemoryStats();
      ASSERT_TRUE((*model)->Run(c.signature, *inputs, &outputs, options).ok());
      const int64_t measured = (*model)->GetMemoryStats().peak_bytes_in_use - held;
      int64_t fetched = 0;
      for (const auto& [name, t] : outputs) fetched += static_cast<int64_t>(t.byte_size());
      // The run takes one block for the plan, and its outputs (fewer when
      // the last op wrote in place). Where every tensor is planned and no
      // kernel makes scratch tensors (unet's Conv2DTranspose does), that is
      // all it held: every planned tensor was made in its place. Keras's
      // shape arithmetic (Flatten, Conv2DTranspose output sizes) leaves
      // nothing unplanned.
      // The first call of these shapes also measures which CPU kernel each
      // fused conv and matmul takes (exec/kernel_choice.h): one measuring
      // output at a time, at most the largest planned tensor, comes on top.
      const bool exact = m.name == "mlp_bn_dropout" || m.name == "mobilenetv2_035_96";
      const int64_t block = (plan->peak_bytes + 63) / 64 * 64;
      int64_t largest = 0;
      for (const PlannedTensor& t : plan->tensors) largest = std::max(largest, t.bytes);
      if (exact) {
        EXPECT_GE(measured, block);
        EXPECT_LE(measured, block + fetched + largest);
      }

      // The run showed which outputs share an input's buffer; the next
      // plan has them as one and the next run holds that, with the same
      // results.
      absl::StatusOr<MemoryPlan> learned = (*model)->PlanMemory(c.signature, shapes);
      ASSERT_TRUE(learned.ok()) << learned.status();
      CheckPlan(*learned);
      EXPECT_LE(learned->peak_bytes, plan->peak_bytes);
      const int64_t held_again = (*model)->GetMemoryStats().bytes_in_use;
      (*model)->ResetPeakMemoryStats();
      NamedTensors again;
      RunProfile second;
      RunOptions second_options;
      second_options.profile = &second;
      ASSERT_TRUE((*model)->Run(c.signature, *inputs, &again, second_options).ok());
      // Every planned tensor took its place (the profile's arena counts);
      // graphs with TF1 control flow (Switch/Merge) run on the dataflow
      // executor, without an arena.
      const bool dataflow =
          m.name == "tf1_cond" || m.name == "tf1_while" || m.name == "tf1_dynamic_rnn";
      EXPECT_EQ(second.arena_misses, 0);
      EXPECT_EQ(second.arena_bytes, dataflow ? 0 : learned_block_bytes(*learned));
      if (learned->peak_bytes > 0 && !dataflow) {
        EXPECT_GT(second.arena_tensors, 0);
      }
      const int64_t measured_again = (*model)->GetMemoryStats().peak_bytes_in_use - held_again;
      const int64_t learned_block = (learned->peak_bytes + 63) / 64 * 64;
      if (exact) {
        EXPECT_GE(measured_again, learned_block);
        EXPECT_LE(measured_again, learned_block + fetched);
      }
      for (const auto& [name, t] : outputs) {
        ASSERT_TRUE(again.count(name)) << name;
        ASSERT_EQ(again[name].byte_size(), t.byte_size()) << name;
        if (t.dtype() == DataType::kString) {
          for (int64_t i = 0; i < t.num_elements(); ++i) {
            EXPECT_EQ(again[name].data<std::string>()[i], t.data<std::string>()[i]) << name;
          }
        } else {
          EXPECT_EQ(std::memcmp(again[name].raw_data(), t.raw_data(), t.byte_size()), 0) << name;
        }
      }
      if (m.name == "conv_autoencoder" || m.name == "transformer_small" || m.name == "unet_small" ||
          m.name == "mixed_f16_cnn") {
        EXPECT_TRUE(plan->unplanned.empty()) << plan->unplanned.size() << " unplanned, e.g. "
                                             << plan->unplanned.front();
      }
      std::map<std::string, const ProfileEvent*> ran;  // the signature's own steps
      for (const ProfileEvent& e : profile.events) {
        if (e.depth == 0) ran[e.node] = &e;
      }
      const std::set<std::string> steps(plan->steps.begin(), plan->steps.end());
      for (const auto& [node, e] : ran) EXPECT_TRUE(steps.count(node)) << node << " ran unplanned";
      for (const PlannedTensor& t : plan->tensors) {
        const size_t colon = t.tensor.rfind(':');
        auto e = ran.find(t.tensor.substr(0, colon));
        if (e == ran.end()) continue;  // a dead branch (Switch/Merge) did not run
        const size_t index = std::stoul(t.tensor.substr(colon + 1));
        ASSERT_LT(index, e->second->output_shapes.size()) << t.tensor;
        EXPECT_EQ(e->second->output_shapes[index], t.shape) << t.tensor;
        ++checked_tensors;
      }
    }
  }
  EXPECT_GT(checked_tensors, 500);
}

TEST(MemoryPlanTest, ShapesMustFitTheSignature) {
  std::unique_ptr<Model> model = LoadZoo("mlp_bn_dropout");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->PlanMemory("serving_default", {{"features", {2, 21}}}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->PlanMemory("serving_default", {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->PlanMemory("nope", {}).status().code(), absl::StatusCode::kNotFound);
}

// After Load the model holds its weights once: Keras exports 'serve' and
// 'serving_default' as one graph over the same variables, and the batch-norm
// folds of the two signatures share their filters; the variables that were
// folded into constants are dropped. Before, MobileNetV2 held its checkpoint
// plus one folded copy per signature.
TEST(MemoryPlanTest, LoadedModelHoldsItsWeightsOnceAcrossSignatures) {
  const std::string dir = testing::TestDataDir() + "/zoo/mobilenetv2_035_96/saved_model";
  LoadOptions one;
  one.signatures = {"serving_default"};
  absl::StatusOr<std::unique_ptr<Model>> single = Model::Load(dir, one);
  ASSERT_TRUE(single.ok()) << single.status();
  absl::StatusOr<std::unique_ptr<Model>> both = Model::Load(dir);
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ((*both)->signature_keys().size(), 2u);
  absl::StatusOr<MemoryPlan> plan =
      (*single)->PlanMemory("serving_default", {{"keras_tensor", {1, 96, 96, 3}}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const uint64_t weights = static_cast<uint64_t>(plan->weight_bytes);
  const uint64_t held_one = (*single)->GetMemoryStats().bytes_in_use;
  const uint64_t held_both = (*both)->GetMemoryStats().bytes_in_use;
  EXPECT_GE(held_one, weights);
  EXPECT_LT(held_one, weights + weights / 10) << "weights " << weights;
  EXPECT_LT(held_both, weights + weights / 10) << "weights " << weights;
  // The shared filters give both signatures the single signature's numbers.
  Tensor x = *Tensor::Create(DataType::kFloat, {1, 96, 96, 3});
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = 0.001f * (i % 997);
  absl::StatusOr<NamedTensors> want = (*single)->Run("serving_default", {{"keras_tensor", x}});
  ASSERT_TRUE(want.ok()) << want.status();
  for (const std::string key : {"serve", "serving_default"}) {
    absl::StatusOr<NamedTensors> got = (*both)->Run(key, {{"keras_tensor", x}});
    ASSERT_TRUE(got.ok()) << key << ": " << got.status();
    ASSERT_EQ(got->size(), 1u);
    const Tensor& a = got->begin()->second;
    const Tensor& b = want->begin()->second;
    ASSERT_EQ(a.shape(), b.shape()) << key;
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()), 0) << key;
  }
}

}  // namespace
}  // namespace smrt
