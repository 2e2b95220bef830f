// The driver's pipeline cache (VkPipelineCache) kept in a file between runs, so a second tune on
// the same device and driver gets its pipelines from the driver's cache instead of its compiler.
// The file holds the driver's own data (vkGetPipelineCacheData), named by the device's
// pipelineCacheUUID; its header is checked against the device before the driver reads it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "kernels/vk/device.h"
#include "kernels/vk/handle.h"

namespace vktune::vk {

class PipelineCacheFile {
 public:
  // The folder a tuning run keeps these files in: $VKTUNE_CACHE_DIR/pipelines, else
  // $XDG_CACHE_HOME/vktune/pipelines, else $HOME/.cache/vktune/pipelines; none when
  // VKTUNE_CACHE_DIR is "off" or no variable is set.
  static std::optional<std::filesystem::path> default_dir();

  // The cache of `device` in `dir` (file `<pipelineCacheUUID hex>.vkpc`), filled from the file
  // where its header names this device: header version one, this vendor and device id and this
  // pipelineCacheUUID. Otherwise (no file, or a foreign, truncated or corrupt one) the cache
  // starts empty, and *warning says why where there was a file it could not use ("" else).
  // Throws Error when vkCreatePipelineCache fails. `device` must outlive it.
  static PipelineCacheFile open(const Device& device, const std::filesystem::path& dir,
                                std::string* warning);

  VkPipelineCache get() const noexcept { return cache_.get(); }
  const std::filesystem::path& file() const noexcept { return file_; }
  // Bytes of the file the cache started from; 0 when it started empty.
  size_t loaded_bytes() const noexcept { return loaded_bytes_; }

  // Writes the cache's data to the file, atomically. Best effort: returns "" when written, else
  // why not (a read-only or full disk costs the next run its pipelines, not this one its
  // results). Thread-safe against pipeline creation (the driver synchronises the cache).
  std::string save() const;

  // Why `data` cannot seed `device`'s cache, or "" when its header is version one of this
  // device's vendor, device id and pipelineCacheUUID (the spec's VkPipelineCacheHeaderVersionOne).
  static std::string header_problem(const std::string& data, const DeviceInfo& device);

 private:
  PipelineCacheFile() = default;

  Handle<VkPipelineCache> cache_;
  VkDevice device_ = VK_NULL_HANDLE;
  std::filesystem::path file_;
  size_t loaded_bytes_ = 0;
};

}  // namespace vktune::vk
