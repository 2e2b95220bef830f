// A variant's legality as data (docs/variants.md "Constraints as data"): the one encoding that
// the catalogue states (Family::constraints), the database stores as JSON
// (kernels/constraints_json.h) and the runtime checks on its select path. Installed with the
// runtime's headers: it includes the standard library and kernels/output_tile.h only. Device
// limits are not in here: a variant stored for a device was legal on it.
#pragma once

#include <cstdint>

#include "kernels/output_tile.h"

namespace vktune::kernels {

// A multiple of 0 or 1 means "no constraint"; m_max == 0 and k_max == 0 mean "no upper bound",
// k_min == 0 no lower one.
struct Constraints {
  uint32_t k_multiple = 1, gs_multiple = 1, n_multiple = 1;
  uint32_t m_min = 1, m_max = 0;
  uint32_t k_max = 0;  // sdpa's online kernels: the head dim
  uint32_t k_min = 0;  // the split int8-dot GEMV: its slices' k-steps
  // sdpa: the query heads per KV head (heads / kv_heads) must be a multiple of this; the online
  // kernels' qpg, whose workgroup's heads share one KV head.
  uint32_t head_group_multiple = 1;
  // A variant that splits K: the tile its split hands over (Family::split_tile). Not stored:
  // the runtime fills it from its catalogue (runtime/snapshot.cpp), and the tuner holds such a
  // split illegal where its tiles already fill the GPU (OutputTile::split_allowed), so no
  // database measured it there. Default: no split.
  OutputTile split;

  // Whether `p` meets every bound; `p` is any shape with the fields m, n, k, group_size, heads
  // and kv_heads (kernels::Problem, runtime::ProblemQuery). Inline and allocation-free: the
  // runtime's ranking asks it for every candidate on every neighbouring problem.
  template <typename Shape>
  bool allows(const Shape& p) const noexcept {
    return divides(k_multiple, p.k) && divides(gs_multiple, p.group_size) &&
           divides(n_multiple, p.n) && p.m >= m_min && (m_max == 0 || p.m <= m_max) &&
           (k_max == 0 || p.k <= k_max) && p.k >= k_min &&
           (p.kv_heads == 0 ? head_group_multiple <= 1
                            : divides(head_group_multiple, p.heads / p.kv_heads)) &&
           split.split_allowed(p.m, p.n);
  }

  friend bool operator==(const Constraints&, const Constraints&) = default;

 private:
  static constexpr bool divides(uint32_t multiple, uint32_t value) noexcept {
    if (multiple <= 1) return true;
    // Multiples are nearly always powers of two: a mask, not a division.
    if ((multiple & (multiple - 1)) == 0) return (value & (multiple - 1)) == 0;
    return value % multiple == 0;
  }
};

}  // namespace vktune::kernels
