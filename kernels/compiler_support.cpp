// The table of optional GLSL extensions.
#include "kernels/compiler_support.h"

namespace vktune::kernels {

std::span<const GlslExtensionDesc> glsl_extension_descs() {
  static constexpr GlslExtensionDesc kAll[] = {
      {GlslExtension::integer_dot_product, "GL_EXT_integer_dot_product", 2},
      {GlslExtension::cooperative_matrix_khr, "GL_KHR_cooperative_matrix", 2},
      {GlslExtension::cooperative_matrix2_nv, "GL_NV_cooperative_matrix2", 3},
  };
  return kAll;
}

}  // namespace vktune::kernels
