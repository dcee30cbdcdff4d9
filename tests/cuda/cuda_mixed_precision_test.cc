// float16 and bfloat16 on CUDA (Keras mixed precision). Without a GPU: what
// is registered, and the per-element formulas the kernels run (half_math.h,
// elementwise_math.h, cast.h) evaluated on the host against the CPU kernels,
// bit for bit, over every 16-bit pattern (operand pairs sampled). With a GPU:
// each kernel against the CPU kernel, bit for bit where the CPU's float
// arithmetic is the GPU's, else within a few units in the last 16-bit place.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/cast.h"
#include "kernels/cuda/elementwise_math.h"
#include "kernels/cuda/half_math.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

constexpr DataType kHalfTypes[] = {DataType::kHalf, DataType::kBFloat16};

template <typename T>
uint16_t BitsOf(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<__half_raw>(v).x;
  } else {
    return static_cast<__nv_bfloat16_raw>(v).x;
  }
}

template <typename T>
T FromBits(uint16_t b) {
  if constexpr (std::is_same_v<T, __half>) {
    __half_raw r;
    r.x = b;
    return __half(r);
  } else {
    __nv_bfloat16_raw r;
    r.x = b;
    return __nv_bfloat16(r);
  }
}

// A 1-D tensor of 16-bit elements with the given bit patterns.
Tensor FromPatterns(DataType t, const std::vector<uint16_t>& bits) {
  absl::StatusOr<Tensor> out = Tensor::Create(t, {static_cast<int64_t>(bits.size())});
  EXPECT_TRUE(out.ok()) << out.status();
  std::memcpy(out->raw_data(), bits.data(), bits.size() * sizeof(uint16_t));
  return *out;
}

std::vector<uint16_t> AllPatterns() {
  std::vector<uint16_t> v(65536);
  for (int i = 0; i < 65536; ++i) v[i] = static_cast<uint16_t>(i);
  return v;
}

std::vector<uint16_t> RandomPatterns(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> v(n);
  for (uint16_t& x : v) x = static_cast<uint16_t>(rng());
  return v;
}

// Floats whose 16-bit rounding is delicate: zeros, infinities, NaNs of both
// signs and payloads, the float16 subnormal and overflow edges, ties
// between neighbouring 16-bit values, and a sweep over every exponent.
std::vector<float> HardFloats() {
  std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                0xffc00000u, 0x7f800001u, 0x7fbfffffu, 0xff812345u, 0x00000001u,
                                0x807fffffu, 0x33000000u, 0x33000001u, 0x337fffffu, 0x387fc000u,
                                0x38800000u, 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477fffffu,
                                0x47800000u, 0x7f7fffffu, 0x3f801000u, 0x3f803000u, 0x3f808000u,
                                0x3f818000u, 0x3f807fffu, 0x3f800001u};
  for (uint32_t e = 0; e < 256; ++e) {
    for (uint32_t m : {0x000000u, 0x001000u, 0x002000u, 0x003000u, 0x008000u, 0x018000u,
                       0x7fffffu, 0x400000u}) {
      bits.push_back((e << 23) | m);
      bits.push_back(0x80000000u | (e << 23) | m);
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) bits.push_back(static_cast<uint32_t>(rng()));
  std::vector<float> out;
  for (uint32_t u : bits) out.push_back(FloatFromBits(u));
  return out;
}

bool IsNanBits(DataType t, uint16_t b) {
  return t == DataType::kHalf ? (b & 0x7fffu) > 0x7c00u : (b & 0x7fffu) > 0x7f80u;
}

