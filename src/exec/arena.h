// The activation arena a Program runs from: one block per run, holding every
// intermediate tensor whose size is known for the run's feed shapes at the
// offset the memory plan gave it (exec/memory_plan.h), instead of one heap
// buffer per tensor.
//
// The plan is static; what runs is not always what was planned (a kernel
// may keep a view of its input, write in place, or produce a shape shape
// inference did not know). So the plan only proposes places and the run
// checks them: a value goes into its region only when no tensor still alive
// uses memory there, else it gets its own buffer as before. A kernel can
// therefore never see its output overlap a live tensor, whatever it does.
//
// Values that share a buffer (Reshape's output is its input; an in-place
// kernel writes its output into the input it was handed at its last use) are
// one group with one region: the executor learns which outputs shared an
// input's buffer on the first run of a feed shape, and plans the later runs
// with those groups.
#ifndef SMRT_EXEC_ARENA_H_
#define SMRT_EXEC_ARENA_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/memory_plan.h"
#include "kernels/kernel.h"

namespace smrt::exec {

// Output `output_slot` of a step was the buffer of its input `input_slot`.
struct SharedBuffer {
  int output_slot = 0;
  int input_slot = 0;
};

struct ArenaLayout {
  struct Group {
    int64_t offset = 0;  // in the host block, or the device block
    int64_t bytes = 0;
    bool on_device = false;
  };
  struct Value {
    int group = 0;
    DataType dtype = DataType::kInvalid;
    Shape shape;
    int64_t bytes = 0;
  };
  std::vector<Group> groups;
  std::vector<Value> values;
  std::vector<int> value_of_slot;  // per Program slot: index into values, or -1
  int64_t bytes = 0;          // the host block: every host group's region
  int64_t device_bytes = 0;   // the device block, for a program placed on a device
};

// Groups the planned slot values by `shares` (a group with any value that is
// not planned - a feed, a weight, a fetch - is left out whole; a share
// between host and device memory joins nothing) and places the groups by
// their joint lifetimes (PlanArena), host and device groups each in their own
// block. Null when nothing is placed.
std::shared_ptr<const ArenaLayout> LayoutArena(const std::vector<SlotValue>& slots,
                                               const std::vector<SharedBuffer>& shares);

// One run's blocks (a host tensor, so memory limits and stats count it, and
// for a device program one allocation from its device's arena) and which of
// their regions are in use. Tensors it hands out keep their block alive, so a
// view of one that outlives the run stays valid. Device regions are reused in
// the order the host releases them, which is safe because every kernel and
// copy of a device program runs on its one stream, in step order.
class RunArena final : public kernels::OutputArena {
 public:
  // `device` (may be null when the layout has no device groups) gives the
  // device block.
  static absl::StatusOr<std::unique_ptr<RunArena>> Create(
      std::shared_ptr<const ArenaLayout> layout, kernels::DeviceContext* device = nullptr);

  static int64_t Aligned(int64_t bytes) {
    return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
  }
  // The host block a layout needs.
  static int64_t BlockBytes(const ArenaLayout& layout) { return Aligned(layout.bytes); }
  int64_t bytes() const { return layout_->bytes == 0 ? 0 : BlockBytes(*layout_); }
  int64_t device_bytes() const {
    return block_->device_memory.valid() ? Aligned(layout_->device_bytes) : 0;
  }

  // The step whose outputs Take places next.
  void BeginStep(int first_output_slot) { first_slot_ = first_output_slot; }
  Tensor Take(int output, DataType dtype, const Shape& shape, bool zero, bool on_device) override;

  // Outputs placed, and outputs of the plan that got a buffer of their own,
  // and why. Read after the run.
  int64_t taken() const { return taken_; }
  int64_t not_as_planned() const { return not_as_planned_; }  // other dtype or shape
  int64_t region_busy() const { return region_busy_; }        // a live tensor was there

 private:
  struct Block {
    Tensor memory;
    Tensor device_memory;
    std::unique_ptr<std::atomic<int>[]> live;  // per group: tensors using its region
  };
  RunArena() = default;

  std::shared_ptr<const ArenaLayout> layout_;
  std::shared_ptr<Block> block_;
  std::mutex mu_;  // a kernel may allocate its outputs from several threads
  std::vector<int> maybe_live_;  // groups taken and not yet seen free
  std::vector<bool> listed_;     // per group: in maybe_live_
  int first_slot_ = 0;
  int64_t taken_ = 0;
  int64_t not_as_planned_ = 0;
  int64_t region_busy_ = 0;
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_ARENA_H_
