// Query validation and the built-in routing, read from the kernel catalogue
// (kernels/builtin_variants.h): the runtime types none of a built-in variant's facts.
#include "runtime/builtin.h"

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/builtin_variants.h"
#include "kernels/family.h"
#include "runtime/builtin_spirv.h"

namespace vktune::runtime {
namespace {

// One built-in variant as the runtime hands it out; the strings are the Selection's storage.
struct Builtin {
  std::string family, variant_key, knobs_json, constraints_json, layout;
  uint32_t workgroup_size = 0;
  Constraints constraints;
  std::span<const uint8_t> spirv;  // runtime/builtin_spirv.inc
};

struct OpBuiltins {
  std::vector<Builtin> variants;  // in order of preference
  std::string none_fits;          // the message when no variant's constraints hold
};

OpBuiltins load(kernels::Op op, kernels::DType dtype) {
  OpBuiltins out;
  out.none_fits = std::string("no built-in ") + kernels::op_name(op) + " " +
                  kernels::dtype_name(dtype) + " variant serves this shape; each needs:";
  for (const kernels::BuiltinVariant& v : kernels::builtin_variants(op)) {
    const kernels::Family& family = kernels::builtin_family(v, dtype);
    const kernels::Knobs knobs = family.knobs_from_json(nlohmann::json::parse(v.knobs_json));
    kernels::Constraints c = family.constraints(knobs);
    if (v.max_m != 0 && (c.m_max == 0 || v.max_m < c.m_max)) c.m_max = v.max_m;
    Builtin b;
    b.family = family.name();
    b.variant_key = family.key(knobs);
    b.knobs_json = kernels::to_json_text(knobs);
    b.constraints_json = kernels::to_json(c).dump();
    b.layout = kernels::layout_name(family.layout(knobs));
    b.workgroup_size = family.workgroup_size(knobs);
    b.constraints = {c.k_multiple, c.gs_multiple, c.n_multiple, c.m_min, c.m_max,
                     c.k_max,      c.k_min,       c.head_group_multiple};
    const std::span<const uint32_t> words = builtin_spirv(b.variant_key);
    b.spirv = {reinterpret_cast<const uint8_t*>(words.data()), words.size_bytes()};
    out.none_fits += " " + b.variant_key + " " + b.constraints_json + ";";
    out.variants.push_back(std::move(b));
  }
  return out;
}

// Built when the library loads, not on first use: select() must neither allocate nor take the
// lock of a function-local static (tests/runtime/select_alloc_test.cpp). The catalogue's
// descriptors are function-local statics themselves, so the order of initialisation is safe.
const OpBuiltins kQ4gsw = load(kernels::Op::q4gsw, kernels::DType::f32);
const OpBuiltins kRmsNorm = load(kernels::Op::rms_norm, kernels::DType::f32);
const OpBuiltins kSdpa = load(kernels::Op::sdpa, kernels::DType::f32);
const OpBuiltins kQ4gswF16 = load(kernels::Op::q4gsw, kernels::DType::f16);
const OpBuiltins kRmsNormF16 = load(kernels::Op::rms_norm, kernels::DType::f16);
const OpBuiltins kSdpaF16 = load(kernels::Op::sdpa, kernels::DType::f16);

const OpBuiltins& builtins(kernels::Op op, kernels::DType dtype) {
  const bool f16 = dtype == kernels::DType::f16;
  switch (op) {
    case kernels::Op::q4gsw: return f16 ? kQ4gswF16 : kQ4gsw;
    case kernels::Op::rms_norm: return f16 ? kRmsNormF16 : kRmsNorm;
    case kernels::Op::sdpa: return f16 ? kSdpaF16 : kSdpa;
  }
  return kQ4gsw;  // unreachable: every Op is listed
}

constexpr std::string_view kUnknownOp = "unknown op; expected \"q4gsw\", \"rms_norm\" or \"sdpa\"";

}  // namespace

std::string_view validate(const ProblemQuery& q) noexcept {
  if (q.m == 0 || q.n == 0 || q.k == 0) return "M, N and K must all be non-zero";
  if (q.dtype.empty()) return "dtype is empty; use \"f32\" or \"f16\"";
  if (!kernels::parse_dtype(q.dtype)) return "unknown dtype; expected \"f32\" or \"f16\"";
  if ((q.op == "q4gsw" || q.op == "rms_norm") && (q.heads != 0 || q.kv_heads != 0)) {
    return "heads and kv_heads are attention's (sdpa); pass heads = kv_heads = 0 for q4gsw and "
           "rms_norm";
  }
  if (q.op == "q4gsw") {
    if (q.k % 2 != 0) return "K is odd; q4gsw needs an even K (two nibbles per byte)";
    if (q.group_size == 0 || q.group_size % 2 != 0) {
      return "group_size must be a non-zero multiple of 2 for q4gsw";
    }
    if (q.k % q.group_size != 0) return "K is not a multiple of group_size; q4gsw needs K % group_size == 0";
    return {};
  }
  if (q.op == "rms_norm") {
    if (q.k != q.n) return "rms_norm needs K == N (both are the row width)";
    if (q.group_size != 0) return "rms_norm has no groups; pass group_size 0";
    return {};
  }
  if (q.op == "sdpa") {
    if (q.heads == 0 || q.kv_heads == 0) return "sdpa needs heads >= 1 and kv_heads >= 1";
    if (q.heads % q.kv_heads != 0) return "sdpa needs heads to be a multiple of kv_heads (GQA)";
    if (q.n < q.m) return "sdpa needs L (N) >= M: the queried tokens must be in the cache";
    if (q.group_size != 0) return "sdpa has no groups; pass group_size 0";
    return {};
  }
  return kUnknownOp;
}

void select_builtin(const ProblemQuery& q, Selection& out) noexcept {
  out.device_match = DeviceMatch::builtin;
  out.shape_match = ShapeMatch::builtin;
  const std::optional<kernels::Op> op = kernels::parse_op(q.op);
  const std::optional<kernels::DType> dtype = kernels::parse_dtype(q.dtype);
  if (!op || !dtype) {
    out.status = Status::invalid_query;
    out.error = !op ? kUnknownOp : std::string_view("unknown dtype; expected \"f32\" or \"f16\"");
    return;
  }
  const OpBuiltins& all = builtins(*op, *dtype);
  const Builtin* b = nullptr;
  for (const Builtin& candidate : all.variants) {
    if (candidate.constraints.allows(q)) {
      b = &candidate;
      break;
    }
  }
  if (b == nullptr) {
    out.status = Status::no_match;
    out.error = all.none_fits;
    return;
  }
  out.status = Status::ok;
  out.error = {};
  out.family = b->family;
  out.variant_key = b->variant_key;
  out.knobs_json = b->knobs_json;
  out.constraints_json = b->constraints_json;
  out.layout = b->layout;
  out.workgroup_size = b->workgroup_size;
  out.constraints = b->constraints;
  out.spirv = b->spirv;
  out.median_ns.reset();
}

std::string_view builtin_key(const ProblemQuery& q) noexcept {
  Selection s;
  select_builtin(q, s);
  return s.ok() ? s.variant_key : std::string_view();
}

}  // namespace vktune::runtime
