// `vktune evaluate`: how good the runtime's answers for untuned shapes are, measured by hiding
// each tuned problem in turn (db/ops/evaluate.h).
#include <cstdio>
#include <memory>
#include <string>

#include "db/ops/db_tools.h"
#include "db/ops/evaluate.h"
#include "tools/cli.h"

namespace vktune::cli {

void add_evaluate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "evaluate", "leave-one-problem-out regret of the runtime's picks for untuned shapes");
  struct Options {
    std::string db;
    size_t worst = 10;
    bool json = false;
    bool winners_only = false;
    bool leave_shape_out = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--db", o->db, "kernel database (.db) or exported JSON (not winners-only)")
      ->required();
  cmd->add_option("--worst", o->worst, "worst cases to list")->capture_default_str();
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->add_flag("--winners-only", o->winners_only,
                "build the runtime from the winners alone, as a document without ranked rows "
                "makes it (it copies the nearest winner)");
  cmd->add_flag("--leave-shape-out", o->leave_shape_out,
                "hide each problem's shape at every group size with it (else the same shape tuned "
                "at another group size answers it)");
  cmd->callback([o] {
    require_file_inputs({o->db});
    const db::Store store = db::ops::open_for_reading(o->db);
    const db::ops::Evaluation e = db::ops::evaluate_leave_one_out(
        store, o->winners_only ? db::ops::RuntimeInput::winners : db::ops::RuntimeInput::ranked,
        o->leave_shape_out ? db::ops::Hide::shape : db::ops::Hide::problem);
    const std::string text = o->json ? db::ops::render_evaluation_json(e, o->worst)
                                     : db::ops::render_evaluation_text(e, o->worst);
    std::fputs(text.c_str(), stdout);
  });
}

}  // namespace vktune::cli