TEST(CudaMixedPrecisionTest, KernelsAreRegisteredForFloat16AndBFloat16) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : kHalfTypes) {
    for (const char* op :
         {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference",
          "Relu", "Relu6", "Neg", "Square", "Abs", "Sigmoid", "Tanh", "Exp", "Sqrt", "Rsqrt", "Elu",
          "Log", "Log1p", "Erf", "Erfc", "Floor", "Ceil", "Reciprocal", "LeakyRelu", "Less",
          "Equal", "BiasAdd", "MatMul", "BatchMatMulV2", "_SmrtFusedMatMul", "MaxPool",
          "AvgPool", "Softplus", "Softsign", "Selu", "Sign", "Round", "Sin", "Cos", "Expm1",
          "IsNan", "IsFinite", "LogSoftmax"}) {
      EXPECT_TRUE(r.FindKernel(op, kCudaDevice, TypeAttr(t)).ok()) << op << " " << DataTypeName(t);
    }
    AttrMap einsum = TypeAttr(t);
    einsum.Set("equation", std::string("abc,cde->abde"));  // served per equation
    EXPECT_TRUE(r.FindKernel("Einsum", kCudaDevice, einsum).ok()) << DataTypeName(t);
    AttrMap cast = TypeAttr(t, "SrcT");
    cast.Set("DstT", DataType::kFloat);
    EXPECT_TRUE(r.FindKernel("Cast", kCudaDevice, cast).ok()) << DataTypeName(t);
    cast = TypeAttr(DataType::kFloat, "SrcT");
    cast.Set("DstT", t);
    EXPECT_TRUE(r.FindKernel("Cast", kCudaDevice, cast).ok()) << DataTypeName(t);
    // Convolutions: a float16/bfloat16 kernel exists (served where cuDNN loads).
    for (const char* op : {"Conv2D", "DepthwiseConv2dNative", "_SmrtFusedConv2D"}) {
      bool found = false;
      for (const KernelSpec& k : r.Kernels(op)) {
        if (k.device != kCudaDevice) continue;
        for (DataType kt : k.types) found = found || kt == t;
      }
      EXPECT_TRUE(found) << op << " " << DataTypeName(t);
    }
  }
}

// Narrow is the CPU's rounding (Eigen's float to half/bfloat16), NaNs included.
TEST(CudaMixedPrecisionTest, NarrowRoundsAsTheCpu) {
  int checked = 0;
  for (float f : HardFloats()) {
    const uint16_t want_half = Eigen::numext::bit_cast<uint16_t>(Eigen::half(f));
    const uint16_t want_bf16 = Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(f));
    ASSERT_EQ(BitsOf(Narrow<__half>(f)), want_half) << "float bits 0x" << std::hex << FloatBits(f);
    ASSERT_EQ(BitsOf(Narrow<__nv_bfloat16>(f)), want_bf16)
        << "float bits 0x" << std::hex << FloatBits(f);
    ++checked;
  }
  // Widening is exact (a NaN stays a NaN; CUDA's host conversion does not
  // keep its payload or sign, which no kernel's result depends on).
  for (uint16_t b : AllPatterns()) {
    const float half = Widen(FromBits<__half>(b));
    const float want_half = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(b));
    const float bf16 = Widen(FromBits<__nv_bfloat16>(b));
    const float want_bf16 = static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(b));
    ASSERT_TRUE(FloatBits(half) == FloatBits(want_half) ||
                (std::isnan(half) && std::isnan(want_half)))
        << b;
    ASSERT_TRUE(FloatBits(bf16) == FloatBits(want_bf16) ||
                (std::isnan(bf16) && std::isnan(want_bf16)))
        << b;
  }
  EXPECT_GT(checked, 100000);
}

template <typename T>
float HostUnary(UnaryOp op, float x, float alpha) {
  switch (op) {
#define SMRT_UNARY_CASE(k) \
  case UnaryOp::k: return ApplyUnary<UnaryOp::k, T>(x, alpha);
    SMRT_UNARY_CASE(kRelu)
    SMRT_UNARY_CASE(kRelu6)
    SMRT_UNARY_CASE(kNeg)
    SMRT_UNARY_CASE(kSquare)
    SMRT_UNARY_CASE(kAbs)
    SMRT_UNARY_CASE(kSigmoid)
    SMRT_UNARY_CASE(kTanh)
    SMRT_UNARY_CASE(kExp)
    SMRT_UNARY_CASE(kSqrt)
    SMRT_UNARY_CASE(kRsqrt)
    SMRT_UNARY_CASE(kElu)
    SMRT_UNARY_CASE(kLog)
    SMRT_UNARY_CASE(kLog1p)
    SMRT_UNARY_CASE(kErf)
    SMRT_UNARY_CASE(kErfc)
    SMRT_UNARY_CASE(kFloor)
    SMRT_UNARY_CASE(kCeil)
    SMRT_UNARY_CASE(kReciprocal)
    SMRT_UNARY_CASE(kLeakyRelu)
    SMRT_UNARY_CASE(kSoftplus)
    SMRT_UNARY_CASE(kSoftsign)
    SMRT_UNARY_CASE(kSelu)
    SMRT_UNARY_CASE(kSign)
    SMRT_UNARY_CASE(kRound)
    SMRT_UNARY_CASE(kSin)
    SMRT_UNARY_CASE(kCos)
    SMRT_UNARY_CASE(kExpm1)
#undef SMRT_UNARY_CASE
  }
  return 0;
}

