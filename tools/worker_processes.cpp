// run_workers: fork/exec of /proc/self/exe, the workers' output relayed through poll().
#include "tools/worker_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace vktune::cli {
namespace {

// A pipe's two ends, closed on exec so a worker inherits none of its siblings' pipes.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    read = fds[0];
    write = fds[1];
  }
};

// One running worker: its process and the read ends of its stdout and stderr.
struct Running {
  const WorkerSpec* spec = nullptr;
  WorkerOutcome outcome;
  int out = -1, err = -1;
  std::string partial;  // stderr read past its last newline
};

Running start(const WorkerSpec& spec) {
  Pipe out, err;
  std::vector<std::string> args = spec.args;
  args.insert(args.begin(), "vktune");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::dup2(out.write, STDOUT_FILENO);
    ::dup2(err.write, STDERR_FILENO);
    // A parent that dies (even by SIGKILL) stops its workers as Ctrl-C would: they commit.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);
    // Nor does a line it writes to the dead parent's pipes kill it before it has committed: with
    // SIGPIPE ignored (kept across exec) such a write fails, and the worker carries on to its stop.
    ::signal(SIGPIPE, SIG_IGN);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(out.write);
  ::close(err.write);
  if (pid < 0) {
    ::close(out.read);
    ::close(err.read);
    throw std::runtime_error("cannot start the worker " + spec.label + ": " +
                             std::strerror(fork_errno));
  }
  Running r;
  r.spec = &spec;
  r.outcome.pid = pid;
  r.out = out.read;
  r.err = err.read;
  return r;
}

void relay_lines(Running& r, std::FILE* err, bool at_end) {
  for (size_t newline; (newline = r.partial.find('\n')) != std::string::npos;) {
    std::fprintf(err, "%s %.*s\n", r.spec->label.c_str(), static_cast<int>(newline),
                 r.partial.data());
    r.partial.erase(0, newline + 1);
  }
  if (at_end && !r.partial.empty()) {
    std::fprintf(err, "%s %s\n", r.spec->label.c_str(), r.partial.c_str());
    r.partial.clear();
  }
  std::fflush(err);
}

// Reads what `fd` has; closes it and sets it to -1 at its end.
void drain(int& fd, std::string& into) {
  char buf[65536];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    into.append(buf, static_cast<size_t>(n));
  } else if (n == 0 || errno != EINTR) {
    ::close(fd);
    fd = -1;
  }
}

// Polls every open pipe until all have ended, relaying stderr and forwarding a stop.
void relay_until_done(std::vector<Running>& workers, std::FILE* err,
                      const std::function<int()>& stop_signal) {
  bool forwarded = false;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Running*, bool>> owner;  // (worker, is stderr)
    const auto watch = [&](int fd, Running& r, bool is_err) {
      if (fd < 0) return;
      fds.push_back({fd, POLLIN, 0});
      owner.emplace_back(&r, is_err);
    };
    for (Running& r : workers) {
      watch(r.out, r, false);
      watch(r.err, r, true);
    }
    if (fds.empty()) return;
    if (const int signal = stop_signal(); signal != 0 && !forwarded) {
      for (Running& r : workers) ::kill(r.outcome.pid, signal);
      forwarded = true;
    }
    if (::poll(fds.data(), fds.size(), 200) < 0) continue;  // EINTR: a signal; look again
    for (size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Running& r = *owner[i].first;
      if (owner[i].second) {
        drain(r.err, r.partial);
        relay_lines(r, err, r.err < 0);
      } else {
        drain(r.out, r.outcome.out);
      }
    }
  }
}

}  // namespace

std::string WorkerOutcome::how_it_ended() const {
  if (signal != 0) {
    return "was killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  return "exited with status " + std::to_string(exit_code);
}

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) throw std::runtime_error("cannot read /proc/self/cmdline");
  std::vector<std::string> args;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\0', start), text.size());
    args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (args.empty()) throw std::runtime_error("/proc/self/cmdline is empty");
  args.erase(args.begin());  // argv[0]
  return args;
}

std::vector<WorkerOutcome> run_workers(const std::vector<WorkerSpec>& specs, std::FILE* err,
                                       const std::function<int()>& stop_signal) {
  std::vector<Running> workers;
  std::string failed_to_start;
  for (const WorkerSpec& spec : specs) {
    try {
      workers.push_back(start(spec));
      std::string command = "vktune";
      for (const std::string& a : spec.args) command += " " + a;
      std::fprintf(err, "%s worker process %d: %s\n", spec.label.c_str(),
                   static_cast<int>(workers.back().outcome.pid), command.c_str());
    } catch (const std::runtime_error& e) {
      failed_to_start = e.what();
      for (Running& r : workers) ::kill(r.outcome.pid, SIGTERM);
      break;
    }
  }
  relay_until_done(workers, err, stop_signal);
  std::vector<WorkerOutcome> outcomes;
  for (Running& r : workers) {
    int status = 0;
    while (::waitpid(r.outcome.pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    outcomes.push_back(std::move(r.outcome));
  }
  if (!failed_to_start.empty()) throw std::runtime_error(failed_to_start);
  return outcomes;
}

}  // namespace vktune::cli
