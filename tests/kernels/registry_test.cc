#include "kernels/registry.h"

#include "gtest/gtest.h"

namespace smrt::kernels {
namespace {

TEST(KernelRegistryTest, NoOpRegisteredTwiceAndEveryOpHasInference) {
  const KernelRegistry& r = KernelRegistry::Default();
  EXPECT_TRUE(r.DuplicateOps().empty()) << r.DuplicateOps().front();
  for (const std::string& op : r.Ops()) {
    EXPECT_TRUE(static_cast<bool>(r.FindOp(op)->infer)) << op << " has no shape inference";
  }
}

}  // namespace
}  // namespace smrt::kernels
