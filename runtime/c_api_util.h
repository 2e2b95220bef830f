// Conversions shared by the C API's files (c_api.cpp, c_api_dispatch.cpp). Internal.
#pragma once

#include <algorithm>
#include <cstring>
#include <string_view>

#include "runtime/selection.h"
#include "runtime/vktune_runtime.h"

namespace vktune::runtime::c_api {

inline void copy_error(std::string_view message, char* err, size_t errlen) noexcept {
  if (err == nullptr || errlen == 0) return;
  const size_t n = std::min(message.size(), errlen - 1);
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

// The problem of a C query whose op is not NULL.
inline ProblemQuery to_query(const vktune_problem_query& problem) noexcept {
  ProblemQuery q;
  q.op = problem.op;
  q.dtype = problem.dtype != nullptr ? problem.dtype : "f32";
  q.m = problem.m;
  q.n = problem.n;
  q.k = problem.k;
  q.group_size = problem.group_size;
  q.heads = problem.heads;
  q.kv_heads = problem.kv_heads;
  return q;
}

}  // namespace vktune::runtime::c_api
