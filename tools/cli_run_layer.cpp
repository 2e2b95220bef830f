// `vktune run-layer`: builds a Llama decoder layer (attention over a KV cache included) with the
// runtime's choices (a tuned database beside the built-in routing, or the built-in routing
// alone), checks it against the fp64 reference and prints per node the variant, how it was
// found and its time; with --decode-steps, runs a decode loop through the one built graph.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/problem_limits.h"
#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "runtime/snapshot.h"
#include "tools/cli.h"
#include "tools/engine/decode_loop.h"
#include "tools/engine/elementwise.h"
#include "tools/engine/graph.h"
#include "tools/engine/layer_reference.h"
#include "tuner/clock_probe.h"
#include "tuner/dispatch_timer.h"
#include "tuner/shape_sets.h"

namespace vktune::cli {
namespace {

struct RunLayerOptions {
  std::string preset = "smoke";
  std::string model;  // a config.json instead of the preset
  uint32_t m = 1;
  uint32_t context = 0;  // L; M when not given
  uint32_t decode_steps = 0;
  std::string dtype = "f32";
  std::string db;
  bool fixed = false;
  uint32_t iterations = 20;
  uint64_t seed = 1;
  uint32_t check_rows = 0;
  DeviceOptions device;
};

// The GPU's clock around a mode's timing (docs/measuring.md "Clocks"): a layer timed on a GPU
// that idled runs on one of the governor's low plateaus, so the timing starts once the clock
// probe reads the peak, as the tuner's does.
struct ClockReading {
  double warmup_ns = 0;  // GPU time of load that brought the clock up
  bool capped = false;   // the warm-up's whole allowance spent short of the peak
  double after = 0;      // the probe's time after the timed submits, over its time at the peak
};

struct ModeResult {
  std::string label;
  std::vector<engine::Route> routes;
  engine::GraphTimes times;
  std::optional<ClockReading> clock;  // GPUs
  // Per node with a time alone (exact routes): what it adds to the layer run with no node
  // timestamps (Graph::marginal), and the layer's total so run.
  std::vector<std::optional<double>> adds_ns;
  std::optional<double> bare_total_ns;
  std::vector<engine::DecodeStep> steps;  // --decode-steps
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

double median_ns(const std::vector<engine::DecodeStep>& steps) {
  std::vector<double> ns;
  for (const engine::DecodeStep& s : steps) ns.push_back(s.ns);
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

void print_mode(const engine::Layer& layer, const ModeResult& r, size_t checked_rows) {
  std::printf("\n%s\n", r.label.c_str());
  // "time": from the end of the node before to its own end, timestamps at every node boundary;
  // "adds": what the node adds to the layer run without them; "alone": the database's time for
  // the variant on this very problem (exact routes), which "adds" compares to.
  std::printf("  %-14s %-32s %-60s %10s %10s %10s %6s  %s\n", "node", "problem", "variant",
              "time", "adds", "alone", "ratio", "found");
  for (size_t i = 0; i < layer.nodes.size(); ++i) {
    const engine::Node& node = layer.nodes[i];
    const engine::Route& route = r.routes[i];
    const std::string variant = route.routed()
                                    ? route.key
                                    : engine::elementwise_shader(layer, node, UINT32_MAX).key;
    const double ns = r.times.node_ns[i];
    std::string adds = "-", alone = "-", ratio = "-";
    if (r.adds_ns[i] && route.tuned_ns && *route.tuned_ns > 0) {
      char text[16];
      std::snprintf(text, sizeof text, "%.2fx", *r.adds_ns[i] / *route.tuned_ns);
      adds = duration(*r.adds_ns[i]);
      alone = duration(*route.tuned_ns);
      ratio = text;
    }
    std::printf("  %-14s %-32s %-60s %10s %10s %10s %6s  %s\n", node.name.c_str(),
                engine::describe(node).c_str(), variant.c_str(), duration(ns).c_str(),
                adds.c_str(), alone.c_str(), ratio.c_str(),
                route.routed() ? route.how().c_str() : "-");
    if (!route.rejected.empty()) std::printf("  %14s ! %s\n", "", route.rejected.c_str());
  }
  std::printf("  %-14s %-32s %-60s %10s  (median of %u executions)\n", "layer total", "", "",
              duration(r.times.total_ns).c_str(), r.times.iterations);
  if (r.bare_total_ns) {
    std::printf("  %-14s %-32s %-60s %10s  (no node timestamps)\n", "layer total", "", "",
                duration(*r.bare_total_ns).c_str());
  }
  if (r.clock) {
    std::printf("  clock: %s after %.0f ms of load; after the timed submits the probe reads %.2fx "
                "its time at the peak\n",
                r.clock->capped ? "short of the peak (capped)" : "at the peak",
                r.clock->warmup_ns / 1e6, r.clock->after);
  }
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
  if (!tuned.steps.empty()) row("decode step", median_ns(tuned.steps), median_ns(fixed.steps));
}

// One line per decode step and the median: tokens/s of one layer and of the model's layers
// (the layers alone: no embedding, lm_head or sampling).
void print_decode(const models::LayerShape& shape, const std::vector<engine::DecodeStep>& steps) {
  auto line = [&](const std::string& what, double ns) {
    std::printf("  %-16s %10s  %10.0f tok/s per layer", what.c_str(), duration(ns).c_str(),
                1e9 / ns);
    if (shape.layers > 0) {
      std::printf("  %8.1f tok/s for %u layers", 1e9 / (ns * shape.layers), shape.layers);
    }
    std::printf("\n");
  };
  std::printf("  decode: one graph, the context pushed each step\n");
  for (size_t i = 0; i < steps.size(); ++i) {
    line("step " + std::to_string(i + 1) + " L=" + std::to_string(steps[i].context), steps[i].ns);
  }
  line("median step", median_ns(steps));
  // Re-asked every step: a context nearer another tuned L bucket gets that bucket's winner.
  std::printf("  attention route: %s\n",
              engine::describe(engine::attention_spans(steps)).c_str());
}

models::LayerShape layer_shape(const RunLayerOptions& o) {
  if (o.model.empty()) return models::preset_layer(o.preset);
  std::ifstream file(o.model);
  if (!file) throw std::runtime_error("cannot read " + o.model);
  std::stringstream text;
  text << file.rdbuf();
  return models::layer_shape(models::parse_model_config(text.str(), o.model));
}

// The checked rows: --check-rows spread evenly, else as many as the reference's budget allows.
std::vector<uint32_t> checked_rows(const RunLayerOptions& o, const engine::Layer& layer) {
  if (o.check_rows == 0) return engine::rows_to_check(layer);
  std::vector<uint32_t> rows;
  const uint32_t count = std::min(o.check_rows, layer.m);
  for (uint32_t i = 0; i < count; ++i) {
    rows.push_back(count == 1 ? 0 : uint32_t(uint64_t{layer.m - 1} * i / (count - 1)));
  }
  return rows;
}

// What each node with a time alone adds to the layer run without node timestamps, and that
// layer's total: `r.routes` (the last step's) say which nodes.
void measure_marginals(engine::Graph& graph, uint32_t iterations, ModeResult& r) {
  for (size_t i = 0; i < r.routes.size(); ++i) {
    std::optional<double> adds;
    if (r.routes[i].tuned_ns) {
      const engine::Graph::Marginal m = graph.marginal(i, iterations);
      adds = m.adds_ns();
      r.bare_total_ns = m.total_ns;
    }
    r.adds_ns.push_back(adds);
  }
}

// Throws unless every routed node's buffers fit `device` (kernels::fit_error): checked before
// the host data is drawn, so an --m, --context or --decode-steps past the device's limits is an
// error naming the node, the buffer, its size and the limit, not an allocation failure.
void require_fit(const engine::Layer& layer, const vk::DeviceInfo& device) {
  for (const engine::Node& node : layer.nodes) {
    if (!node.routed()) continue;
    const std::string why =
        kernels::fit_error(node.problem, device, "give a smaller --m, --context or --decode-steps");
    if (!why.empty()) throw std::runtime_error(node.name + ": " + why);
  }
}

void run_layer(const RunLayerOptions& o) {
  const models::LayerShape shape = layer_shape(o);
  const std::optional<kernels::DType> dtype = kernels::parse_dtype(o.dtype);
  if (!dtype) throw CLI::ValidationError("--dtype", "unknown dtype " + o.dtype + " (f32, f16)");
  const bool decode = o.decode_steps > 0;
  if (decode && o.m != 1) {
    throw CLI::ValidationError("--decode-steps", "decode steps are M=1; drop --m " +
                                                     std::to_string(o.m));
  }
  const uint32_t context = o.context;
  // A decode loop's cache holds its last step's context; the first step attends `context`.
  const uint64_t wanted = decode && context > 0 ? uint64_t{context} + o.decode_steps - 1 : context;
  if (wanted > std::numeric_limits<uint32_t>::max()) {
    throw CLI::ValidationError("--decode-steps", "--context " + std::to_string(context) + " + " +
                                                     std::to_string(o.decode_steps) +
                                                     " steps is a cache of " + std::to_string(wanted) +
                                                     " positions, past 2^32 - 1; take fewer steps");
  }
  const auto capacity = static_cast<uint32_t>(wanted);
  const engine::Layer layer = engine::make_layer(shape, o.m, capacity, *dtype);
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
  require_fit(layer, device.info());
  // Declared after the device, so destroyed before it.
  ShaderCompiler compiler;
  kernels::PipelineCache pipelines;

  std::printf(
      "decoder layer of %s: hidden %u, %u heads / %u kv heads of %u, ffn %u, gs %u, %u layers; "
      "M = %u (tokens), context L = %u, %s\n",
      o.model.empty() ? o.preset.c_str() : o.model.c_str(), shape.hidden, shape.heads,
      shape.kv_heads, shape.head_dim, shape.ffn, shape.group_size, shape.layers, o.m, capacity,
      o.dtype.c_str());
  if (decode) {
    std::printf("decode: %u steps, L = %u .. %u; attention re-asked at each step's L\n",
                o.decode_steps, context, capacity);
  }
  std::printf("device: %s\n", device.info().name.c_str());

  const engine::LayerData data = engine::make_layer_data(layer, o.seed);
  const std::vector<uint32_t> rows = checked_rows(o, layer);

  // A CPU device has no clock to bring up.
  std::optional<tuner::ClockProbe> clock;
  if (device.info().type != vk::DeviceType::cpu) clock.emplace(device, compiler);

  std::vector<ModeResult> results;
  auto run_mode = [&](std::string label, std::shared_ptr<const runtime::Snapshot> snap) {
    const engine::Router router(std::move(snap), device.info());
    engine::Graph graph = engine::Graph::build(device, compiler, pipelines, layer, data, router);
    ModeResult r;
    r.label = std::move(label);
    if (clock) {
      const double allowance = tuner::TimingOptions{}.max_warmup_ns;
      r.clock.emplace();
      r.clock->warmup_ns = clock->bring_up(allowance);
      r.clock->capped = r.clock->warmup_ns >= allowance;
    }
    if (decode) r.steps = engine::run_decode(graph, context, o.decode_steps);
    r.routes = graph.routes();  // decode: the last step's
    // Decode: the per-node times and the check are the last step's, on the cache it left.
    r.times = graph.time(o.iterations);
    measure_marginals(graph, o.iterations, r);
    if (clock) r.clock->after = clock->slowdown();
    const engine::LayerData checked = decode ? engine::as_left(graph, data) : data;
    r.check = engine::check_layer(graph, checked, engine::reference_layer(layer, checked, rows));
    print_mode(layer, r, rows.size());
    if (decode) print_decode(shape, r.steps);
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
      "build a Llama decoder layer (attention over a KV cache included) with the runtime's "
      "choices, check it against an fp64 reference and time it: tuned (--db) beside fixed, or "
      "fixed alone; --decode-steps runs a decode loop through one built graph");
  auto o = std::make_shared<RunLayerOptions>();
  auto* preset =
      cmd->add_option("--preset", o->preset, "model preset: llama3.2-1b, llama3-8b or smoke")
          ->capture_default_str();
  cmd->add_option("--model", o->model,
                  "a model's config.json instead of --preset (its heads, sizes, rope_theta, "
                  "num_hidden_layers)")
      ->excludes(preset);
  cmd->add_option("--m", o->m, "tokens (rows of every activation), e.g. 1, 128, 512")
      ->capture_default_str()
      ->check(number_check(false));
  auto* context = cmd->add_option("--context", o->context,
                  "context length L: the cache holds L - M earlier positions and the M new tokens "
                  "are appended at L - M .. L - 1 (default: M; with --decode-steps, the first "
                  "step's L)")
      ->check(number_check(true));
  cmd->add_option("--decode-steps", o->decode_steps,
                  "run N decode steps (M = 1) through one built graph, the cache growing by one "
                  "position a step; prints each step's time and tokens/s")
      ->check(integer_check<uint32_t>());
  cmd->add_option("--dtype", o->dtype,
                  "f32 or f16: every activation, the scales and the KV cache in this type, "
                  "attention included (f16 needs storageBuffer16BitAccess)")
      ->capture_default_str();
  auto* db = cmd->add_option("--db", o->db,
                             "tuned kernel database (.db or exported JSON): run it beside the "
                             "built-in routing");
  auto* fixed = cmd->add_flag("--fixed", o->fixed, "built-in routing only (no database)");
  db->excludes(fixed);
  cmd->add_option("--iterations", o->iterations, "timed submits of the whole layer (median)")
      ->capture_default_str()
      ->check(number_check(false));
  cmd->add_option("--seed", o->seed, "seed of the random weights and input")
      ->check(integer_check<uint64_t>())
      ->capture_default_str();
  cmd->add_option("--check-rows", o->check_rows,
                  "rows checked against the reference (default: all that fit a ~4 G "
                  "multiply-add budget, spread evenly)");
  add_device_option(*cmd, o->device);
  cmd->callback([o, context] {
    if (o->db.empty() && !o->fixed) {
      throw CLI::ValidationError("run-layer", "give --db FILE (tuned beside fixed) or --fixed");
    }
    require_file_inputs({o->model, o->db});
    if (context->count() == 0) o->context = o->m;
    run_layer(*o);
  });
}

}  // namespace vktune::cli
