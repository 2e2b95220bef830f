#include "kernels/families/splitk.h"

#include "kernels/family.h"

namespace vktune::kernels::splitk {

std::string shape_error(const OutputTile& tile, const Problem& problem, uint32_t bk) {
  if (!tile.split_allowed(problem.m, problem.n)) {
    // A tile without rows (a split GEMV) takes every row of M.
    const std::string rows = tile.m == 0 ? "M" : std::to_string(tile.m);
    return std::to_string(tile.count(problem.m, problem.n)) + " output tiles of " + rows + "x" +
           std::to_string(tile.n) + " already fill the GPU (split-K is for at most " +
           std::to_string(kMaxSplitTiles) + ")";
  }
  const uint32_t k = problem.k, slices = tile.slices;
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
