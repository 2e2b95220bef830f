// Subcommands of the vktune CLI. Each add_*_command registers its options on `app` and
// the action that runs when the subcommand is chosen.
#pragma once

#include <CLI/CLI.hpp>

namespace vktune::cli {

// Options every device-using subcommand shares.
struct DeviceOptions {
  std::string device;  // --device: index or name substring; VKTUNE_DEVICE when empty
};

void add_device_option(CLI::App& command, DeviceOptions& options);

void add_devices_command(CLI::App& app);

}  // namespace vktune::cli
