// The fixed routing, as each op's descriptor lists it.
#include "kernels/builtin_variants.h"

#include <stdexcept>
#include <string>

#include "kernels/family.h"
#include "kernels/op.h"

namespace vktune::kernels {

std::span<const BuiltinVariant> builtin_variants(Op op) { return op_descriptor(op).builtins; }

const Family& builtin_family(const BuiltinVariant& variant, DType dtype) {
  const Family* family = find_family(family_name(variant.family, dtype));
  if (family == nullptr) {
    throw std::logic_error("builtin_family: no family " + family_name(variant.family, dtype));
  }
  return *family;
}

}  // namespace vktune::kernels
