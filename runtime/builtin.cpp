// Query validation and the built-in routing, read from the kernel catalogue
// (kernels/builtin_variants.h): the runtime types none of a built-in variant's facts.
#include "runtime/builtin.h"

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/builtin_variants.h"
#include "kernels/family.h"
#include "kernels/op.h"
#include "kernels/problem.h"
#include "runtime/builtin_spirv.h"

namespace vktune::runtime {
namespace {

// One built-in variant as the runtime hands it out; the strings are the Selection's storage.
struct Builtin {
  std::string family, variant_key, knobs_json, constraints_json, layout;
  uint32_t workgroup_size = 0;
  Constraints constraints;
  std::span<const uint8_t> spirv;  // runtime/builtin_spirv.inc
  Specialization specialization;   // the catalogue's, which that SPIR-V was compiled with
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
    b.constraints = c;
    const std::span<const uint32_t> words = builtin_spirv(b.variant_key);
    b.spirv = {reinterpret_cast<const uint8_t*>(words.data()), words.size_bytes()};
    b.specialization = family.shader(knobs).specialization;
    out.none_fits += " " + b.variant_key + " " + b.constraints_json + ";";
    out.variants.push_back(std::move(b));
  }
  return out;
}

// "unknown op; expected "q4gsw", "rms_norm", "rope" or "sdpa"", from the catalogue's list.
std::string unknown_op_text() {
  std::string text = "unknown op; expected";
  const auto ops = kernels::all_ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    text += i == 0 ? " \"" : i + 1 == ops.size() ? " or \"" : ", \"";
    (text += ops[i]->name) += '"';
  }
  return text;
}

// Every op's built-ins, f32 then f16, in kernels::all_ops() order.
std::vector<OpBuiltins> load_all() {
  std::vector<OpBuiltins> all;
  for (const kernels::OpDescriptor* op : kernels::all_ops()) {
    for (kernels::DType dtype : {kernels::DType::f32, kernels::DType::f16}) {
      all.push_back(load(*op, dtype));
    }
  }
  return all;
}

// Built when the library loads, not on first use: select() must neither allocate nor take the
// lock of a function-local static (tests/runtime/select_alloc_test.cpp). The catalogue's
// descriptors are constant-initialised and its families function-local statics, so the order
// of initialisation is safe.
const std::vector<OpBuiltins> kBuiltins = load_all();
const std::string kUnknownOp = unknown_op_text();

const OpBuiltins& builtins(kernels::Op op, kernels::DType dtype) {
  return kBuiltins[op.index() * 2 + (dtype == kernels::DType::f16 ? 1 : 0)];
}

}  // namespace

std::string_view validate(const ProblemQuery& q) noexcept {
  if (q.m == 0 || q.n == 0 || q.k == 0) return "M, N and K must all be non-zero";
  if (q.dtype.empty()) return "dtype is empty; use \"f32\" or \"f16\"";
  if (!kernels::parse_dtype(q.dtype)) return "unknown dtype; expected \"f32\" or \"f16\"";
  const std::optional<kernels::Problem> p = kernels::problem_of(q);
  if (!p) return kUnknownOp;
  const kernels::OpDescriptor& op = kernels::op_descriptor(p->op);
  if (!op.has_heads && (q.heads != 0 || q.kv_heads != 0)) {
    return "this op has no heads (docs/variants.md \"Problems\"); pass heads = kv_heads = 0";
  }
  return op.query_error(*p);
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
  out.specialization = b->specialization;
  out.median_ns.reset();
}

std::string_view builtin_key(const ProblemQuery& q) noexcept {
  Selection s;
  select_builtin(q, s);
  return s.ok() ? s.variant_key : std::string_view();
}

}  // namespace vktune::runtime