struct NamedUnary {
  const char* op;
  UnaryOp kind;
};
const NamedUnary kUnaries[] = {
    {"Relu", UnaryOp::kRelu},     {"Relu6", UnaryOp::kRelu6},  {"Neg", UnaryOp::kNeg},
    {"Square", UnaryOp::kSquare}, {"Abs", UnaryOp::kAbs},      {"Sigmoid", UnaryOp::kSigmoid},
    {"Tanh", UnaryOp::kTanh},     {"Exp", UnaryOp::kExp},      {"Sqrt", UnaryOp::kSqrt},
    {"Rsqrt", UnaryOp::kRsqrt},   {"Elu", UnaryOp::kElu},      {"Log", UnaryOp::kLog},
    {"Log1p", UnaryOp::kLog1p},   {"Erf", UnaryOp::kErf},      {"Erfc", UnaryOp::kErfc},
    {"Floor", UnaryOp::kFloor},   {"Ceil", UnaryOp::kCeil},    {"Reciprocal", UnaryOp::kReciprocal},
    {"LeakyRelu", UnaryOp::kLeakyRelu}, {"Softplus", UnaryOp::kSoftplus},
    {"Softsign", UnaryOp::kSoftsign},   {"Selu", UnaryOp::kSelu},
    {"Sign", UnaryOp::kSign},           {"Round", UnaryOp::kRound},
    {"Sin", UnaryOp::kSin},             {"Cos", UnaryOp::kCos},
    {"Expm1", UnaryOp::kExpm1}};

template <typename T>
void ExpectUnariesMatchTheCpu(DataType t) {
  const std::vector<uint16_t> patterns = AllPatterns();
  const Tensor x = FromPatterns(t, patterns);
  const float alpha = 0.3f;  // not a 16-bit value: LeakyRelu rounds it first
  for (const NamedUnary& u : kUnaries) {
    AttrMap attrs = TypeAttr(t);
    if (u.kind == UnaryOp::kLeakyRelu) attrs.Set("alpha", alpha);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(u.op, attrs, {x});
    ASSERT_TRUE(cpu.ok()) << u.op << ": " << cpu.status();
    const auto* want = static_cast<const uint16_t*>((*cpu)[0].raw_data());
    int bad = 0;
    // Softplus takes its threshold where LeakyRelu takes its slope.
    const float a = u.kind == UnaryOp::kSoftplus ? SoftplusThreshold<T>() : alpha;
    for (size_t i = 0; i < patterns.size(); ++i) {
      const uint16_t got =
          BitsOf(Narrow<T>(HostUnary<T>(u.kind, Widen(FromBits<T>(patterns[i])), a)));
      const bool same = got == want[i] || (IsNanBits(t, got) && IsNanBits(t, want[i]));
      if (!same && ++bad <= 3) {
        ADD_FAILURE() << u.op << " " << DataTypeName(t) << " of 0x" << std::hex << patterns[i]
                      << ": 0x" << got << ", the CPU gives 0x" << want[i];
      }
    }
    EXPECT_EQ(bad, 0) << u.op << " " << DataTypeName(t);
  }
}

