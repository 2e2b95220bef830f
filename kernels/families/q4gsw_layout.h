// Weight layouts of q4gsw and the CPU prepack between them.
//
// raw: uint8 [N, K/2]; byte (n, j) = (q(n, 2j+1) << 4) | q(n, 2j). Read as little-endian
//   uint32 words (K % 8 == 0), word (n, w) holds k = 8w + i in nibble i (bits 4i..4i+3).
//
// packed: K padded to Kp = ceil(K/32)*32, N padded to Np = ceil(N/8)*8. The weight is an array
//   of 16-byte blocks (uvec4), block (kb, n) at index kb * Np + n for kb < Kp/32, n < Np. Block
//   (kb, n) holds the 32 nibbles k = 32kb .. 32kb+31 of output n: component c (0..3) is the raw
//   word for k = 32kb + 8c .. +7, nibble i = k 32kb + 8c + i. Padding nibbles are 8 (weight 0).
//   So:
//   - one 16-byte load feeds 32 FMAs of one output (gemv: a lane per output group walks its
//     row's blocks; the lanes of one k-block read neighbouring outputs' blocks, which are
//     adjacent: `rows` lanes read rows*16 contiguous bytes);
//   - for a fixed k-block the outputs n, n+1, ... are contiguous, so the threads of a tiled
//     kernel that own neighbouring n read neighbouring 16 bytes: fully coalesced, where raw
//     [N, K/2] would have them K/2 bytes apart.
//   Scales stay [K/gs, N] fp32 (each thread reads one scale per (group, n), n-contiguous).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vktune::kernels {

constexpr uint32_t kPackedKBlock = 32;  // nibbles per 16-byte block (k direction)
constexpr uint32_t kPackedNPad = 8;     // N is padded to a multiple of this

constexpr uint32_t packed_n(uint32_t n) { return (n + kPackedNPad - 1) / kPackedNPad * kPackedNPad; }
constexpr uint32_t packed_k_blocks(uint32_t k) { return (k + kPackedKBlock - 1) / kPackedKBlock; }
constexpr uint64_t packed_weight_bytes(uint32_t n, uint32_t k) {
  return uint64_t{packed_k_blocks(k)} * packed_n(n) * 16;
}

// raw [N, K/2] (size N*K/2, K even) -> packed bytes (size packed_weight_bytes(N, K)).
std::vector<uint8_t> prepack(std::span<const uint8_t> raw, uint32_t n, uint32_t k);
// packed -> raw, dropping the padding. unpack(prepack(r)) == r.
std::vector<uint8_t> unpack(std::span<const uint8_t> packed, uint32_t n, uint32_t k);

}  // namespace vktune::kernels
