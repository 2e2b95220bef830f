// Problem naming and validation.
#include "kernels/problem.h"

namespace vktune::kernels {

const char* op_name(Op op) noexcept { return op == Op::q4gsw ? "q4gsw" : "rms_norm"; }

std::optional<Op> parse_op(std::string_view name) noexcept {
  if (name == "q4gsw") return Op::q4gsw;
  if (name == "rms_norm") return Op::rms_norm;
  return std::nullopt;
}

const char* dtype_name(DType dtype) noexcept { return dtype == DType::f16 ? "f16" : "f32"; }

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  if (name == "f32") return DType::f32;
  if (name == "f16") return DType::f16;
  return std::nullopt;
}

uint32_t dtype_bytes(DType dtype) noexcept { return dtype == DType::f16 ? 2 : 4; }

std::string describe(const Problem& p) {
  std::string s = op_name(p.op);
  s += " M=" + std::to_string(p.m) + " N=" + std::to_string(p.n);
  if (p.op == Op::q4gsw) {
    s += " K=" + std::to_string(p.k) + " gs=" + std::to_string(p.group_size);
    if (p.has_bias) s += " bias";
  }
  if (p.dtype != DType::f32) s += std::string(" ") + dtype_name(p.dtype);
  return s;
}

std::string validate(const Problem& p) {
  const std::string op = op_name(p.op);
  if (p.m == 0) return "M=0: " + op + " needs at least one row";
  if (p.n == 0) return "N=0: " + op + " needs at least one output column";
  if (p.op == Op::rms_norm) {
    if (p.k != 0 && p.k != p.n) {
      return "K=" + std::to_string(p.k) + " differs from the width N=" + std::to_string(p.n) +
             "; rms_norm takes K=0 or K=N";
    }
    if (p.has_bias) return "rms_norm has no bias; set has_bias=false";
    if (!(p.eps >= 0.0f)) return "eps=" + std::to_string(p.eps) + " must be >= 0";
    return {};
  }
  const std::string k = "K=" + std::to_string(p.k);
  const std::string gs = "group_size=" + std::to_string(p.group_size);
  if (p.k == 0) return "K=0: q4gsw needs at least one input feature";
  if (p.group_size == 0) return "group_size=0: q4gsw needs a positive, even group size";
  if (p.k % 2 != 0) return k + " is odd; q4gsw needs an even K";
  if (p.group_size % 2 != 0) {
    return gs + " is odd; q4gsw needs an even group size (two nibbles per byte share a scale)";
  }
  if (p.k % p.group_size != 0) return k + " is not a multiple of " + gs;
  return {};
}

void require_valid(const Problem& problem) {
  if (std::string reason = validate(problem); !reason.empty()) throw InvalidProblem(reason);
}

}  // namespace vktune::kernels