TEST(CudaMixedPrecisionTest, UnaryFormulasMatchTheCpuForEveryPattern) {
  ExpectUnariesMatchTheCpu<__half>(DataType::kHalf);
  ExpectUnariesMatchTheCpu<__nv_bfloat16>(DataType::kBFloat16);
}

template <typename T>
void ExpectClassifiesMatchTheCpu(DataType t) {
  const std::vector<uint16_t> patterns = AllPatterns();
  const Tensor x = FromPatterns(t, patterns);
  for (const auto& [op, kind] : {std::pair{"IsNan", ClassifyOp::kIsNan},
                                 std::pair{"IsFinite", ClassifyOp::kIsFinite}}) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, TypeAttr(t), {x});
    ASSERT_TRUE(cpu.ok()) << op << ": " << cpu.status();
    int bad = 0;
    for (size_t i = 0; i < patterns.size(); ++i) {
      const float v = Widen(FromBits<T>(patterns[i]));
      const bool got = kind == ClassifyOp::kIsNan ? ApplyClassify<ClassifyOp::kIsNan>(v)
                                                  : ApplyClassify<ClassifyOp::kIsFinite>(v);
      if (got != (*cpu)[0].data<bool>()[i] && ++bad <= 3) {
        ADD_FAILURE() << op << " " << DataTypeName(t) << " of 0x" << std::hex << patterns[i];
      }
    }
    EXPECT_EQ(bad, 0) << op << " " << DataTypeName(t);
  }
}

TEST(CudaMixedPrecisionTest, IsNanAndIsFiniteMatchTheCpuForEveryPattern) {
  ExpectClassifiesMatchTheCpu<__half>(DataType::kHalf);
  ExpectClassifiesMatchTheCpu<__nv_bfloat16>(DataType::kBFloat16);
}

template <typename T>
float HostBinary(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd: return ApplyBinary<BinaryOp::kAdd, T>(a, b);
    case BinaryOp::kSub: return ApplyBinary<BinaryOp::kSub, T>(a, b);
    case BinaryOp::kMul: return ApplyBinary<BinaryOp::kMul, T>(a, b);
    case BinaryOp::kDiv: return ApplyBinary<BinaryOp::kDiv, T>(a, b);
    case BinaryOp::kMaximum: return ApplyBinary<BinaryOp::kMaximum, T>(a, b);
    case BinaryOp::kMinimum: return ApplyBinary<BinaryOp::kMinimum, T>(a, b);
    case BinaryOp::kSquaredDifference: return ApplyBinary<BinaryOp::kSquaredDifference, T>(a, b);
    case BinaryOp::kDivNoNan: return ApplyBinary<BinaryOp::kDivNoNan, T>(a, b);
    case BinaryOp::kReluGrad: return ApplyBinary<BinaryOp::kReluGrad, T>(a, b);
  }
  return 0;
}

bool HostCompare(CompareOp op, float a, float b) {
  switch (op) {
    case CompareOp::kLess: return ApplyCompare<CompareOp::kLess>(a, b);
    case CompareOp::kLessEqual: return ApplyCompare<CompareOp::kLessEqual>(a, b);
    case CompareOp::kGreater: return ApplyCompare<CompareOp::kGreater>(a, b);
    case CompareOp::kGreaterEqual: return ApplyCompare<CompareOp::kGreaterEqual>(a, b);
    case CompareOp::kEqual: return ApplyCompare<CompareOp::kEqual>(a, b);
    case CompareOp::kNotEqual: return ApplyCompare<CompareOp::kNotEqual>(a, b);
    default: return false;
  }
}

