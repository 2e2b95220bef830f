// q4gsw GEMV for decode (M <= 8) on the packed layout with int8 activations and integer dot
// products (GL_EXT_integer_dot_product, dotPacked4x8EXT): x is quantised to int8 per 32-element
// block with an fp32 scale per block (d = max|x| / 127), the weight's nibbles become int8
// q - 8, and each block of each output is 8 four-way int8 dot products into an exact int32,
// scaled once by d * the weight's scale into an fp32 accumulator. The lane mapping is
// q4gsw_gemv_fast's (see there: a subgroup shares one k-block and owns consecutive outputs, so
// weight loads are one contiguous run and x reads are broadcasts; UNROLL * NPL blocks are
// loaded before any arithmetic); what changes is the arithmetic per 32 nibbles: ~28 bit
// operations to unpack them (shared by the MMAX rows) and 8 dot products per row, instead of
// 32 dequantisations and 32 FMAs per row.
//
// Where x is quantised: by every workgroup, into shared memory, CB blocks of each row at a
// time (one lane per row and block: 8 vec4 loads, the block's max, 8 packSnorm4x8), then all
// slices read the chunk from there. A separate quantising dispatch would do it once per token,
// but a variant is one dispatch everywhere (the tuner's timing, the runtime's dispatch plan,
// the engine): re-reading x costs each workgroup 4*M*K bytes from L2 against its
// TILE*K/2 bytes of weights (M = 1, TILE = 128: 6%), and the quantising arithmetic about
// 100 * MMAX * KSPLIT / (WG * NPL * (24 + 12 * MMAX)) of the dot work. Every workgroup computes
// bit-identical int8 values and scales, so the result is that of quantising once.
//
// With PACKED_S16 (the packed_s16 layout, q4gsw_gemv_i8dot_s16) the weight blocks and their
// fp16 scales come from the group's tiles, as in q4gsw_gemv_fast: at gs = 32 the scales are a
// fifth of the bytes read instead of a third.
//
// SLICES > 1 (q4gsw_gemv_i8dot_splitk[_s16], SLICED) also splits K across workgroups, one per
// (slice, tile), as q4gsw_coopmat.comp's SPLITK does: every workgroup quantises all of its K
// range of x, so a tile of TILE outputs over all of K costs 4*K bytes of x per TILE from L2
// (64 KB at K = 16384: the whole of a decode workgroup's start), and only a wider tile over a
// slice of K cuts that without leaving SMs idle. Each slice stores its partial sums to the workspace (binding 5)
// and bumps the tile's counter; the slice that arrives last adds every slice's partials in slice
// order (the result does not depend on which one that is), writes `out` and zeroes the counter.
//
// Accuracy: x's rounding to int8 errs by up to d / 2 per element; the gate's tolerance for it
// is derived in kernels/families/reference.h (int8_activation_tolerance). Everything else is
// exact (the int32 dot products) or fp32.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_integer_dot_product : require

// The sizes are specialisation constants (gemv_lanes.h: WG the workgroup size; SLICES id 5);
// SPLIT says whether KSPLIT > 1, which adds the shared-memory handover, and SLICED whether
// SLICES > 1, which adds the workspace.
layout(constant_id = 0) const uint WG = 128;
layout(constant_id = 1) const uint KSPLIT = 2;
layout(constant_id = 2) const uint NPL = 1;
layout(constant_id = 3) const uint UNROLL = 2;
layout(constant_id = 4) const uint MMAX = 1;
layout(constant_id = 5) const uint SLICES = 1;  // K slices across workgroups
#ifndef SPLIT
#define SPLIT 1
#endif
#ifndef SLICED
#define SLICED 0
#endif
#ifndef PACKED_S16
#define PACKED_S16 0  // 1: the packed_s16 layout, scales in the weight's tiles (q4gsw_layout.h)
#endif

#define NL (WG / KSPLIT)  // lanes along n
#define TILE (NL * NPL)   // outputs per workgroup
// Blocks per row quantised per chunk: one per lane (WG / MMAX), at least one iteration of every
// slice (KSPLIT * UNROLL). Both are powers of two, so CB is a multiple of KSPLIT * UNROLL.
#define CB_LANES (WG / MMAX)
#define CB_SLICES (KSPLIT * UNROLL)
#define CB (CB_LANES > CB_SLICES ? CB_LANES : CB_SLICES)

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

