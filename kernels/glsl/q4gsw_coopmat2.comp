// q4gsw GEMM through GL_NV_cooperative_matrix2: workgroup-scope cooperative matrices, loaded
// straight from the tensors with tensor layouts, the int4 weights dequantised by a decode
// function as the driver loads them. The driver stages the operands through shared memory and
// schedules the tensor cores itself, so the shader holds no staging buffers, register slots or
// subgroup grid of its own (q4gsw_coopmat.comp does all of that by hand).
//
// It computes out^T = W * x^T: the weight tile [BN][BK] is matrix A (rows n, k contiguous, as the
// raw layout stores it), the x tile loaded transposed is matrix B [BK][BM], and the fp32
// accumulator [BN][BM] is stored transposed into out [M][N]. Weights are read in blocks of one
// row's 32 nibbles (one uvec4, the w4 element); the decode turns nibble k of a block into
// (q - 8) * scale in fp16. x goes through a decode of its own (to fp16, element by element).
//
// Interior tiles load through plain layouts; edge tiles, and split-K slices whose k-steps do not
// divide, through layouts that clamp to the tensor (zeros outside, ending at the slice's k_end),
// so they need no code of their own. Clamped layouts everywhere ran 4x slower on the H100. The
// output store always clamps. SPLITK > 1 splits K into slices, one
// workgroup per (slice, output tile): each slice stores its fp32 partial to the workspace
// (binding 5) and bumps the tile's counter; the one that arrives last adds the other partials to
// its own, writes out and zeroes the counter, so no slice waits on another (the scheme of
// q4gsw_coopmat_splitk).
//
// Needs K % 32 == 0, gs % 32 == 0 and gs a power of two (the decode finds a block's scale group
// by a shift), fp16 operands within fp16 range as q4gsw_coopmat.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_buffer_reference : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require

// The sizes are specialisation constants (the family's source() gives them; WG the workgroup
// size, BM, BN and BK the matrices' dimensions); SPLIT says whether SPLITK > 1, which adds the
// workspace hand-over.
layout(constant_id = 0) const uint WG = 256;
layout(constant_id = 1) const uint BM = 128;    // rows of x (and out) per tile
layout(constant_id = 2) const uint BN = 128;    // weight rows (columns of out) per tile
layout(constant_id = 3) const uint BK = 32;     // multiple of 32
layout(constant_id = 4) const uint SPLITK = 1;  // K slices per output tile
#ifndef SPLIT
#define SPLIT 0
#endif

layout(local_size_x_id = 0) in;

#include "q4gsw_common.glsl"

#define CLAMP gl_CooperativeMatrixClampModeConstantNV
#define ACC coopmat<float, gl_ScopeWorkgroup, BN, BM, gl_MatrixUseAccumulator>

// One block of the weight tensor: 32 nibbles of one row, low nibble first.
layout(buffer_reference, std430, buffer_reference_align = 16) buffer WeightBlock { uint q[4]; };

float16_t decode_weight(const in WeightBlock b, const in uint block[2], const in uint elem[2]) {
  const uint i = elem[1];
  const uint q = (b.q[i >> 3] >> ((i & 7u) * 4u)) & 15u;
  // block[1] counts 32-wide blocks along K; gs / 32 of them share a scale.
  const uint group = block[1] >> (findLSB(pc.gs) - 5);
  return float16_t((float(q) - 8.0) * float(scales[group * pc.N + block[0]]));
}

// x's elements as fp16 (fp32 x converted; fp16 x as well: on the H100 that ran up to 1.6x
// faster than loading fp16 x as stored).
#if F16
layout(buffer_reference, std430, buffer_reference_align = 2) buffer XElement { FLOAT_T v; };
#else
layout(buffer_reference, std430, buffer_reference_align = 4) buffer XElement { FLOAT_T v; };
#endif

float16_t decode_x(const in XElement e, const in uint block[2], const in uint elem[2]) {
  return float16_t(e.v);
}

float add_bias(const in uint row, const in uint col, const in float e, const in uint n0) {
  const uint n = n0 + row;
  return n < pc.N ? e + float(bias[n]) : e;
}

// Adds the bias and writes the [BN][BM] tile at (m0, n0) into out, transposed and clamped.
void store_out(ACC acc, uint m0, uint n0) {
  if (pc.has_bias != 0u) coopMatPerElementNV(acc, acc, add_bias, n0);
  tensorLayoutNV<2, CLAMP> lo = createTensorLayoutNV(2, CLAMP);
  lo = setTensorLayoutDimensionNV(lo, pc.M, pc.N);
  tensorViewNV<2, false, 1, 0> transpose = createTensorViewNV(2, false, 1, 0);
#if F16
#define ACC16 coopmat<float16_t, gl_ScopeWorkgroup, BN, BM, gl_MatrixUseAccumulator>
  coopMatStoreTensorNV(ACC16(acc), out_, 0, sliceTensorLayoutNV(lo, m0, BM, n0, BN), transpose);
#else
  coopMatStoreTensorNV(acc, out_, 0, sliceTensorLayoutNV(lo, m0, BM, n0, BN), transpose);
#endif
}

#if SPLIT
// The workspace: one counter per output tile, rounded up to 16 words, then [SPLITK][tiles] fp32
// partial tiles of [BM][BN], row-major. Coherent: the last slice reads what others wrote. The
// partials are written and read element by element (coopMatPerElementNV) with plain loads and
// stores, which the barriers below order; tensor stores are not ordered by them on the H100.
layout(std430, binding = 5) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 5) coherent buffer WsPartial { float partial[]; };
shared uint last_slice;

