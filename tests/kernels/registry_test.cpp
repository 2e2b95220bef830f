// The catalogue's registry against the source tree: every file of kernels/ops/ that defines an op
// descriptor and every file of kernels/families/ that defines a family registers it
// (kernels/catalogue_registry.h), and the registry orders what it collects.
#include "kernels/catalogue_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace vktune::kernels {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The ids of the `macro` lines of `text` (as cmake/catalogue_registry.cmake reads them).
std::vector<std::string> registrations(const std::string& text, const std::string& macro) {
  const std::regex line("(^|\n)" + macro + R"(\(([a-z0-9_]+)\))");
  std::vector<std::string> ids;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    ids.push_back((*it)[2]);
  }
  return ids;
}

// The .cpp files of kernels/<folder>, sorted.
std::vector<fs::path> entry_files(const char* folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(VKTUNE_SOURCE_DIR) / "kernels" / folder)) {
    if (e.path().extension() == ".cpp") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Registry, EveryOpFileRegistersItsDescriptorUnderItsName) {
  size_t registered = 0;
  for (const fs::path& file : entry_files("ops")) {
    const std::string text = read(file);
    const std::vector<std::string> ids = registrations(text, "VKTUNE_CATALOGUE_OP");
    // A descriptor's initialiser names its bindings; the shared helpers (rows.cpp) have none.
    if (text.find(".bindings =") != std::string::npos) {
      EXPECT_EQ(ids.size(), 1u) << file << " defines an op descriptor; register it with one "
                                           "VKTUNE_CATALOGUE_OP(name) line";
    }
    for (const std::string& id : ids) {
      const OpDescriptor* op = find_op(id);
      EXPECT_NE(op, nullptr) << file << " registers VKTUNE_CATALOGUE_OP(" << id
                             << "), but no op is named " << id << ": the id must be the op's name";
    }
    registered += ids.size();
  }
  EXPECT_EQ(all_ops().size(), registered);
}

TEST(Registry, EveryFamilyFileRegistersItsFamilies) {
  size_t files_registering = 0;
  for (const fs::path& file : entry_files("families")) {
    const std::string text = read(file);
    const std::vector<std::string> ids = registrations(text, "VKTUNE_CATALOGUE_FAMILIES");
    if (text.find("public Family") != std::string::npos) {
      EXPECT_EQ(ids.size(), 1u) << file << " defines a family; register its families with one "
                                           "VKTUNE_CATALOGUE_FAMILIES(" << file.stem().string()
                                << ") { ... } block";
    }
    files_registering += ids.empty() ? 0 : 1;
  }
  EXPECT_GT(files_registering, 0u);
  std::vector<const Family*> collected = registry::families();
  EXPECT_EQ(collected.size(), families().size());
  std::sort(collected.begin(), collected.end());
  EXPECT_EQ(std::adjacent_find(collected.begin(), collected.end()), collected.end())
      << "a family is registered twice";
}

TEST(Registry, OpsAreOrderedByNameAndFamiliesByOpDtypeAndName) {
  const auto ops = all_ops();
  for (size_t i = 0; i + 1 < ops.size(); ++i) EXPECT_LT(ops[i]->name, ops[i + 1]->name);
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(Op(*ops[i]).index(), i);
  const auto all = families();
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    const Family& a = *all[i];
    const Family& b = *all[i + 1];
    EXPECT_TRUE(std::tuple(a.op(), a.dtype(), a.name()) < std::tuple(b.op(), b.dtype(), b.name()))
        << a.name() << " before " << b.name();
  }
}

TEST(Registry, AnOpIsNamedByItsDescriptor) {
  const Op rope("rope");
  EXPECT_EQ(rope.name(), "rope");
  EXPECT_EQ(&rope.descriptor(), find_op("rope"));
  EXPECT_EQ(parse_op("rope"), rope);
  EXPECT_EQ(parse_op("nope"), std::nullopt);
  try {
    Op("nope");
    FAIL() << "Op(\"nope\") did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown op \"nope\"; expected " + op_names_text());
  }
}

TEST(Registry, AllFamiliesInOrder) {
  std::vector<std::string> names;
  for (const Family* f : families()) names.push_back(f->name());
  // Packed, not one name a line.
  // clang-format off
  EXPECT_EQ(names, (std::vector<std::string>{
                      "q4gsw_coopmat", "q4gsw_coopmat2", "q4gsw_coopmat_khr",
                      "q4gsw_coopmat_khr_packed", "q4gsw_coopmat_splitk",
                      "q4gsw_coopmat_splitk_khr", "q4gsw_coopmat_splitk_khr_packed",
                      "q4gsw_coopmat_ws", "q4gsw_coopmat_ws_splitk", "q4gsw_gemv",
                      "q4gsw_gemv_fast", "q4gsw_gemv_fast_s16", "q4gsw_gemv_i8dot",
                      "q4gsw_gemv_i8dot_s16", "q4gsw_gemv_i8dot_splitk",
                      "q4gsw_gemv_i8dot_splitk_s16", "q4gsw_naive", "q4gsw_tiled",
                      "q4gsw_coopmat2_f16", "q4gsw_coopmat_f16", "q4gsw_coopmat_khr_f16",
                      "q4gsw_coopmat_khr_packed_f16", "q4gsw_coopmat_splitk_f16",
                      "q4gsw_coopmat_splitk_khr_f16", "q4gsw_coopmat_splitk_khr_packed_f16",
                      "q4gsw_coopmat_ws_f16", "q4gsw_coopmat_ws_splitk_f16", "q4gsw_gemv_f16",
                      "q4gsw_gemv_fast_f16", "q4gsw_gemv_fast_s16_f16", "q4gsw_gemv_i8dot_f16",
                      "q4gsw_gemv_i8dot_s16_f16", "q4gsw_gemv_i8dot_splitk_f16",
                      "q4gsw_gemv_i8dot_splitk_s16_f16", "q4gsw_naive_f16", "q4gsw_tiled_f16",
                      "rms_norm", "rms_norm_f16", "rope_pairs", "rope_rows", "rope_pairs_f16",
                      "rope_rows_f16", "sdpa_decode", "sdpa_fused", "sdpa_naive", "sdpa_split",
                      "sdpa_decode_f16", "sdpa_decode_half_f16", "sdpa_decode_mma_f16",
                      "sdpa_decode_mma_khr_f16", "sdpa_flash_f16",
                      "sdpa_flash_khr_f16", "sdpa_fused_f16", "sdpa_naive_f16",
                      "sdpa_split_f16"}));
  // clang-format on
  for (const Family* f : families()) {
    EXPECT_EQ(f->dtype() == DType::f16, f->name().ends_with("_f16")) << f->name();
  }
  EXPECT_EQ(find_family("nope"), nullptr);
  EXPECT_EQ(find_family("q4gsw_gemv")->op(), Op("q4gsw"));
  EXPECT_EQ(find_family("rms_norm")->op(), Op("rms_norm"));
}

}  // namespace
}  // namespace vktune::kernels
