// A variant's legality as data (docs/variants.md "Constraints as data"): the one encoding that
// the catalogue states (Family::constraints), the database stores as JSON
// (kernels/constraints_json.h) and the runtime checks on its select path. Installed with the
// runtime's headers: it includes the standard library and kernels/output_tile.h only. Device
// limits are not in here: a variant stored for a device was legal on it.
#pragma once

#include <bit>
#include <cstdint>

#include "kernels/output_tile.h"

namespace vktune::kernels {

// sdpa's tiles of `rows` query rows for `p`: whole head groups, so M over the tokens a tile
// holds (at least one), times the KV heads. The flash kernel dispatches them, and its split's
// legality counts them (Constraints::split_tiles).
template <typename Shape>
constexpr uint64_t sdpa_tiles(uint32_t rows, const Shape& p) noexcept {
  const uint32_t group = p.kv_heads == 0 || p.heads < p.kv_heads ? 1 : p.heads / p.kv_heads;
  const uint64_t tokens = rows < group ? 1 : rows / group;
  return (p.m + tokens - 1) / tokens * p.kv_heads;
}

// A multiple of 0 or 1 means "no constraint"; m_max == 0 and k_max == 0 mean "no upper bound",
// k_min == 0 no lower one.
struct Constraints {
  uint32_t k_multiple = 1, gs_multiple = 1, n_multiple = 1;
  uint32_t m_min = 1, m_max = 0;
  uint32_t k_max = 0;  // sdpa's online kernels: the head dim
  // The split GEMVs' and tensor-core tiles' slices of K: kMinStepsPerSlice k-steps each;
  // sdpa_decode: more than half its load.
  uint32_t k_min = 0;
  // group_size must be a power of two (q4gsw_coopmat2: its decode finds a block's scale by a
  // shift).
  bool gs_power_of_two = false;
  // sdpa: the query heads per KV head (heads / kv_heads) must be a multiple of this; the online
  // kernels' qpg, whose workgroup's heads share one KV head.
  uint32_t head_group_multiple = 1;
  // sdpa: the query rows a KV head serves (M x heads / kv_heads) must be at least this; the
  // decode kernel's blocks of `rows` query rows, which would otherwise pad more than half.
  uint32_t query_rows_min = 1;
  // sdpa: the query heads per KV head at most this (0: no bound); the flash kernel's tiles of
  // `br` rows hold whole head groups.
  uint32_t head_group_max = 0;
  // N at least this (0: no bound): the flash kernel split over the cache keeps two blocks a split.
  uint32_t n_min = 0;
  // sdpa split over the cache (0: no split): the query rows a tile holds, whole head groups of
  // them; its tiles, M over the tokens a tile holds times kv_heads, number at most
  // kMaxSplitTiles, past which they fill the GPU without the split.
  uint32_t split_tile_rows = 0;
  // A variant that splits K: the tile its split hands over (Family::split_tile), illegal where
  // its tiles already fill the GPU (OutputTile::split_allowed), so no database measured it
  // there. Not stored: the runtime takes it from its catalogue (runtime/snapshot_build.cpp).
  // Default: no split.
  OutputTile split;

  // Whether `p` meets every bound; `p` is any shape with the fields m, n, k, group_size, heads
  // and kv_heads (kernels::Problem, runtime::ProblemQuery). Inline and allocation-free: the
  // runtime's ranking asks it for every candidate on every neighbouring problem.
  template <typename Shape>
  bool allows(const Shape& p) const noexcept {
    return divides(k_multiple, p.k) && divides(gs_multiple, p.group_size) &&
           (!gs_power_of_two || std::has_single_bit(p.group_size)) && divides(n_multiple, p.n) &&
           p.m >= m_min && (m_max == 0 || p.m <= m_max) && (k_max == 0 || p.k <= k_max) &&
           p.k >= k_min && p.n >= n_min && heads_allow(p) && split.split_allowed(p.m, p.n);
  }

  // sdpa split over the cache: its tiles for `p`, M over the tokens a tile holds times kv_heads;
  // 0 without a split.
  template <typename Shape>
  uint64_t split_tiles(const Shape& p) const noexcept {
    return split_tile_rows == 0 ? 0 : sdpa_tiles(split_tile_rows, p);
  }

  friend bool operator==(const Constraints&, const Constraints&) = default;

 private:
  // The bounds on sdpa's head counts; a problem without them (kv_heads 0) meets none but the
  // defaults.
  template <typename Shape>
  bool heads_allow(const Shape& p) const noexcept {
    if (p.kv_heads == 0) {
      return head_group_multiple <= 1 && query_rows_min <= 1 && head_group_max == 0 &&
             split_tile_rows == 0;
    }
    const uint32_t group = p.heads / p.kv_heads;
    if (!divides(head_group_multiple, group) || uint64_t{p.m} * group < query_rows_min ||
        (head_group_max != 0 && group > head_group_max)) {
      return false;
    }
    return split_tiles(p) <= kMaxSplitTiles;
  }
  static constexpr bool divides(uint32_t multiple, uint32_t value) noexcept {
    if (multiple <= 1) return true;
    // Multiples are nearly always powers of two: a mask, not a division.
    if ((multiple & (multiple - 1)) == 0) return (value & (multiple - 1)) == 0;
    return value % multiple == 0;
  }
};

}  // namespace vktune::kernels
