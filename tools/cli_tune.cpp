// `vktune tune`: a tuning run on one device (or, with --devices, one worker process per device),
// stored in SQLite, then the winners' table.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>

#include "db/device_database.h"
#include "db/ops/db_tools.h"
#include "db/store.h"
#include "kernels/family.h"
#include "kernels/problem_limits.h"
#include "kernels/vk/compiler_probe.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "kernels/vk/pipeline_cache_file.h"
#include "tools/cli.h"
#include "tools/report/summary.h"
#include "tools/report/summary_json.h"
#include "tools/worker_processes.h"
#include "tuner/budget_note.h"
#include "tuner/device_plan.h"
#include "tuner/progress.h"
#include "tuner/session.h"
#include "tuner/shape_sets.h"
#include "tuner/shard.h"
#include "tuner/tuning_cost.h"

namespace vktune::cli {
namespace {

struct TuneFlags {
  DeviceOptions device;
  std::string shapes;  // preset or file; empty: smoke on a CPU device, llama3.2-1b elsewhere
  std::string model;   // config.json or GGUF file, in place of shapes
  std::string m, gs, context, dtypes = "f32";
  std::optional<std::string> ops;  // absent: the default ops (tuner::ShapeOptions)
  std::string families;  // empty: every one
  std::string strategy = "halving", cache = "cold";
  std::string budget = "0";
  double variant_budget_s = 0.25;
  std::string db = "vktune.db";
  std::string train_db;  // --strategy model or --prior: another database to learn from
  std::optional<double> prior;  // halving or exhaustive: measure what --train-db's keeps
  std::string shard;     // "I/N", "auto" or "auto/N": this host's share of the problems
  std::optional<std::string> devices;  // "all" or "0,1,...": one worker process per device
  bool worker = false;   // a worker of --devices: prints its run's id, not its results
  bool resume = false, fill = false, plain = false, profile = false, json = false;
  uint64_t seed = 1;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1) {
    items.push_back(text.substr(start, comma - start));
  }
  items.push_back(text.substr(start));
  return items;
}


std::vector<const kernels::Family*> parse_families(const std::string& text) {
  std::vector<const kernels::Family*> families;
  for (const std::string& name : split_commas(text)) {
    const kernels::Family* family = kernels::find_family(name);
    if (family == nullptr) {
      std::string known;
      for (const kernels::Family* f : kernels::families()) known += (known.empty() ? "" : ", ") + f->name();
      throw CLI::ValidationError("--families", "unknown family \"" + name + "\" (" + known + ")");
    }
    families.push_back(family);
  }
  return families;
}

// SIGINT and SIGTERM ask the run to stop (tuner/options.h: stop), so what it measured is
// committed and the exact resume command can be printed.
std::atomic<bool> stop_requested = false;
volatile std::sig_atomic_t stop_signal = 0;

// --train-db: a database, or a folder holding those of each device (db/tuned): the tuned device's
// main one is read, or on a device nobody tuned its kin's (the same vendor and type); where
// neither is there the model learns from this run's own database alone.
std::optional<db::DeviceDatabase> train_database(const std::string& path,
                                                     const vk::DeviceInfo& device) {
  if (path.empty()) return std::nullopt;
  std::optional<db::DeviceDatabase> found = db::database_of_device(
      path, {device.name, device.vendor_id, vk::device_type_name(device.type)});
  std::fprintf(stderr, "vktune tune: --train-db %s: %s\n", path.c_str(),
               !found ? ("no database recorded on " + device.name + " or its kin there").c_str()
               : found->kin ? ("none recorded on " + device.name + "; learning from its kin " +
                               found->device + " in " + found->path)
                                  .c_str()
                            : ("learning from " + found->path).c_str());
  return found;
}

// --shard: the share of `problems` this shard tunes, dealt by each problem's predicted cost
// (tuner/tuning_cost.h) over the variants legal for it on the device (of `families`, or every
// family of its op). Shards of one run on one device model therefore split alike.
std::vector<kernels::Problem> shard_problems(const std::vector<kernels::Problem>& problems,
                                             const tuner::Shard& shard,
                                             const vk::DeviceInfo& device,
                                             const std::vector<const kernels::Family*>& families) {
  const std::span<const kernels::Family* const> pool =
      families.empty() ? kernels::families() : std::span<const kernels::Family* const>(families);
  std::vector<double> costs;
  for (const kernels::Problem& p : problems) {
    size_t legal = 0;
    for (const kernels::Family* f : pool) {
      if (f->op() != p.op) continue;
      for (const kernels::Knobs& knobs : f->all_variants()) {
        legal += static_cast<bool>(f->legality(knobs, p, device, linked_compiler_support()));
      }
    }
    costs.push_back(tuner::tuning_cost(p, std::max<size_t>(legal, 1)));
  }
  std::vector<kernels::Problem> mine;
  double mine_cost = 0;
  for (size_t i : tuner::shard_indices(costs, shard)) {
    mine.push_back(problems[i]);
    mine_cost += costs[i];
  }
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  std::fprintf(stderr,
               "vktune tune: shard %s: %zu of %zu problems (%.0f%% of the predicted cost)\n",
               tuner::to_string(shard).c_str(), mine.size(), problems.size(),
               total > 0 ? 100.0 * mine_cost / total : 0.0);
  return mine;
}

extern "C" void request_stop(int signal) {
  stop_signal = signal;
  stop_requested = true;
}

// Installs request_stop for SIGINT and SIGTERM while alive; the previous handlers after.
class StopOnSignals {
 public:
  StopOnSignals() {
    struct sigaction action = {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  struct sigaction old_int_ = {}, old_term_ = {};
};

// The --m, --gs, --context, --ops and --dtype flags.
tuner::ShapeOptions parse_shape_options(const TuneFlags& flags) {
  tuner::ShapeOptions shape_options;
  if (!flags.m.empty()) shape_options.m = tuner::parse_list(flags.m);
  if (!flags.gs.empty()) shape_options.group_sizes = tuner::parse_list(flags.gs);
  if (!flags.context.empty()) shape_options.contexts = tuner::parse_list(flags.context);
  apply_ops(flags.ops, shape_options);
  try {
    shape_options.dtypes = tuner::parse_dtypes(flags.dtypes);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--dtype", e.what());
  }
  return shape_options;
}

// The summary of what `runs` tuned on stdout: a table, or JSON.
void print_summary(const TuneFlags& flags, const db::Store& store, std::vector<int64_t> runs) {
  report::SummaryOptions summary_options;
  summary_options.runs = std::move(runs);
  const report::Summary summary = report::summarize(store, summary_options);
  std::fputs((flags.json ? report::render_summary_json(summary) : report::render_table(summary)).c_str(),
             stdout);
}

// The run's summary on stdout (a table, or JSON; a worker's: its run's id) and, with --profile,
// where its time went.
void print_results(const TuneFlags& flags, const db::Store& store, const tuner::TuneResult& result) {
  if (flags.worker) {
    std::printf("run %lld\n", static_cast<long long>(result.run_id));
  } else {
    print_summary(flags, store, {result.run_id});
  }
  if (flags.profile) {
    size_t variants = 0;
    for (const auto& p : result.problems) variants += p.measured;
    // On stderr with the progress: it is about the run, not its results.
    std::fprintf(stderr, "\nwhere the time went (%zu variants measured):\n%s", variants,
                result.profile
                    .render(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(result.seconds)),
                            variants)
                    .c_str());
  }
}

// What a run on `device` tunes: --model's file, --shapes', else smoke on a CPU device and
// llama3.2-1b on a GPU.
std::string shapes_of(const TuneFlags& flags, const vk::DeviceInfo& device) {
  return !flags.model.empty()                  ? flags.model
         : !flags.shapes.empty()               ? flags.shapes
         : device.type == vk::DeviceType::cpu ? "smoke"
                                               : "llama3.2-1b";
}

// The test hook that lets --devices name one device twice (tests/tools/tune_devices_test.cpp):
// two workers on lavapipe, the one device a test machine has.
bool repeat_allowed() {
  const char* value = std::getenv("VKTUNE_TEST_REPEAT_DEVICES");
  return value != nullptr && std::string_view(value) == "1";
}

// A worker's arguments: this command's own, --devices dropped, then its device, its share of
// the problems where devices of its identity share them, and --worker.
std::vector<std::string> worker_arguments(const tuner::DeviceWorker& worker) {
  std::vector<std::string> args;
  const std::vector<std::string> own = own_arguments();
  for (size_t i = 0; i < own.size(); ++i) {
    if (own[i] == "--devices") {
      ++i;  // and its value
    } else if (!own[i].starts_with("--devices=")) {
      args.push_back(own[i]);
    }
  }
  args.insert(args.end(), {"--device", std::to_string(worker.device), "--worker"});
  if (worker.share.count > 1) args.insert(args.end(), {"--shard", tuner::to_string(worker.share)});
  return args;
}

// Why a --devices run failed: each failed worker's device and how it ended; the exit status is
// the first failed worker's own (2, 130...), or 1 where a signal ended it.
[[noreturn]] void report_failed_workers(const std::vector<tuner::DeviceWorker>& plan,
                                        const std::vector<vk::DeviceInfo>& devices,
                                        const std::vector<WorkerOutcome>& outcomes,
                                        const std::string& db) {
  std::string message;
  int code = 0;
  size_t finished = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].ok()) {
      ++finished;
      continue;
    }
    if (code == 0) code = outcomes[i].signal != 0 ? 1 : outcomes[i].exit_code;
    message += (message.empty() ? "" : "; ") + std::string("device [") +
               std::to_string(plan[i].device) + "] " + devices[plan[i].device].name +
               ": its worker (process " + std::to_string(outcomes[i].pid) + ") " +
               outcomes[i].how_it_ended();
  }
  throw ExitStatus(code, message + "; " + std::to_string(finished) + " of " +
                             std::to_string(outcomes.size()) + " workers finished; complete " +
                             db + " with the same command and --resume");
}

