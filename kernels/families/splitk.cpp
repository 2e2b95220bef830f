#include "kernels/families/splitk.h"

#include "kernels/family.h"

namespace vktune::kernels::splitk {

std::string shape_error(const OutputTile& tile, const Problem& problem) {
  if (!tile.split_allowed(problem.m, problem.n)) {
    // A tile without rows (a split GEMV) takes every row of M.
    const std::string rows = tile.m == 0 ? "M" : std::to_string(tile.m);
    return std::to_string(tile.count(problem.m, problem.n)) + " output tiles of " + rows + "x" +
           std::to_string(tile.n) + " already fill the GPU (split-K is for at most " +
           std::to_string(kMaxSplitTiles) + ")";
  }
  return {};
}

uint64_t workspace_bytes(uint64_t tiles, uint32_t bm, uint32_t bn, uint32_t slices) {
  return (ceil_div(tiles, 16) * 16 + uint64_t{slices} * tiles * bm * bn) * 4;
}

}  // namespace vktune::kernels::splitk
