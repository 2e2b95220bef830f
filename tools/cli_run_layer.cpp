// `vktune run-layer`: builds the weight-bound part of a Llama decoder layer with the runtime's
// choices (a tuned database beside the built-in routing, or the built-in routing alone), checks
// it against the fp64 reference and prints per node the variant, how it was found and its time.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "runtime/snapshot.h"
#include "tools/cli.h"
#include "tools/engine/graph.h"
#include "tools/engine/layer_reference.h"
#include "tuner/shape_sets.h"

namespace vktune::cli {
namespace {

struct RunLayerOptions {
  std::string preset = "smoke";
  uint32_t m = 1;
  std::string dtype = "f32";
  std::string db;
  bool fixed = false;
  uint32_t iterations = 20;
  uint64_t seed = 1;
  uint32_t check_rows = 0;
  DeviceOptions device;
};

struct ModeResult {
  std::string label;
  std::vector<engine::Route> routes;
  engine::GraphTimes times;
  engine::LayerCheck check;
};

// "812.4 us" below 10 ms, "12.41 ms" above.
std::string duration(double ns) {
  char text[32];
  if (ns < 1e7) {
    std::snprintf(text, sizeof text, "%.1f us", ns / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.2f ms", ns / 1e6);
  }
  return text;
}

void print_mode(const engine::Layer& layer, const ModeResult& r, size_t checked_rows) {
  std::printf("\n%s\n", r.label.c_str());
  std::printf("  %-14s %-32s %-60s %10s  %s\n", "node", "problem", "variant", "time", "found");
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const engine::Node& node = layer.nodes[i];
    const engine::Route& route = r.routes[i];
    const std::string variant =
        route.family != nullptr ? route.key : std::string(engine::elementwise_shader(node.kind));
    std::printf("  %-14s %-32s %-60s %10s  %s\n", node.name.c_str(), engine::describe(node).c_str(),
                variant.c_str(), duration(r.times.node_ns[i]).c_str(),
                route.family != nullptr ? route.how().c_str() : "-");
    if (!route.rejected.empty()) std::printf("  %14s ! %s\n", "", route.rejected.c_str());
  }
  std::printf("  %-14s %-32s %-60s %10s  (median of %u submits)\n", "layer total", "", "",
              duration(r.times.total_ns).c_str(), r.times.iterations);
  const engine::RouteCounts counts = engine::count_routes(r.routes);
  std::printf("  routing: %zu exact, %zu nearest, %zu builtin, %zu fallback\n", counts.exact,
              counts.nearest, counts.builtin, counts.fallback);
  const engine::LayerCheck& check = r.check;
  const auto worst = std::max_element(
      check.nodes.begin(), check.nodes.end(),
      [](const auto& a, const auto& b) { return a.result.max_error < b.result.max_error; });
  std::printf(
      "  check (%zu of %u rows, fp64, tolerance %.2g x bound): nodes on their GPU inputs: "
      "worst %.2g (%s)",
      checked_rows, layer.m, check.tolerance, worst->result.max_error, worst->tensor.c_str());
  for (const engine::TensorCheck& t : check.nodes) {
    if (!t.result.ok) std::printf(", %s FAILS", t.tensor.c_str());
  }
  std::printf("; layer outputs:");
  for (const engine::TensorCheck& t : check.outputs) {
    std::printf(" %s %.2g%s", t.tensor.c_str(), t.result.max_error, t.result.ok ? "" : " FAILS");
  }
  std::printf(" -> %s\n", check.ok ? "ok" : "FAIL");
}

void print_comparison(const engine::Layer& layer, const ModeResult& tuned,
                      const ModeResult& fixed) {
  std::printf("\ntuned vs fixed\n  %-14s %10s %10s %12s\n", "node", "tuned", "fixed",
              "fixed/tuned");
  auto row = [](const std::string& name, double t, double f) {
    std::printf("  %-14s %10s %10s %11.2fx\n", name.c_str(), duration(t).c_str(), duration(f).c_str(),
                t > 0 ? f / t : 0.0);
  };
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    row(layer.nodes[i].name, tuned.times.node_ns[i], fixed.times.node_ns[i]);
  }
  row("layer total", tuned.times.total_ns, fixed.times.total_ns);
}

void run_layer(const RunLayerOptions& o) {
  const tuner::LayerShape shape = tuner::preset_layer(o.preset);
  const std::optional<kernels::DType> dtype = kernels::parse_dtype(o.dtype);
  if (!dtype) throw CLI::ValidationError("--dtype", "unknown dtype " + o.dtype + " (f32, f16)");
  const engine::Layer layer = engine::make_layer(shape, o.m, *dtype);
  std::shared_ptr<const runtime::Snapshot> snapshot;
  if (!o.db.empty()) {
    std::string error;
    snapshot = runtime::Snapshot::load(o.db, &error);
    if (!snapshot) throw std::runtime_error(error);
  }

  const vk::Instance instance = create_instance();
  const std::vector<vk::DeviceInfo> devices = instance.devices();
  vk::Device device =
      vk::Device::create(instance, vk::select_device(devices, vk::device_request(o.device.device)));
  // Declared after the device, so destroyed before it.
  ShaderCompiler compiler;
  kernels::PipelineCache pipelines;

  std::printf("decoder layer of %s: hidden %u, kv %u, ffn %u, gs %u; M = %u (tokens), %s\n",
              o.preset.c_str(), shape.hidden, shape.kv_width, shape.ffn, shape.group_size, o.m,
              o.dtype.c_str());
  std::printf("device: %s\n", device.info().name.c_str());

  const engine::LayerData data = engine::make_layer_data(layer, o.seed);
  std::vector<uint32_t> rows;
  if (o.check_rows == 0) {
    rows = engine::rows_to_check(layer);
  } else {
    const uint32_t count = std::min(o.check_rows, o.m);
    for (uint32_t i = 0; i < count; ++i) {
      rows.push_back(count == 1 ? 0 : uint32_t(uint64_t{o.m - 1} * i / (count - 1)));
    }
  }
  const engine::LayerReference ref = engine::reference_layer(layer, data, rows);

  std::vector<ModeResult> results;
  auto run_mode = [&](std::string label, std::shared_ptr<const runtime::Snapshot> snap) {
    const engine::Router router(std::move(snap), device.info());
    engine::Graph graph = engine::Graph::build(device, compiler, pipelines, layer, data, router);
    ModeResult r;
    r.label = std::move(label);
    r.routes = graph.routes();
    r.times = graph.time(o.iterations);
    r.check = engine::check_layer(graph, data, ref);
    print_mode(layer, r, ref.rows.size());
    results.push_back(std::move(r));
  };
  if (snapshot) {
    run_mode("tuned: " + o.db + " (" + std::to_string(snapshot->winner_count()) + " winner(s) on " +
                 std::to_string(snapshot->device_count()) + " device(s))",
             snapshot);
  }
  run_mode("fixed: built-in routing", nullptr);
  if (results.size() == 2) print_comparison(layer, results[0], results[1]);

  bool ok = true;
  for (const ModeResult& r : results) ok = ok && r.check.ok;
  std::printf("\n%s\n", ok ? "PASS" : "FAIL: the layer's output differs from the reference");
  std::fflush(stdout);
  if (!ok) throw CLI::RuntimeError(1);
}

}  // namespace