// --devices: one worker process per device (tuner/device_plan.h), each this command with its
// device in place of --devices, into the one database; then the summary of the workers' runs.
void run_on_devices(const TuneFlags& flags, const std::vector<vk::DeviceInfo>& devices,
                    const tuner::ShapeOptions& shape_options) {
  std::vector<size_t> chosen;
  try {
    chosen = tuner::parse_device_list(*flags.devices, devices.size(), repeat_allowed());
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--devices", e.what());
  }
  const std::vector<tuner::DeviceWorker> plan = tuner::plan_device_workers(devices, chosen);
  std::vector<WorkerSpec> specs;
  for (const tuner::DeviceWorker& worker : plan) {
    // Read here, so a bad shapes file fails once, before any worker starts.
    if (flags.model.empty()) tuner::load_shapes(shapes_of(flags, devices[worker.device]), shape_options);
    specs.push_back({"[" + std::to_string(worker.device) + "]", worker_arguments(worker)});
  }
  std::vector<WorkerOutcome> outcomes;
  {
    const StopOnSignals signals;
    outcomes = run_workers(specs, stderr, [] { return stop_requested ? int{stop_signal} : 0; });
  }
  if (stop_requested) {
    throw ExitStatus(128 + stop_signal, "stopped; continue the run in " + flags.db +
                                            " with the same command and --resume");
  }
  if (!std::all_of(outcomes.begin(), outcomes.end(), [](const WorkerOutcome& o) { return o.ok(); })) {
    report_failed_workers(plan, devices, outcomes, flags.db);
  }
  std::vector<int64_t> runs;
  for (const WorkerOutcome& o : outcomes) {
    long long run = 0;
    // A worker whose share holds no problem tuned nothing and names no run.
    if (std::sscanf(o.out.c_str(), "run %lld", &run) == 1) runs.push_back(run);
  }
  if (runs.empty()) return;
  print_summary(flags, db::ops::open_for_reading(flags.db), std::move(runs));
}