template <typename T>
void ExpectBinariesMatchTheCpu(DataType t) {
  // Random pairs, plus every pattern against a few fixed operands.
  std::vector<uint16_t> a = RandomPatterns(65536, 11), b = RandomPatterns(65536, 12);
  for (uint16_t fixed : {uint16_t{0x0000}, uint16_t{0x8000}, BitsOf(Narrow<T>(1.0f)),
                         BitsOf(Narrow<T>(-2.5f)), BitsOf(Narrow<T>(INFINITY))}) {
    for (uint16_t p : AllPatterns()) {
      a.push_back(p);
      b.push_back(fixed);
    }
  }
  const Tensor ta = FromPatterns(t, a), tb = FromPatterns(t, b);
  const struct {
    const char* op;
    BinaryOp kind;
  } binaries[] = {{"AddV2", BinaryOp::kAdd},       {"Sub", BinaryOp::kSub},
                  {"Mul", BinaryOp::kMul},         {"RealDiv", BinaryOp::kDiv},
                  {"Maximum", BinaryOp::kMaximum}, {"Minimum", BinaryOp::kMinimum},
                  {"SquaredDifference", BinaryOp::kSquaredDifference},
                  {"DivNoNan", BinaryOp::kDivNoNan}};
  for (const auto& op : binaries) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op.op, TypeAttr(t), {ta, tb});
    ASSERT_TRUE(cpu.ok()) << op.op << ": " << cpu.status();
    const auto* want = static_cast<const uint16_t*>((*cpu)[0].raw_data());
    int bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const uint16_t got = BitsOf(Narrow<T>(
          HostBinary<T>(op.kind, Widen(FromBits<T>(a[i])), Widen(FromBits<T>(b[i])))));
      const bool same = got == want[i] || (IsNanBits(t, got) && IsNanBits(t, want[i]));
      if (!same && ++bad <= 3) {
        ADD_FAILURE() << op.op << " " << DataTypeName(t) << " of 0x" << std::hex << a[i]
                      << ", 0x" << b[i] << ": 0x" << got << ", the CPU gives 0x" << want[i];
      }
    }
    EXPECT_EQ(bad, 0) << op.op << " " << DataTypeName(t);
  }
  const struct {
    const char* op;
    CompareOp kind;
  } compares[] = {{"Less", CompareOp::kLess},       {"LessEqual", CompareOp::kLessEqual},
                  {"Greater", CompareOp::kGreater}, {"GreaterEqual", CompareOp::kGreaterEqual},
                  {"Equal", CompareOp::kEqual},     {"NotEqual", CompareOp::kNotEqual}};
  for (const auto& op : compares) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op.op, TypeAttr(t), {ta, tb});
    ASSERT_TRUE(cpu.ok()) << op.op << ": " << cpu.status();
    const bool* want = (*cpu)[0].data<bool>();
    int bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      bad += HostCompare(op.kind, Widen(FromBits<T>(a[i])), Widen(FromBits<T>(b[i]))) != want[i];
    }
    EXPECT_EQ(bad, 0) << op.op << " " << DataTypeName(t);
  }
}

TEST(CudaMixedPrecisionTest, BinaryFormulasMatchTheCpu) {
  ExpectBinariesMatchTheCpu<__half>(DataType::kHalf);
  ExpectBinariesMatchTheCpu<__nv_bfloat16>(DataType::kBFloat16);
}

// The cast types, as tensors of delicate values, and as the element types
// CastOne takes.
Tensor CastSource(DataType t) {
  switch (t) {
    case DataType::kHalf:
    case DataType::kBFloat16: return FromPatterns(t, AllPatterns());
    case DataType::kFloat: {
      const std::vector<float> v = HardFloats();
      return kernels::testing::MakeTensor<float>({static_cast<int64_t>(v.size())}, v);
    }
    case DataType::kInt32: {
      std::vector<int32_t> v = {0, 1, -1, 2047, 2049, 65504, 65520, 65536, 16777217,
                                INT32_MAX, INT32_MIN};
      std::mt19937 rng(3);
      for (int i = 0; i < 10000; ++i) v.push_back(static_cast<int32_t>(rng()));
      return kernels::testing::MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v);
    }
    case DataType::kInt64: {
      std::vector<int64_t> v = {0, 1, -1, 65519, 65520, 1LL << 40, (1LL << 53) + 1, INT64_MAX,
                                INT64_MIN};
      std::mt19937_64 rng(4);
      for (int i = 0; i < 10000; ++i) v.push_back(static_cast<int64_t>(rng()));
      return kernels::testing::MakeTensor<int64_t>({static_cast<int64_t>(v.size())}, v);
    }
    default: return kernels::testing::MakeTensor<bool>({2}, {false, true});
  }
}

