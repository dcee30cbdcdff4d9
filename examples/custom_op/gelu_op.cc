// A custom op library: TensorFlow Addons' Gelu ("Addons>Gelu"), which core
// TensorFlow does not have, for smrt (smrt/custom_op.h). Built against the
// installed smrt's headers only: it links nothing of smrt, and reaches smrt
// through the table SmrtRegisterCustomOps is given.
//
//   smrt run --dir model --signature_def serving_default
//       --input_exprs 'x=[[1, 2, 3, 4]]' --custom_op_library ./libsmrt_gelu_op.so
#include <cmath>
#include <cstdint>

#include "smrt/custom_op_cxx.h"

namespace {

using smrt::custom::InputTensor;
using smrt::custom::KernelContext;
using smrt::custom::Status;

// As TensorFlow Addons' GeluOp: with approximate, the tanh form
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); else 0.5 x (1 + erf(x / sqrt(2))).
template <typename T>
void Gelu(const T* x, T* y, int64_t n, bool approximate) {
  const T kAlpha = static_cast<T>(0.7978845608028654);  // sqrt(2 / pi)
  const T kBeta = static_cast<T>(0.044715);
  const T kRsqrt2 = static_cast<T>(0.7071067811865476);  // 1 / sqrt(2)
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    y[i] = approximate ? T(0.5) * v * (T(1) + std::tanh(kAlpha * (v + kBeta * v * v * v)))
                       : T(0.5) * v * (T(1) + std::erf(v * kRsqrt2));
  }
}

template <typename T>
Status Compute(KernelContext& c, const InputTensor& x, bool approximate) {
  T* y = nullptr;
  if (Status s = c.AllocateOutput(0, x.dtype(), x.dims(), &y); !s.ok()) return s;
  Gelu(x.data<T>(), y, x.element_count(), approximate);
  return Status();
}

}  // namespace

extern "C" SMRT_CUSTOM_OP_EXPORT SmrtStatus* SmrtRegisterCustomOps(SmrtCustomOpRegistry* registry,
                                                                   const SmrtCustomOpApi* api) {
  smrt::custom::Registry r(registry, api);
  return r.ToC(
      r.Add(smrt::custom::OpDef("Addons>Gelu")
                .Input("features", {SMRT_FLOAT, SMRT_DOUBLE})
                .Output("activations", {SMRT_FLOAT, SMRT_DOUBLE})
                .Attr("approximate", SMRT_ATTR_BOOL)
                .Shape([](smrt::custom::ShapeContext& c) { return c.CopyInputToOutput(0, 0); })
                .Compute([](KernelContext& c) -> Status {
                  bool approximate = true;  // Addons' default, which exports may strip
                  if (Status s = c.attrs().GetOr("approximate", true, &approximate); !s.ok())
                    return s;
                  InputTensor x;
                  if (Status s = c.Input(0, &x); !s.ok()) return s;
                  return x.dtype() == SMRT_DOUBLE ? Compute<double>(c, x, approximate)
                                                  : Compute<float>(c, x, approximate);
                })));
}
