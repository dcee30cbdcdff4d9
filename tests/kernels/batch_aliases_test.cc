// The deprecated Batch* linear-algebra names and SelfAdjointEig (V1), which
// TensorFlow 2.21 still runs in graphs of producer version < 11..14, against
// its values (tests/generators/kernel_goldens/batch_aliases.py). They share
// the current ops' kernels; SelfAdjointEig's [..., n + 1, n] layout is its own.
#include <string>
#include <vector>

#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/batch_aliases/" + name); }

struct Case {
  std::string op, golden;
  std::vector<std::string> inputs;
  AttrMap attrs;
  int output = 0;
};

TEST(BatchAliasesTest, MatchTensorFlow) {
  for (const std::string dt : {"f32", "f64"}) {
    const double tol = dt == "f32" ? 2e-5 : 1e-12;
    AttrMap adjoint, upper_adjoint;
    adjoint.Set("adjoint", true);
    upper_adjoint.Set("lower", false);
    upper_adjoint.Set("adjoint", true);
    const std::vector<Case> cases = {
        {"BatchMatrixInverse", "BatchMatrixInverse", {"a"}, {}},
        {"BatchMatrixInverse", "BatchMatrixInverse_adj", {"a"}, adjoint},
        {"BatchMatrixDeterminant", "BatchMatrixDeterminant", {"a"}, {}},
        {"BatchCholesky", "BatchCholesky", {"spd"}, {}},
        {"BatchMatrixSolve", "BatchMatrixSolve", {"a", "b"}, {}},
        {"BatchMatrixTriangularSolve", "BatchMatrixTriangularSolve", {"a", "b"}, upper_adjoint},
        {"BatchSelfAdjointEigV2", "BatchSelfAdjointEigV2_e", {"spd"}, {}, 0},
        {"BatchSelfAdjointEigV2", "BatchSelfAdjointEigV2_v", {"spd"}, {}, 1},
        {"SelfAdjointEig", "SelfAdjointEig", {"spd"}, {}},
        {"BatchSelfAdjointEig", "BatchSelfAdjointEig", {"spd"}, {}},
        {"BatchMatrixBandPart", "BatchMatrixBandPart", {"a", "lo", "up"}, {}},
        {"BatchMatrixDiag", "BatchMatrixDiag", {"d"}, {}},
        {"BatchMatrixDiagPart", "BatchMatrixDiagPart", {"a"}, {}},
        {"BatchMatrixSetDiag", "BatchMatrixSetDiag", {"a", "d"}, {}},
    };
    for (const Case& c : cases) {
      const std::string golden =
          c.golden.substr(0, c.golden.find('_')) + "_" + dt +
          (c.golden.find('_') == std::string::npos ? "" : c.golden.substr(c.golden.find('_')));
      SCOPED_TRACE(golden);
      std::vector<Tensor> in;
      for (const std::string& name : c.inputs) {
        if (name == "lo") {
          in.push_back(Scalar<int64_t>(1));
        } else if (name == "up") {
          in.push_back(Scalar<int64_t>(0));
        } else {
          in.push_back(Golden(name + "_" + dt));
        }
      }
      AttrMap attrs = c.attrs;
      attrs.Set("T", in[0].dtype());
      absl::StatusOr<std::vector<Tensor>> out = RunOp(c.op, attrs, in);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(TensorsNear((*out)[c.output], Golden(golden), tol, tol));
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
