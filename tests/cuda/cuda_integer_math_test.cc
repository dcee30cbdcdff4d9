// Integer elementwise kernels on CUDA (int32 and int64), without a GPU: the
// per-element formulas the kernels run (elementwise_math.h) evaluated on the
// host against the CPU kernels over every pair of a set of delicate values
// (the extremes, where two's-complement wrapping shows, zero, ±1, large
// powers of two). The GPU tests (cuda_gpu_kernels_test.cc) run the kernels.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/elementwise_math.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

template <typename I>
std::vector<I> HardInts() {
  const I max = std::numeric_limits<I>::max(), min = std::numeric_limits<I>::min();
  return {min, static_cast<I>(min + 1), -65536, -7, -1, 0, 1, 3, 65536, 46341,
          static_cast<I>(max / 2 + 1), static_cast<I>(max - 1), max};
}

template <typename I>
I HostBinary(BinaryOp op, I a, I b) {
  switch (op) {
    case BinaryOp::kAdd: return ApplyBinary<BinaryOp::kAdd, I>(a, b);
    case BinaryOp::kSub: return ApplyBinary<BinaryOp::kSub, I>(a, b);
    case BinaryOp::kMul: return ApplyBinary<BinaryOp::kMul, I>(a, b);
    case BinaryOp::kMaximum: return ApplyBinary<BinaryOp::kMaximum, I>(a, b);
    case BinaryOp::kMinimum: return ApplyBinary<BinaryOp::kMinimum, I>(a, b);
    case BinaryOp::kSquaredDifference: return ApplyBinary<BinaryOp::kSquaredDifference, I>(a, b);
    case BinaryOp::kDiv:  // floating point only
    case BinaryOp::kDivNoNan:
    case BinaryOp::kReluGrad:
      break;
  }
  ADD_FAILURE() << "no integer formula";
  return 0;
}

template <typename I>
I HostUnary(UnaryOp op, I x) {
  switch (op) {
    case UnaryOp::kRelu: return ApplyUnary<UnaryOp::kRelu, I>(x, 0);
    case UnaryOp::kRelu6: return ApplyUnary<UnaryOp::kRelu6, I>(x, 0);
    case UnaryOp::kNeg: return ApplyUnary<UnaryOp::kNeg, I>(x, 0);
    case UnaryOp::kSquare: return ApplyUnary<UnaryOp::kSquare, I>(x, 0);
    case UnaryOp::kAbs: return ApplyUnary<UnaryOp::kAbs, I>(x, 0);
    default: break;
  }
  ADD_FAILURE() << "no integer formula";
  return 0;
}

template <typename I>
bool HostCompare(CompareOp op, I a, I b) {
  switch (op) {
    case CompareOp::kLess: return ApplyCompare<CompareOp::kLess>(a, b);
    case CompareOp::kLessEqual: return ApplyCompare<CompareOp::kLessEqual>(a, b);
    case CompareOp::kGreater: return ApplyCompare<CompareOp::kGreater>(a, b);
    case CompareOp::kGreaterEqual: return ApplyCompare<CompareOp::kGreaterEqual>(a, b);
    case CompareOp::kEqual: return ApplyCompare<CompareOp::kEqual>(a, b);
    case CompareOp::kNotEqual: return ApplyCompare<CompareOp::kNotEqual>(a, b);
    default: break;
  }
  ADD_FAILURE() << "not a comparison";
  return false;
}

template <typename I>
void ExpectFormulasMatchTheCpu(DataType t) {
  const std::vector<I> values = HardInts<I>();
  std::vector<I> a, b;  // every pair
  for (I x : values) {
    for (I y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const Shape n = {static_cast<int64_t>(a.size())};
  const Tensor ta = MakeTensor<I>(n, a), tb = MakeTensor<I>(n, b);
  const struct {
    const char* op;
    BinaryOp kind;
  } binaries[] = {{"AddV2", BinaryOp::kAdd},
                  {"Sub", BinaryOp::kSub},
                  {"Mul", BinaryOp::kMul},
                  {"Maximum", BinaryOp::kMaximum},
                  {"Minimum", BinaryOp::kMinimum},
                  {"SquaredDifference", BinaryOp::kSquaredDifference}};
  for (const auto& op : binaries) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op.op, TypeAttr(t), {ta, tb});
    ASSERT_TRUE(cpu.ok()) << op.op << ": " << cpu.status();
    const I* want = (*cpu)[0].template data<I>();
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(HostBinary<I>(op.kind, a[i], b[i]), want[i])
          << op.op << " " << DataTypeName(t) << " of " << a[i] << ", " << b[i];
    }
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
    const bool* want = (*cpu)[0].template data<bool>();
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(HostCompare<I>(op.kind, a[i], b[i]), want[i])
          << op.op << " " << DataTypeName(t) << " of " << a[i] << ", " << b[i];
    }
  }
  const Tensor tv = MakeTensor<I>({static_cast<int64_t>(values.size())}, values);
  const struct {
    const char* op;
    UnaryOp kind;
  } unaries[] = {{"Relu", UnaryOp::kRelu},
                 {"Relu6", UnaryOp::kRelu6},
                 {"Neg", UnaryOp::kNeg},
                 {"Square", UnaryOp::kSquare},
                 {"Abs", UnaryOp::kAbs}};
  for (const auto& op : unaries) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op.op, TypeAttr(t), {tv});
    ASSERT_TRUE(cpu.ok()) << op.op << ": " << cpu.status();
    const I* want = (*cpu)[0].template data<I>();
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(HostUnary<I>(op.kind, values[i]), want[i])
          << op.op << " " << DataTypeName(t) << " of " << values[i];
    }
  }
}

TEST(CudaIntegerMathTest, Int32FormulasMatchTheCpu) {
  ExpectFormulasMatchTheCpu<int32_t>(DataType::kInt32);
}

TEST(CudaIntegerMathTest, Int64FormulasMatchTheCpu) {
  ExpectFormulasMatchTheCpu<int64_t>(DataType::kInt64);
}

}  // namespace
}  // namespace smrt::kernels::cuda
