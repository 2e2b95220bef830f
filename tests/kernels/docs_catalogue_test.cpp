// docs/variants.md against the catalogue: the knob table and the built-in routing list must say
// exactly what the family descriptors and kernels/builtin_variants.h say. On drift the failure
// prints the line to paste.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/builtin_variants.h"
#include "kernels/family.h"

namespace vktune::kernels {
namespace {

std::string read_docs() {
  std::ifstream in(std::string(VKTUNE_SOURCE_DIR) + "/docs/variants.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string value_text(const KnobValue& v) {
  return std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v))
                                            : std::get<std::string>(v);
}

// "`layout` (raw, packed), `tm` (1, 2, 4, 8), ...": the knobs column of the family's row.
std::string knob_column(const Family& family) {
  std::string text;
  for (const KnobSpec& spec : family.knob_specs()) {
    if (!text.empty()) text += ", ";
    text += "`" + spec.name + "` (";
    for (size_t i = 0; i < spec.values.size(); ++i) {
      text += (i ? ", " : "") + value_text(spec.values[i]);
    }
    text += ")";
  }
  return text;
}

TEST(DocsCatalogue, KnobTableListsEveryFamilysKnobsAndValues) {
  const std::string docs = read_docs();
  ASSERT_FALSE(docs.empty()) << "docs/variants.md not found under " << VKTUNE_SOURCE_DIR;
  for (const Family* family : families()) {
    // An f16 instance is its f32 family's descriptor with F16 set: the docs give it no row,
    // unless the family is fp16 only (sdpa_flash_f16).
    const std::string& name = family->name();
    if (family->dtype() != DType::f32 &&
        find_family(std::string_view(name).substr(0, name.size() - 4)) != nullptr) {
      continue;
    }
    const std::string row = "| `" + family->name() + "` | " + knob_column(*family) + " |";
    EXPECT_NE(docs.find(row), std::string::npos)
        << "docs/variants.md's knob table is out of date; its row should start with:\n" << row;
  }
}

TEST(DocsCatalogue, BuiltinRoutingListsTheCataloguesVariantsInOrder) {
  const std::string docs = read_docs();
  size_t at = docs.find("## Built-in routing");
  ASSERT_NE(at, std::string::npos);
  for (const OpDescriptor* op : all_ops()) {
    for (const BuiltinVariant& v : op->builtins) {
      const Family& family = *find_family(v.family);
      const Knobs knobs = family.knobs_from_json(nlohmann::json::parse(v.knobs_json));
      // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on the
      // chain of operator+ this would otherwise be.
      std::string line(1, '`');
      line += family.key(knobs);
      line += "`, constraints `";
      line += to_json(family.constraints(knobs)).dump();
      line += '`';
      if (v.max_m != 0) line += ", up to M = " + std::to_string(v.max_m);
      const size_t found = docs.find(line, at);
      EXPECT_NE(found, std::string::npos)
          << "docs/variants.md's built-in routing is out of date or out of order; expected next:\n"
          << line;
      if (found != std::string::npos) at = found;
    }
  }
}

}  // namespace
}  // namespace vktune::kernels
