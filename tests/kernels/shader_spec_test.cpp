// Unit tests of the shader specs the families give: specialisation constants and the SPIR-V
// modules variants share. No GPU.
#include "kernels/family.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace vktune::kernels {
namespace {

const Family& family(std::string_view name) {
  const Family* f = find_family(name);
  if (f == nullptr) throw std::runtime_error("no family " + std::string(name));
  return *f;
}

// A specialisation lists each constant once, in ascending id; the variants that differ only in
// specialised knobs share one SPIR-V module (what the compiler keys: file and defines).
TEST(ShaderSpec, SpecialisationIdsAscendOnceAndVariantsShareModules) {
  for (const Family* f : families()) {
    for (const Knobs& k : f->all_variants()) {
      const Specialization s = f->shader(k).specialization;
      for (size_t i = 1; i < s.size(); ++i) {
        EXPECT_LT(s[i - 1].constant_id, s[i].constant_id) << f->key(k);
      }
    }
  }
  const auto modules = [](const Family& f) {
    std::set<std::pair<std::string, Defines>> distinct;
    for (const Knobs& k : f.all_variants()) {
      const ShaderSpec spec = f.shader(k);
      distinct.emplace(spec.file, spec.defines);
    }
    return distinct.size();
  };
  EXPECT_EQ(modules(family("q4gsw_naive")), 1u);
  EXPECT_EQ(modules(family("q4gsw_tiled")), 4u);        // layout x staged
  EXPECT_EQ(modules(family("q4gsw_gemv")), 12u);        // load x reduce x layout
  EXPECT_EQ(modules(family("q4gsw_gemv_fast")), 2u);    // K split or not
  EXPECT_EQ(modules(family("q4gsw_gemv_fast_s16")), 2u);
  EXPECT_EQ(modules(family("rms_norm")), 2u);           // scalar or vec4
  EXPECT_EQ(modules(family("sdpa_naive")), 1u);
  EXPECT_EQ(modules(family("rope_pairs")), 1u);
  EXPECT_EQ(modules(family("rope_rows")), 3u);          // pairs per load
  EXPECT_EQ(modules(family("q4gsw_gemv_i8dot")), 2u);   // K split or not
  EXPECT_EQ(modules(family("q4gsw_gemv_i8dot_splitk_s16")), 2u);
  EXPECT_EQ(modules(family("q4gsw_coopmat")), 4u);      // buf
  EXPECT_EQ(modules(family("q4gsw_coopmat_splitk_khr")), 4u);
  EXPECT_EQ(modules(family("q4gsw_coopmat_khr_packed")), 4u);  // buf 2, 4 x wpf
  EXPECT_EQ(modules(family("q4gsw_coopmat_ws")), 1u);
  EXPECT_EQ(modules(family("q4gsw_coopmat_ws_splitk")), 1u);
  EXPECT_EQ(modules(family("q4gsw_coopmat2")), 2u);     // K split or not
}

}  // namespace
}  // namespace vktune::kernels
