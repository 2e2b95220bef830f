// The session's measuring steps over the shared buffers of the problem being tuned: instances,
// the gate, timings and re-timings, storing results. A device failure is noted where it happens
// and recovered between chunks (session.cpp); stage one retries a failed chunk variant by variant.
#include <algorithm>

#include "db/error.h"
#include "kernels/parallel.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/command_buffer.h"
#include "tuner/batch_timer.h"
#include "tuner/clock_probe.h"
#include "tuner/gate_stage.h"
#include "tuner/problem_state.h"
#include "tuner/session.h"

namespace vktune::tuner {
namespace {

// Records one dispatch of the candidate's instance (which rotates its weight copies by index)
// and, before each sample, its share of the problem's workspace zeroed: the variants timed
// beside it write there too.
TimedVariant recorder(const Candidate* c) {
  TimedVariant v{[c](vk::CommandBuffer& cb, uint32_t i) { c->instance->record(cb, i); }, {}};
  if (c->instance->has_workspace()) {
    v.setup = [c](vk::CommandBuffer& cb) { c->instance->record_workspace_reset(cb); };
  }
  return v;
}

}  // namespace

void Session::fail(Candidate& c, db::Status status, const std::string& message) {
  c.status = status;
  c.message = message;
  c.instance.reset();
}

void Session::fail_on_device(Candidate& c, const vk::Error& e) {
  if (e.device_lost() || e.result() == VK_TIMEOUT) {
    fail(c, e.device_lost() ? db::Status::device_lost : db::Status::timeout, e.what());
    device_failed(e.what());
  } else {
    fail(c, db::Status::unsupported, e.what());  // e.g. the driver refused the pipeline
  }
}

bool Session::make_instance(Candidate& c) {
  ProblemState& s = *shared_;
  try {
    kernels::KernelInstance::ExternalBuffers external;
    external.out = &*s.out;
    external.workspace = &*s.workspace;
    c.instance = std::make_unique<kernels::KernelInstance>(kernels::KernelInstance::create(
        *device_, compiler_, *c.family, c.knobs, s.problem, s.inputs.at(c.family->layout(c.knobs)),
        external, pipelines_.get()));
    c.bytes_moved = c.instance->bytes_moved();
    c.flops = c.instance->flops();
    return true;
  } catch (const kernels::IllegalVariant& e) {
    fail(c, db::Status::unsupported, e.what());
  } catch (const CompileError& e) {
    fail(c, db::Status::compile_error, e.what());
  } catch (const vk::Error& e) {
    fail_on_device(c, e);
  } catch (const std::exception& e) {
    fail(c, db::Status::unsupported, e.what());
  }
  return false;
}

void Session::store(const Candidate& c) {
  db::Measurement m;
  m.run_id = run_id_;
  m.device_id = device_id_;
  m.problem_id = problem_id_;
  m.kernel_id = c.kernel_id;
  m.status = c.status;
  m.message = c.message;
  if (c.status == db::Status::ok || c.status == db::Status::wrong_result) {
    m.max_error = c.max_error;
  }
  if (c.timed()) {
    const SampleStats& s = *c.stats;
    m.n = s.n;
    m.median_ns = s.median;
    m.min_ns = s.min;
    m.p10_ns = s.p10;
    m.p90_ns = s.p90;
    m.gbps = static_cast<double>(c.bytes_moved) / s.median;
    m.gflops = c.flops / s.median;
  }
  {
    StageTimer t(profile_, Stage::store);
    writer_.add(m);
  }
  ++stored_;
  if (options_.abort_after_results && stored_ >= *options_.abort_after_results) {
    throw TuneAborted("aborted after " + std::to_string(stored_) + " results (test hook)");
  }
}

void Session::flush() {
  StageTimer t(profile_, Stage::store);
  writer_.flush();
}

void Session::stop_if_asked() {
  if (options_.stop == nullptr || !options_.stop->load()) return;
  flush();
  throw TuneInterrupted("stopped on request with " + std::to_string(stored_) +
                        " results of run " + std::to_string(run_id_) + " stored");
}

bool Session::prepare_shared(std::span<Candidate* const> candidates) {
  try {
    shared_->prepare(*device_, candidates, weight_copies(shared_->problem));
    return true;
  } catch (const vk::Error& e) {
    if (!(e.device_lost() || e.result() == VK_TIMEOUT)) throw;
    device_failed(e.what());
    return false;
  }
}

void Session::measure_chunk(std::vector<Candidate>& list, std::span<Candidate* const> chunk,
                            const TimingOptions& timing) {
  if (!stage_one(chunk, timing)) {
    // The device failed in a batch: every unfinished candidate of the chunk again, alone.
    recover_device(list);
    for (Candidate* c : chunk) {
      if (c->finished()) continue;
      c->stats.reset();
      stage_one(std::span<Candidate* const>(&c, 1), timing);
      recover_device(list);
    }
  }
  recover_device(list);  // a single variant's failure leaves the device to re-create
}

void Session::await_pipelines(std::span<Candidate* const> chunk) {
  {
    StageTimer t(profile_, Stage::compile);
    kernels::parallel_for(chunk.size(), [&](size_t i) {
      // A stop skips what is not begun: a chunk's shaders can take a minute on a slow CPU.
      if (options_.stop != nullptr && options_.stop->load()) return;
      try {
        kernels::KernelInstance::pipeline(*device_, compiler_, *chunk[i]->family,
                                          chunk[i]->knobs, pipelines_.get());
      } catch (const std::exception&) {
        // make_instance compiles it again and stores the failure with its message
      }
    });
  }
  stop_if_asked();  // the chunk is measured again on --resume
}

bool Session::stage_one(std::span<Candidate* const> chunk, const TimingOptions& timing) {
  // The pipelines, the shared buffers (uploads), then every candidate's instance on all cores.
  // The first two are the problem's setup (tuner/problem_budget.h): under a budget the pipelines
  // are compiled here, and serve the problems after it too.
  const auto setup_start = std::chrono::steady_clock::now();
  await_pipelines(chunk);
  {
    StageTimer t(profile_, Stage::upload);
    if (!prepare_shared(chunk)) return false;
  }
  if (budget_) budget_->add_setup(std::chrono::steady_clock::now() - setup_start);
  {
    StageTimer t(profile_, Stage::instance);
    kernels::parallel_for(chunk.size(), [&](size_t i) { make_instance(*chunk[i]); });
  }
  if (!lost_reason_.empty()) return false;
  std::vector<Candidate*> passed;
  std::vector<double> estimate;
  if (!gate(chunk, timing, passed, estimate)) return false;

  // Time: the survivors of the gate in shared submissions.
  std::vector<TimedVariant> records;
  for (Candidate* c : passed) {
    records.push_back(recorder(c));
  }
  try {
    const std::vector<SampleStats> stats = timer_->measure(records, estimate, timing);
    for (size_t i = 0; i < passed.size(); ++i) passed[i]->stats = stats[i];
  } catch (const vk::Error& e) {
    if (passed.size() != 1) {
      device_failed(e.what());
      return false;
    }
    fail_on_device(*passed.front(), e);
  }
  return true;
}

bool Session::gate(std::span<Candidate* const> chunk, const TimingOptions& timing,
                   std::vector<Candidate*>& passed, std::vector<double>& estimate) {
  ProblemState& s = *shared_;
  // Batches of what the read-back holds; a failed batch is retried one by one.
  // A stage of one sample (halving's first) takes a slow variant's gate dispatch as that sample
  // when the gate's submission ran at the peak clock by its own readings: the sample's span or
  // more of GPU time is then measured once, not twice (on the H100 one dispatch of every
  // variant of a problem is most of its first stage). At a lower clock a gate dispatch reads
  // 3-8x slow (the lm_head problems, before these readings existed) and the time stage takes
  // the sample instead. The clock is brought up first, as the time stage does.
  const bool one_sample = timing.max_samples == 1 && probe_ != nullptr;
  for (size_t first = 0; first < chunk.size();) {
    std::vector<Candidate*> batch;
    std::vector<const kernels::KernelInstance*> instances;
    std::vector<double> tolerances;
    for (; first < chunk.size() && batch.size() < s.gate_stage->capacity(); ++first) {
      Candidate* c = chunk[first];
      if (!c->instance) continue;
      batch.push_back(c);
      instances.push_back(c->instance.get());
      tolerances.push_back(c->family->tolerance(s.problem));
    }
    std::vector<GateOutcome> outcomes;
    try {
      if (one_sample) timer_->warm_up(timing);
      StageTimer t(profile_, Stage::gate);
      // Each variant gets the timeout of one submission: a driver that compiles a pipeline at
      // its first dispatch (lavapipe) spends seconds on a batch that runs in microseconds.
      outcomes = s.gate_stage->run(instances, tolerances,
                                   options_.timing.timeout * static_cast<int64_t>(batch.size()),
                                   instance_.validation() ? &instance_.validation_log() : nullptr,
                                   probe_.get());
    } catch (const vk::Error& e) {
      // Which variant of a batch failed is unknown: the caller tries each again on its own.
      if (batch.size() > 1) {
        device_failed(e.what());
        return false;
      }
      fail_on_device(*batch.front(), e);
      if (!lost_reason_.empty()) return false;
      continue;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!judge(*batch[i], outcomes[i], one_sample ? &timing : nullptr)) continue;
      passed.push_back(batch[i]);
      estimate.push_back(outcomes[i].dispatch_ns);
    }
  }
  return true;
}

