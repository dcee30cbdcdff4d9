// TensorListResize on the CPU, as TensorFlow's kernel: a list cut to its
// first `size` elements, or grown by unset ones (read as zeros of the
// element shape, as after TensorListReserve); the input list is not changed.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

AttrMap ElementDtype() {
  AttrMap a;
  a.Set("element_dtype", DataType::kFloat);
  return a;
}

int32_t Length(const Tensor& list) {
  absl::StatusOr<std::vector<Tensor>> n = RunOp("TensorListLength", {}, {list});
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? (*n)[0].data<int32_t>()[0] : -1;
}

Tensor Item(const Tensor& list, int32_t i) {
  absl::StatusOr<std::vector<Tensor>> t =
      RunOp("TensorListGetItem", ElementDtype(),
            {list, MakeTensor<int32_t>({}, {i}), MakeTensor<int32_t>({2}, {2, 2})});
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? (*t)[0] : Tensor();
}

TEST(TensorListOpsTest, ResizeCutsAndGrowsAndLeavesTheInputAlone) {
  absl::StatusOr<std::vector<Tensor>> list =
      RunOp("TensorListReserve", ElementDtype(),
            {MakeTensor<int32_t>({2}, {2, 2}), MakeTensor<int32_t>({}, {3})});
  ASSERT_TRUE(list.ok()) << list.status();
  const Tensor item = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  absl::StatusOr<std::vector<Tensor>> set =
      RunOp("TensorListSetItem", ElementDtype(), {(*list)[0], MakeTensor<int32_t>({}, {1}), item});
  ASSERT_TRUE(set.ok()) << set.status();
  const Tensor three = (*set)[0];

  absl::StatusOr<std::vector<Tensor>> grown =
      RunOp("TensorListResize", {}, {three, MakeTensor<int32_t>({}, {5})});
  ASSERT_TRUE(grown.ok()) << grown.status();
  EXPECT_EQ(Length((*grown)[0]), 5);
  EXPECT_TRUE(TensorsNear(Item((*grown)[0], 1), item, 0, 0));
  EXPECT_TRUE(TensorsNear(Item((*grown)[0], 4), MakeTensor<float>({2, 2}, {0, 0, 0, 0}), 0, 0));

  absl::StatusOr<std::vector<Tensor>> cut =
      RunOp("TensorListResize", {}, {three, MakeTensor<int32_t>({}, {2})});
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_EQ(Length((*cut)[0]), 2);
  EXPECT_TRUE(TensorsNear(Item((*cut)[0], 1), item, 0, 0));
  EXPECT_FALSE(RunOp("TensorListGetItem", ElementDtype(),
                     {(*cut)[0], MakeTensor<int32_t>({}, {2}), MakeTensor<int32_t>({2}, {2, 2})})
                   .ok());
  EXPECT_EQ(Length(three), 3);  // lists are values

  absl::StatusOr<std::vector<Tensor>> negative =
      RunOp("TensorListResize", {}, {three, MakeTensor<int32_t>({}, {-1})});
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("TensorListResize expects size"), std::string::npos)
      << negative.status();
}

}  // namespace
}  // namespace smrt::kernels
