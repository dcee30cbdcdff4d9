// MatMul, BatchMatMul, BatchMatMulV2 and BatchMatMulV3 (ops/matmul_shapes.h).
#include <string>
#include <utility>
#include <vector>

#include "ops/op_registry.h"
#include "ops/matmul_shapes.h"

namespace smrt::ops {
namespace {

using matmul::BatchMode;

std::vector<std::pair<std::string, AttrValue>> BatchDefaults() {
  return {{"adj_x", false}, {"adj_y", false}, {"grad_x", false}, {"grad_y", false}};
}

void AddMatMulOp(OpRegistry& r, const std::string& op, BatchMode mode,
                 std::vector<std::pair<std::string, AttrValue>> defaults) {
  r.AddOp({op, std::move(defaults),
           [mode](InferenceContext& ctx) { return matmul::InferMatMul(ctx, mode); }, nullptr});
}

}  // namespace

void RegisterMatMulOps(OpRegistry& r) {
  AddMatMulOp(
      r, "MatMul", BatchMode::kNone,
      {{"transpose_a", false}, {"transpose_b", false}, {"grad_a", false}, {"grad_b", false}});
  AddMatMulOp(r, "BatchMatMul", BatchMode::kSame, BatchDefaults());
  AddMatMulOp(r, "BatchMatMulV2", BatchMode::kBroadcast, BatchDefaults());
  AddMatMulOp(r, "BatchMatMulV3", BatchMode::kBroadcast, BatchDefaults());
}

}  // namespace smrt::ops
