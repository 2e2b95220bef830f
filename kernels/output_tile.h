// The block of outputs one workgroup computes whole, and how many workgroups share it (the
// slices of a K split). A tiled kernel computes its edge tiles in full (rows clamped or
// zero-filled, stores guarded), so past the problem's edge it does work nobody reads: at M = 160
// a 128-row tile computes 256 rows, a 64-row one 192. The runtime's ranking reads that share,
// and how evenly the workgroups fill the GPU, when it carries a variant's times from tuned
// shapes to an untuned one (runtime/rank.h).
#pragma once

#include <cstdint>

namespace vktune::kernels {

// A K split pays only while the output tiles leave compute units idle: past this many tiles
// every GPU we know is full (the H100 has 132 SMs), and the split's extra traffic is pure cost.
// A split variant's constraints hold such a split illegal (Constraints::split), so the tuner
// never measures one and the runtime never answers with one.
inline constexpr uint64_t kMaxSplitTiles = 512;

// An output as tiles cover it: rows and columns (OpDescriptor::output_grid says which they are).
struct OutputGrid {
  uint32_t rows = 0, cols = 0;
};

struct OutputTile {
  uint32_t m = 0;  // rows of the output (M) a workgroup computes; 0: it computes only real rows
  uint32_t n = 0;  // columns (N); 0: only real columns
  uint32_t slices = 1;  // workgroups per tile: each computes a slice of K (split-K)

  // Tiles covering rows x cols (an axis without a tile counts once).
  uint64_t count(uint32_t rows, uint32_t cols) const noexcept;
  // The workgroups a dispatch over rows x cols launches: count() times slices.
  uint64_t workgroups(uint32_t rows, uint32_t cols) const noexcept {
    return count(rows, cols) * slices;
  }
  // Whether a dispatch over rows x cols may use this tile: always without a K split, else while
  // its tiles number at most kMaxSplitTiles.
  bool split_allowed(uint32_t rows, uint32_t cols) const noexcept {
    return slices <= 1 || count(rows, cols) <= kMaxSplitTiles;
  }
  // ln of the share of the computed outputs that are the problem's (m x n): 0 where the tile
  // divides the problem or does not pad, negative where edge tiles compute padding.
  double log_useful_share(uint32_t rows, uint32_t cols) const noexcept;

  friend bool operator==(const OutputTile&, const OutputTile&) = default;
};

}  // namespace vktune::kernels
