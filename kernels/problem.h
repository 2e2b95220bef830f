// The problems vktune tunes, described by their op and shape, with validation that names the
// bad value and the fix. Each op's facts and rules live in its descriptor (kernels/op.h,
// kernels/ops/).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vktune::kernels {

struct OpDescriptor;  // kernels/op.h

// An op, identified by its descriptor in the catalogue's registry (one file per op under
// kernels/ops/; no list of ops is written anywhere else). Compared by identity and ordered as
// all_ops() is. A default Op names none: give a Problem its op before asking it anything.
class Op {
 public:
  Op() = default;
  Op(const OpDescriptor& descriptor) noexcept : descriptor_(&descriptor) {}
  // The op named `name`, e.g. Op("q4gsw"). Throws std::invalid_argument naming the known ops
  // when there is none (parse_op() is the non-throwing lookup).
  explicit Op(std::string_view name);

  const OpDescriptor& descriptor() const noexcept { return *descriptor_; }
  const OpDescriptor* operator->() const noexcept { return descriptor_; }
  // "q4gsw": the descriptor's name.
  std::string_view name() const noexcept;
  // Its position in all_ops().
  size_t index() const noexcept;

  friend bool operator==(Op, Op) noexcept = default;
  friend std::strong_ordering operator<=>(Op a, Op b) noexcept { return a.index() <=> b.index(); }

 private:
  const OpDescriptor* descriptor_ = nullptr;
};

// The descriptor's name ("q4gsw"), NUL-terminated.
const char* op_name(Op op) noexcept;
// The Op named `name`, or nullopt.
std::optional<Op> parse_op(std::string_view name) noexcept;

// Element type of a problem's activations and of every other float tensor: q4gsw's x, scales,
// bias and out, rms_norm's x, w and y, sdpa's q, K and V caches and out. Accumulation (and
// sdpa's softmax) is fp32 either way; the weights stay int4.
enum class DType { f32, f16 };

// "f32" / "f16": the spelling of the DB's problems.dtype, the runtime query and the CLI.
const char* dtype_name(DType dtype) noexcept;
// The DType named `name`, or nullopt.
std::optional<DType> parse_dtype(std::string_view name) noexcept;
// Bytes of one element: 4 or 2.
uint32_t dtype_bytes(DType dtype) noexcept;

// out[m, n] = bias[n] + sum_k x[m, k] * (q(n, k) - 8) * scale[k / group_size, n]  (q4gsw)
// y[r, i]   = x[r, i] / sqrt(mean_i x[r, :]^2 + eps) * w[i]  with r < m, i < n      (rms_norm;
//             k is the width too or 0, group_size 0, has_bias false)
// out[t, h, :] = softmax_j(q[t, h, :] . K[j, h / (heads / kv_heads), :] / sqrt(k)) V[j, ...]
//             with t < m tokens, j over the n = L cache positions token t attends (causal:
//             token t sits at position L - m + t, so j <= L - m + t); k is the head dim  (sdpa;
//             group_size 0, has_bias false). docs/attention.md.
struct Problem {
  Op op;
  uint32_t m = 0, n = 0, k = 0, group_size = 0;
  bool has_bias = false;
  float eps = 1e-5f;  // rms_norm only
  // sdpa only (0 for the other ops): query heads and KV heads (grouped-query attention when
  // kv_heads < heads; heads % kv_heads == 0).
  uint32_t heads = 0, kv_heads = 0;
  DType dtype = DType::f32;  // last, so the shape-first aggregate initialisers stay as they are

  friend bool operator==(const Problem&, const Problem&) = default;
};

// A problem as it is written down by names: the database's rows (db::Problem) and the runtime's
// queries (runtime::ProblemQuery) carry op and dtype as text and the same eight dimensions.
// Their catalogue problem (no bias; rms_norm's eps at its default; sdpa's L in n, its head dim
// in k), or nullopt when `written.op` names no op of this build or `written.dtype` no dtype.
// Shapes are copied as they are: validate() is the check. The one conversion every layer uses.
template <typename Written>
std::optional<Problem> problem_of(const Written& written) noexcept {
  const std::optional<Op> op = parse_op(written.op);
  const std::optional<DType> dtype = parse_dtype(written.dtype);
  if (!op || !dtype) return std::nullopt;
  Problem p{*op, written.m, written.n, written.k, written.group_size, false};
  p.heads = written.heads;
  p.kv_heads = written.kv_heads;
  p.dtype = *dtype;
  return p;
}

// "q4gsw M=1 N=4096 K=4096 gs=32 bias" style (" f16" appended for f16), for messages.
std::string describe(const Problem& problem);

// Empty when `problem` is well formed, else the reason, e.g.
// "K=4095 is odd; q4gsw needs an even K". Device limits are not checked here (see
// Family::legality).
std::string validate(const Problem& problem);

class InvalidProblem : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws InvalidProblem with validate()'s text unless the problem is well formed.
void require_valid(const Problem& problem);

}  // namespace vktune::kernels
