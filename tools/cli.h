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
// `vktune tune` (cli_tune.cpp).
void add_tune_command(CLI::App& app);
// `vktune report` (cli_report.cpp).
void add_report_command(CLI::App& app);
// `vktune merge`, `export`, `import`, `lookup` (cli_db.cpp).
void add_merge_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_lookup_command(CLI::App& app);

}  // namespace vktune::cli
