// SPIR-V kept on disk between runs, so a re-tune (or a second tune of the day) pays for GLSL
// compilation once: on the H100 machine shaderc took 9 of a halving run's 54 s over 19,322
// variants, on a 2-core machine most of the lavapipe main job.
//
// One file a shader, named by the hash of its key; the file repeats the whole key, so a hash
// collision or a foreign file reads as a miss, never as the wrong binary. The caller's key must
// hold everything that changes the binary: the compiler's identity, the target, the source with
// its includes and the defines (ShaderCompiler builds it).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace vktune {

class SpirvDiskCache {
 public:
  // Files go in `dir`, created on the first store.
  explicit SpirvDiskCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The cache folder a tuning run uses: $VKTUNE_CACHE_DIR/spirv, else $XDG_CACHE_HOME/vktune/spirv,
  // else $HOME/.cache/vktune/spirv; none when VKTUNE_CACHE_DIR is "off" or no variable is set.
  static std::optional<std::filesystem::path> default_dir();

  // The binary stored under `key`, or none when absent, unreadable, of another key or not
  // SPIR-V (a torn or foreign file is a miss; the next store replaces it).
  std::optional<std::vector<uint32_t>> load(std::string_view key) const;

  // Stores `spirv` under `key`, atomically (a temporary file renamed over the old one), so a
  // concurrent reader or a kill sees the old file or the new one, never half of one. Best
  // effort: a read-only or full disk costs the next run a compile, not this run its results,
  // so failures are counted (failed_stores()) and not thrown. Thread-safe.
  void store(std::string_view key, const std::vector<uint32_t>& spirv) const;

  const std::filesystem::path& dir() const { return dir_; }
  uint64_t failed_stores() const { return failed_stores_; }

 private:
  std::filesystem::path file_of(std::string_view key) const;

  std::filesystem::path dir_;
  mutable std::atomic<uint64_t> failed_stores_ = 0;
};

}  // namespace vktune
