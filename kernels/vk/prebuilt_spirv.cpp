// The prebuilt modules: their keys, the manifest's parser, and which extensions they cover.
#include "kernels/vk/prebuilt_spirv.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "kernels/family.h"
#include "kernels/vk/embedded_sources.h"
#include "kernels/vk/prebuilt_spirv_data.h"

namespace vktune {
namespace {

constexpr std::string_view kCompilerLine = "# compiler: ";

// `text` with each line `#include "name"` replaced by the embedded file's expanded text: what the
// compiler reads, whichever includes a shader takes (a file it does not include changes nothing).
void expand(std::string_view text, std::string& out, int depth) {
  if (depth > 16) throw std::runtime_error("prebuilt SPIR-V: #include nested past 16 levels");
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    const size_t open = line.find('"');
    const size_t close = open == std::string_view::npos ? open : line.find('"', open + 1);
    if (line.starts_with("#include ") && close != std::string_view::npos) {
      const std::string_view name = line.substr(open + 1, close - open - 1);
      const auto included = embedded_source(name);
      if (!included) {
        throw std::out_of_range("no embedded shader source named " + std::string(name));
      }
      out.append("// ").append(name).append("\n");
      expand(*included, out, depth + 1);
    } else {
      out.append(line);
    }
    out.push_back('\n');
    pos = end + 1;
  }
}

std::string defines_text(const Defines& defines) {
  if (defines.empty()) return "-";
  std::string out;
  for (const auto& [name, value] : defines) {
    if (!out.empty()) out.push_back(' ');
    out.append(name).append("=").append(value);
  }
  return out;
}

Defines parse_defines(std::string_view text) {
  Defines out;
  if (text == "-") return out;
  while (!text.empty()) {
    const size_t space = std::min(text.find(' '), text.size());
    const std::string_view item = text.substr(0, space);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw std::runtime_error("prebuilt manifest: define '" + std::string(item) + "' has no '='");
    }
    out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    text.remove_prefix(std::min(space + 1, text.size()));
  }
  return out;
}

TargetEnv parse_env(std::string_view name) {
  for (TargetEnv env : {TargetEnv::vulkan_1_1, TargetEnv::vulkan_1_2, TargetEnv::vulkan_1_3}) {
    if (target_env_name(env) == name) return env;
  }
  throw std::runtime_error("prebuilt manifest: unknown target environment '" + std::string(name) +
                           "'");
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t end = std::min(text.find(separator, pos), text.size());
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// The generated data as modules. A malformed manifest is a build that cannot have passed its
// tests, so it throws rather than hiding the modules.
std::vector<PrebuiltModule> parse_manifest() {
  std::map<std::string_view, std::span<const uint32_t>> words;
  for (const prebuilt_data::Blob& b : prebuilt_data::blobs()) words.emplace(b.name, b.words);
  std::vector<PrebuiltModule> out;
  const std::vector<std::string_view> lines = split(prebuilt_data::manifest(), '\n');
  if (lines.empty() || lines[0] != kPrebuiltManifestHeader) {
    throw std::runtime_error("prebuilt manifest: the first line is not '" +
                             std::string(kPrebuiltManifestHeader) + "'");
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i].starts_with('#')) continue;
    const std::vector<std::string_view> f = split(lines[i], '\t');
    if (f.size() != 5) {
      throw std::runtime_error("prebuilt manifest line " + std::to_string(i + 1) + " has " +
                               std::to_string(f.size()) + " fields, not 5");
    }
    PrebuiltModule m{std::string(f[0]),
                     {std::string(f[1]), parse_defines(f[3]), parse_env(f[2])},
                     std::string(f[4]),
                     words.at(f[0])};
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::string_view target_env_name(TargetEnv env) {
  switch (env) {
    case TargetEnv::vulkan_1_1:
      return "vulkan1.1";
    case TargetEnv::vulkan_1_3:
      return "vulkan1.3";
    default:
      return "vulkan1.2";
  }
}

std::string prebuilt_module_hash(std::string_view text, const Defines& defines, TargetEnv env) {
  std::string key;
  expand(text, key, 0);
  key.append("|").append(target_env_name(env)).append("|").append(defines_text(defines));
  return content_hash(key);
}

std::string prebuilt_module_hash(const ModuleSpec& module) {
  const auto text = embedded_source(module.file);
  if (!text) throw std::out_of_range("no embedded shader source named " + module.file);
  return prebuilt_module_hash(*text, module.defines, module.env);
}

std::vector<ModuleSpec> modules_needing_newer_compiler() {
  std::vector<ModuleSpec> out;
  for (const kernels::Family* family : kernels::families()) {
    for (const kernels::Knobs& knobs : family->all_variants()) {
      const uint32_t extensions = family->requirements(knobs).compiler;
      if (extensions == 0) continue;
      const kernels::ShaderSpec spec = family->shader(knobs);
      ModuleSpec m{spec.file, spec.defines,
                   std::max(target_env(spec.vulkan_minor), TargetEnv::vulkan_1_2), extensions};
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(std::move(m));
    }
  }
  return out;
}

std::span<const PrebuiltModule> prebuilt_modules() {
  static const std::vector<PrebuiltModule> all = parse_manifest();
  return all;
}

std::string_view prebuilt_compiler() {
  for (std::string_view line : split(prebuilt_data::manifest(), '\n')) {
    if (line.starts_with(kCompilerLine)) return line.substr(kCompilerLine.size());
  }
  return {};
}

const PrebuiltModule* find_prebuilt(std::string_view text, const Defines& defines, TargetEnv env) {
  const std::span<const PrebuiltModule> all = prebuilt_modules();
  if (all.empty()) return nullptr;
  std::string hash;
  try {
    hash = prebuilt_module_hash(text, defines, env);
  } catch (const std::out_of_range&) {
    return nullptr;  // it includes a file no shader has: the compiler's error says which
  }
  for (const PrebuiltModule& m : all) {
    if (m.hash == hash && m.module.defines == defines && m.module.env == env) return &m;
  }
  return nullptr;
}

const kernels::CompilerSupport& prebuilt_support() {
  static const kernels::CompilerSupport support = [] {
    uint32_t missing = 0;  // extensions with some module not prebuilt from the current GLSL
    for (const ModuleSpec& m : modules_needing_newer_compiler()) {
      const std::string hash = prebuilt_module_hash(m);
      const auto all = prebuilt_modules();
      if (std::none_of(all.begin(), all.end(), [&](const PrebuiltModule& p) {
            return p.hash == hash && p.module.defines == m.defines && p.module.env == m.env;
          })) {
        missing |= m.extensions;
      }
    }
    kernels::CompilerSupport s;
    for (const kernels::GlslExtensionDesc& e : kernels::glsl_extension_descs()) {
      if ((missing & static_cast<uint32_t>(e.extension)) == 0) s.add(e.extension);
    }
    return s;
  }();
  return support;
}

}  // namespace vktune