// Quantised x of the chunk, slot = m * CB + block: xq[2 slot] holds the block's 16 even-k int8
// (word i: k = 8i, 8i+2, 8i+4, 8i+6, low byte first), xq[2 slot + 1] the odd k, matching the
// low and high nibbles of the weight's word i; xd[slot] is the block's scale d.
shared uvec4 xq[MMAX * CB * 2];
shared float xd[MMAX * CB];
#if SPLIT
shared float red[NPL * MMAX * WG];
#endif
#if SLICED
// The workspace: one counter per tile, rounded up to 16 words, then [SLICES][tiles][MMAX][TILE]
// fp32 partials. Coherent: the last slice reads what other workgroups wrote.
layout(std430, binding = 5) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 5) coherent buffer WsPartial { float partial[]; };
shared uint last_slice;
#endif

// Block c (k = 32c .. 32c + 31) of row m into `slot`: x / max|x| rounded to int8 by
// packSnorm4x8 (round(clamp(v, -1, 1) * 127)), so x ~ q * d with d = max|x| / 127.
void quantise(uint m, uint c, uint slot) {
  const uint base = m * (pc.K >> 2) + (c << 3);
  vec4 v[8];
  float amax = 0.0;
  [[unroll]] for (uint i = 0; i < 8; ++i) {
    v[i] = vec4(x4[base + i]);
    const vec4 a = abs(v[i]);
    amax = max(amax, max(max(a.x, a.y), max(a.z, a.w)));
  }
  const float inv = amax > 0.0 ? 1.0 / amax : 0.0;
  uvec4 even, odd;
  [[unroll]] for (uint i = 0; i < 4; ++i) {
    even[i] = packSnorm4x8(vec4(v[2 * i].xz, v[2 * i + 1].xz) * inv);
    odd[i] = packSnorm4x8(vec4(v[2 * i].yw, v[2 * i + 1].yw) * inv);
  }
  xq[2 * slot] = even;
  xq[2 * slot + 1] = odd;
  xd[slot] = amax * (1.0 / 127.0);
}

