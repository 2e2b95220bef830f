// The fixed routing, as data.
#include "kernels/builtin_variants.h"

#include <stdexcept>
#include <string>

#include "kernels/family.h"

namespace vktune::kernels {
namespace {

constexpr BuiltinVariant kQ4gsw[] = {
    {"q4gsw_gemv", R"({"layout":"raw","wg":64,"rows":1,"load":"u32","reduce":"shared"})", 1},
    {"q4gsw_tiled", R"({"layout":"raw","tm":4,"tn":4,"wg":64,"bk":0})"},
};
constexpr BuiltinVariant kRmsNorm[] = {
    {"rms_norm", R"({"vec":4,"wg":256})"},
    {"rms_norm", R"({"vec":1,"wg":256})"},
};

// The fused online-softmax kernel wherever it fits (head dim up to 256), the three-pass
// baseline past that.
constexpr BuiltinVariant kSdpa[] = {
    {"sdpa_fused", R"({"vec":4,"keys":1,"wg":64,"qpg":1})"},
    {"sdpa_fused", R"({"vec":1,"keys":1,"wg":64,"qpg":1})"},
    {"sdpa_naive", R"({"wg":64})"},
};

}  // namespace

std::span<const BuiltinVariant> builtin_variants(Op op) {
  switch (op) {
    case Op::q4gsw: return kQ4gsw;
    case Op::rms_norm: return kRmsNorm;
    case Op::sdpa: return kSdpa;
  }
  return {};
}

const Family& builtin_family(const BuiltinVariant& variant, DType dtype) {
  const Family* family = find_family(family_name(variant.family, dtype));
  if (family == nullptr) {
    throw std::logic_error("builtin_family: no family " + family_name(variant.family, dtype));
  }
  return *family;
}

}  // namespace vktune::kernels
