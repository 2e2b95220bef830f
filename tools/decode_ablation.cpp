// decode_ablation: where an sdpa_decode variant's time goes (any sdpa_decode* family: the scalar
// kernels and the tensor-core one). Times the variant as the tuner times a kernel (hot,
// back-to-back dispatches, a barrier between each, at the peak clock) beside the same shader with
// parts left out (the ABLATE_ defines of sdpa_decode.comp and sdpa_decode_mma.comp): without the
// splits' hand-over, without the arithmetic on the cache, with neither (a step only loads), and
// without the cache's loads (the arithmetic alone). Each time is also given as the cache's bytes
// over it against the tuner's copy bandwidth: what a kernel of this grid and these loads could
// reach with no attention to compute. Above the table, each pipeline's registers a lane (the
// driver's statistics, where it has VK_KHR_pipeline_executable_properties): what bounds the
// subgroups a multiprocessor holds.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/families/reference.h"
#include "kernels/family.h"
#include "kernels/knobs.h"
#include "kernels/op.h"
#include "kernels/problem.h"
#include "kernels/shader_spec.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/device_select.h"
#include "kernels/vk/instance.h"
#include "kernels/vk/pipeline.h"
#include "kernels/vk/pipeline_statistics.h"
#include "kernels/vk/problem_buffers.h"
#include "kernels/vk/shader_compiler.h"
#include "tuner/bandwidth.h"
#include "tuner/clock_probe.h"
#include "tuner/dispatch_timer.h"

namespace vktune {
namespace {

struct Ablation {
  const char* name;
  Defines defines;
};

// In the table's column order: each but the last leaves out more.
const std::vector<Ablation>& ablations() {
  static const std::vector<Ablation> all = {
      {"variant", {}},
      {"no hand-over", {{"ABLATE_HANDOVER", "1"}}},
      {"no arithmetic", {{"ABLATE_ARITHMETIC", "1"}}},
      {"loads only", {{"ABLATE_HANDOVER", "1"}, {"ABLATE_ARITHMETIC", "1"}}},
      {"arithmetic only", {{"ABLATE_LOADS", "1"}}},
  };
  return all;
}

struct Flags {
  std::string device, variant;
  std::vector<uint32_t> lengths;
  uint32_t m = 1, heads = 32, kv_heads = 8, head_dim = 128;
  uint32_t rounds = 2;
};

// The variant's buffers for `p` in binding order: its inputs, an output and a zeroed workspace.
class Bindings {
 public:
  Bindings(vk::Device& device, const kernels::Family& family, const kernels::Knobs& knobs,
           const kernels::Problem& p)
      : inputs_(kernels::ProblemBuffers::create(device, p, kernels::make_random(p, 1),
                                                family.layout(knobs))),
        out_(kernels::padded_buffer(device, kernels::binding_sizes(p, family.layout(knobs)).out)),
        workspace_(kernels::padded_buffer(device, family.workspace_bytes(knobs, p))) {
    device.run([&](vk::CommandBuffer& cb) { cb.fill(workspace_, 0); });
  }

  std::vector<const vk::Buffer*> in_order(const kernels::OpDescriptor& op) const {
    return inputs_->bound(op, 0, &out_, &workspace_);
  }

