// QuantizeAndDequantizeV2/V3/V4 against TensorFlow 2.21, bit for bit
// (tests/generators/kernel_goldens/quantize_dequantize.py): signed and
// unsigned, 4/8/16 bits, range given or from the data, both round modes,
// narrow range, per channel along a middle and the last axis, and
// TensorFlow's errors.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/attr_map.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "kernels/elementwise_test_util.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

Tensor QdqGolden(const std::string& name) {
  return ReadGolden("kernels/quantize_dequantize/" + name);
}

const std::map<std::string, std::string>& Messages() {
  static const auto* messages = [] {
    auto* m = new std::map<std::string, std::string>;
    absl::StatusOr<std::string> text =
        file::ReadAll(smrt::testing::TestDataDir() + "/kernels/quantize_dequantize/messages.txt");
    EXPECT_TRUE(text.ok()) << text.status();
    for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
      (*m)[parts[0]] = parts.size() > 1 ? parts[1] : "";
    }
    return m;
  }();
  return *messages;
}

void ExpectTfError(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& name) {
  ASSERT_FALSE(out.ok()) << name;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::EndsWith(out.status().message(), Messages().at(name)))
      << out.status() << "\nwant: " << Messages().at(name);
}

Tensor Value(DataType t, double v) {
  return t == DataType::kFloat ? Scalar<float>(static_cast<float>(v)) : Scalar<double>(v);
}

TEST(QuantizeDequantizeOpsTest, PerTensorMatchesTensorFlowBitForBit) {
  for (const auto& [dt, type] : std::vector<std::pair<std::string, DataType>>{
           {"f32", DataType::kFloat}, {"f64", DataType::kDouble}}) {
    const Tensor x = QdqGolden("x_" + dt);
    const Tensor v2 = QdqGolden("v2_" + dt), v3 = QdqGolden("v3_" + dt), v4 = QdqGolden("v4_" + dt);
    int64_t row = 0, row3 = 0;
    for (bool is_signed : {true, false}) {
      for (int bits : {8, 4, 16}) {
        for (bool given : {false, true}) {
          for (const std::string mode : {"HALF_TO_EVEN", "HALF_UP"}) {
            for (bool narrow : {false, true}) {
              const std::string what =
                  absl::StrCat(dt, " signed ", is_signed, " bits ", bits, " given ", given, " ",
                               mode, " narrow ", narrow);
              SCOPED_TRACE(what);
              const double lo = is_signed ? -2.5 : 0.0, hi = 4.0;
              AttrMap a;
              a.Set("T", type);
              a.Set("signed_input", is_signed);
              a.Set("range_given", given);
              a.Set("narrow_range", narrow);
              AttrMap a2 = a;
              a2.Set("num_bits", int64_t{bits});
              a2.Set("round_mode", mode);
              const std::vector<Tensor> in = {x, Value(type, lo), Value(type, hi)};
              for (const auto& [op, want] : std::vector<std::pair<std::string, const Tensor*>>{
                       {"QuantizeAndDequantizeV2", &v2}, {"QuantizeAndDequantizeV4", &v4}}) {
                absl::StatusOr<std::vector<Tensor>> out = RunOp(op, a2, in);
                ASSERT_TRUE(out.ok()) << out.status();
                EXPECT_TRUE(TensorsNear((*out)[0], Slice(*want, row), 0, 0)) << op;
              }
              ++row;
              if (mode == "HALF_TO_EVEN") {
                std::vector<Tensor> in3 = in;
                in3.push_back(Scalar<int32_t>(bits));
                absl::StatusOr<std::vector<Tensor>> out = RunOp("QuantizeAndDequantizeV3", a, in3);
                ASSERT_TRUE(out.ok()) << out.status();
                EXPECT_TRUE(TensorsNear((*out)[0], Slice(v3, row3), 0, 0)) << "V3";
                ++row3;
              }
            }
          }
        }
      }
    }
    EXPECT_EQ(row, v2.dim(0));
    EXPECT_EQ(row3, v3.dim(0));
  }
}

