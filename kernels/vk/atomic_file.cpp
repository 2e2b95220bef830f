// write_atomically: a temporary named by process and thread, then rename(2).
#include "kernels/vk/atomic_file.h"

#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace vktune {

bool write_atomically(const std::filesystem::path& file,
                      const std::function<void(std::ostream&)>& write) {
  std::ostringstream unique;
  unique << file.filename().string() << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
  const std::filesystem::path tmp = file.parent_path() / unique.str();
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    write(out);
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, error);
      return false;
    }
  }
  std::filesystem::rename(tmp, file, error);
  if (error) {
    std::filesystem::remove(tmp, error);
    return false;
  }
  return true;
}

}  // namespace vktune
