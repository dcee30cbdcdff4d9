// Philox4x32-10 (Salmon et al., SC 2011) with the conventions TensorFlow's
// random ops use, so that smrt draws TensorFlow's exact streams:
// - a 128-bit counter as four 32-bit words (word 0 lowest) and a 64-bit key
//   as two words; each call returns four words and advances the counter by 1;
// - stateful ops seed with (seed, seed2): key = seed, counter words 2..3 =
//   seed2, words 0..1 = 0;
// - stateless ops scramble a two-element seed into a key and counter by one
//   Philox call (StatelessSeed below);
// - the V2 stateless ops take the key as one uint64 and the counter as two,
//   each split low word first.
// The generator and the word-to-float conversions compile for CUDA devices
// too (kernels/cuda/random.cu draws the same streams there).
#ifndef SMRT_KERNELS_SHARED_PHILOX_H_
#define SMRT_KERNELS_SHARED_PHILOX_H_

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define SMRT_PHILOX_HD __host__ __device__
#else
#define SMRT_PHILOX_HD
#endif

namespace smrt::kernels::random {

class Philox {
 public:
  using Block = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  Philox() = default;
  SMRT_PHILOX_HD Philox(Block counter, Key key) : counter_(counter), key_(key) {}
  // TensorFlow's PhiloxRandom(seed_lo, seed_hi), used by the stateful ops.
  SMRT_PHILOX_HD Philox(uint64_t seed, uint64_t seed2)
      : counter_{0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)},
        key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)} {}

  SMRT_PHILOX_HD const Block& counter() const { return counter_; }
  SMRT_PHILOX_HD const Key& key() const { return key_; }

  // Skips `count` 128-bit blocks (calls of operator()).
  SMRT_PHILOX_HD void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    // TensorFlow carries into word 2 only when word 1 wraps, comparing with
    // the (possibly incremented) high part, as here.
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

  // The next four random words.
  SMRT_PHILOX_HD Block operator()() {
    Block c = counter_;
    Key k = key_;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k[0] += kWeylA;
        k[1] += kWeylB;
      }
      const uint64_t p0 = static_cast<uint64_t>(kMulA) * c[0];
      const uint64_t p1 = static_cast<uint64_t>(kMulB) * c[2];
      c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    }
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) ++counter_[3];
    return c;
  }

 private:
  static constexpr uint32_t kWeylA = 0x9E3779B9;
  static constexpr uint32_t kWeylB = 0xBB67AE85;
  static constexpr uint32_t kMulA = 0xD2511F53;
  static constexpr uint32_t kMulB = 0xCD9E8D57;

  Block counter_{};
  Key key_{};
};

// [0, 1) from the low 23 bits of x.
SMRT_PHILOX_HD inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// [0, 1) from 52 bits: the low 20 of `hi` above all 32 of `lo`.
SMRT_PHILOX_HD inline double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo;
  double d;
  memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// One 32-bit word at a time from a Philox stream (TensorFlow's
// SingleSampleAdapter): a block is drawn when the previous one is used up.
class SingleSample {
 public:
  explicit SingleSample(Philox* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox* gen_;
  Philox::Block block_{};
  int used_ = 4;
};

// The generator a stateless op with seed (seed0, seed1) starts from
// (TensorFlow's GenerateKey): a fixed key scrambles the seed into a key and
// the upper counter words.
inline Philox StatelessSeed(uint64_t seed0, uint64_t seed1) {
  Philox::Block counter = {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
                           static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)};
  const Philox::Block mix = Philox(counter, Philox::Key{0x3ec8f720, 0x02461e29})();
  return Philox(Philox::Block{0, 0, mix[2], mix[3]}, Philox::Key{mix[0], mix[1]});
}

// The V2 ops' key and counter tensors: uint64 words, low 32 bits first.
inline Philox FromKeyCounter(uint64_t key, uint64_t counter0, uint64_t counter1) {
  return Philox(
      Philox::Block{static_cast<uint32_t>(counter0), static_cast<uint32_t>(counter0 >> 32),
                    static_cast<uint32_t>(counter1), static_cast<uint32_t>(counter1 >> 32)},
      Philox::Key{static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}
inline uint64_t KeyWord(const Philox& g) {
  return g.key()[0] | static_cast<uint64_t>(g.key()[1]) << 32;
}
inline uint64_t CounterWord(const Philox& g, int i) {
  return g.counter()[2 * i] | static_cast<uint64_t>(g.counter()[2 * i + 1]) << 32;
}

}  // namespace smrt::kernels::random

#endif  // SMRT_KERNELS_SHARED_PHILOX_H_
