// PipelineCacheFile: read, check the header, hand to the driver; save through write_atomically.
#include "kernels/vk/pipeline_cache_file.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "kernels/vk/atomic_file.h"
#include "kernels/vk/cache_dir.h"
#include "kernels/vk/error.h"

namespace vktune::vk {

std::optional<std::filesystem::path> PipelineCacheFile::default_dir() {
  return cache_dir("pipelines");
}

std::string PipelineCacheFile::header_problem(const std::string& data, const DeviceInfo& device) {
  VkPipelineCacheHeaderVersionOne header{};
  if (data.size() < sizeof header) {
    return std::to_string(data.size()) + " bytes, shorter than the " +
           std::to_string(sizeof header) + "-byte header";
  }
  std::memcpy(&header, data.data(), sizeof header);
  if (header.headerSize < sizeof header || header.headerSize > data.size()) {
    return "header size " + std::to_string(header.headerSize) + " is not between " +
           std::to_string(sizeof header) + " and the file's " + std::to_string(data.size()) +
           " bytes";
  }
  if (header.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) {
    return "header version " + std::to_string(header.headerVersion) + " is not 1";
  }
  if (header.vendorID != device.vendor_id || header.deviceID != device.device_id ||
      std::memcmp(header.pipelineCacheUUID, device.pipeline_cache_uuid.data(), VK_UUID_SIZE) != 0) {
    return "written by another device or driver (vendor " + std::to_string(header.vendorID) +
           ", device " + std::to_string(header.deviceID) + ")";
  }
  return "";
}

PipelineCacheFile PipelineCacheFile::open(const Device& device, const std::filesystem::path& dir,
                                          std::string* warning) {
  PipelineCacheFile out;
  out.device_ = device.get();
  out.file_ = dir / (uuid_hex(device.info().pipeline_cache_uuid) + ".vkpc");
  if (warning) warning->clear();
  std::string data;
  if (std::ifstream in(out.file_, std::ios::binary); in) {
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (const std::string why = header_problem(data, device.info()); !why.empty()) {
      if (warning) *warning = out.file_.string() + ": " + why + "; starting an empty cache";
      data.clear();
    }
  }
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  check(vkCreatePipelineCache(out.device_, &info, nullptr, &cache), "vkCreatePipelineCache");
  out.cache_ = Handle<VkPipelineCache>(cache, [vk_device = out.device_](VkPipelineCache h) {
    vkDestroyPipelineCache(vk_device, h, nullptr);
  });
  out.loaded_bytes_ = data.size();
  return out;
}

std::string PipelineCacheFile::save() const {
  size_t size = 0;
  if (vkGetPipelineCacheData(device_, cache_.get(), &size, nullptr) != VK_SUCCESS) {
    return "vkGetPipelineCacheData failed";
  }
  std::string data(size, '\0');
  // VK_INCOMPLETE where the cache grew between the calls: the data written is still a whole
  // cache, of the pipelines it held at the first call.
  const VkResult got = vkGetPipelineCacheData(device_, cache_.get(), &size, data.data());
  if (got != VK_SUCCESS && got != VK_INCOMPLETE) return "vkGetPipelineCacheData failed";
  data.resize(size);
  const bool written = write_atomically(file_, [&](std::ostream& out) {
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
  });
  return written ? "" : "could not write " + file_.string();
}

}  // namespace vktune::vk
