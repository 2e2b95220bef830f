// Runs the built vktune binary (VKTUNE_BINARY): to the end with a shell-quoted argument string,
// collecting what it printed and how it exited; or in the background, to be signalled.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

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

// A count for a long run from the environment (`name`), else `fallback` (what CI runs).
inline int count_from_env(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text && std::atoi(text) > 0 ? std::atoi(text) : fallback;
}

// Starts `vktune <args...>` in the background with its stdout discarded and its stderr written
// to `stderr_path` (discarded by default); returns its pid, or -1.
inline pid_t start_vktune(std::vector<std::string> args,
                          const std::string& stderr_path = "/dev/null") {
  args.insert(args.begin(), VKTUNE_BINARY);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, VKTUNE_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return spawned == 0 ? pid : -1;
}

// Sends `signal` to a started `pid` and returns its wait status.
inline int stop(pid_t pid, int signal) {
  int status = 0;
  ::kill(pid, signal);
  ::waitpid(pid, &status, 0);
  return status;
}

// Waits for a started `pid` to end by itself; returns its exit code, or -1 when it was killed.
inline int finish(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace vktune::testing