float store_partial(const in uint row, const in uint col, const in float e, const in uint base) {
  partial[base + col * BN + row] = e;
  return e;
}

// Adds the partials of the other slices (at `first`, SPLITK tiles apart, this slice's skipped).
float add_partials(const in uint row, const in uint col, const in float e, const in uint first,
                   const in uint stride, const in uint own) {
  float sum = e;
  for (uint s = 0; s < SPLITK; ++s) {
    if (s != own) sum += partial[first + s * stride + col * BN + row];
  }
  return sum;
}
#endif

// One k-step at k with the weight and x layouts `lw`, `lx` (clamped or not).
#define K_STEP(lw, lx, k)                                                                    \
  {                                                                                          \
    coopmat<float16_t, gl_ScopeWorkgroup, BN, BK, gl_MatrixUseA> a;                          \
    coopmat<float16_t, gl_ScopeWorkgroup, BK, BM, gl_MatrixUseB> b;                          \
    coopMatLoadTensorNV(a, w4, 0, sliceTensorLayoutNV(lw, n0, BN, k, BK), decode_weight);    \
    coopMatLoadTensorNV(b, x, 0, sliceTensorLayoutNV(lx, m0, BM, k, BK), transpose, decode_x); \
    acc = coopMatMulAdd(a, b, acc);                                                          \
  }

// The k loop over [k_begin, k_end). Not unrolled: unrolled 4 or 8 steps a trip it ran 1.1-2x
// slower on the H100, at 1.5-4x the binary size.
#define K_LOOP(lw, lx) \
  for (uint k = k_begin; k < k_end; k += BK) K_STEP(lw, lx, k)

void main() {
  const uint tiles_m = (pc.M + BM - 1) / BM;
  const uint tiles = tiles_m * ((pc.N + BN - 1) / BN);
  // Each slice takes the same whole number of k-steps; the last may get fewer, or none.
  const uint slice_k = ((pc.K + BK - 1) / BK + SPLITK - 1) / SPLITK * BK;
  tensorViewNV<2, false, 1, 0> transpose = createTensorViewNV(2, false, 1, 0);

  // M fastest: neighbouring workgroups share a weight tile. Slices of a tile are `tiles` apart.
  for (uint t = gl_WorkGroupID.x; t < tiles * SPLITK; t += gl_NumWorkGroups.x) {
    const uint tile = t % tiles, slice = t / tiles;
    const uint m0 = (tile % tiles_m) * BM, n0 = (tile / tiles_m) * BN;
    const uint k_begin = slice * slice_k, k_end = min(pc.K, k_begin + slice_k);

    ACC acc = ACC(0.0);
    if (m0 + BM <= pc.M && n0 + BN <= pc.N && (k_end - k_begin) % BK == 0) {
      // An interior tile: unclamped layouts, which the driver loads without bounds checks.
      tensorLayoutNV<2> lw = createTensorLayoutNV(2);
      lw = setTensorLayoutBlockSizeNV(lw, 1, 32);
      lw = setTensorLayoutDimensionNV(lw, pc.N, pc.K);
      lw = setTensorLayoutStrideNV(lw, pc.K >> 5, 1);  // in blocks
      tensorLayoutNV<2> lx = createTensorLayoutNV(2);
      lx = setTensorLayoutDimensionNV(lx, pc.M, pc.K);
      lx = setTensorLayoutStrideNV(lx, pc.K & ~31u, 1);  // K % 32 == 0: 16-byte aligned rows
      K_LOOP(lw, lx)
    } else {
      // An edge tile: zeros outside the tensors and past the slice's k_end.
      tensorLayoutNV<2, CLAMP> lw = createTensorLayoutNV(2, CLAMP);
      lw = setTensorLayoutBlockSizeNV(lw, 1, 32);
      lw = setTensorLayoutDimensionNV(lw, pc.N, k_end);
      lw = setTensorLayoutStrideNV(lw, pc.K >> 5, 1);
      tensorLayoutNV<2, CLAMP> lx = createTensorLayoutNV(2, CLAMP);
      lx = setTensorLayoutDimensionNV(lx, pc.M, k_end);
      lx = setTensorLayoutStrideNV(lx, pc.K, 1);  // the dimension ends at k_end, rows do not
      K_LOOP(lw, lx)
    }

#if SPLIT
    // Hand this slice's partial over; the last slice of the tile to arrive finishes it.
    const uint first = ((tiles + 15u) & ~15u) + tile * (BM * BN);
    const uint stride = tiles * (BM * BN);
    coopMatPerElementNV(acc, acc, store_partial, first + slice * stride);
    memoryBarrierBuffer();  // the partial is visible before the counter says it is there
    barrier();
    if (gl_LocalInvocationID.x == 0u) last_slice = atomicAdd(counter[tile], 1u);
    barrier();
    if (last_slice != SPLITK - 1u) continue;  // uniform: read from shared after a barrier
    memoryBarrierBuffer();  // and the others' partials are read after their counts
    coopMatPerElementNV(acc, acc, add_partials, first, stride, slice);
    if (gl_LocalInvocationID.x == 0u) counter[tile] = 0u;  // ready for the next dispatch
#endif
    store_out(acc, m0, n0);
  }
}
