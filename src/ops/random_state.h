// The state of a stateful random op's node (RandomUniform, Multinomial,
// RandomShuffle...), a Resource of the loaded model (OpSpec::make_resource):
// its Philox seeds, taken as TensorFlow's GuardedPhiloxRandom takes them,
// and how far into that stream earlier calls have reserved. Every device's
// kernel reserves its blocks here, so the node gives TensorFlow's first
// answer on the first Run, its second on the second, and so on.
#ifndef SMRT_OPS_RANDOM_STATE_H_
#define SMRT_OPS_RANDOM_STATE_H_

#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"

namespace smrt::ops {

class RandomStreamState : public Resource {
 public:
  RandomStreamState(uint64_t seed, uint64_t seed2) : seed_(seed), seed2_(seed2) {}
  // The generator's seeds: Philox(seed, seed2) starts the stream.
  uint64_t seed() const { return seed_; }
  uint64_t seed2() const { return seed2_; }
  // Reserves the next `blocks` 128-bit blocks of the stream for one call and
  // returns the first of them (the blocks to skip from the stream's start).
  // Thread-safe: concurrent calls get disjoint stretches.
  uint64_t Reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t start = next_;
    next_ += blocks;
    return start;
  }

 private:
  const uint64_t seed_;
  const uint64_t seed2_;
  std::mutex mu_;
  uint64_t next_ = 0;
};

// The state for a node with attrs seed and seed2 (default 0): both 0 draws
// fresh seeds from a nondeterministic source, as TensorFlow does.
absl::StatusOr<std::unique_ptr<RandomStreamState>> MakeRandomStreamState(const AttrMap& attrs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_RANDOM_STATE_H_
