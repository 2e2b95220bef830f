// The hand-over of the sdpa kernels that split a tile's cache over SPLITS workgroups
// (sdpa_flash.comp, sdpa_decode_mma.comp): each split leaves its rows' (m, l) and unnormalised
// O in the workspace and bumps the tile's counter; the split that arrives last merges the splits
// in split order (so the result does not depend on which arrived last), writes out and zeroes
// the counter. One dispatch, and no workgroup waits for another.
//
// The including shader defines SPLITS, HD, WG and MERGE_ROWS (query rows a tile: whole head
// groups of tokens, token-major), kNoScore, row_scale (at least MERGE_ROWS floats of shared
// memory) and the output o4, after sdpa_push.glsl. A split with no real score for a row hands
// over m = kNoScore, l = 0, O = 0: weight 0.
#if SPLITS > 1
// Workspace, fp32 words: a counter per tile (rounded up to 4), (m, l) per (tile, split, row)
// (rounded up to 4), then O [tile, split, MERGE_ROWS, HD]. Coherent: the last split reads the
// others'.
layout(std430, binding = 4) coherent buffer WsCount { uint counter[]; };
layout(std430, binding = 4) coherent buffer WsMl { float ml[]; };
layout(std430, binding = 4) coherent buffer WsAcc { vec4 part[]; };
shared float split_w[SPLITS * MERGE_ROWS];  // per (split, row): its weight in the merge
// [0]: the tile's splits that arrived before this one. 16 bytes, not 4: the driver places the
// shared variables in an order of its own, and a cooperative-matrix load needs its start
// 16-byte aligned, so each of them is a multiple of 16 bytes (a row_table 4 bytes off makes
// the NVIDIA driver read each row's column 0 from the element before it).
shared uint last_split[4];

// Where (m, l) of (tile w, split, row) start in the workspace, and O's row, in vec4.
uint split_state_at(uint w, uint split, uint row) {
  const uint tile_tokens = MERGE_ROWS / (pc.heads / pc.kv_heads);
  const uint work = (pc.tokens + tile_tokens - 1u) / tile_tokens * pc.kv_heads;
  return ((work + 3u) & ~3u) + ((w * SPLITS + split) * MERGE_ROWS + row) * 2u;
}
uint split_part_at(uint w, uint split, uint row) {
  const uint tile_tokens = MERGE_ROWS / (pc.heads / pc.kv_heads);
  const uint work = (pc.tokens + tile_tokens - 1u) / tile_tokens * pc.kv_heads;
  const uint acc0 = (((work + 3u) & ~3u) + 2u * work * SPLITS * MERGE_ROWS + 3u) & ~3u;
  return (acc0 + ((w * SPLITS + split) * MERGE_ROWS + row) * HD) / 4u;
}

void store_split_state(uint w, uint split, uint row, float m, float l) {
  const uint at = split_state_at(w, split, row);
  ml[at] = m;
  ml[at + 1u] = l;
}

// O's floats 4 c4 .. 4 c4 + 3 of the row, with plain coherent stores.
void store_split_part(uint w, uint split, uint row, uint c4, vec4 o) {
  part[split_part_at(w, split, row) + c4] = o;
}

// Whether this workgroup's split of tile w is the last to arrive; the workgroup's stores are
// visible before its count, and the others' are read after theirs. Uniform.
bool last_split_arrived(uint w) {
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationID.x == 0u) last_split[0] = atomicAdd(counter[w], 1u);
  barrier();
  if (last_split[0] != SPLITS - 1u) return false;
  memoryBarrierBuffer();
  return true;
}

// The last split's merge of tile w, whose rows from t0 are tile_rows query rows of KV head kvh.
void merge_splits(uint w, uint t0, uint tile_rows, uint group, uint kvh) {
  const uint lid = gl_LocalInvocationID.x;
  // Per row, the splits' weights exp2(m_s - m) and 1 / l, in split order (unrolled, so the
  // splits' loads are all in flight at once).
  if (lid < MERGE_ROWS) {
    float ms[SPLITS], ls[SPLITS];
    [[unroll]] for (uint s = 0; s < SPLITS; ++s) {
      const uint at = split_state_at(w, s, lid);
      ms[s] = ml[at];
      ls[s] = ml[at + 1u];
    }
    float m_all = kNoScore;
    [[unroll]] for (uint s = 0; s < SPLITS; ++s) m_all = max(m_all, ms[s]);
    float l_all = 0.0;
    [[unroll]] for (uint s = 0; s < SPLITS; ++s) {
      const float weight = exp2(ms[s] - m_all);
      split_w[s * MERGE_ROWS + lid] = weight;
      l_all += ls[s] * weight;
    }
    row_scale[lid] = l_all > 0.0 ? 1.0 / l_all : 0.0;  // every real row attends a position
  }
  barrier();
  // Each invocation 8 outputs of a real row: the splits' O weighted in split order.
  for (uint e = lid; e < MERGE_ROWS * (HD / 8u); e += WG) {
    const uint r = e / (HD / 8u), c8 = e % (HD / 8u), tr = t0 + r / group;
    if (r >= tile_rows || tr >= pc.tokens) continue;
    vec4 lo = vec4(0.0), hi = vec4(0.0);
    [[unroll]] for (uint s = 0; s < SPLITS; ++s) {
      const uint at = split_part_at(w, s, r) + c8 * 2u;
      lo += part[at] * split_w[s * MERGE_ROWS + r];
      hi += part[at + 1u] * split_w[s * MERGE_ROWS + r];
    }
    lo *= row_scale[r];
    hi *= row_scale[r];
    o4[(tr * pc.heads + kvh * group + r % group) * (HD / 8u) + c8] =
        uvec4(packHalf2x16(lo.xy), packHalf2x16(lo.zw), packHalf2x16(hi.xy), packHalf2x16(hi.zw));
  }
  if (lid == 0u) counter[w] = 0u;  // ready for the next dispatch
}
#endif
