#include "kernels/output_tile.h"

#include <cmath>

namespace vktune::kernels {
namespace {

// ln(extent / extent rounded up to a multiple of tile), 0 for no tile.
uint64_t tiles(uint32_t extent, uint32_t tile) noexcept {
  return tile == 0 ? 1 : (uint64_t{extent} + tile - 1) / tile;
}

double log_share(uint32_t extent, uint32_t tile) noexcept {
  // Most tuned shapes are multiples of every tile: no logarithm on the ranking's common path.
  if (tile == 0 || extent % tile == 0) return 0;
  return std::log(double(extent) / double(tiles(extent, tile) * tile));
}

}  // namespace

uint64_t OutputTile::count(uint32_t rows, uint32_t cols) const noexcept {
  return tiles(rows, m) * tiles(cols, n);
}

double OutputTile::log_useful_share(uint32_t rows, uint32_t cols) const noexcept {
  return log_share(rows, m) + log_share(cols, n);
}

}  // namespace vktune::kernels
