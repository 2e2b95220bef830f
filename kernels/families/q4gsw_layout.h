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
//   Scales stay [K/gs, N] in the problem's dtype (each thread reads one scale per (group, n),
//   n-contiguous).
//
// packed_s16: the packed blocks with fp16 scales interleaved, for decode, where fp32 scales are
//   a fifth of the bytes at gs = 32 (needs gs % 32 == 0 and K % gs == 0). Outputs come in
//   octets o = n / 8 (N padded to Np as above), k in groups g = k / gs of d = gs / 32 blocks.
//   Tile (g, o) sits at uvec4 index (g * Np/8 + o) * (8d + 1) and holds (8d + 1) * 16 bytes:
//   for j < d, the blocks of k-block g*d + j for n = 8o .. 8o+7 (16 bytes each, as in packed),
//   then one 16-byte word of the 8 outputs' scales of group g as IEEE fp16 (n = 8o + i at
//   bytes 2i, 2i+1, little-endian). Padding outputs: nibbles 8, scale 0. So:
//   - 2 scale bytes per (group, output) with every block and scale word 16-byte aligned and no
//     padding bytes (a per-(n, g) [scale][nibbles] record padded to 4 bytes would cost 4, as
//     much as an fp32 scale; padded to 16 bytes, more);
//   - a group's blocks of 8 neighbouring outputs and their scales are one contiguous run
//     (144 bytes at gs = 32), so the lanes of neighbouring outputs stream one array.
//   The shaders read a scale as the u32 holding it and its neighbour's, through
//   unpackHalf2x16 (core GLSL): no 16-bit storage needed. Scales are rounded to fp16 (nearest
//   even) here; the reference's random scales are fp16 values already (reference.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/op.h"

namespace vktune::kernels {

constexpr uint32_t kPackedKBlock = 32;  // nibbles per 16-byte block (k direction)
constexpr uint32_t kPackedNPad = 8;     // N is padded to a multiple of this

constexpr uint32_t packed_n(uint32_t n) { return (n + kPackedNPad - 1) / kPackedNPad * kPackedNPad; }
constexpr uint32_t packed_k_blocks(uint32_t k) { return (k + kPackedKBlock - 1) / kPackedKBlock; }
constexpr uint64_t packed_weight_bytes(uint32_t n, uint32_t k) {
  return uint64_t{packed_k_blocks(k)} * packed_n(n) * 16;
}

// packed_s16: 16-byte words per tile (8 blocks per k-block of the group, then the scales) and
// the weight's bytes. Valid for group_size % 32 == 0 and K % group_size == 0.
constexpr uint32_t packed_s16_tile_words(uint32_t group_size) { return group_size / 4 + 1; }
constexpr uint64_t packed_s16_weight_bytes(uint32_t n, uint32_t k, uint32_t group_size) {
  return group_size == 0 ? 0
                         : uint64_t{k / group_size} * (packed_n(n) / kPackedNPad) *
                               packed_s16_tile_words(group_size) * 16;
}

// raw [N, K/2] (size N*K/2, K even) -> packed bytes (size packed_weight_bytes(N, K)).
std::vector<uint8_t> prepack(std::span<const uint8_t> raw, uint32_t n, uint32_t k);
// packed -> raw, dropping the padding. unpack(prepack(r)) == r.
std::vector<uint8_t> unpack(std::span<const uint8_t> packed, uint32_t n, uint32_t k);

// raw [N, K/2] and scales [K/gs, N] -> packed_s16 bytes (size packed_s16_weight_bytes), the
// scales rounded to fp16. Throws std::invalid_argument for sizes that do not match or a group
// size that is not a multiple of 32 dividing K.
std::vector<uint8_t> prepack_s16(std::span<const uint8_t> raw, std::span<const float> scales,
                                 uint32_t n, uint32_t k, uint32_t group_size);
// packed_s16 -> raw and the (fp16-valued) scales, dropping the padding.
struct RawWeights {
  std::vector<uint8_t> weight;  // [N, K/2]
  std::vector<float> scales;    // [K/gs, N]
};
RawWeights unpack_s16(std::span<const uint8_t> packed, uint32_t n, uint32_t k,
                      uint32_t group_size);

// The weight buffer of `layout` (raw: a copy; packed; packed_s16, which alone reads `scales`)
// from raw weights [N, K/2] and scales [K/gs, N]. Throws std::invalid_argument for Layout::none
// and for sizes the layout cannot hold.
std::vector<uint8_t> prepack_weight(Layout layout, std::span<const uint8_t> raw,
                                    std::span<const float> scales, uint32_t n, uint32_t k,
                                    uint32_t group_size);

}  // namespace vktune::kernels
