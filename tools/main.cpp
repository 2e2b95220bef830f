// vktune: offline autotuner and kernel database for Vulkan compute shaders.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include "tools/cli.h"

namespace {

// `code`, or 1 with a message when what the command printed did not all reach standard output
// (a full disk, a closed pipe with SIGPIPE ignored): a redirected run never ends "successful"
// with an empty or cut file.
int checked_stdout(int code) {
  // errno is not cleared first: where the command's own flush failed (lookup flushes), the
  // reason is its errno, which no later success clears.
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_errno = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return code;
  std::fprintf(stderr, "vktune: error: cannot write the output to standard output: %s\n",
               flush_errno != 0 ? std::strerror(flush_errno) : "a write failed");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vktune: offline autotuner and kernel database for Vulkan compute shaders"};
  app.set_version_flag("--version", "vktune " VKTUNE_VERSION);
  app.require_subcommand(0, 1);
  vktune::cli::add_validate_option(app);
  vktune::cli::add_devices_command(app);
  vktune::cli::add_tune_command(app);
  vktune::cli::add_bench_command(app);
  vktune::cli::add_inspect_command(app);
  vktune::cli::add_run_layer_command(app);
  vktune::cli::add_report_command(app);
  vktune::cli::add_merge_command(app);
  vktune::cli::add_export_command(app);
  vktune::cli::add_import_command(app);
  vktune::cli::add_lookup_command(app);
  vktune::cli::add_evaluate_command(app);
  vktune::cli::add_cost_model_command(app);
  vktune::cli::add_completion_command(app);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) {
      std::fprintf(stderr, "vktune: error: no subcommand given\n%s", app.help().c_str());
      return 2;
    }
  } catch (const CLI::ParseError& e) {
    // CLI11 has a code per kind of parse error (105 for a failed check); every one of them is
    // a usage error, which vktune reports as 2. --help and --version stay 0, and a command's
    // own CLI::RuntimeError (lookup's 3: no answer) keeps its code.
    const int code = app.exit(e);
    if (code == 0 || dynamic_cast<const CLI::RuntimeError*>(&e) != nullptr) {
      return checked_stdout(code);
    }
    return 2;
  } catch (const vktune::cli::ExitStatus& e) {
    std::fprintf(stderr, "vktune: %s\n", e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "vktune: error: out of memory: the sizes asked for (--m, --context, a shape's "
                 "dimensions) need more memory than this machine has; give smaller ones\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vktune: error: %s\n", e.what());
    return 1;
  }
  return checked_stdout(0);
}
