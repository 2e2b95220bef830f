// A runtime query as the kernel catalogue's problem.
#include "runtime/query_problem.h"

namespace vktune::runtime {

std::optional<kernels::Problem> to_problem(const ProblemQuery& q) noexcept {
  const std::optional<kernels::Op> op = kernels::parse_op(q.op);
  const std::optional<kernels::DType> dtype = kernels::parse_dtype(q.dtype);
  if (!op || !dtype) return std::nullopt;
  kernels::Problem p;
  p.op = *op;
  p.dtype = *dtype;
  p.m = q.m;
  p.n = q.n;
  p.k = q.k;
  p.group_size = q.group_size;
  p.heads = q.heads;
  p.kv_heads = q.kv_heads;
  return p;
}

}  // namespace vktune::runtime
