// q4gsw_coopmat_khr and q4gsw_coopmat_splitk_khr: the NV tiles through GL_KHR_cooperative_matrix.
// Where they are offered and why not, what their shader sees, what an engine must enable.
// Fake devices and compilers; no GPU.
#include <gtest/gtest.h>

#include "kernels/compiler_support.h"
#include "kernels/family.h"
#include "tests/kernels/fake_devices.h"

namespace vktune::kernels {
namespace {

using test::newer_compiler;

const Family& khr() { return *find_family("q4gsw_coopmat_khr"); }
const Knobs& tile() {
  static const Knobs k = parse_key("q4gsw_coopmat_khr[bm=64,bn=128,bk=32,sg=8,buf=2]").knobs;
  return k;
}
Problem prefill() { return {Op("q4gsw"), 128, 4096, 4096, 32}; }

TEST(CoopmatKhr, UnavailableWithoutTheCompilerTheExtensionOrTheTile) {
  EXPECT_NE(khr().unavailable_reason(test::h100_with_khr(), CompilerSupport{})
                .find("GL_KHR_cooperative_matrix, which the linked shaderc does not"),
            std::string::npos);
  // The NV extension alone (test::h100_like) is not enough.
  EXPECT_EQ(khr().unavailable_reason(test::h100_like(), newer_compiler()),
            "NVIDIA H100 (fake) lacks VK_KHR_cooperative_matrix, which q4gsw_coopmat_khr needs for "
            "its tensor-core tiles");
  EXPECT_EQ(khr().unavailable_reason(test::h100_with_khr(), newer_compiler()), "");
  EXPECT_TRUE(khr().legality(tile(), prefill(), test::h100_with_khr(), newer_compiler()).ok);

  // The KHR extension without the f16 tile: only the NV shapes do not count.
  vk::DeviceInfo no_tile = test::h100_with_khr();
  no_tile.features.coopmat_khr_shapes = {{16, 8, 16, "f16", "f16", "f16", "f16"}};
  const Legality l = khr().legality(tile(), prefill(), no_tile, newer_compiler());
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("16x16x16 f16*f16+f32 (VK_KHR_cooperative_matrix)"), std::string::npos)
      << l.reason;
}

TEST(CoopmatKhr, SameTilesAndShaderAsTheNvFamilyWithKhrDefined) {
  const Family& nv = *find_family("q4gsw_coopmat");
  EXPECT_EQ(khr().all_variants(), nv.all_variants());
  const Knobs nv_tile = parse_key("q4gsw_coopmat[bm=64,bn=128,bk=32,sg=8,buf=2]").knobs;
  ShaderSpec spec = khr().shader(tile());
  const ShaderSpec nv_spec = nv.shader(nv_tile);
  EXPECT_EQ(spec.file, nv_spec.file);
  ASSERT_EQ(spec.defines.back(), (std::pair<std::string, std::string>{"KHR", "1"}));
  spec.defines.pop_back();
  EXPECT_EQ(spec.defines, nv_spec.defines);  // the NV variants compile as before
  EXPECT_EQ(spec.vulkan_minor, 2u);

  const Requirements r = khr().requirements(tile());
  EXPECT_EQ(feature_names(r),
            (std::vector<std::string>{"shaderFloat16", "VK_KHR_cooperative_matrix"}));
  EXPECT_TRUE(r.needs(GlslExtension::cooperative_matrix_khr));
  EXPECT_EQ(r.subgroup_size, 32u);
  EXPECT_EQ(khr().workspace_bytes(tile(), prefill()), 0u);
  EXPECT_GT(find_family("q4gsw_coopmat_splitk_khr")
                ->workspace_bytes(
                    parse_key("q4gsw_coopmat_splitk_khr[bm=64,bn=128,bk=32,sg=8,buf=2,splitk=2]")
                        .knobs,
                    prefill()),
            0u);
}

// The packed families: the KHR shader with PACKED 1 (and WAHEAD for wpf 4), the packed weight
// layout an engine must prepack, a subset of the raw family's tiles.
TEST(CoopmatKhr, PackedFamiliesReadThePackedLayoutWithTheirOwnWeightPrefetch) {
  const Family& packed = *find_family("q4gsw_coopmat_khr_packed");
  const Knobs with_x =
      parse_key("q4gsw_coopmat_khr_packed[bm=64,bn=128,bk=32,sg=8,buf=2,wpf=0]").knobs;
  const Knobs ahead =
      parse_key("q4gsw_coopmat_khr_packed[bm=64,bn=128,bk=32,sg=8,buf=4,wpf=4]").knobs;
  EXPECT_EQ(packed.layout(with_x), Layout::packed);
  EXPECT_EQ(khr().layout(tile()), Layout::raw);

  using Defines = std::vector<std::pair<std::string, std::string>>;
  Defines raw_defines = khr().shader(tile()).defines;
  raw_defines.emplace_back("PACKED", "1");
  EXPECT_EQ(packed.shader(with_x).defines, raw_defines);  // the raw tile's defines, plus PACKED
  const Defines a = packed.shader(ahead).defines;
  EXPECT_EQ(a.back(), (std::pair<std::string, std::string>{"WAHEAD", "4"}));
  EXPECT_EQ(packed.shader(ahead).file, khr().shader(tile()).file);

  // Every packed tile is one of the raw family's, and all of them are legal on an H100 with
  // the newer compiler, wpf 4 included.
  size_t legal = 0;
  for (const Knobs& k : packed.all_variants()) {
    Knobs raw;
    for (const Knob& knob : k) {
      if (knob.name != "wpf") raw.push_back(knob);
    }
    EXPECT_TRUE(khr().check_knobs(raw).empty()) << packed.key(k);
    legal += packed.legality(k, prefill(), test::h100_with_khr(), newer_compiler()).ok ? 1 : 0;
  }
  EXPECT_GT(legal, packed.all_variants().size() / 2);
  EXPECT_FALSE(packed.legality(with_x, prefill(), test::h100_with_khr(), CompilerSupport{}).ok);

  const Family& split = *find_family("q4gsw_coopmat_splitk_khr_packed_f16");
  EXPECT_EQ(split.layout(split.all_variants().front()), Layout::packed);
  EXPECT_GT(split.workspace_bytes(
                parse_key("q4gsw_coopmat_splitk_khr_packed_f16[bm=64,bn=128,bk=32,sg=8,buf=2,"
                          "splitk=2,wpf=4]")
                    .knobs,
                prefill()),
            0u);
}

}  // namespace
}  // namespace vktune::kernels
