// SpirvDiskCache: a magic line, the key (length-prefixed), then the SPIR-V words.
#include "kernels/vk/spirv_disk_cache.h"

#include <cstring>
#include <fstream>
#include <string>

#include "kernels/vk/atomic_file.h"
#include "kernels/vk/cache_dir.h"
#include "kernels/vk/shader_compiler.h"

namespace vktune {
namespace {

constexpr std::string_view kMagic = "vktune-spirv 1\n";
constexpr uint32_t kSpirvMagic = 0x07230203;

}  // namespace

std::optional<std::filesystem::path> SpirvDiskCache::default_dir() { return cache_dir("spirv"); }

std::filesystem::path SpirvDiskCache::file_of(std::string_view key) const {
  return dir_ / (content_hash(key) + ".spv");
}

std::optional<std::vector<uint32_t>> SpirvDiskCache::load(std::string_view key) const {
  std::ifstream in(file_of(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic(kMagic.size(), '\0');
  uint64_t key_bytes = 0;
  if (!in.read(magic.data(), static_cast<std::streamsize>(magic.size())) || magic != kMagic ||
      !in.read(reinterpret_cast<char*>(&key_bytes), sizeof key_bytes) || key_bytes != key.size()) {
    return std::nullopt;
  }
  std::string stored(key_bytes, '\0');
  if (!in.read(stored.data(), static_cast<std::streamsize>(key_bytes)) || stored != key) {
    return std::nullopt;
  }
  const std::string body{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (body.empty() || body.size() % sizeof(uint32_t) != 0) return std::nullopt;
  std::vector<uint32_t> spirv(body.size() / sizeof(uint32_t));
  std::memcpy(spirv.data(), body.data(), body.size());
  if (spirv.front() != kSpirvMagic) return std::nullopt;
  return spirv;
}

void SpirvDiskCache::store(std::string_view key, const std::vector<uint32_t>& spirv) const {
  const bool written = write_atomically(file_of(key), [&](std::ostream& out) {
    const uint64_t key_bytes = key.size();
    out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
    out.write(reinterpret_cast<const char*>(&key_bytes), sizeof key_bytes);
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(reinterpret_cast<const char*>(spirv.data()),
              static_cast<std::streamsize>(spirv.size() * sizeof(uint32_t)));
  });
  if (!written) ++failed_stores_;
}

}  // namespace vktune
