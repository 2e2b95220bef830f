// Subcommands of the vktune CLI. Each add_*_command registers its options on `app` and
// the action that runs when the subcommand is chosen.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "db/store.h"
#include "kernels/vk/instance.h"
#include "tuner/options.h"
#include "tuner/session.h"
#include "tuner/shape_sets.h"

namespace vktune::cli {

// Ends the command with `code` after printing what() on stderr (main() catches it), for exits
// that are not plain failures (a tuning run stopped by a signal: 128 + the signal).
class ExitStatus : public std::runtime_error {
 public:
  ExitStatus(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// Refuses, as a usage error (exit 2), an `output` that is one of the files the command reads
// (`inputs`: databases, shapes files, models; empty ones and ":memory:" skipped): the same file
// by device and inode (st_dev, st_ino), whatever the names (a symlink, ./M.db, a hard link).
// Writing it would replace what is being read. "-" (standard output) is never a file here
// (cli_files.cpp).
void refuse_to_overwrite(std::initializer_list<std::string_view> inputs, const std::string& output);
inline void refuse_to_overwrite(const std::string& input, const std::string& output) {
  refuse_to_overwrite({input}, output);
}

// Refuses, as a usage error (exit 2), an input that is a FIFO, a device or a socket: inputs
// are read to their end (/dev/zero never ends) and some twice (a FIFO's first byte, read to
// tell JSON from SQLite, would be gone). Paths that do not exist, directories and ":memory:"
// are left to the command's own checks (cli_files.cpp).
void require_file_inputs(std::initializer_list<std::string_view> inputs);

// A number option's check: above zero (`allow_zero` false) or at least zero. CLI11's own
// PositiveNumber and NonNegativeNumber print their range up to DBL_MAX, 309 digits long.
inline CLI::Validator number_check(bool allow_zero) {
  const std::string wanted = allow_zero ? "a number >= 0" : "a number > 0";
  return CLI::Validator(
      [allow_zero, wanted](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !(allow_zero ? value >= 0 : value > 0)) {
          return "\"" + text + "\" is not " + wanted;
        }
        return {};
      },
      allow_zero ? "NONNEGATIVE" : "POSITIVE", allow_zero ? "non-negative" : "positive");
}

// An unsigned integer option's check: decimal digits whose value `T` holds (CLI11 takes
// 99999999999999999999 for a uint64_t and 4294967290 + 1 wraps later), at least `min`.
template <class T>
CLI::Validator integer_check(T min = 0) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        T value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
            value < min) {
          return "\"" + text + "\" is not a whole number from " + std::to_string(min) + " to " +
                 std::to_string(std::numeric_limits<T>::max());
        }
        return {};
      },
      "UINT", "unsigned integer");
}

// --budget's value: seconds, or nullopt for no limit ("0", "none", "inf", "infinity", or more
// than kNoBudgetAbove seconds); throws CLI::ValidationError naming the text otherwise
// (cli_budget.cpp).
inline constexpr double kNoBudgetAbove = 365.0 * 24 * 3600;
std::optional<double> parse_budget(const std::string& text);

// --validate on `app` (and, falling through, after any subcommand) (cli_validation.cpp).
void add_validate_option(CLI::App& app);
// The Vulkan instance of a command: under the validation layer when --validate or
// VKTUNE_VALIDATION=1 asked for it, saying so on stderr and printing its messages there.
vk::Instance create_instance();

// Options every device-using subcommand shares.
struct DeviceOptions {
  std::string device;  // --device: index or name substring; VKTUNE_DEVICE when empty
};

// Returns the option, for excludes().
CLI::Option* add_device_option(CLI::App& command, DeviceOptions& options);

// --op, --m, --n, --k, --gs, --heads, --kv-heads: one problem's shape (`lookup`, `inspect`;
// cli_shape.cpp).
struct ShapeOptions {
  std::string op = "q4gsw";
  std::string dtype = "f32";
  uint32_t m = 1, n = 0, k = 0, gs = 0;
  uint32_t heads = 0, kv_heads = 0;  // sdpa only
  // K as given, or the op's default where it derives K (rms_norm: N).
  uint32_t k_or_default() const;
};

void add_shape_options(CLI::App& command, ShapeOptions& options, bool m_required);

void add_devices_command(CLI::App& app);
// `vktune tune` (cli_tune.cpp).
void add_tune_command(CLI::App& app);
// --ops of `tune` and `bench`: "q4gsw,rms_norm,sdpa" as ops; throws CLI::ValidationError naming
// an unknown one.
std::vector<kernels::Op> parse_ops(const std::string& text);
// `flag` (--ops, absent when not given) into `options`: the ops it names, marked chosen; the
// default ops otherwise (tuner::ShapeOptions::ops_chosen says what a shapes file's other
// entries then do).
void apply_ops(const std::optional<std::string>& flag, tuner::ShapeOptions& options);
// Runs a tuning session with progress and its closing line on stderr; results are the
// caller's to print on stdout.
tuner::TuneResult run_session(const vk::Instance& instance, size_t device_index, db::Store& store,
                              tuner::TuneOptions options, bool plain);
// `vktune bench` (cli_bench.cpp).
void add_bench_command(CLI::App& app);
// `vktune inspect` (cli_inspect.cpp).
void add_inspect_command(CLI::App& app);
// `vktune run-layer` (cli_run_layer.cpp).
void add_run_layer_command(CLI::App& app);
// `vktune report` (cli_report.cpp).
void add_report_command(CLI::App& app);
// `vktune merge`, `export`, `import`, `lookup` (cli_db.cpp).
void add_merge_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_lookup_command(CLI::App& app);
// `vktune evaluate` (cli_evaluate.cpp).
void add_evaluate_command(CLI::App& app);
// `vktune completion bash` (cli_completion.cpp): add it last, it completes what `app` has then.
void add_completion_command(CLI::App& app);
// The bash completion script of `app`'s commands and options.
std::string bash_completion(const CLI::App& app);
// `vktune cost-model` (cli_cost_model.cpp).
void add_cost_model_command(CLI::App& app);

}  // namespace vktune::cli
