//===- Philox.h - The Philox 4x32-10 counter-based generator ----*- C++ -*-===//
//
// Philox 4x32 with 10 rounds (Salmon, Moraes, Dror and Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011), the generator of cuRAND's
// default device API, PyTorch's CUDA dropout and Random123: a bijection of
// a 128-bit counter under a 64-bit key, so any element of a random tensor
// is computed on its own, in any order, on any device. This is the
// reference (the interpreter's); generated kernels carry their own copy in
// the CUDA prelude, checked against this one bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_PHILOX_H
#define FUSEC_SUPPORT_PHILOX_H

#include <array>
#include <cstdint>

namespace fusec {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

/// The ten rounds of Philox 4x32 on `counter` under `key`.
inline PhiloxCounter philox4x32(PhiloxCounter c, PhiloxKey k) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    uint64_t p0 = uint64_t(kM0) * c[0], p1 = uint64_t(kM1) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
  }
  return c;
}

/// The uniform float in [0, 1) that fusec.random_uniform gives element
/// `index` of a tensor drawn with `seed`, `step` and `stream`: word
/// index % 4 of the block at counter (index / 4, step, 0) under the key
/// (seed, stream), its top 24 bits times 2^-24 (every value exact in f32).
inline float philoxUniform(uint32_t seed, uint32_t step, uint32_t stream,
                           uint64_t index) {
  uint64_t block = index / 4;
  PhiloxCounter words = philox4x32(
      {uint32_t(block), uint32_t(block >> 32), step, 0u}, {seed, stream});
  return float(words[index % 4] >> 8) * 0x1p-24f;
}

} // namespace fusec

#endif // FUSEC_SUPPORT_PHILOX_H