bool Session::judge(Candidate& c, const GateOutcome& outcome, const TimingOptions* one_sample) {
  const kernels::CheckResult& check = outcome.check;
  c.max_error = check.max_error;
  // Under --validate a variant whose dispatch breaks a rule of the API fails, whatever it
  // computed: its result holds on this driver by chance, if at all. (No status of its own:
  // wrong_result is the one that can never be selected.)
  if (!outcome.validation.empty()) {
    fail(c, db::Status::wrong_result, "Vulkan validation: " + outcome.validation);
    return false;
  }
  if (!check.ok) {
    fail(c, db::Status::wrong_result,
         "max error " + std::to_string(check.max_error) + " of the bound at output " +
             std::to_string(check.worst) + ", " + std::to_string(check.non_finite) +
             " non-finite outputs");
    return false;
  }
  if (one_sample != nullptr && outcome.slowdown <= kAtPeak &&
      outcome.dispatch_ns >= one_sample->min_sample_ns) {
    const double sample = outcome.dispatch_ns;
    c.stats = summarize(std::span<const double>(&sample, 1));
    profile_.count_gate_sample();
    return false;
  }
  return true;
}

bool Session::retime(const std::vector<Candidate*>& list, const TimingOptions& timing) {
  std::vector<Candidate*> live;
  std::vector<TimedVariant> records;
  std::vector<double> estimate;
  {
    StageTimer t(profile_, Stage::upload);
    if (!prepare_shared(list)) return false;
  }
  {
    StageTimer t(profile_, Stage::instance);
    for (Candidate* c : list) {
      if (!c->instance && !make_instance(*c)) continue;
      live.push_back(c);
      estimate.push_back(c->stats->median);
      records.push_back(recorder(c));
    }
  }
  try {
    const std::vector<SampleStats> stats = timer_->measure(records, estimate, timing);
    for (size_t i = 0; i < live.size(); ++i) live[i]->stats = stats[i];
    return true;
  } catch (const vk::Error& e) {
    if (!(e.device_lost() || e.result() == VK_TIMEOUT)) throw;
    device_failed(e.what());  // keep the earlier stages' numbers
    return false;
  }
}

}  // namespace vktune::tuner