template <typename F>
void WithCudaType(DataType t, F&& f) {
  switch (t) {
    case DataType::kHalf: f(__half{}); break;
    case DataType::kBFloat16: f(__nv_bfloat16{}); break;
    case DataType::kFloat: f(float{}); break;
    case DataType::kInt32: f(int32_t{}); break;
    case DataType::kInt64: f(int64_t{}); break;
    default: f(bool{}); break;
  }
}

// Whether the bytes at p hold a NaN of type To.
template <typename To>
bool IsNanBytes(const uint8_t* p) {
  if constexpr (std::is_same_v<To, float>) {
    float f;
    std::memcpy(&f, p, sizeof(f));
    return std::isnan(f);
  } else if constexpr (kIsHalfLike<To>) {
    uint16_t b;
    std::memcpy(&b, p, sizeof(b));
    return std::isnan(Widen(FromBits<To>(b)));
  } else {
    return false;
  }
}

TEST(CudaMixedPrecisionTest, CastFormulaMatchesTheCpuForEveryPair) {
  const DataType types[] = {DataType::kFloat, DataType::kHalf,  DataType::kBFloat16,
                            DataType::kInt32, DataType::kInt64, DataType::kBool};
  for (DataType from : types) {
    const Tensor src = CastSource(from);
    for (DataType to : types) {
      if (from == to) continue;
      for (bool truncate : {false, true}) {
        AttrMap attrs = TypeAttr(from, "SrcT");
        attrs.Set("DstT", to);
        attrs.Set("Truncate", truncate);
        absl::StatusOr<std::vector<Tensor>> cpu = RunOp("Cast", attrs, {src});
        ASSERT_TRUE(cpu.ok()) << cpu.status();
        const Tensor& want = (*cpu)[0];
        const size_t size = DataTypeSize(to);
        int bad = 0;
        WithCudaType(from, [&](auto from_v) {
          using From = decltype(from_v);
          WithCudaType(to, [&](auto to_v) {
            using To = decltype(to_v);
            const auto* in = static_cast<const From*>(src.raw_data());
            const auto* expected = static_cast<const uint8_t*>(want.raw_data());
            for (int64_t i = 0; i < src.num_elements(); ++i) {
              const To got = CastOne<To>(in[i], truncate);
              const uint8_t* w = expected + i * size;
              uint8_t got_bytes[sizeof(To)];
              std::memcpy(got_bytes, static_cast<const void*>(&got), sizeof(To));
              const bool same = std::memcmp(got_bytes, w, size) == 0 ||
                                (IsNanBytes<To>(got_bytes) && IsNanBytes<To>(w));
              if (!same && ++bad <= 3) {
                ADD_FAILURE() << "Cast " << DataTypeName(from) << " -> " << DataTypeName(to)
                              << (truncate ? " (Truncate)" : "") << ", element " << i;
              }
            }
          });
        });
        EXPECT_EQ(bad, 0) << DataTypeName(from) << " -> " << DataTypeName(to);
      }
    }
  }
}

// With a GPU: the kernels against the CPU's.

class CudaGpuMixedPrecisionTest : public testing::GpuTest {
 protected:
  // A few units in the last place of t, relative.
  static double Ulps(DataType t, int n) { return n * (t == DataType::kHalf ? 0x1p-10 : 0x1p-7); }
};

