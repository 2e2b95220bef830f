#include "kernels/families/splitk.h"

#include "kernels/family.h"

namespace vktune::kernels::splitk {

std::string shape_error(uint64_t tiles, uint32_t bm, uint32_t bn, uint32_t k, uint32_t bk,
                        uint32_t slices) {
  if (tiles > kMaxSplitTiles) {
    return std::to_string(tiles) + " output tiles of " + std::to_string(bm) + "x" +
           std::to_string(bn) + " already fill the GPU (split-K is for at most " +
           std::to_string(kMaxSplitTiles) + ")";
  }
  if (const uint64_t steps = ceil_div(k, bk); steps < uint64_t{kMinStepsPerSlice} * slices) {
    return "K=" + std::to_string(k) + " has " + std::to_string(steps) + " k-steps of " +
           std::to_string(bk) + ", fewer than " + std::to_string(kMinStepsPerSlice) +
           " for each of " + std::to_string(slices) + " slices";
  }
  return {};
}

uint64_t workspace_bytes(uint64_t tiles, uint32_t bm, uint32_t bn, uint32_t slices) {
  return (ceil_div(tiles, 16) * 16 + uint64_t{slices} * tiles * bm * bn) * 4;
}

}  // namespace vktune::kernels::splitk
