// Every cooperative-matrix variant compiles with shaderc: they cannot run on lavapipe, so this
// is their only check on machines without a GPU (of sdpa_flash_f16, whose every knob is a define
// and whose variants number hundreds, a set in which every two knobs' values meet). So does
// every integer-dot-product and cooperative-matrix-2 variant where the linked compiler accepts
// the extension (the devices without it never run them). And every specialised family's module declares each constant its
// specialisation gives (a constant the shader lacks would be ignored, silently).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/vk/compiler_probe.h"
#include "kernels/family.h"
#include "kernels/vk/shader_compiler.h"

namespace vktune::kernels {
namespace {

// Every pair of knob settings `k` holds, each as "name=value|name=value".
std::vector<std::string> knob_pairs(const Knobs& k) {
  std::vector<std::string> pairs;
  for (size_t i = 0; i < k.size(); ++i) {
    for (size_t j = i + 1; j < k.size(); ++j) {
      pairs.push_back(k[i].name + "=" + to_string(k[i].value) + "|" + k[j].name + "=" +
                      to_string(k[j].value));
    }
  }
  return pairs;
}

// The variants, in order, each that sets a pair of knob values no variant before it did: every
// two knobs' defines meet in some compiled module, in a fraction of the modules.
std::vector<Knobs> pairwise(const std::vector<Knobs>& variants) {
  std::set<std::string> seen;
  std::vector<Knobs> picked;
  for (const Knobs& k : variants) {
    bool fresh = false;
    for (const std::string& pair : knob_pairs(k)) fresh = seen.insert(pair).second || fresh;
    if (fresh) picked.push_back(k);
  }
  return picked;
}

void compile(const Family* f, const std::vector<Knobs>& variants) {
  ShaderCompiler compiler(TargetEnv::vulkan_1_2);
  for (const Knobs& k : variants) {
    const ShaderSpec spec = f->shader(k);
    const std::string key = f->key(k);
    try {
      auto spirv = compiler.compile(spec, key);
      EXPECT_GT(spirv->size(), 5u) << key;
    } catch (const CompileError& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

void compile_all(std::string_view name) {
  const Family* f = find_family(name);
  ASSERT_NE(f, nullptr);
  compile(f, f->all_variants());
}

// The SpecId decorations of a module: OpDecorate (71) with decoration SpecId (1).
std::set<uint32_t> spec_ids(const Spirv& spirv) {
  std::set<uint32_t> ids;
  for (size_t at = 5; at < spirv.size();) {
    const uint32_t words = spirv[at] >> 16, opcode = spirv[at] & 0xffff;
    if (opcode == 71 && words == 4 && spirv[at + 2] == 1) ids.insert(spirv[at + 3]);
    at += words == 0 ? 1 : words;
  }
  return ids;
}

TEST(VariantsCompile, SpecialisedConstantsAreDeclared) {
  ShaderCompiler compiler(TargetEnv::vulkan_1_2);
  size_t checked = 0;
  for (const Family* f : families()) {
    for (const Knobs& k : f->all_variants()) {
      const ShaderSpec spec = f->shader(k);
      if (spec.specialization.empty() ||
          !check(f->requirements(k), linked_compiler_support(), f->name()).empty()) {
        continue;
      }
      try {
        const std::set<uint32_t> declared = spec_ids(*compiler.compile(spec, f->key(k)));
        for (const SpecConstant& c : spec.specialization) {
          EXPECT_TRUE(declared.count(c.constant_id)) << f->key(k) << ": " << c.constant_id;
        }
        ++checked;
      } catch (const CompileError& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(VariantsCompile, Coopmat) { compile_all("q4gsw_coopmat"); }
TEST(VariantsCompile, CoopmatSplitK) { compile_all("q4gsw_coopmat_splitk"); }
TEST(VariantsCompile, CoopmatF16) { compile_all("q4gsw_coopmat_f16"); }
TEST(VariantsCompile, CoopmatSplitKF16) { compile_all("q4gsw_coopmat_splitk_f16"); }
TEST(VariantsCompile, SdpaFlash) {
  const Family* f = find_family("sdpa_flash_f16");
  ASSERT_NE(f, nullptr);
  compile(f, pairwise(f->all_variants()));
}
TEST(VariantsCompile, GemvI8Dot) {
  if (!linked_compiler_support().accepts(GlslExtension::integer_dot_product)) {
    GTEST_SKIP() << "the linked shaderc does not accept GL_EXT_integer_dot_product; "
                 << kNewerCompilerHint;
  }
  compile_all("q4gsw_gemv_i8dot");
  compile_all("q4gsw_gemv_i8dot_splitk_s16_f16");
}
TEST(VariantsCompile, CoopmatKhr) {
  if (!linked_compiler_support().accepts(GlslExtension::cooperative_matrix_khr)) {
    GTEST_SKIP() << "the linked shaderc does not accept GL_KHR_cooperative_matrix; "
                 << kNewerCompilerHint;
  }
  compile_all("q4gsw_coopmat_khr");
  compile_all("q4gsw_coopmat_splitk_khr_f16");
  compile_all("q4gsw_coopmat_khr_packed");
  compile_all("q4gsw_coopmat_splitk_khr_packed_f16");
}
TEST(VariantsCompile, Coopmat2) {
  if (!linked_compiler_support().accepts(GlslExtension::cooperative_matrix2_nv)) {
    GTEST_SKIP() << "the linked shaderc does not accept GL_NV_cooperative_matrix2; "
                 << kNewerCompilerHint;
  }
  compile_all("q4gsw_coopmat2");
  compile_all("q4gsw_coopmat2_f16");
}
// The other families' variants are compiled (and run) by kernels_instance_test.

}  // namespace
}  // namespace vktune::kernels