TEST_F(CudaGpuMixedPrecisionTest, ElementwiseBiasAddAndCastMatchTheCpu) {
  for (DataType t : kHalfTypes) {
    const Tensor x = CastTo(RandomFloats({2, 5, 7, 16}, 1, -4, 4), t);
    const Tensor y = CastTo(RandomFloats({16}, 2, -4, 4), t);
    for (const char* op : {"AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference",
                           "RealDiv", "BiasAdd"}) {
      ExpectSameBytesAsCpu(op, TypeAttr(t), {x, y});
    }
    for (const char* op : {"Relu", "Relu6", "Neg", "Square", "Abs", "Floor", "Ceil", "Sqrt",
                           "Rsqrt", "Reciprocal", "Sign", "Round", "IsNan", "IsFinite"}) {
      ExpectSameBytesAsCpu(op, TypeAttr(t), {x});
    }
    // The GPU's exp, tanh, erf... are not glibc's: the float results may
    // differ in their last bit, which rounding to 16 bits almost always hides.
    // (Softplus also checks the threshold each 16-bit type gets.)
    for (const char* op : {"Sigmoid", "Tanh", "Exp", "Elu", "Log1p", "Erf", "Erfc", "Softplus",
                           "Softsign", "Selu", "Sin", "Cos", "Expm1"}) {
      ExpectLikeCpu(op, TypeAttr(t), {x}, Ulps(t, 1));
    }
    // Around Softplus's thresholds: float16's -7.0078125, bfloat16's -2.84375.
    ExpectLikeCpu("Softplus", TypeAttr(t), {CastTo(RandomFloats({4000}, 9, -9, 9), t)},
                  Ulps(t, 1));
    AttrMap leaky = TypeAttr(t);
    leaky.Set("alpha", 0.3f);
    ExpectSameBytesAsCpu("LeakyRelu", leaky, {x});
    ExpectSameBytesAsCpu("Less", TypeAttr(t), {x, y});
    for (DataType to : {DataType::kFloat, DataType::kInt32, DataType::kBool,
                        t == DataType::kHalf ? DataType::kBFloat16 : DataType::kHalf}) {
      AttrMap attrs = TypeAttr(t, "SrcT");
      attrs.Set("DstT", to);
      ExpectSameBytesAsCpu("Cast", attrs, {x});
    }
    AttrMap down = TypeAttr(DataType::kFloat, "SrcT");
    down.Set("DstT", t);
    ExpectSameBytesAsCpu("Cast", down, {RandomFloats({1000}, 3, -70000, 70000)});
    down.Set("Truncate", true);
    ExpectSameBytesAsCpu("Cast", down, {RandomFloats({1000}, 4, -10, 10)});
  }
}

TEST_F(CudaGpuMixedPrecisionTest, PoolsMatchTheCpuBitForBit) {
  for (DataType t : kHalfTypes) {
    const Tensor x = CastTo(RandomFloats({2, 9, 11, 8}, 5, -3, 3), t);
    for (const char* op : {"MaxPool", "AvgPool"}) {
      for (const char* padding : {"VALID", "SAME"}) {
        AttrMap attrs = TypeAttr(t);
        attrs.Set("ksize", std::vector<int64_t>{1, 3, 3, 1});
        attrs.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
        attrs.Set("padding", std::string(padding));
        ExpectSameBytesAsCpu(op, attrs, {x});
      }
    }
  }
}