void run_tune(const TuneFlags& flags) {
  require_file_inputs({flags.shapes, flags.model, flags.train_db});
  refuse_to_overwrite({flags.shapes, flags.model}, flags.db);
  const std::optional<double> budget = parse_budget(flags.budget);
  std::optional<tuner::Shard> shard;
  try {
    if (!flags.shard.empty()) shard = tuner::parse_shard(flags.shard);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--shard", e.what());
  }
  if (!flags.train_db.empty() && flags.strategy != "model" && !flags.prior) {
    throw ExitStatus(2, "--train-db is read by --strategy model and by --prior only");
  }
  if (flags.prior && (flags.train_db.empty() || flags.strategy == "model")) {
    throw ExitStatus(2, "--prior narrows halving or exhaustive to what --train-db found near a "
                        "best; it needs --train-db and another strategy than model");
  }
  const tuner::ShapeOptions shape_options = parse_shape_options(flags);
  // Before `options`, whose future a thread fills it through: destroyed after the last wait.
  std::optional<db::Store> train_store;
  tuner::TuneOptions options;
  // A model file is read before the device is opened, so a bad one fails at once.
  if (!flags.model.empty()) options.problems = tuner::load_model(flags.model, shape_options);

  const vk::Instance instance = create_instance();
  const auto devices = instance.devices();
  if (flags.devices) {
    run_on_devices(flags, devices, shape_options);
    return;
  }
  const size_t index = vk::select_device(devices, vk::device_request(flags.device.device));
  const std::string shapes = shapes_of(flags, devices[index]);
  if (flags.model.empty()) options.problems = tuner::load_shapes(shapes, shape_options);
  options.strategy = *tuner::parse_strategy(flags.strategy);
  options.cache = flags.cache == "hot" ? tuner::CacheMode::hot : tuner::CacheMode::cold;
  if (budget) options.budget = std::chrono::duration<double>(*budget);
  options.timing.budget = std::chrono::duration<double>(flags.variant_budget_s);
  options.resume = flags.resume;
  options.fill = flags.fill;
  options.seed = flags.seed;
  options.claim_path = flags.db;
  options.spirv_cache = SpirvDiskCache::default_dir();
  options.pipeline_cache = vk::PipelineCacheFile::default_dir();
  if (!flags.families.empty()) options.families = parse_families(flags.families);
  // A family asked for by name that cannot run here at all says why, rather than tune nothing.
  for (const kernels::Family* f : options.families) {
    const std::string why = f->unavailable_reason(devices[index], linked_compiler_support());
    if (!why.empty()) {
      std::fprintf(stderr, "vktune tune: unavailable: %s\n", why.c_str());  // names the family
    }
  }

  if (shard) {
    options.problems = shard_problems(options.problems, *shard, devices[index], options.families);
    if (options.problems.empty()) {
      std::fprintf(stderr, "vktune tune: shard %s has no problem to tune; nothing written\n",
                   tuner::to_string(*shard).c_str());
      return;
    }
  }
  // Checked before the database is opened, so a shape the device cannot hold creates nothing.
  kernels::require_fit(options.problems, devices[index]);
  db::Store store = db::Store::open(flags.db);
  if (const auto train = train_database(flags.train_db, devices[index])) {
    // Read beside opening the device (tuner/options.h).
    const auto read = [&train_store, path = train->path]() -> const db::Store* {
      return &train_store.emplace(db::ops::open_for_learning(path));
    };
    options.train_store = std::async(std::launch::async, read).share();
    if (train->kin) options.train_device = train->device;
    options.prior = flags.prior;
  }
  std::fprintf(stderr, "vktune tune: %zu problems (%s) on [%zu] %s, %s strategy, %s cache, db %s\n",
              options.problems.size(), shapes.c_str(), index, devices[index].name.c_str(),
              flags.strategy.c_str(), flags.cache.c_str(), flags.db.c_str());
  options.stop = &stop_requested;
  tuner::TuneResult result;
  try {
    const StopOnSignals signals;
    result = run_session(instance, index, store, std::move(options), flags.plain);
  } catch (const tuner::TuneInterrupted& e) {
    throw ExitStatus(128 + stop_signal,
                     std::string(e.what()) + " in " + flags.db + "; continue it with the same " +
                         (flags.fill ? "command, --resume in place of --fill" : "command and --resume"));
  }
  print_results(flags, store, result);
}

}  // namespace

