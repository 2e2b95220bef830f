#include "kernels/families/splitk.h"

#include "kernels/family.h"

namespace vktune::kernels::splitk {

uint64_t workspace_bytes(uint64_t tiles, uint32_t bm, uint32_t bn, uint32_t slices) {
  return (ceil_div(tiles, 16) * 16 + uint64_t{slices} * tiles * bm * bn) * 4;
}

}  // namespace vktune::kernels::splitk