TEST(QuantizeDequantizeOpsTest, PerChannelMatchesTensorFlowBitForBit) {
  for (const auto& [dt, type] : std::vector<std::pair<std::string, DataType>>{
           {"f32", DataType::kFloat}, {"f64", DataType::kDouble}}) {
    const Tensor x = QdqGolden("x3_" + dt);  // [2, 3, 4]
    for (int axis : {1, 2}) {
      const Tensor lo = QdqGolden(absl::StrCat("axis", axis, "_lo_", dt));
      const Tensor hi = QdqGolden(absl::StrCat("axis", axis, "_hi_", dt));
      for (bool given : {false, true}) {
        for (bool narrow : {false, true}) {
          const std::string name = absl::StrCat("axis", axis, "_", dt, "_", given, "_", narrow);
          SCOPED_TRACE(name);
          AttrMap a;
          a.Set("T", type);
          a.Set("range_given", given);
          a.Set("narrow_range", narrow);
          a.Set("axis", int64_t{axis});
          const std::vector<Tensor> in = {x, lo, hi};
          if (!given) {
            absl::StatusOr<std::vector<Tensor>> out = RunOp("QuantizeAndDequantizeV2", a, in);
            ASSERT_TRUE(out.ok()) << out.status();
            EXPECT_TRUE(TensorsNear((*out)[0], QdqGolden(name), 0, 0));
          }
          std::vector<Tensor> in3 = in;
          in3.push_back(Scalar<int32_t>(8));
          absl::StatusOr<std::vector<Tensor>> out = RunOp("QuantizeAndDequantizeV3", a, in3);
          ASSERT_TRUE(out.ok()) << out.status();
          EXPECT_TRUE(TensorsNear((*out)[0], QdqGolden(name + "_v3"), 0, 0)) << "V3";
        }
      }
    }
  }
}

TEST(QuantizeDequantizeOpsTest, RefusesWhatTensorFlowRefuses) {
  const Tensor z = *Tensor::Create(DataType::kFloat, {2, 3});
  const Tensor zero = Scalar<float>(0), one = Scalar<float>(1);
  const Tensor v3 = *Tensor::Create(DataType::kFloat, {3}),
               v2 = *Tensor::Create(DataType::kFloat, {2});
  auto v2op = [&](std::vector<std::pair<std::string, AttrValue>> attrs, Tensor lo, Tensor hi) {
    AttrMap a;
    a.Set("T", DataType::kFloat);
    for (auto& [k, v] : attrs) a.Set(k, v);
    return RunOp("QuantizeAndDequantizeV2", a, {z, lo, hi});
  };
  auto v3op = [&](std::vector<std::pair<std::string, AttrValue>> attrs, Tensor lo, Tensor hi,
                  Tensor bits) {
    AttrMap a;
    a.Set("T", DataType::kFloat);
    for (auto& [k, v] : attrs) a.Set(k, v);
    return RunOp("QuantizeAndDequantizeV3", a, {z, lo, hi, bits});
  };
  ExpectTfError(v2op({{"num_bits", int64_t{0}}}, zero, one), "bits_zero");
  ExpectTfError(v2op({{"num_bits", int64_t{63}}, {"signed_input", false}}, zero, one),
                "bits_unsigned");
  ExpectTfError(v2op({{"round_mode", std::string("HALF_DOWN")}}, zero, one), "round_mode");
  ExpectTfError(v2op({{"axis", int64_t{-2}}}, zero, one), "axis_low");
  ExpectTfError(v2op({{"axis", int64_t{2}}}, v3, v3), "axis_high");
  ExpectTfError(v2op({{"range_given", true}}, one, zero), "range");
  ExpectTfError(v2op({{"range_given", true}}, v3, one), "min_scalar");
  ExpectTfError(v2op({{"range_given", true}, {"axis", int64_t{1}}}, zero, v3), "max_scalar");
  ExpectTfError(v2op({{"range_given", true}, {"axis", int64_t{1}}}, zero, one), "axis_given");
  ExpectTfError(v3op({{"axis", int64_t{1}}}, v2, v3, Scalar<int32_t>(8)), "v3_min_size");
  ExpectTfError(v3op({{"axis", int64_t{1}}}, v3, v2, Scalar<int32_t>(8)), "v3_max_size");
  ExpectTfError(v3op({{"axis", int64_t{2}}}, zero, one, Scalar<int32_t>(8)), "v3_axis");
  ExpectTfError(v3op({}, zero, one, MakeTensor<int32_t>({1}, {8})), "v3_bits_shape");
  ExpectTfError(v3op({}, zero, one, Scalar<int32_t>(62)), "v3_bits");
  ExpectTfError(v3op({}, one, zero, Scalar<int32_t>(8)), "v3_range");
}

}  // namespace
}  // namespace smrt::kernels