void add_run_layer_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "run-layer",
      "build a Llama decoder layer (weight-bound part) with the runtime's choices, check it "
      "against an fp64 reference and time it: tuned (--db) beside fixed, or fixed alone");
  auto o = std::make_shared<RunLayerOptions>();
  cmd->add_option("--preset", o->preset, "model preset: llama3.2-1b, llama3-8b or smoke")
      ->capture_default_str();
  cmd->add_option("--m", o->m, "tokens (rows of every activation), e.g. 1, 128, 512")
      ->capture_default_str()
      ->check(number_check(false));
  cmd->add_option("--dtype", o->dtype,
                  "f32 or f16: every activation and the scales in this type (f16 needs "
                  "storageBuffer16BitAccess)")
      ->capture_default_str();
  auto* db = cmd->add_option("--db", o->db,
                             "tuned kernel database (.db or exported JSON): run it beside the "
                             "built-in routing");
  auto* fixed = cmd->add_flag("--fixed", o->fixed, "built-in routing only (no database)");
  db->excludes(fixed);
  cmd->add_option("--iterations", o->iterations, "timed submits of the whole layer (median)")
      ->capture_default_str()
      ->check(number_check(false));
  cmd->add_option("--seed", o->seed, "seed of the random weights and input")->capture_default_str();
  cmd->add_option("--check-rows", o->check_rows,
                  "rows checked against the reference (default: all that fit a ~4 G "
                  "multiply-add budget, spread evenly)");
  add_device_option(*cmd, o->device);
  cmd->callback([o] {
    if (o->db.empty() && !o->fixed) {
      throw CLI::ValidationError("run-layer", "give --db FILE (tuned beside fixed) or --fixed");
    }
    run_layer(*o);
  });
}

}  // namespace vktune::cli
