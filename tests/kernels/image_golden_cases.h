// The .rec goldens of the image preprocessing kernel tests
// (tests/data/kernels/image_adjust, written by
// tests/generators/kernel_goldens/image_adjust.py): per case <c>, the op
// (<c>.op), its inputs (<c>.in0, .in1...; float16 and bfloat16 as their
// uint16 bits with <c>.T naming the dtype; a string names an earlier case's
// input of the same value), its string and bool attrs (<c>.attr.<name>) and
// TensorFlow's output (<c>.y); per refused call, message.<key>.
#ifndef SMRT_TESTS_KERNELS_IMAGE_GOLDEN_CASES_H_
#define SMRT_TESTS_KERNELS_IMAGE_GOLDEN_CASES_H_

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/goldens.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels::image_goldens {

class CaseGoldens {
 public:
  // tests/data/kernels/image_adjust/<file>
  explicit CaseGoldens(const std::string& file)
      : rec_(::smrt::testing::TestDataDir() + "/kernels/image_adjust/" + file), all_(rec_.All()) {}

  // The cases of `op`, in name order.
  std::vector<std::string> Cases(const std::string& op) const {
    std::vector<std::string> cases;
    for (const auto& [name, t] : all_) {
      if (absl::EndsWith(name, ".op") && t.dtype() == DataType::kString &&
          t.data<std::string>()[0] == op) {
        cases.push_back(name.substr(0, name.size() - 3));
      }
    }
    return cases;
  }

  const Tensor* Find(const std::string& name) const {
    auto it = all_.find(name);
    return it == all_.end() ? nullptr : &it->second;
  }

  // The tensor `name`, following a reference to an earlier record and
  // turning uint16 bits into case `c`'s 16-bit float dtype.
  Tensor Tensor16(const std::string& c, const std::string& name) const {
    const Tensor* t = Find(name);
    if (t == nullptr) {
      ADD_FAILURE() << "no golden " << name;
      return Tensor();
    }
    if (t->dtype() == DataType::kString) return Tensor16(c, t->data<std::string>()[0]);
    const Tensor* dtype = Find(c + ".T");
    if (t->dtype() != DataType::kUInt16 || dtype == nullptr) return *t;
    const DataType real =
        dtype->data<std::string>()[0] == "bfloat16" ? DataType::kBFloat16 : DataType::kHalf;
    Tensor out = *Tensor::Create(real, t->shape());
    std::memcpy(out.raw_data(), t->raw_data(), t->byte_size());
    return out;
  }

  std::string Message(const std::string& key) const { return rec_.GetString("message." + key); }

  const std::map<std::string, Tensor>& all() const { return all_; }

 private:
  ::smrt::testing::RecGoldens rec_;
  std::map<std::string, Tensor> all_;
};

inline double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat:
      return t.data<float>()[i];
    case DataType::kDouble:
      return t.data<double>()[i];
    case DataType::kHalf:
      return static_cast<float>(t.data<Eigen::half>()[i]);
    case DataType::kBFloat16:
      return static_cast<float>(t.data<Eigen::bfloat16>()[i]);
    case DataType::kUInt8:
      return t.data<uint8_t>()[i];
    case DataType::kInt32:
      return t.data<int32_t>()[i];
    case DataType::kInt64:
      return static_cast<double>(t.data<int64_t>()[i]);
    default:
      ADD_FAILURE() << "unexpected dtype " << DataTypeName(t.dtype());
  }
  return 0;
}

// The spacing of a dtype's values at 1 (machine epsilon); 1 for integers.
inline double Epsilon(DataType t) {
  switch (t) {
    case DataType::kFloat:
      return std::ldexp(1.0, -23);
    case DataType::kDouble:
      return std::ldexp(1.0, -52);
    case DataType::kHalf:
      return std::ldexp(1.0, -10);
    case DataType::kBFloat16:
      return std::ldexp(1.0, -7);
    default:
      return 1;
  }
}

// The largest error of `got` against `want`, in units of the dtype's epsilon
// times max(|want|, 1): for images in [0, 1] a few float32 ulps of 1, for
// larger values the same number of ulps relative. NaN must meet NaN.
inline double MaxEpsilonError(const Tensor& got, const Tensor& want) {
  double worst = 0;
  const double eps = Epsilon(want.dtype());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double g = ElementAsDouble(got, i), w = ElementAsDouble(want, i);
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g)) return INFINITY;
      continue;
    }
    worst = std::max(worst, std::abs(g - w) / (eps * std::max(std::abs(w), 1.0)));
  }
  return worst;
}

// Runs every golden case of `op` and checks each output within `max_error`
// (MaxEpsilonError; 0 is bit for bit). Prints the largest error seen.
inline void RunCases(const CaseGoldens& goldens, const std::string& op, double max_error) {
  const std::vector<std::string> cases = goldens.Cases(op);
  ASSERT_FALSE(cases.empty()) << "no goldens for " << op;
  double worst = 0;
  for (const std::string& c : cases) {
    SCOPED_TRACE(c);
    std::vector<Tensor> inputs;
    for (int i = 0; goldens.Find(c + ".in" + std::to_string(i)) != nullptr; ++i) {
      inputs.push_back(goldens.Tensor16(c, c + ".in" + std::to_string(i)));
    }
    AttrMap attrs;
    attrs.Set(absl::StartsWith(op, "ImageProjectiveTransform") ? "dtype" : "T", inputs[0].dtype());
    const std::string prefix = c + ".attr.";
    for (const auto& [name, t] : goldens.all()) {
      if (!absl::StartsWith(name, prefix)) continue;
      const std::string attr = name.substr(prefix.size());
      if (t.dtype() == DataType::kBool) {
        attrs.Set(attr, t.data<bool>()[0]);
      } else {
        attrs.Set(attr, t.data<std::string>()[0]);
      }
    }
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = goldens.Tensor16(c, c + ".y");
    ASSERT_EQ((*out)[0].dtype(), want.dtype());
    ASSERT_EQ((*out)[0].shape(), want.shape());
    const double error = MaxEpsilonError((*out)[0], want);
    EXPECT_LE(error, max_error);
    worst = std::max(worst, error);
  }
  std::printf("[   INFO   ] %s: %zu cases, largest error %g epsilon\n", op.c_str(), cases.size(),
              worst);
}

// `status` is TensorFlow's message.<key> (smrt may say more around it), with
// code `code`.
inline void ExpectTfMessage(const CaseGoldens& goldens,
                            const absl::StatusOr<std::vector<Tensor>>& out, const std::string& key,
                            absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  SCOPED_TRACE(key);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), code) << out.status();
  const std::string want = goldens.Message(key);
  EXPECT_TRUE(absl::StrContains(out.status().message(), want))
      << out.status() << "\nwant: " << want;
}

}  // namespace smrt::kernels::image_goldens

#endif  // SMRT_TESTS_KERNELS_IMAGE_GOLDEN_CASES_H_