void apply_ops(const std::optional<std::string>& flag, tuner::ShapeOptions& options) {
  if (!flag) return;
  options.ops = parse_ops(*flag);
  options.ops_chosen = true;
}

std::vector<kernels::Op> parse_ops(const std::string& text) {
  std::vector<kernels::Op> ops;
  for (const std::string& name : split_commas(text)) {
    const auto op = kernels::parse_op(name);
    if (!op) {
      throw CLI::ValidationError("--ops",
                                 "unknown op \"" + name + "\" (" + kernels::op_names_text() + ")");
    }
    ops.push_back(*op);
  }
  return ops;
}

tuner::TuneResult run_session(const vk::Instance& instance, size_t device_index, db::Store& store,
                              tuner::TuneOptions options, bool plain) {
  tuner::Progress progress(stderr, plain);
  tuner::Session session(instance, device_index, store, std::move(options), progress);
  const tuner::TuneResult result = session.run();
  size_t legal = 0, resumed = 0, failed = 0, rechecked = 0, recovered = 0;
  for (const auto& p : result.problems) {
    legal += p.legal;
    resumed += p.resumed;
    failed += p.failed;
    rechecked += p.rechecked;
    recovered += p.recovered;
  }
  std::fprintf(stderr,
               "\nrun %lld: %zu results stored in %s (%zu legal variants, %zu resumed, %zu not ok, "
               "%zu first samples taken again, %zu of them near the best the second time)\n"
               "where the time went: %s\n\n",
               static_cast<long long>(result.run_id), result.stored,
               tuner::format_seconds(result.seconds).c_str(), legal, resumed, failed, rechecked,
               recovered,
               result.profile
                   .brief(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(result.seconds)))
                   .c_str());
  if (const std::string note = tuner::budget_cut_note(result); !note.empty()) {
    std::fprintf(stderr, "%s\n\n", note.c_str());
  }
  return result;
}

