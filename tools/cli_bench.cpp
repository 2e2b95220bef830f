// `vktune bench --db TUNED.db`: the tuned winners against naive and fixed routing, re-timed
// side by side in one run on this device.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "db/atomic_write.h"
#include "db/ops/db_tools.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/pipeline_cache_file.h"
#include "tools/bench.h"
#include "tools/cli.h"
#include "tools/report/report.h"
#include "tools/report/summary.h"
#include "tools/report/tables.h"
#include "tuner/shape_sets.h"

namespace vktune::cli {
namespace {

struct BenchFlags {
  DeviceOptions device;
  std::string db, save = ":memory:", markdown, cache = "cold";
  // Optional: only these of the database's problems.
  std::string shapes, m, gs, context, dtypes = "f32";
  std::optional<std::string> ops;  // absent: the default ops (tuner::ShapeOptions)
  double variant_budget_s = 0.5;
  bool plain = false, json = false;
};

void run_bench(const BenchFlags& flags) {
  // The bench's own measurements never join the database it re-times, and its table never
  // replaces a file it reads.
  require_file_inputs({flags.db, flags.shapes});
  refuse_to_overwrite({flags.db, flags.shapes}, flags.save);
  refuse_to_overwrite({flags.db, flags.shapes, flags.save}, flags.markdown);
  const vk::Instance instance = create_instance();
  const auto devices = instance.devices();
  const size_t index = vk::select_device(devices, vk::device_request(flags.device.device));
  const db::Store tuned = db::ops::open_for_reading(flags.db);
  BenchPlan plan = plan_bench(tuned, devices[index]);
  if (!flags.shapes.empty()) {
    tuner::ShapeOptions shape_options;
    if (!flags.m.empty()) shape_options.m = tuner::parse_list(flags.m);
    if (!flags.gs.empty()) shape_options.group_sizes = tuner::parse_list(flags.gs);
    if (!flags.context.empty()) shape_options.contexts = tuner::parse_list(flags.context);
    apply_ops(flags.ops, shape_options);
    shape_options.dtypes = tuner::parse_dtypes(flags.dtypes);
    keep_only(plan, tuner::load_shapes(flags.shapes, shape_options));
  }

  tuner::TuneOptions options;
  options.problems = plan.problems;
  options.strategy = tuner::Strategy::exhaustive;
  options.cache = flags.cache == "hot" ? tuner::CacheMode::hot : tuner::CacheMode::cold;
  options.timing.budget = std::chrono::duration<double>(flags.variant_budget_s);
  // Every measured variant is re-timed interleaved with the others.
  for (const auto& list : plan.keys) options.finalists = std::max(options.finalists, list.size());
  options.store_spirv = false;
  options.spirv_cache = SpirvDiskCache::default_dir();
  options.pipeline_cache = vk::PipelineCacheFile::default_dir();
  auto keys = std::make_shared<std::vector<std::set<std::string>>>();
  for (const auto& list : plan.keys) keys->emplace_back(list.begin(), list.end());
  options.variant_filter = [problems = plan.problems, keys](const kernels::Problem& p,
                                                            const std::string& key) {
    for (size_t i = 0; i < problems.size(); ++i) {
      if (problems[i] == p) return keys->at(i).count(key) > 0;
    }
    return false;
  };

  db::Store store = flags.save == ":memory:" ? db::Store::open_memory() : db::Store::open(flags.save);
  std::fprintf(stderr, "vktune bench: %zu problems of %s on [%zu] %s, %s cache\n", plan.problems.size(),
              flags.db.c_str(), index, devices[index].name.c_str(), flags.cache.c_str());
  const tuner::TuneResult result = run_session(instance, index, store, std::move(options), flags.plain);
  const std::vector<BenchCheck> checks = check_bench(plan, store);
  if (flags.json) {
    std::fputs(checks_json(checks).c_str(), stdout);
  } else {
    std::printf("stored winners re-timed, against their neighbours' winners:\n%s",
                render_checks(checks).c_str());
  }
  if (!flags.markdown.empty()) {
    report::SummaryOptions summary_options;
    summary_options.device = std::to_string(result.device_id);
    db::write_output(flags.markdown,
                     report::render_markdown(report::summarize(store, summary_options)));
    std::fprintf(stderr, "markdown: %s\n", flags.markdown.c_str());
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto flags = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand(
      "bench", "re-time a database's winners beside naive and fixed routing, in one run");
  add_device_option(*cmd, flags->device);
  cmd->add_option("--db", flags->db, "tuned database (.db or exported .json) whose winners are benchmarked")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--shapes", flags->shapes,
                  "bench only the database's problems in this preset or shapes file");
  cmd->add_option("--m", flags->m, "with --shapes: M list");
  cmd->add_option("--gs", flags->gs, "with --shapes: group-size list");
  cmd->add_option("--ops", flags->ops,
                  "with --shapes: ops, e.g. sdpa or q4gsw,rms_norm,sdpa (default: q4gsw,rms_norm)");
  cmd->add_option("--context", flags->context, "with --shapes: sdpa context lengths L");
  cmd->add_option("--dtype", flags->dtypes, "with --shapes: dtype list, e.g. f16 or f32,f16")
      ->capture_default_str();
  cmd->add_option("--save", flags->save, "database for the bench's own measurements (default: in memory, kept nowhere); never the --db")
      ->capture_default_str();
  cmd->add_option("--markdown", flags->markdown, "also write the table as Markdown to this file");
  cmd->add_option("--cache", flags->cache, "cold or hot")
      ->check(CLI::IsMember({"cold", "hot"}))
      ->capture_default_str();
  cmd->add_option("--variant-budget", flags->variant_budget_s, "seconds of samples per variant")
      ->check(number_check(false))
      ->capture_default_str();
  cmd->add_flag("--plain", flags->plain, "plain progress lines even on a terminal");
  cmd->add_flag("--json", flags->json, "print the checks as JSON (checks_json), not as a table");
  cmd->callback([flags] { run_bench(*flags); });
}

}  // namespace vktune::cli
