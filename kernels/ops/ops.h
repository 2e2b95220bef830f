// The pieces the op descriptors (one file each under kernels/ops/, each registered with
// VKTUNE_CATALOGUE_OP: kernels/catalogue_registry.h) share. Internal to the catalogue: everyone
// else asks kernels/op.h's op_descriptor() and find_op().
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kernels/families/reference.h"
#include "kernels/catalogue_registry.h"
#include "kernels/op.h"

namespace vktune::kernels {

template <typename T>
std::vector<std::byte> bytes_of(const T& value) {
  const auto raw = std::bit_cast<std::array<std::byte, sizeof(T)>>(value);
  return {raw.begin(), raw.end()};
}

// The rules every op with independent [M, ...] rows and no heads shares, or empty.
std::string rows_shape_error(const Problem& p);

// The reference of `rows` of a row-independent op whose x rows are `x_width` floats: `all` on
// the sub-problem of those rows (every row when `rows` is empty).
Reference reference_of_rows(const Problem& p, const ProblemData& data,
                            std::span<const uint32_t> rows, uint64_t x_width,
                            Reference (*all)(const Problem&, const ProblemData&));

// The shape text of an op with rows M and width N: " M=1 N=4096".
std::string rows_text(const Problem& p);

// OpDescriptor::output_grid of an op whose tiles cover M x N.
OutputGrid m_by_n_grid(uint32_t m, uint32_t n, uint32_t heads, uint32_t kv_heads) noexcept;

}  // namespace vktune::kernels
