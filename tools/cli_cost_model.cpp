// `vktune cost-model`: the cost model cross-validated on a database whose problems were swept
// (tuner/cost_model_eval.h), the offline evidence for the model strategy's budget.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "tools/cli.h"
#include "tools/report/db_tools.h"
#include "tuner/cost_model_eval.h"

namespace vktune::cli {

void add_cost_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "cost-model", "cross-validate the cost model: rank each hidden problem's variants");
  struct Options {
    std::string db, device;
    size_t folds = 10;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--db", o->db, "kernel database (.db) or exported JSON")->required();
  cmd->add_option("--device", o->device, "device name (needed when the database has several)");
  cmd->add_option("--folds", o->folds, "problem-disjoint folds; 0: leave one problem out")
      ->capture_default_str();
  cmd->callback([o] {
    const db::Store store = report::read_store(o->db);
    const std::vector<db::DeviceRecord> devices = store.devices();
    const db::DeviceRecord* device = nullptr;
    for (const db::DeviceRecord& d : devices) {
      if (d.name == o->device || (o->device.empty() && devices.size() == 1)) device = &d;
    }
    if (device == nullptr) {
      std::string names;
      for (const db::DeviceRecord& d : devices) names += "\n  " + d.name;
      throw ExitStatus(2, o->db + ": name one device with --device; it holds:" + names);
    }
    const auto start = std::chrono::steady_clock::now();
    const std::vector<tuner::Observation> observations =
        tuner::read_observations(store, device->name);
    const std::vector<tuner::HeldOut> results =
        tuner::cross_validate(observations, tuner::feature_device(device->subgroup_size), o->folds);
    if (results.empty()) {
      throw ExitStatus(1, o->db + ": too few swept problems for a model (it needs " +
                              std::to_string(tuner::kMinTrainingProblems) +
                              " of an op besides the one it hides)");
    }
    const std::string folds =
        o->folds == 0 ? "leave one problem out" : std::to_string(o->folds) + " folds";
    std::printf("%s, %zu measurements, %s\n%s", device->name.c_str(), observations.size(),
                folds.c_str(), tuner::render_cross_validation(results).c_str());
    std::printf("(%.1f s)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
}

}  // namespace vktune::cli
