// The probe shaders and the once-per-process probe.
#include "kernels/vk/compiler_probe.h"

#include "kernels/vk/prebuilt_spirv.h"
#include "kernels/vk/shader_compiler.h"

namespace vktune {
namespace {

// Each uses the extension's functions, not only its #extension line: a compiler may know an
// extension's name yet not generate its SPIR-V.
constexpr std::string_view kIntegerDotProduct = R"(#version 450
#extension GL_EXT_integer_dot_product : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { int v[]; };
void main() {
  const uint i = gl_GlobalInvocationID.x;
  v[i] = dotPacked4x8EXT(int(v[i]), int(v[i + 64u]));
}
)";

constexpr std::string_view kCooperativeMatrixKhr = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { float16_t v[]; };
void main() {
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
  coopMatLoad(a, v, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b;
  coopMatLoad(b, v, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c =
      coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
  c = coopMatMulAdd(a, b, c);
  coopMatStore(c, v, 512, 16, gl_CooperativeMatrixLayoutRowMajor);
}
)";

constexpr std::string_view kCooperativeMatrix2Nv = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { float16_t v[]; };
void main() {
  tensorLayoutNV<2> t = createTensorLayoutNV(2);
  t = setTensorLayoutDimensionNV(t, 64, 64);
  coopmat<float16_t, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> c;
  coopMatLoadTensorNV(c, v, 0, sliceTensorLayoutNV(t, 0, 16, 0, 16));
  coopMatStoreTensorNV(c, v, 0, sliceTensorLayoutNV(t, 16, 16, 0, 16));
}
)";

kernels::CompilerSupport probe() {
  kernels::CompilerSupport support;
  for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
    try {
      ShaderCompiler compiler(target_env(e.vulkan_minor));
      compiler.compile_text("probe.comp", compiler_probe_source(e.extension), {}, e.name);
      support.add(e.extension);
    } catch (const CompileError&) {
      // Not accepted: the families that need it report why they are unavailable.
    }
  }
  return support;
}

}  // namespace

std::string_view compiler_probe_source(kernels::GlslExtension extension) {
  switch (extension) {
    case kernels::GlslExtension::integer_dot_product:
      return kIntegerDotProduct;
    case kernels::GlslExtension::cooperative_matrix_khr:
      return kCooperativeMatrixKhr;
    case kernels::GlslExtension::cooperative_matrix2_nv:
      return kCooperativeMatrix2Nv;
  }
  return {};
}

const kernels::CompilerSupport& probed_compiler_support() {
  static const kernels::CompilerSupport support = probe();
  return support;
}

const kernels::CompilerSupport& linked_compiler_support() {
  static const kernels::CompilerSupport support = [] {
    kernels::CompilerSupport s = probed_compiler_support();
    s.extensions |= prebuilt_support().extensions;
    return s;
  }();
  return support;
}

}  // namespace vktune
