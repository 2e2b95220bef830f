// How a file of kernels/ops/ or kernels/families/ enters the catalogue, and the registry that
// collects them. An entry file registers with one line at namespace scope in vktune::kernels:
//
//   VKTUNE_CATALOGUE_OP(rope) = {.name = "rope", ...};   an op's descriptor; the id is its name
//   VKTUNE_CATALOGUE_FAMILIES(rope_pairs) {              the families the file defines
//     static const RopePairs f32(DType::f32), f16(DType::f16);
//     return {&f32, &f16};
//   }
//
// cmake/catalogue_registry.cmake finds those lines and generates the registry below, which names
// every entry: nobody keeps a list of ops or families, and the linker keeps every entry file,
// from the installed static library too (a self-registering static object nobody references
// would be dropped). tests/kernels/registry_test.cpp fails for an entry file that registers
// nothing. Internal to the catalogue: everyone else asks all_ops() / find_op() (kernels/op.h)
// and families() / find_family() (kernels/family.h), which order what is collected here.
#pragma once

#include <span>
#include <vector>

#include "kernels/family.h"
#include "kernels/op.h"

// Defines the descriptor op_<id> with external linkage, so the generated registry can name it.
#define VKTUNE_CATALOGUE_OP(id)      \
  extern const OpDescriptor op_##id; \
  const OpDescriptor op_##id
// Defines families_<id>(), which returns the file's families (its function-local statics).
#define VKTUNE_CATALOGUE_FAMILIES(id) std::vector<const Family*> families_##id()

namespace vktune::kernels::registry {

// Every registered op descriptor, ordered by id. Constant-initialised: safe to read from any
// static initialiser, and without a function-local static's guard on the runtime's select path.
std::span<const OpDescriptor* const> ops() noexcept;
// Every registered family, by file id then in each file's order.
std::vector<const Family*> families();

}  // namespace vktune::kernels::registry
