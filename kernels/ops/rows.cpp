// What the row-independent ops (q4gsw, rms_norm) share: their shape rules, their shape text and
// the reference of a sample of rows.
#include <algorithm>

#include "kernels/ops/ops.h"

namespace vktune::kernels {

std::string rows_shape_error(const Problem& p) {
  const std::string op = op_name(p.op);
  if (p.heads != 0 || p.kv_heads != 0) return op + " has no heads; set heads = kv_heads = 0";
  if (p.m == 0) return "M=0: " + op + " needs at least one row";
  if (p.n == 0) return "N=0: " + op + " needs at least one output column";
  return {};
}

Reference reference_of_rows(const Problem& p, const ProblemData& data,
                            std::span<const uint32_t> rows, uint64_t x_width,
                            Reference (*all)(const Problem&, const ProblemData&)) {
  if (rows.empty()) return all(p, data);
  Problem sub = p;
  sub.m = static_cast<uint32_t>(rows.size());
  ProblemData sub_data = data;
  sub_data.x.resize(sub.m * x_width);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::copy_n(data.x.begin() + rows[r] * x_width, x_width, sub_data.x.begin() + r * x_width);
  }
  return all(sub, sub_data);
}

std::string rows_text(const Problem& p) {
  return " M=" + std::to_string(p.m) + " N=" + std::to_string(p.n);
}

OutputGrid m_by_n_grid(uint32_t m, uint32_t n, uint32_t, uint32_t) noexcept { return {m, n}; }

}  // namespace vktune::kernels
