// What tests of `vktune tune --devices` share: the test hook that puts two workers on the one
// lavapipe device, and the worker processes a parent announced on its stderr.
#pragma once

#include <stdlib.h>
#include <sys/types.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

namespace vktune::testing {

// Sets VKTUNE_TEST_REPEAT_DEVICES while alive: --devices 0,0 is two workers on lavapipe.
class RepeatDevices {
 public:
  RepeatDevices() { ::setenv("VKTUNE_TEST_REPEAT_DEVICES", "1", 1); }
  ~RepeatDevices() { ::unsetenv("VKTUNE_TEST_REPEAT_DEVICES"); }
  RepeatDevices(const RepeatDevices&) = delete;
  RepeatDevices& operator=(const RepeatDevices&) = delete;
};

// The worker processes a parent announced on the stderr it wrote to `stderr_path`
// ("[0] worker process 123: ..."), in the order it started them.
inline std::vector<pid_t> worker_pids(const std::string& stderr_path) {
  std::ifstream in(stderr_path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<pid_t> pids;
  const std::regex line(R"(\] worker process (\d+):)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    pids.push_back(static_cast<pid_t>(std::stol((*it)[1])));
  }
  return pids;
}

}  // namespace vktune::testing
