// --validate / VKTUNE_VALIDATION=1: the Khronos validation layer for any command, its messages
// on stderr as they arrive.
#include <cstdio>
#include <cstdlib>

#include "tools/cli.h"

namespace vktune::cli {

void add_validate_option(CLI::App& app) {
  // The instance reads VKTUNE_VALIDATION (kernels/vk/instance.h), so the flag only sets it:
  // every Vulkan-using command, and every instance it makes, then runs under the layer.
  app.add_flag_callback(
      "--validate", [] { ::setenv("VKTUNE_VALIDATION", "1", 1); },
      "run under the Vulkan validation layer (as VKTUNE_VALIDATION=1 does) and print its "
      "messages on stderr");
  // So the flag may also follow the subcommand: `vktune tune --validate ...`.
  app.fallthrough();
}

vk::Instance create_instance() {
  vk::InstanceOptions options;
  options.print_messages = true;
  vk::Instance instance = vk::Instance::create(options);
  if (instance.validation()) {
    std::fputs("vktune: Vulkan validation layer on; its messages follow on stderr\n", stderr);
  }
  return instance;
}

}  // namespace vktune::cli
