// q4gsw GEMV for decode (M <= 8) built to stream the packed weight at DRAM speed: a
// workgroup owns NL * NPL consecutive outputs and splits K into KSPLIT slices. Lane
// (r = lid % NL, s = lid / NL) computes outputs n0 + j * NL + r (j < NPL) over the 32-nibble
// blocks of slice s, UNROLL consecutive blocks per iteration; slices meet in shared memory.
//
// Why this shape should be fast on NVIDIA (H100: 132 SMs, 4 issue slots/clk/SM, 64 INT32 and
// 128 FP32 lanes/clk/SM, ~13 B/clk/SM of DRAM bandwidth per SM at 3 TB/s):
// - Coalescing: NL is a multiple of the subgroup size (the descriptor requires it), so the 32
//   lanes of a warp share one k-block and own 32 consecutive n. Their weight loads are 32
//   neighbouring 16-byte blocks of the packed layout (512 contiguous bytes), their scale loads
//   32 neighbouring floats (one 128-byte line), and their x loads one address (a broadcast:
//   one L1 wavefront per 16 bytes). In the raw-layout gemv each lane reads its own x line, so
//   x costs 8x the weight bytes in L1 traffic.
//   With PACKED_S16 (the packed_s16 layout) they read 4 octets' 128-byte runs of one group's
//   tiles instead, and 4 16-byte scale words of the same tiles (2 bytes a scale, not 4).
// - Bytes in flight: all UNROLL * NPL weight blocks and scales of an iteration are loaded into
//   registers before any arithmetic, so a warp has UNROLL * NPL * 640 bytes outstanding while
//   it waits (vs one 16-byte load per lane in a load-use-load loop); 16-32 KiB per SM cover
//   HBM latency, which 32 resident warps reach with UNROLL * NPL = 1 and register-heavier
//   variants (fewer warps) reach with larger UNROLL * NPL.
// - Instructions per byte: no int->float conversion (I2F is quarter rate) and no per-nibble
//   scale multiply. A nibble is OR-ed, in place, into the mantissa of a power of two whose ulp
//   makes its lowest bit worth 1 (q_f32 below): one LOP3 + one FADD gives q - 8 exactly, then
//   one FFMA with x. The scale multiplies the 32-nibble partial sum once. About 3.3
//   instructions per nibble, versus ~6 with a quarter-rate conversion in the older kernel.
// - Reduction: none when KSPLIT = 1 (a lane owns whole rows: no shared memory, no barrier);
//   otherwise one shared-memory exchange and one barrier per output tile.
// - Accuracy stays fp32: the dequantized weights are exact, products and sums are fp32.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

// The sizes are specialisation constants (gemv_lanes.h: WG the workgroup size); SPLIT says
// whether KSPLIT > 1, which adds the shared-memory handover.
layout(constant_id = 0) const uint WG = 128;
layout(constant_id = 1) const uint KSPLIT = 2;
layout(constant_id = 2) const uint NPL = 1;
layout(constant_id = 3) const uint UNROLL = 2;
layout(constant_id = 4) const uint MMAX = 1;
#ifndef SPLIT
#define SPLIT 1
#endif
#ifndef PACKED_S16
#define PACKED_S16 0  // 1: the packed_s16 layout, scales in the weight's tiles (q4gsw_layout.h)
#endif

#define NL (WG / KSPLIT)  // lanes along n
#define TILE (NL * NPL)   // outputs per workgroup

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

#if SPLIT
shared float red[NPL * MMAX * WG];
#endif

