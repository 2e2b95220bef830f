// SpirvDiskCache: a magic line, the key (length-prefixed), then the SPIR-V words.
#include "kernels/vk/spirv_disk_cache.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

#include "kernels/vk/shader_compiler.h"

namespace vktune {
namespace {

constexpr std::string_view kMagic = "vktune-spirv 1\n";
constexpr uint32_t kSpirvMagic = 0x07230203;

std::optional<std::filesystem::path> from_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::filesystem::path(value);
}

}  // namespace

std::optional<std::filesystem::path> SpirvDiskCache::default_dir() {
  if (auto dir = from_env("VKTUNE_CACHE_DIR")) {
    if (*dir == "off") return std::nullopt;
    return *dir / "spirv";
  }
  if (auto dir = from_env("XDG_CACHE_HOME")) return *dir / "vktune" / "spirv";
  if (auto dir = from_env("HOME")) return *dir / ".cache" / "vktune" / "spirv";
  return std::nullopt;
}

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
  const std::filesystem::path file = file_of(key);
  std::ostringstream unique;
  unique << file.filename().string() << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
  const std::filesystem::path tmp = dir_ / unique.str();
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const uint64_t key_bytes = key.size();
    out.write(kMagic.data(), static_cast<std::streamsize>(kMagic.size()));
    out.write(reinterpret_cast<const char*>(&key_bytes), sizeof key_bytes);
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(reinterpret_cast<const char*>(spirv.data()),
              static_cast<std::streamsize>(spirv.size() * sizeof(uint32_t)));
    out.close();
    if (!out) {
      ++failed_stores_;
      std::filesystem::remove(tmp, error);
      return;
    }
  }
  std::filesystem::rename(tmp, file, error);
  if (error) {
    ++failed_stores_;
    std::filesystem::remove(tmp, error);
  }
}

}  // namespace vktune