// Nibbles of `w` (bits 4i..4i+3, i even for lo, odd for hi) as int8 q - 8, four to a word:
// q + 0x78 stays below 0x100 (no carry between bytes) and is 0x80 + (q - 8); the xor with 0x80
// leaves q - 8 in two's complement.
int nibbles_lo(uint w) { return int(((w & 0x0F0F0F0Fu) + 0x78787878u) ^ 0x80808080u); }
int nibbles_hi(uint w) { return int((((w >> 4) & 0x0F0F0F0Fu) + 0x78787878u) ^ 0x80808080u); }

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint r = lid % NL, s = lid / NL;
  const uint chunks = pc.K >> 5;  // 32-element blocks per row (K % 32 == 0)
  const uint tiles = (pc.N + TILE - 1u) / TILE;
  // Scale group of block c is c / (gs / 32), by a multiply-high as in q4gsw_gemv_fast.
  const uint gdiv = pc.gs >> 5;
  const uint gmul = gdiv == 1u ? 0u : 0xFFFFFFFFu / gdiv + 1u;

  // Each slice takes the same number of blocks; the last may get fewer, or none.
  const uint slice_blocks = (chunks + SLICES - 1u) / SLICES;

  // Slices of one tile are `tiles` apart, so a dispatch's first wave spans all of N.
  for (uint t = gl_WorkGroupID.x; t < tiles * SLICES; t += gl_NumWorkGroups.x) {
    const uint tile = t % tiles, slice = t / tiles;
    const uint c_begin = slice * slice_blocks, c_end = min(chunks, c_begin + slice_blocks);
    uint nn[NPL];  // clamped output indices for loads (the packed weight is padded only to 8)
    [[unroll]] for (uint j = 0; j < NPL; ++j) nn[j] = min(tile * TILE + j * NL + r, pc.N - 1u);
    float acc[NPL][MMAX];
    [[unroll]] for (uint j = 0; j < NPL; ++j) {
      [[unroll]] for (uint m = 0; m < MMAX; ++m) acc[j][m] = 0.0;
    }

    for (uint c0 = c_begin; c0 < c_end; c0 += CB) {
      // Rows past M and blocks past the slice quantise to zero (never read, but defined).
      for (uint i = lid; i < MMAX * CB; i += WG) {
        const uint m = i / CB, c = c0 + i % CB;
        if (m < pc.M && c < c_end) {
          quantise(m, c, i);
        } else {
          xq[2 * i] = uvec4(0u);
          xq[2 * i + 1] = uvec4(0u);
          xd[i] = 0.0;
        }
      }
      barrier();

      const uint nb = min(uint(CB), c_end - c0);  // blocks of this chunk
      for (uint t = s; t * UNROLL < nb; t += KSPLIT) {
        // Every DRAM load of the iteration first: UNROLL * NPL blocks and their scales.
        uvec4 q[UNROLL][NPL];
        float sc[UNROLL][NPL];
        [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
          const uint c = c0 + t * UNROLL + u;
          const uint cc = min(c, c_end - 1u);  // past the end: reread the last block, scale 0
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
            sc[u][j] = c < c_end ? sv : 0.0;
          }
        }
        [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
          const uint cb = min(t * UNROLL + u, uint(CB) - 1u);  // a slot of this chunk
          [[unroll]] for (uint j = 0; j < NPL; ++j) {
            int wlo[4], whi[4];  // unpacked once, reused for every row m
            [[unroll]] for (uint i = 0; i < 4; ++i) {
              wlo[i] = nibbles_lo(q[u][j][i]);
              whi[i] = nibbles_hi(q[u][j][i]);
            }
            [[unroll]] for (uint m = 0; m < MMAX; ++m) {
              // Variants with MMAX > 1 serve M in (MMAX / 2, MMAX]: rows up to MMAX / 2 exist.
              if (m <= MMAX / 2 || m < pc.M) {
                const uint slot = m * CB + cb;
                const uvec4 e = xq[2 * slot], o = xq[2 * slot + 1];
                int dot = 0;  // |dot| <= 32 * 8 * 127: exact
                [[unroll]] for (uint i = 0; i < 4; ++i) {
                  dot += dotPacked4x8EXT(wlo[i], int(e[i])) + dotPacked4x8EXT(whi[i], int(o[i]));
                }
                acc[j][m] = fma(float(dot), sc[u][j] * xd[slot], acc[j][m]);
              }
            }
          }
        }
      }
      barrier();  // the chunk is read before the next one overwrites it
    }

#if SPLIT
    // Slices 1.. hand their partial sums to slice 0, as in q4gsw_gemv_fast.
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
#if SLICED
    // Hand this slice's sums over; the last slice of the tile to arrive finishes it.
    const uint counters = (tiles + 15u) & ~15u;
    const uint slice_floats = tiles * MMAX * TILE;
    const uint mine = counters + tile * MMAX * TILE + r;  // + slice, row and j offsets below
    if (s == 0u) {
      [[unroll]] for (uint j = 0; j < NPL; ++j) {
        [[unroll]] for (uint m = 0; m < MMAX; ++m) {
          partial[mine + slice * slice_floats + m * TILE + j * NL] = acc[j][m];
        }
      }
    }
    memoryBarrierBuffer();  // the partials are visible before the counter says they are there
    barrier();
    if (lid == 0u) last_slice = atomicAdd(counter[tile], 1u);
    barrier();
    const bool finish = last_slice == SLICES - 1u;  // uniform: read from shared after a barrier
    if (finish) {
      memoryBarrierBuffer();  // and the others' partials are read after their counts
      if (s == 0u) {
        [[unroll]] for (uint j = 0; j < NPL; ++j) {
          [[unroll]] for (uint m = 0; m < MMAX; ++m) {
            float sum = 0.0;
            [[unroll]] for (uint ss = 0; ss < SLICES; ++ss) {
              sum += partial[mine + ss * slice_floats + m * TILE + j * NL];
            }
            acc[j][m] = sum;
          }
        }
      }
      if (lid == 0u) counter[tile] = 0u;  // ready for the next dispatch
    }
#else
    const bool finish = true;
#endif
    if (s == 0u && finish) {
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
