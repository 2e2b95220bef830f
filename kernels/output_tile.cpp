#include "kernels/output_tile.h"

#include <cmath>

namespace vktune::kernels {
namespace {

uint64_t tiles(uint32_t extent, uint32_t tile) noexcept {
  return tile == 0 ? 1 : (uint64_t{extent} + tile - 1) / tile;
}

// Outputs computed along one axis: the extent itself where no tile pads it.
uint64_t computed(uint32_t extent, uint32_t tile) noexcept {
  return tile == 0 ? extent : tiles(extent, tile) * tile;
}

}  // namespace

uint64_t OutputTile::count(uint32_t rows, uint32_t cols) const noexcept {
  return tiles(rows, m) * tiles(cols, n);
}

double OutputTile::log_useful_share(uint32_t rows, uint32_t cols) const noexcept {
  const uint64_t padded_rows = computed(rows, m), padded_cols = computed(cols, n);
  // Most tuned shapes are multiples of every tile: no logarithm on the ranking's common path.
  if (padded_rows == rows && padded_cols == cols) return 0;
  return std::log(double(rows) * double(cols) / (double(padded_rows) * double(padded_cols)));
}

}  // namespace vktune::kernels