 private:
  std::shared_ptr<const kernels::ProblemBuffers> inputs_;
  vk::Buffer out_, workspace_;
};

// The problems of `flags`, each checked legal for the variant on `device`.
std::vector<kernels::Problem> problems(const Flags& flags, const kernels::Family& family,
                                       const kernels::Knobs& knobs, const vk::DeviceInfo& device) {
  std::vector<kernels::Problem> all;
  for (const uint32_t length : flags.lengths) {
    kernels::Problem p{family.op(), flags.m, length, flags.head_dim, 0, false};
    p.heads = flags.heads;
    p.kv_heads = flags.kv_heads;
    p.dtype = family.dtype();
    const kernels::Legality legal = family.legality(knobs, p, device);
    if (!legal) throw std::invalid_argument("L " + std::to_string(length) + ": " + legal.reason);
    all.push_back(p);
  }
  return all;
}

// The variant's pipeline and its ablations', in ablations() order.
std::vector<vk::ComputePipeline> pipelines(vk::Device& device, ShaderCompiler& compiler,
                                           const kernels::Family& family,
                                           const kernels::Knobs& knobs) {
  const kernels::OpDescriptor& op = kernels::op_descriptor(family.op());
  std::vector<vk::ComputePipeline> all;
  for (const Ablation& a : ablations()) {
    kernels::ShaderSpec spec = family.shader(knobs);
    spec.defines.insert(spec.defines.end(), a.defines.begin(), a.defines.end());
    const auto spirv = compiler.compile(spec, family.key(knobs));
    all.push_back(vk::ComputePipeline::create(
        device, {a.name, *spirv, static_cast<uint32_t>(op.bindings.size()), op.push_constant_bytes,
                 spec.specialization}));
  }
  return all;
}

// One table row: each pipeline timed `rounds` times in turn, its best median kept (the memory
// clock may still be coming up after the uploads; the clock probe watches the SM's).
void time_row(vk::Device& device, tuner::DispatchTimer& timer, const kernels::Family& family,
              const kernels::Knobs& knobs, const kernels::Problem& p,
              const std::vector<vk::ComputePipeline>& all, uint32_t rounds, double copy_gbps) {
  const kernels::OpDescriptor& op = kernels::op_descriptor(family.op());
  const Bindings bindings(device, family, knobs, p);
  const auto push = kernels::push_constants(p);
  const auto groups = family.groups(knobs, p, device.info());
  std::vector<vk::DescriptorSet> sets;
  for (const vk::ComputePipeline& pipeline : all)
    sets.push_back(pipeline.bind(bindings.in_order(op)));
  std::vector<double> best(all.size(), std::numeric_limits<double>::infinity());
  for (uint32_t round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < all.size(); ++i) {
      const tuner::SampleStats s = timer.measure(
          [&](vk::CommandBuffer& cb, uint32_t) { cb.dispatch(all[i], sets[i], push, groups); },
          tuner::TimingOptions{});
      best[i] = std::min(best[i], s.median);
    }
  }
  const double cache_bytes =
      static_cast<double>(kernels::binding_sizes(p, family.layout(knobs)).keys * 2);
  std::printf("| %u | %.1f |", p.n, cache_bytes / 1e6);
  for (const double ns : best)
    std::printf(" %.2f (%.0f%%) |", ns / 1e3, 100 * cache_bytes / ns / copy_gbps);
  std::printf("\n");
  std::fflush(stdout);
}

// Each pipeline's registers a lane, as the driver reports them (nothing where it reports none).
void print_registers(const vk::Device& device, const std::vector<vk::ComputePipeline>& all) {
  std::string line;
  for (size_t i = 0; i < all.size(); ++i) {
    for (const vk::PipelineStatistic& s : vk::pipeline_statistics(device, all[i])) {
      if (s.name == "Register Count")
        line += std::string(line.empty() ? "" : ", ") + ablations()[i].name + " " + s.value;
    }
  }
  if (!line.empty()) std::printf("registers a lane: %s\n\n", line.c_str());
}

void run(const Flags& flags) {
  const kernels::ParsedKey parsed = kernels::parse_key(flags.variant);
  const kernels::Family* family = kernels::find_family(parsed.family);
  if (family == nullptr || family->name().rfind("sdpa_decode", 0) != 0) {
    throw std::invalid_argument("--variant " + flags.variant + " is no sdpa_decode variant");
  }
  if (const std::string bad = family->check_knobs(parsed.knobs); !bad.empty()) {
    throw std::invalid_argument("--variant " + flags.variant + ": " + bad);
  }
  const vk::Instance instance = vk::Instance::create();
  instance.validation_log().echo_to(stderr);  // with VKTUNE_VALIDATION=1
  vk::Device device = vk::Device::create(
      instance, vk::select_device(instance.devices(), vk::device_request(flags.device)));
  const auto todo = problems(flags, *family, parsed.knobs, device.info());
  ShaderCompiler compiler;
  const auto all = pipelines(device, compiler, *family, parsed.knobs);
  tuner::ClockProbe probe(device, compiler);
  tuner::DispatchTimer timer(device, &probe);
  const tuner::Bandwidth bw = tuner::measure_copy_bandwidth(device, compiler, &probe);
  std::printf("%s on %s; the tuner's copy bandwidth %.0f GB/s; us (%% of it), the best of %u\n\n",
              family->key(parsed.knobs).c_str(), device.info().name.c_str(), bw.gbps, flags.rounds);
  print_registers(device, all);
  std::printf("| L | cache MB |");
  for (const Ablation& a : ablations()) std::printf(" %s |", a.name);
  std::printf("\n|--:|--:|");
  for (size_t i = 0; i < ablations().size(); ++i) std::printf("--:|");
  std::printf("\n");
  for (const kernels::Problem& p : todo) {
    time_row(device, timer, *family, parsed.knobs, p, all, flags.rounds, bw.gbps);
  }
  if (const auto messages = instance.validation_log().take(); !messages.empty()) {
    throw std::runtime_error(std::to_string(messages.size()) +
                             " validation messages, the first: " + messages.front());
  }
}

}  // namespace
}  // namespace vktune

int main(int argc, char** argv) {
  CLI::App app{"decode_ablation: an sdpa_decode variant timed whole and with parts left out"};
  vktune::Flags flags;
  app.add_option("--device", flags.device, "device index or name (as vktune devices lists them)");
  app.add_option("--variant", flags.variant, "an sdpa_decode variant key, as a report prints it")
      ->required();
  app.add_option("--context", flags.lengths, "cache lengths L, e.g. 128,8192")
      ->required()
      ->delimiter(',');
  app.add_option("--m", flags.m, "query tokens");
  app.add_option("--heads", flags.heads, "query heads");
  app.add_option("--kv-heads", flags.kv_heads, "KV heads");
  app.add_option("--head-dim", flags.head_dim, "head dim D");
  app.add_option("--rounds", flags.rounds, "times each pipeline is timed in turn; the best counts")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    vktune::run(flags);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "decode_ablation: %s\n", e.what());
    return 1;
  }
  return 0;
}
