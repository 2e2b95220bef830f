// `vktune bench --db TUNED.db`: the tuned winners against naive and fixed routing, re-timed
// side by side in one run on this device.
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>

#include "kernels/vk/device_select.h"
#include "tools/bench.h"
#include "tools/cli.h"
#include "tools/report/summary.h"
#include "tools/report/tables.h"

namespace vktune::cli {
namespace {

struct BenchFlags {
  DeviceOptions device;
  std::string db, save = ":memory:", markdown, cache = "cold";
  double variant_budget_s = 0.5;
  bool plain = false;
};

void run_bench(const BenchFlags& flags) {
  const vk::Instance instance = vk::Instance::create();
  const auto devices = instance.devices();
  const size_t index = vk::select_device(devices, vk::device_request(flags.device.device));
  const db::Store tuned = db::Store::open(flags.db, db::OpenMode::read_only);
  const BenchPlan plan = plan_bench(tuned, devices[index]);

  tuner::TuneOptions options;
  options.problems = plan.problems;
  options.strategy = tuner::Strategy::exhaustive;
  options.cache = flags.cache == "hot" ? tuner::CacheMode::hot : tuner::CacheMode::cold;
  options.timing.budget = std::chrono::duration<double>(flags.variant_budget_s);
  options.finalists = 3;  // every measured variant is re-timed interleaved with the others
  options.store_spirv = false;
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
  std::printf("vktune bench: %zu problems of %s on [%zu] %s, %s cache\n", plan.problems.size(),
              flags.db.c_str(), index, devices[index].name.c_str(), flags.cache.c_str());
  const tuner::TuneResult result = run_session(instance, index, store, std::move(options), flags.plain);
  if (!flags.markdown.empty()) {
    report::SummaryOptions summary_options;
    summary_options.device = std::to_string(result.device_id);
    std::ofstream(flags.markdown) << report::render_markdown(report::summarize(store, summary_options));
    std::printf("\nmarkdown: %s\n", flags.markdown.c_str());
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto flags = std::make_shared<BenchFlags>();
  auto* cmd = app.add_subcommand(
      "bench", "re-time a database's winners beside naive and fixed routing, in one run");
  add_device_option(*cmd, flags->device);
  cmd->add_option("--db", flags->db, "tuned database whose winners are benchmarked")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--save", flags->save, "database for the bench's own measurements")
      ->capture_default_str();
  cmd->add_option("--markdown", flags->markdown, "also write the table as Markdown to this file");
  cmd->add_option("--cache", flags->cache, "cold or hot")
      ->check(CLI::IsMember({"cold", "hot"}))
      ->capture_default_str();
  cmd->add_option("--variant-budget", flags->variant_budget_s, "seconds of samples per variant")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--plain", flags->plain, "plain progress lines even on a terminal");
  cmd->callback([flags] { run_bench(*flags); });
}

}  // namespace vktune::cli