// Products accumulate in fp32 on both sides, in different orders, then
// round once to 16 bits: equal or one unit apart.
TEST_F(CudaGpuMixedPrecisionTest, ProductsAndConvolutionsMatchTheCpu) {
  for (DataType t : kHalfTypes) {
    const double tol = Ulps(t, 2);
    ExpectLikeCpu("MatMul", TypeAttr(t),
                  {CastTo(RandomFloats({33, 70}, 6), t), CastTo(RandomFloats({70, 17}, 7), t)},
                  tol);
    AttrMap bmm = TypeAttr(t);
    bmm.Set("adj_y", true);
    ExpectLikeCpu("BatchMatMulV2", bmm,
                  {CastTo(RandomFloats({3, 8, 64}, 8), t),
                   CastTo(RandomFloats({3, 8, 64}, 9), t)},
                  tol);
    // Keras' EinsumDense projection and attention scores (operands and the
    // result transposed around one batched GEMM).
    for (const auto& [equation, x_shape, y_shape] :
         {std::tuple<const char*, Shape, Shape>{"abc,cde->abde", {2, 5, 32}, {32, 4, 8}},
          {"aecd,abcd->acbe", {2, 6, 4, 8}, {2, 5, 4, 8}}}) {
      AttrMap einsum = TypeAttr(t);
      einsum.Set("equation", std::string(equation));
      einsum.Set("N", int64_t{2});
      ExpectLikeCpu("Einsum", einsum,
                    {CastTo(RandomFloats(x_shape, 21), t), CastTo(RandomFloats(y_shape, 22), t)},
                    tol);
    }
    // The fused ops: the GPU rounds the product, then the post-ops; the CPU
    // rounds once at the end.
    AttrMap fused_mm = TypeAttr(t);
    fused_mm.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
    ExpectLikeCpu("_SmrtFusedMatMul", fused_mm,
                  {CastTo(RandomFloats({5, 40}, 14), t), CastTo(RandomFloats({40, 24}, 15), t),
                   CastTo(RandomFloats({24}, 16), t)},
                  Ulps(t, 3));
    AttrMap fused_conv = TypeAttr(t);
    fused_conv.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
    fused_conv.Set("padding", std::string("SAME"));
    fused_conv.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Add", "Relu"});
    ExpectLikeCpu("_SmrtFusedConv2D", fused_conv,
                  {CastTo(RandomFloats({1, 6, 7, 8}, 17), t),
                   CastTo(RandomFloats({3, 3, 8, 16}, 18), t),
                   CastTo(RandomFloats({16}, 19), t),
                   CastTo(RandomFloats({1, 6, 7, 16}, 20), t)},
                  Ulps(t, 3));
    for (const char* padding : {"SAME", "VALID"}) {
      AttrMap conv = TypeAttr(t);
      conv.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
      conv.Set("padding", std::string(padding));
      ExpectLikeCpu("Conv2D", conv,
                    {CastTo(RandomFloats({2, 9, 10, 16}, 10), t),
                     CastTo(RandomFloats({3, 3, 16, 24}, 11), t)},
                    tol);
      ExpectLikeCpu("DepthwiseConv2dNative", conv,
                    {CastTo(RandomFloats({2, 9, 10, 16}, 12), t),
                     CastTo(RandomFloats({3, 3, 16, 2}, 13), t)},
                    tol);
    }
  }
}

// Softmax computes in float and rounds each value once, as the CPU's 16-bit
// kernel; the GPU's expf may differ from glibc's in the last float bit.
// Max and Min are exact; Sum and Mean accumulate in double on the GPU and in
// float on the CPU before the one rounding to 16 bits.
TEST_F(CudaGpuMixedPrecisionTest, SoftmaxAndReductionsMatchTheCpu) {
  for (DataType t : kHalfTypes) {
    SCOPED_TRACE(DataTypeName(t));
    for (const Shape& shape : {Shape{6, 10}, Shape{2, 3, 5, 300}, Shape{4, 1}}) {
      ExpectLikeCpu("Softmax", TypeAttr(t), {CastTo(RandomFloats(shape, 23, -8, 8), t)},
                    Ulps(t, 1));
      ExpectLikeCpu("LogSoftmax", TypeAttr(t), {CastTo(RandomFloats(shape, 25, -8, 8), t)},
                    Ulps(t, 1));
    }
    const Tensor x = CastTo(RandomFloats({2, 7, 9, 16}, 24, -3, 3), t);
    // GlobalAveragePooling2D's axes, the last axis, every axis, and a set
    // that is not one block (transposed first).
    for (const std::vector<int32_t>& axes : std::vector<std::vector<int32_t>>{
             {1, 2}, {-1}, {0, 1, 2, 3}, {0, 2}}) {
      SCOPED_TRACE(::testing::PrintToString(axes));
      const Tensor axis_tensor =
          kernels::testing::MakeTensor<int32_t>({static_cast<int64_t>(axes.size())}, axes);
      for (bool keep_dims : {false, true}) {
        AttrMap attrs = TypeAttr(t);
        attrs.Set("Tidx", DataType::kInt32);
        attrs.Set("keep_dims", keep_dims);
        for (const char* op : {"Max", "Min"}) {
          ExpectSameBytesAsCpu(op, attrs, {x, axis_tensor}, /*host_inputs=*/{1});
        }
        for (const char* op : {"Sum", "Mean"}) {
          ExpectLikeCpu(op, attrs, {x, axis_tensor}, Ulps(t, 1), /*host_inputs=*/{1});
        }
      }
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
