// GLSL -> SPIR-V through libshaderc, with #include resolved from the embedded kernels/glsl
// sources, an in-memory cache keyed by (source hash, defines, target environment) and, when
// given one, a disk cache shared by runs (keyed by the compiler's identity and the includes too).
// A module the linked compiler rejects is served prebuilt where kernels/prebuilt/ has it
// (kernels/vk/prebuilt_spirv.h).
// A ShaderSpec's specialisation constants are no part of any key: the variants that differ only
// in them share one module.
#pragma once

#include <atomic>
#include <future>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/shader_spec.h"
#include "kernels/vk/spirv_disk_cache.h"

namespace vktune {

// A shader that failed to compile; what() names the variant and carries shaderc's message
// (which names file and line).
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Spirv = std::vector<uint32_t>;

enum class TargetEnv { vulkan_1_1, vulkan_1_2, vulkan_1_3 };
// The target for Vulkan 1.`vulkan_minor` (ShaderSpec::vulkan_minor, GlslExtensionDesc's): 1.3
// for 3 or more, 1.2 for 2, else 1.1.
TargetEnv target_env(uint32_t vulkan_minor);

// 64-bit FNV-1a of `text` (the project's offset basis, which every stored source hash uses).
uint64_t content_hash_value(std::string_view text);
// The same as 16 hex digits.
std::string content_hash(std::string_view text);

// The linked shaderc's version and its SPIRV-Tools' (with build details): what, beside the
// source, decides a shader's binary.
std::string shader_compiler_identity();

// Hash of an embedded source file together with every embedded include it could pull in:
// what the database keys a kernel's binary by. Throws std::out_of_range for unknown files.
std::string embedded_source_hash(std::string_view file);

class ShaderCompiler {
 public:
  explicit ShaderCompiler(TargetEnv env = TargetEnv::vulkan_1_2) : env_(env) {}
  // Also reads and fills `disk` when not null; it must outlive the compiler.
  ShaderCompiler(TargetEnv env, const SpirvDiskCache* disk) : env_(env), disk_(disk) {}

  // Compiles the embedded file `file` (e.g. "q4gsw_gemv.comp") with `defines`.
  // `variant` names the variant in error messages. Thread-safe; cached, and a module another
  // thread is compiling is waited for, not compiled twice.
  std::shared_ptr<const Spirv> compile(std::string_view file, const Defines& defines,
                                       std::string_view variant);
  // Compiles a variant's shader (its file and defines), for the newer of this compiler's target
  // and the spec's.
  std::shared_ptr<const Spirv> compile(const kernels::ShaderSpec& spec, std::string_view variant);

  // Compiles GLSL text given directly; `file` is the name used in messages.
  std::shared_ptr<const Spirv> compile_text(std::string_view file, std::string_view text,
                                            const Defines& defines, std::string_view variant);

  // Distinct modules asked for (compiled, from disk, or failed).
  size_t cache_size() const;
  // Modules shaderc compiled.
  uint64_t compiled() const { return compiled_; }
  // Modules the disk cache served instead of shaderc.
  uint64_t disk_hits() const { return disk_hits_; }
  // Modules the linked shaderc rejected and kernels/prebuilt/ served.
  uint64_t prebuilt() const { return prebuilt_; }

 private:
  // `env`: the target, never older than env_.
  std::shared_ptr<const Spirv> compile_text(std::string_view file, std::string_view text,
                                            const Defines& defines, std::string_view variant,
                                            TargetEnv env);

  TargetEnv env_;
  const SpirvDiskCache* disk_ = nullptr;
  // The binary of `key`, from disk or shaderc (uncached).
  std::shared_ptr<const Spirv> produce(const std::string& key, std::string_view file,
                                       std::string_view text, const Defines& defines,
                                       std::string_view variant, TargetEnv env);

  std::atomic<uint64_t> compiled_ = 0;
  std::atomic<uint64_t> disk_hits_ = 0;
  std::atomic<uint64_t> prebuilt_ = 0;
  mutable std::mutex mutex_;
  // A module being compiled is already here, so the threads that ask for it meanwhile wait on
  // its future (and share its error, if it fails; a failed module is then dropped, so a later
  // call tries again and names its own variant).
  std::map<std::string, std::shared_future<std::shared_ptr<const Spirv>>> cache_;
};

}  // namespace vktune