void add_tune_command(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  auto* cmd = app.add_subcommand("tune", "sweep every legal variant on a device and store the results");
  auto* device = add_device_option(*cmd, flags->device);
  cmd->add_option("--shapes", flags->shapes,
                  "preset (llama3.2-1b, llama3-8b, smoke) or JSON shapes file "
                  "(default: smoke on a CPU device, llama3.2-1b on a GPU)");
  cmd->add_option("--model", flags->model,
                  "tune the linears and norm of a model: its Hugging Face config.json or GGUF "
                  "file (only the header is read); docs/shapes.md")
      ->excludes("--shapes");
  cmd->add_option("--m", flags->m, "M (tokens) list, e.g. 1,16,128 (default: the preset's)");
  cmd->add_option("--gs", flags->gs, "group-size list, e.g. 32,128 (default: the preset's)");
  cmd->add_option("--ops", flags->ops,
                  "ops to tune (" + kernels::op_names_text() +
                      "; default: q4gsw,rms_norm; a shapes file's entries of other ops are an "
                      "error without --ops)");
  cmd->add_option("--context", flags->context,
                  "context lengths L of the ops whose N is one (sdpa), e.g. 512,2048,8192 "
                  "(default: 128,512,2048,8192)");
  cmd->add_option("--dtype", flags->dtypes,
                  "activation dtypes, each shape tuned in each: f32, f16 or f32,f16 (f16 needs "
                  "storageBuffer16BitAccess; every float tensor of the op in fp16)")
      ->capture_default_str();
  cmd->add_option("--families", flags->families,
                  "only these families, e.g. q4gsw_coopmat,q4gsw_coopmat_splitk (default: all)");
  cmd->add_option("--strategy", flags->strategy,
                  "exhaustive, halving or model (a cost model learnt from the database ranks the "
                  "variants; docs/cost-model.md)")
      ->check(CLI::IsMember({"exhaustive", "halving", "model"}))
      ->capture_default_str();
  cmd->add_option("--train-db", flags->train_db,
                  "with --strategy model or --prior: learn from this database (.db or exported "
                  "JSON) too, or from the largest in this folder recorded on the device, else on "
                  "another device of its vendor and type (e.g. db/tuned)")
      ->check(CLI::ExistingPath);
  cmd->add_option("--prior", flags->prior,
                  "with --train-db (halving or exhaustive): measure only the variants within this "
                  "fraction of a problem's best there (0.05: 5%), the baselines, its winners and "
                  "the families and knob values it never measured; coverage counts the rest "
                  "unmeasured (docs/tuning-loop.md)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--budget", flags->budget,
                  "wall-time budget of the whole run, seconds (0, none or inf: no limit)");
  cmd->add_option("--variant-budget", flags->variant_budget_s,
                  "wall-time budget of one variant's samples, seconds")
      ->check(number_check(false))
      ->capture_default_str();
  cmd->add_option("--db", flags->db, "SQLite database to write")->capture_default_str();
  cmd->add_option("--cache", flags->cache, "cold (rotate weight copies past the LLC) or hot")
      ->check(CLI::IsMember({"cold", "hot"}))
      ->capture_default_str();
  auto* resume =
      cmd->add_flag("--resume", flags->resume, "continue the latest unfinished run on this device");
  cmd->add_flag("--fill", flags->fill,
                "a new run measuring only the variants no earlier run measured on this device "
                "(finishes budget-cut problems)")
      ->excludes(resume);
  auto* shard = cmd->add_option("--shard", flags->shard,
                  "tune a share of the problems: I/N (1 <= I <= N), auto (a Slurm job array's "
                  "task) or auto/N (a Kubernetes Indexed Job's index, of N); each shard writes its "
                  "own --db, `vktune merge` joins them (docs/scale.md)");
  cmd->add_option("--devices", flags->devices,
                  "tune on several devices at once, one worker process each, into one --db: all, "
                  "or indices, e.g. 0,1; devices of one kind share the problems (docs/scale.md)")
      ->excludes(device)
      ->excludes(shard);
  cmd->add_flag("--worker", flags->worker)->group("");  // a worker of --devices (run_on_devices)
  cmd->add_option("--seed", flags->seed, "seed of the random problem data")
      ->check(integer_check<uint64_t>())
      ->capture_default_str();
  cmd->add_flag("--plain", flags->plain, "plain progress lines even on a terminal");
  cmd->add_flag("--json", flags->json,
                "print the results as report --format summary-json does, not as a table");
  cmd->add_flag("--profile", flags->profile,
                "print where the run's wall time went, stage by stage (compile, gate, timing...)");
  cmd->callback([flags] { run_tune(*flags); });
}

}  // namespace vktune::cli
