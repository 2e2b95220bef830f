// Runs the built vktune binary (VKTUNE_BINARY) with a shell-quoted argument string and collects
// what it printed and how it exited.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace vktune::testing {

struct VktuneResult {
  int exit_code = -1;
  std::string output;  // stdout, and stderr unless redirected elsewhere
};

// `runner` goes before the binary (e.g. setpriv to run it as another user); `stderr_to` is the
// shell redirection of its stderr (by default into output, with stdout).
inline VktuneResult vktune(const std::string& args, const std::string& runner = "",
                           const std::string& stderr_to = "2>&1") {
  VktuneResult r;
  const std::string command = runner + " '" + VKTUNE_BINARY + "' " + args + " " + stderr_to;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace vktune::testing
