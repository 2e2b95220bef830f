// shaderc wrapper: includes from the embedded sources, errors with the variant's name.
#include "kernels/vk/shader_compiler.h"

#include <shaderc/shaderc.hpp>

#include <algorithm>
#include <cstdio>

#include "kernels/vk/embedded_sources.h"
#include "kernels/vk/prebuilt_spirv.h"
#include "kernels/vk/spirv_validate.h"

// SPIRV-Tools' own version, for the disk cache's key. Declared here rather than through
// <spirv-tools/libspirv.h>: the newer compiler's prefix installs shaderc's headers only, and this
// C function is in both builds' archives.
extern "C" const char* spvSoftwareVersionDetailsString(void);

namespace vktune {
namespace {

// Serves #include "x.glsl" from the embedded sources.
class EmbeddedIncluder : public shaderc::CompileOptions::IncluderInterface {
 public:
  shaderc_include_result* GetInclude(const char* requested, shaderc_include_type,
                                     const char*, size_t) override {
    auto* result = new Result;
    result->name_text = requested;
    if (auto text = embedded_source(requested)) {
      result->content_text = std::string(*text);
    } else {
      // shaderc reports an include failure by an empty name and the message as content.
      result->content_text = std::string("cannot find include file \"") + requested + "\"";
      result->name_text.clear();
    }
    result->source_name = result->name_text.c_str();
    result->source_name_length = result->name_text.size();
    result->content = result->content_text.c_str();
    result->content_length = result->content_text.size();
    result->user_data = nullptr;
    return result;
  }
  void ReleaseInclude(shaderc_include_result* data) override {
    delete static_cast<Result*>(data);
  }

 private:
  struct Result : shaderc_include_result {
    std::string name_text, content_text;
  };
};

uint32_t shaderc_env_version(TargetEnv env) {
  switch (env) {
    case TargetEnv::vulkan_1_1:
      return shaderc_env_version_vulkan_1_1;
    case TargetEnv::vulkan_1_3:
      return shaderc_env_version_vulkan_1_3;
    default:
      return shaderc_env_version_vulkan_1_2;
  }
}

// Every embedded include, each name followed by its text: any of them may change a binary.
std::string all_includes() {
  std::string all;
  for (const EmbeddedSource& s : embedded_sources()) {
    if (s.name.ends_with(".glsl")) all.append(s.name).append(s.text);
  }
  return all;
}

const std::string& includes_hash() {
  static const std::string hash = content_hash(all_includes());
  return hash;
}

}  // namespace

std::string shader_compiler_identity() {
  return std::string("shaderc ") + VKTUNE_SHADERC_VERSION + ", " + spvSoftwareVersionDetailsString();
}

uint64_t content_hash_value(std::string_view text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string content_hash(std::string_view text) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(content_hash_value(text)));
  return hex;
}

std::string embedded_source_hash(std::string_view file) {
  auto text = embedded_source(file);
  if (!text) throw std::out_of_range("no embedded shader source named " + std::string(file));
  return content_hash(std::string(*text) + all_includes());
}

TargetEnv target_env(uint32_t vulkan_minor) {
  return vulkan_minor >= 3   ? TargetEnv::vulkan_1_3
         : vulkan_minor == 2 ? TargetEnv::vulkan_1_2
                             : TargetEnv::vulkan_1_1;
}

std::shared_ptr<const Spirv> ShaderCompiler::compile(std::string_view file,
                                                     const Defines& defines,
                                                     std::string_view variant) {
  return compile({std::string(file), defines}, variant);
}

std::shared_ptr<const Spirv> ShaderCompiler::compile(const kernels::ShaderSpec& spec,
                                                     std::string_view variant) {
  auto text = embedded_source(spec.file);
  if (!text) {
    throw CompileError(std::string(variant) + ": no embedded shader source named " + spec.file);
  }
  return compile_text(spec.file, *text, spec.defines, variant,
                      std::max(target_env(spec.vulkan_minor), env_));
}

std::shared_ptr<const Spirv> ShaderCompiler::compile_text(std::string_view file,
                                                          std::string_view text,
                                                          const Defines& defines,
                                                          std::string_view variant) {
  return compile_text(file, text, defines, variant, env_);
}

std::shared_ptr<const Spirv> ShaderCompiler::compile_text(std::string_view file,
                                                          std::string_view text,
                                                          const Defines& defines,
                                                          std::string_view variant,
                                                          TargetEnv env) {
  std::string key = content_hash(text) + "|" + std::to_string(static_cast<int>(env));
  for (const auto& [name, value] : defines) key += "|" + name + "=" + value;
  std::promise<std::shared_ptr<const Spirv>> promise;
  std::shared_future<std::shared_ptr<const Spirv>> pending;  // another caller's compile
  {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = cache_.try_emplace(key);
    if (inserted) {
      it->second = promise.get_future().share();
    } else {
      pending = it->second;
    }
  }
  if (pending.valid()) return pending.get();  // waited for unlocked
  try {
    auto spirv = produce(key, file, text, defines, variant, env);
    promise.set_value(spirv);
    return spirv;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard lock(mutex_);
    cache_.erase(key);
    throw;
  }
}

std::shared_ptr<const Spirv> ShaderCompiler::produce(const std::string& key, std::string_view file,
                                                     std::string_view text, const Defines& defines,
                                                     std::string_view variant, TargetEnv env) {
  std::string disk_key;
  if (disk_) {
    static const std::string identity = shader_compiler_identity();
    disk_key = identity + "|" + std::string(file) + "|" + includes_hash() + "|" + key;
    if (auto stored = disk_->load(disk_key)) {
      ++disk_hits_;
      return std::make_shared<const Spirv>(std::move(*stored));
    }
  }

  shaderc::Compiler compiler;
  shaderc::CompileOptions options;
  options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version(env));
  options.SetOptimizationLevel(shaderc_optimization_level_performance);
  options.SetIncluder(std::make_unique<EmbeddedIncluder>());
  for (const auto& [name, value] : defines) options.AddMacroDefinition(name, value);
  const std::string source(text);
  const std::string file_name(file);
  shaderc::SpvCompilationResult result = compiler.CompileGlslToSpv(
      source, shaderc_compute_shader, file_name.c_str(), options);
  if (result.GetCompilationStatus() != shaderc_compilation_status_success) {
    // A module only the newer compiler builds, shipped prebuilt from this very GLSL.
    if (const PrebuiltModule* prebuilt = find_prebuilt(text, defines, env)) {
      const std::span<const uint32_t> words = prebuilt->words;
      const std::string invalid = kernels::spirv_validation_error(
          {reinterpret_cast<const uint8_t*>(words.data()), words.size_bytes()});
      if (!invalid.empty()) {
        throw CompileError(std::string(variant) + ": the prebuilt module " + prebuilt->spv + " " +
                           invalid);
      }
      ++prebuilt_;
      return std::make_shared<const Spirv>(words.begin(), words.end());
    }
    throw CompileError(std::string(variant) + ": " + result.GetErrorMessage());
  }
  ++compiled_;
  auto spirv = std::make_shared<const Spirv>(result.cbegin(), result.cend());
  if (disk_) disk_->store(disk_key, *spirv);
  return spirv;
}

size_t ShaderCompiler::cache_size() const {
  std::lock_guard lock(mutex_);
  return cache_.size();
}

}  // namespace vktune