// Nibbles 0..3 of `v` (bits 4i..4i+3, left in place) as q - 8, exactly. OR-ing bits 4i..4i+3
// into the mantissa of 2^(23 - 4i), whose ulp is 2^-4i, makes the float 2^(23 - 4i) + q;
// subtracting 2^(23 - 4i) + 8 is exact. NVIDIA: one LOP3 (and + or) and one FADD per nibble.
const uvec4 kNibbleMask = uvec4(0xFu, 0xF0u, 0xF00u, 0xF000u);
const uvec4 kMagic = uvec4(0x4B000000u, 0x49000000u, 0x47000000u, 0x45000000u);  // 2^23,19,15,11
const vec4 kMagicBias = vec4(8388616.0, 524296.0, 32776.0, 2056.0);             // those + 8
vec4 q_f32(uint v) { return uintBitsToFloat((uvec4(v) & kNibbleMask) | kMagic) - kMagicBias; }

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint r = lid % NL, s = lid / NL;
  const uint chunks = pc.K >> 5;  // 32-nibble blocks per output (K % 32 == 0)
  const uint supers = (chunks + UNROLL - 1u) / UNROLL;
  const uint tiles = (pc.N + TILE - 1u) / TILE;
  const uint kv = pc.K >> 2;  // vec4s per row of x
  // Scale group of block c is c / d with d = gs / 32. An integer division per block would cost
  // ~20 instructions; c * ceil(2^32 / d) >> 32 is exact while c * d < 2^32 (K < 2^21): one
  // IMAD.HI. d = 1 (gs = 32) has no 32-bit multiplier and is the identity.
  const uint gdiv = pc.gs >> 5;
  const uint gmul = gdiv == 1u ? 0u : 0xFFFFFFFFu / gdiv + 1u;

  for (uint tile = gl_WorkGroupID.x; tile < tiles; tile += gl_NumWorkGroups.x) {
    uint nn[NPL];  // clamped output indices for loads (the packed weight is padded only to 8)
    [[unroll]] for (uint j = 0; j < NPL; ++j) nn[j] = min(tile * TILE + j * NL + r, pc.N - 1u);
    float acc[NPL][MMAX];
    [[unroll]] for (uint j = 0; j < NPL; ++j) {
      [[unroll]] for (uint m = 0; m < MMAX; ++m) acc[j][m] = 0.0;
    }

    for (uint t = s; t < supers; t += KSPLIT) {
      // Every DRAM load of the iteration first: UNROLL * NPL blocks and their scales in flight.
      uvec4 q[UNROLL][NPL];
      float sc[UNROLL][NPL];
      [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
        const uint c = t * UNROLL + u;
        const uint cc = min(c, chunks - 1u);  // past the end: reread the last block, scale 0
        uint hi, lo;
        umulExtended(cc, gmul, hi, lo);
        const uint g = gdiv == 1u ? cc : hi;
#if PACKED_S16
        const uint jb = cc - g * gdiv;  // block within the group
#endif
        [[unroll]] for (uint j = 0; j < NPL; ++j) {
#if PACKED_S16
          const uint tile = s16_tile(nn[j], g);
          q[u][j] = w4[s16_block(tile, jb, nn[j])];
          const float sv = s16_scale(tile, nn[j]);
#else
          q[u][j] = w4[cc * pc.n_pad + nn[j]];
          const float sv = float(scales[g * pc.N + nn[j]]);
#endif
          // Unconditional loads, then a select.
          sc[u][j] = c < chunks ? sv : 0.0;
        }
      }
      // Then the arithmetic; x comes from L1 (16 KiB per row at K = 4096) as warp-wide broadcasts.
      [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
        const uint xb = min(t * UNROLL + u, chunks - 1u) << 3;  // vec4 index of k = 32c
        [[unroll]] for (uint j = 0; j < NPL; ++j) {
          vec4 d[8];  // dequantized once, reused for every row m
          [[unroll]] for (uint i = 0; i < 4; ++i) {
            d[2 * i] = q_f32(q[u][j][i]);
            d[2 * i + 1] = q_f32(q[u][j][i] >> 16);
          }
          [[unroll]] for (uint m = 0; m < MMAX; ++m) {
            // Variants with MMAX > 1 serve M in (MMAX / 2, MMAX]: rows up to MMAX / 2 always exist.
            if (m <= MMAX / 2 || m < pc.M) {
              const uint xi = m * kv + xb;
              vec4 p = d[0] * vec4(x4[xi]);  // four independent FMA chains
              [[unroll]] for (uint i = 1; i < 8; ++i) p = fma(d[i], vec4(x4[xi + i]), p);
              acc[j][m] = fma(sc[u][j], (p.x + p.y) + (p.z + p.w), acc[j][m]);
            }
          }
        }
      }
    }

#if SPLIT
    // Slices 1.. hand their partial sums to slice 0 (lanes r of slice 0 read consecutive words:
    // no bank conflicts); one barrier per tile.
    if (s != 0u) {
      [[unroll]] for (uint j = 0; j < NPL; ++j) {
        [[unroll]] for (uint m = 0; m < MMAX; ++m) red[(j * MMAX + m) * WG + lid] = acc[j][m];
      }
    }
    barrier();
    if (s == 0u) {
      [[unroll]] for (uint j = 0; j < NPL; ++j) {
        [[unroll]] for (uint m = 0; m < MMAX; ++m) {
          [[unroll]] for (uint ss = 1; ss < KSPLIT; ++ss) {
            acc[j][m] += red[(j * MMAX + m) * WG + ss * NL + r];
          }
        }
      }
    }
#endif
    if (s == 0u) {
      [[unroll]] for (uint j = 0; j < NPL; ++j) {
        const uint n = tile * TILE + j * NL + r;
        if (n < pc.N) {
          const float b = pc.has_bias != 0u ? float(bias[n]) : 0.0;
          [[unroll]] for (uint m = 0; m < MMAX; ++m) {
            if (m < pc.M) out_[m * pc.N + n] = FLOAT_T(acc[j][m] + b);
          }
        }
      }
    }
#if SPLIT
    barrier();  // red is reused by the next tile
#endif
  }
}
