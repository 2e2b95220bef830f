// An sdpa problem as the tests write one: M tokens attending L cache positions, `heads` query
// heads over `kv_heads` KV heads of head dim D.
#pragma once

#include <cstdint>

#include "kernels/problem.h"

namespace vktune::kernels::test {

inline Problem sdpa_problem(uint32_t m, uint32_t l, uint32_t heads, uint32_t kv_heads, uint32_t d,
                            DType dtype = DType::f32) {
  Problem p{Op("sdpa"), m, l, d, 0, false};
  p.heads = heads;
  p.kv_heads = kv_heads;
  p.dtype = dtype;
  return p;
}

}  // namespace vktune::kernels::test
