// Worker processes of `vktune tune --devices`: each worker is this binary run again
// (/proc/self/exe) with its own arguments; its stderr is relayed line by line under its label and
// its stdout collected, so the parent alone writes the run's results on stdout.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace vktune::cli {

struct WorkerSpec {
  std::string label;              // prefixes each line it writes on stderr, e.g. "[1]"
  std::vector<std::string> args;  // argv[1...] of the worker
};

struct WorkerOutcome {
  pid_t pid = -1;
  int exit_code = -1;  // its exit status; -1 when a signal ended it
  int signal = 0;      // the signal that ended it; 0 when it exited
  std::string out;     // everything it wrote on stdout
  bool ok() const { return signal == 0 && exit_code == 0; }
  // "exited with status 1", "was killed by signal 9 (Killed)".
  std::string how_it_ended() const;
};

// This process's own arguments (argv[1...]), read back from /proc/self/cmdline. Throws
// std::runtime_error when they cannot be read.
std::vector<std::string> own_arguments();

// Starts one worker per spec and waits for every one to end, relaying each complete line it
// writes on stderr to `err` as "<label> <line>" (lines of different workers never mix). A
// worker gets SIGTERM when this process dies first (it then commits what it measured and
// stops). `stop_signal` is polled while waiting: once it returns a signal number, that signal is
// forwarded to every worker still running. Returns the outcomes in spec order. Throws
// std::runtime_error when a worker cannot be started (those already started are waited for
// first).
std::vector<WorkerOutcome> run_workers(const std::vector<WorkerSpec>& specs, std::FILE* err,
                                       const std::function<int()>& stop_signal);

}  // namespace vktune::cli
