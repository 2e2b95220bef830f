// Problem naming and validation.
#include "kernels/problem.h"

namespace vktune::kernels {

const char* op_name(Op op) noexcept {
  switch (op) {
    case Op::q4gsw: return "q4gsw";
    case Op::rms_norm: return "rms_norm";
    case Op::sdpa: return "sdpa";
  }
  return "?";
}

std::optional<Op> parse_op(std::string_view name) noexcept {
  if (name == "q4gsw") return Op::q4gsw;
  if (name == "rms_norm") return Op::rms_norm;
  if (name == "sdpa") return Op::sdpa;
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
  if (p.op == Op::sdpa) {
    s += " M=" + std::to_string(p.m) + " L=" + std::to_string(p.n) +
         " Hq=" + std::to_string(p.heads) + " Hkv=" + std::to_string(p.kv_heads) +
         " D=" + std::to_string(p.k);
  } else {
    s += " M=" + std::to_string(p.m) + " N=" + std::to_string(p.n);
  }
  if (p.op == Op::q4gsw) {
    s += " K=" + std::to_string(p.k) + " gs=" + std::to_string(p.group_size);
    if (p.has_bias) s += " bias";
  }
  if (p.dtype != DType::f32) s += std::string(" ") + dtype_name(p.dtype);
  return s;
}

namespace {

std::string validate_sdpa(const Problem& p) {
  const std::string m = "M=" + std::to_string(p.m), l = "L=" + std::to_string(p.n);
  if (p.m == 0) return "M=0: sdpa needs at least one query token";
  if (p.n == 0) return "L=0: sdpa needs at least one cache position to attend";
  if (p.n < p.m) {
    return l + " < " + m + ": the M query tokens sit at cache positions L-M..L-1, so the cache "
           "must hold them; append the tokens' keys and values before attending";
  }
  if (p.k == 0) return "head dim D=0: sdpa needs a positive head dim (K)";
  if (p.heads == 0 || p.kv_heads == 0) return "sdpa needs heads >= 1 and kv_heads >= 1";
  if (p.heads % p.kv_heads != 0) {
    return "heads=" + std::to_string(p.heads) + " is not a multiple of kv_heads=" +
           std::to_string(p.kv_heads) + "; grouped-query attention shares each KV head among "
           "heads / kv_heads query heads";
  }
  if (p.group_size != 0 || p.has_bias) return "sdpa has no group size or bias; set them to 0";
  return {};
}

}  // namespace

std::string validate(const Problem& p) {
  const std::string op = op_name(p.op);
  if (p.op == Op::sdpa) return validate_sdpa(p);
  if (p.heads != 0 || p.kv_heads != 0) return op + " has no heads; set heads = kv_heads = 0";
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
