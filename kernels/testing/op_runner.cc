#include "kernels/testing/op_runner.h"

#include <cmath>
#include <complex>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::kernels::testing {
namespace {

absl::StatusOr<int> NumOutputs(const OpSpec& spec, const AttrMap& attrs, int num_inputs) {
  if (!spec.num_outputs) return 1;
  return spec.num_outputs(attrs, num_inputs);
}

double AsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kInt32: return t.data<int32_t>()[i];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kInt8: return t.data<int8_t>()[i];
    case DataType::kInt16: return t.data<int16_t>()[i];
    case DataType::kUInt8: return t.data<uint8_t>()[i];
    case DataType::kUInt16: return t.data<uint16_t>()[i];
    case DataType::kUInt32: return t.data<uint32_t>()[i];
    case DataType::kUInt64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<bool>()[i] ? 1 : 0;
    case DataType::kHalf: return static_cast<float>(t.data<Eigen::half>()[i]);
    case DataType::kBFloat16: return static_cast<float>(t.data<Eigen::bfloat16>()[i]);
    // Complex tensors as their parts: i counts real and imaginary parts.
    case DataType::kComplex64: return static_cast<const float*>(t.raw_data())[i];
    case DataType::kComplex128: return static_cast<const double*>(t.raw_data())[i];
    default: return std::nan("");
  }
}

}  // namespace

absl::StatusOr<std::vector<ValueInfo>> InferOp(const std::string& op, AttrMap attrs,
                                               const std::vector<ValueInfo>& inputs,
                                               const std::vector<const Tensor*>& values) {
  const KernelRegistry& registry = KernelRegistry::Default();
  const OpSpec* spec = registry.FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(absl::StrCat("op ", op, " is not registered"));
  ApplyAttrDefaults(*spec, attrs);
  absl::StatusOr<int> n = NumOutputs(*spec, attrs, static_cast<int>(inputs.size()));
  if (!n.ok()) return n.status();
  InferenceContext ctx("test_node", op, attrs, inputs, values, *n);
  if (!spec->infer) return absl::InternalError(absl::StrCat("op ", op, " has no shape inference"));
  if (absl::Status s = spec->infer(ctx); !s.ok()) return s;
  return ctx.outputs();
}

absl::StatusOr<std::vector<Tensor>> RunOp(const std::string& op, AttrMap attrs,
                                          std::vector<Tensor> inputs) {
  const KernelRegistry& registry = KernelRegistry::Default();
  const OpSpec* spec = registry.FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(absl::StrCat("op ", op, " is not registered"));
  ApplyAttrDefaults(*spec, attrs);

  std::vector<ValueInfo> infos;
  std::vector<const Tensor*> values;
  for (const Tensor& t : inputs) {
    infos.push_back(ValueInfo{t.dtype(), PartialShape::Known(t.shape())});
    values.push_back(&t);
  }
  absl::StatusOr<std::vector<ValueInfo>> unknown = InferOp(op, attrs, infos, {});
  if (!unknown.ok()) return unknown.status();
  absl::StatusOr<std::vector<ValueInfo>> known = InferOp(op, attrs, infos, values);
  if (!known.ok()) return known.status();

  absl::StatusOr<const KernelSpec*> kernel = registry.FindKernel(op, kCpu, attrs);
  if (!kernel.ok()) return kernel.status();
  KernelContext ctx("test_node", op, attrs, inputs, static_cast<int>(known->size()));
  if (absl::Status s = (*kernel)->compute(ctx); !s.ok()) return s;

  std::vector<Tensor> outputs = ctx.outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    if (!out.valid()) {
      return absl::InternalError(absl::StrCat(op, " did not set output ", i));
    }
    for (const auto* inferred : {&(*unknown)[i], &(*known)[i]}) {
      if (inferred->dtype != out.dtype()) {
        return absl::InternalError(absl::StrCat(op, " output ", i, ": inferred dtype ",
                                                DataTypeName(inferred->dtype), ", kernel produced ",
                                                DataTypeName(out.dtype())));
      }
      if (!inferred->shape.IsCompatibleWith(out.shape())) {
        return absl::InternalError(absl::StrCat(op, " output ", i, ": inferred shape ",
                                                inferred->shape.ToString(), ", kernel produced ",
                                                ShapeToString(out.shape())));
      }
    }
  }
  return outputs;
}

::testing::AssertionResult TensorsNear(const Tensor& actual, const Tensor& expected, double atol,
                                       double rtol) {
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << DataTypeName(actual.dtype())
                                         << " != expected " << DataTypeName(expected.dtype());
  }
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << ShapeToString(actual.shape())
                                         << " != expected " << ShapeToString(expected.shape());
  }
  int bad = 0;
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  std::string report;
  const bool complex =
      actual.dtype() == DataType::kComplex64 || actual.dtype() == DataType::kComplex128;
  for (int64_t i = 0; i < actual.num_elements() * (complex ? 2 : 1); ++i) {
    bool ok;
    std::string a_text, e_text;
    if (actual.dtype() == DataType::kString) {
      ok = actual.data<std::string>()[i] == expected.data<std::string>()[i];
      a_text = actual.data<std::string>()[i];
      e_text = expected.data<std::string>()[i];
    } else {
      double a = AsDouble(actual, i);
      double e = AsDouble(expected, i);
      const DataType t = actual.dtype();
      const bool is_float = t == DataType::kFloat || t == DataType::kDouble ||
                            t == DataType::kHalf || t == DataType::kBFloat16 || complex;
      ok = is_float ? ((std::isnan(a) && std::isnan(e)) || a == e ||
                       std::fabs(a - e) <= atol + rtol * std::fabs(e))
                    : a == e;
      a_text = absl::StrCat(a);
      e_text = absl::StrCat(e);
    }
    if (!ok && ++bad <= 5) {
      absl::StrAppend(&report, "\n  [", i, "] ", a_text, " vs expected ", e_text);
    }
  }
  if (bad > 0) {
    return ::testing::AssertionFailure() << bad << " of " << actual.num_elements()
                                         << " elements differ (atol " << atol << ", rtol " << rtol
                                         << "):" << report;
  }
  return result;
}

Tensor RandomFloats(const Shape& shape, uint32_t seed, float lo, float hi) {
  Tensor t = *Tensor::Create(DataType::kFloat, shape);
  uint32_t s = seed * 747796405u + 2891336453u;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f;
  }
  return t;
}

absl::StatusOr<Tensor> RunKernel(const KernelSpec& k, AttrMap attrs, std::vector<Tensor> inputs,
                                 KernelState* state) {
  ApplyAttrDefaults(*KernelRegistry::Default().FindOp(k.op), attrs);
  KernelContext ctx("node", k.op, attrs, std::move(inputs), 1);
  ctx.set_kernel_state(state);
  if (absl::Status s = k.compute(ctx); !s.ok()) return s;
  return ctx.output(0);
}

}  // namespace smrt::kernels::testing
