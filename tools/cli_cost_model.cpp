// `vktune cost-model`: the cost model cross-validated on a database whose problems were swept
// (tuner/cost_model_eval.h), the offline evidence for the model strategy's budget; with
// --train-db, trained on another database (another device's) and judged on this one's problems.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "db/device_database.h"
#include "db/ops/db_tools.h"
#include "tools/cli.h"
#include "tuner/cost_model_eval.h"

namespace vktune::cli {

void add_cost_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "cost-model", "cross-validate the cost model: rank each hidden problem's variants");
  struct Options {
    std::string db, device, train_db;
    size_t folds = 10;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--db", o->db, "kernel database (.db) or exported JSON")->required();
  cmd->add_option("--device", o->device, "device name (needed when the database has several)");
  cmd->add_option("--folds", o->folds, "problem-disjoint folds; 0: leave one problem out")
      ->capture_default_str();
  cmd->add_option("--train-db", o->train_db,
                  "train on this database (or a folder's, as tune --train-db picks it) instead, "
                  "and judge every problem of --db");
  cmd->callback([o] {
    require_file_inputs({o->db, o->train_db});
    const db::Store store = db::ops::open_for_reading(o->db);
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
    const vk::DeviceInfo features = tuner::feature_device(device->subgroup_size);
    std::vector<tuner::HeldOut> results;
    std::string how;
    if (o->train_db.empty()) {
      results = tuner::cross_validate(observations, features, o->folds);
      how = o->folds == 0 ? "leave one problem out" : std::to_string(o->folds) + " folds";
    } else {
      const std::optional<db::DeviceDatabase> train = db::database_of_device(
          o->train_db, {device->name, device->vendor_id, device->device_type});
      if (!train) {
        throw ExitStatus(2, o->train_db + ": no database recorded on " + device->name +
                                " or on another device of its vendor and type");
      }
      const std::vector<tuner::Observation> training =
          tuner::read_observations(db::ops::open_for_learning(train->path), train->device);
      results = tuner::judge_transfer(training, observations, features);
      how = "trained on " + std::to_string(training.size()) + " measurements of " + train->device +
            (train->kin ? " (its kin)" : "") + " in " + train->path;
    }
    if (results.empty()) {
      throw ExitStatus(1, (o->train_db.empty() ? o->db : o->train_db) +
                              ": too few swept problems for a model (it needs " +
                              std::to_string(tuner::kMinTrainingProblems) + " of an op" +
                              (o->train_db.empty() ? " besides the one it hides)" : " of --db's)"));
    }
    std::printf("%s, %zu measurements, %s\n%s", device->name.c_str(), observations.size(),
                how.c_str(), tuner::render_cross_validation(results).c_str());
    std::printf("(%.1f s)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
}

}  // namespace vktune::cli
