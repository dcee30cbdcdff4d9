#include "exec/arena.h"

#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace smrt::exec {

namespace {

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

std::shared_ptr<const ArenaLayout> LayoutArena(const std::vector<SlotValue>& slots,
                                               const std::vector<SharedBuffer>& shares) {
  const int n = static_cast<int>(slots.size());
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const SharedBuffer& s : shares) {
    if (s.output_slot < 0 || s.output_slot >= n || s.input_slot < 0 || s.input_slot >= n ||
        slots[s.output_slot].on_device != slots[s.input_slot].on_device) {
      continue;
    }
    parent[Find(parent, s.output_slot)] = Find(parent, s.input_slot);
  }
  // A group is planned when every value in it is; zero-byte values need no
  // place, but they do not spoil a group either.
  std::vector<bool> plannable(n, true);
  std::vector<bool> has_bytes(n, false);
  for (int slot = 0; slot < n; ++slot) {
    const int root = Find(parent, slot);
    const SlotValue& v = slots[slot];
    if (v.kind != SlotValue::kPlanned) {
      plannable[root] = false;
    } else if (v.lifetime.bytes > 0) {
      has_bytes[root] = true;
    }
  }
  auto layout = std::make_shared<ArenaLayout>();
  layout->value_of_slot.assign(n, -1);
  std::vector<int> group_of_root(n, -1);
  std::vector<Lifetime> lifetimes;
  for (int slot = 0; slot < n; ++slot) {
    const SlotValue& v = slots[slot];
    const int root = Find(parent, slot);
    if (v.kind != SlotValue::kPlanned || !plannable[root] || !has_bytes[root]) continue;
    int& group = group_of_root[root];
    if (group < 0) {
      group = static_cast<int>(lifetimes.size());
      lifetimes.push_back(v.lifetime);
      layout->groups.push_back({0, 0, v.on_device});
    } else {
      Lifetime& l = lifetimes[group];
      l.bytes = std::max(l.bytes, v.lifetime.bytes);
      l.first = std::min(l.first, v.lifetime.first);
      l.last = std::max(l.last, v.lifetime.last);
    }
    layout->value_of_slot[slot] = static_cast<int>(layout->values.size());
    layout->values.push_back({group, v.dtype, v.shape, v.lifetime.bytes});
  }
  // Host and device groups each go into their own block.
  for (const bool device : {false, true}) {
    std::vector<Lifetime> space;
    std::vector<size_t> index;
    for (size_t g = 0; g < lifetimes.size(); ++g) {
      if (layout->groups[g].on_device != device) continue;
      space.push_back(lifetimes[g]);
      index.push_back(g);
    }
    const ArenaPlan arena = PlanArena(space, kArenaAlignment);
    for (size_t i = 0; i < index.size(); ++i) {
      layout->groups[index[i]].offset = arena.offsets[i];
      layout->groups[index[i]].bytes = space[i].bytes;
    }
    (device ? layout->device_bytes : layout->bytes) = arena.peak_bytes;
  }
  if (layout->bytes == 0 && layout->device_bytes == 0) return nullptr;
  return layout;
}

absl::StatusOr<std::unique_ptr<RunArena>> RunArena::Create(
    std::shared_ptr<const ArenaLayout> layout, kernels::DeviceContext* device) {
  std::unique_ptr<RunArena> arena(new RunArena());
  arena->block_ = std::make_shared<Block>();
  if (layout->bytes > 0) {
    absl::StatusOr<Tensor> memory =
        Tensor::CreateUninitialized(DataType::kUInt8, {BlockBytes(*layout)});
    if (!memory.ok()) {
      return absl::Status(memory.status().code(),
                          absl::StrCat("the run's activation arena: ", memory.status().message()));
    }
    arena->block_->memory = *std::move(memory);
  }
  if (layout->device_bytes > 0 && device != nullptr) {
    absl::StatusOr<Tensor> memory = device->Allocate(
        DataType::kUInt8, {Aligned(layout->device_bytes)}, "the run's activation arena");
    if (!memory.ok()) return memory.status();
    arena->block_->device_memory = *std::move(memory);
  }
  const size_t groups = layout->groups.size();
  arena->block_->live = std::make_unique<std::atomic<int>[]>(groups);
  for (size_t g = 0; g < groups; ++g) arena->block_->live[g].store(0, std::memory_order_relaxed);
  arena->listed_.assign(groups, false);
  arena->layout_ = std::move(layout);
  return arena;
}

Tensor RunArena::Take(int output, DataType dtype, const Shape& shape, bool zero,
                      bool on_device) {
  const int index = layout_->value_of_slot[first_slot_ + output];
  if (index < 0) return Tensor();
  const ArenaLayout::Value& value = layout_->values[index];
  const Tensor& memory = on_device ? block_->device_memory : block_->memory;
  if (layout_->groups[value.group].on_device != on_device || !memory.valid()) return Tensor();
  if (value.dtype != dtype || value.shape != shape) {
    std::lock_guard<std::mutex> lock(mu_);
    ++not_as_planned_;
    return Tensor();
  }
  std::lock_guard<std::mutex> lock(mu_);
  const int group = value.group;
  const ArenaLayout::Group& region = layout_->groups[group];
  std::atomic<int>* live = block_->live.get();
  // Free when no tensor made in an overlapping region (this group's
  // included) is still referenced. Regions seen free drop off the list.
  for (size_t i = 0; i < maybe_live_.size();) {
    const int other = maybe_live_[i];
    if (live[other].load(std::memory_order_acquire) == 0) {
      listed_[other] = false;
      maybe_live_[i] = maybe_live_.back();
      maybe_live_.pop_back();
      continue;
    }
    const ArenaLayout::Group& o = layout_->groups[other];
    if (other == group || (o.on_device == region.on_device && o.offset < region.offset + region.bytes &&
                           region.offset < o.offset + o.bytes)) {
      ++region_busy_;
      return Tensor();
    }
    ++i;
  }
  char* data = static_cast<char*>(const_cast<void*>(memory.raw_data())) + region.offset;
  if (!on_device) {
    // Zeroed up to the alignment, as Tensor::Create does: kernels may load
    // whole vectors at the end. Regions are aligned, so the padding is ours.
    const int64_t from = zero ? 0 : value.bytes;
    std::memset(data + from, 0, static_cast<size_t>(Aligned(value.bytes) - from));
  }
  live[group].fetch_add(1, std::memory_order_relaxed);
  if (!listed_[group]) {
    listed_[group] = true;
    maybe_live_.push_back(group);
  }
  std::shared_ptr<void> storage(data, [block = block_, group](void*) {
    block->live[group].fetch_sub(1, std::memory_order_release);
  });
  absl::StatusOr<Tensor> t = on_device ? Tensor::DeviceStorage(dtype, shape, std::move(storage))
                                        : Tensor::HostStorage(dtype, shape, std::move(storage));
  if (!t.ok()) return Tensor();
  ++taken_;
  return *std::move(t);
}

}  // namespace smrt::exec
