// Built-in routing, exactly as docs/variants.md "Built-in routing" states it.
#include "runtime/builtin.h"

namespace vktune::runtime {
namespace {

struct Builtin {
  std::string_view family, variant_key, knobs_json, constraints_json, layout;
  uint32_t workgroup_size;
  Constraints constraints;
};

// Knobs in the families' declared order (docs/variants.md "Families and knobs").
constexpr Builtin kGemv{"q4gsw_gemv",
                        "q4gsw_gemv[layout=raw,wg=64,rows=1,load=u32,reduce=shared]",
                        R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})",
                        R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":1,"m_min":1})",
                        "raw",
                        64,
                        {8, 8, 1, 1, 1}};
constexpr Builtin kTiled{"q4gsw_tiled",
                         "q4gsw_tiled[layout=raw,tm=4,tn=4,wg=64,bk=0]",
                         R"({"layout":"raw","tm":4,"tn":4,"wg":64,"bk":0})",
                         R"({"k_multiple":2,"gs_multiple":2,"n_multiple":1,"m_max":0,"m_min":1})",
                         "raw",
                         64,
                         {2, 2, 1, 1, 0}};
constexpr Builtin kRmsVec4{"rms_norm",
                           "rms_norm[vec=4,wg=256]",
                           R"({"vec":4,"wg":256})",
                           R"({"k_multiple":4,"gs_multiple":1,"n_multiple":4,"m_max":0,"m_min":1})",
                           "none",
                           256,
                           {4, 1, 4, 1, 0}};
constexpr Builtin kRmsScalar{"rms_norm",
                             "rms_norm[vec=1,wg=256]",
                             R"({"vec":1,"wg":256})",
                             R"({"k_multiple":1,"gs_multiple":1,"n_multiple":1,"m_max":0,"m_min":1})",
                             "none",
                             256,
                             {1, 1, 1, 1, 0}};

}  // namespace

std::string_view validate(const ProblemQuery& q) noexcept {
  if (q.m == 0 || q.n == 0 || q.k == 0) return "M, N and K must all be non-zero";
  if (q.dtype.empty()) return "dtype is empty; use \"f32\"";
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
  return "unknown op; expected \"q4gsw\" or \"rms_norm\"";
}

void select_builtin(const ProblemQuery& q, Selection& out) noexcept {
  out.device_match = DeviceMatch::builtin;
  out.shape_match = ShapeMatch::builtin;
  if (q.dtype != "f32") {
    out.status = Status::no_match;
    out.error = "no tuned entry and no built-in rule for this dtype (built-ins are f32 only)";
    return;
  }
  const Builtin* b = nullptr;
  if (q.op == "q4gsw") {
    b = (q.m == 1 && q.k % 8 == 0 && q.group_size % 8 == 0) ? &kGemv : &kTiled;
  } else {
    b = q.n % 4 == 0 ? &kRmsVec4 : &kRmsScalar;
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
  out.spirv = {};
  out.median_ns.reset();
}

std::string_view builtin_key(const ProblemQuery& q) noexcept {
  Selection s;
  select_builtin(q, s);
  return s.ok() ? s.variant_key : std::string_view();
}

}  // namespace vktune::runtime
