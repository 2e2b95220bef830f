// The compile stage: the run's pipelines made on background threads while the measuring loop
// runs, in the order the loop will ask for them (problem by problem), so the pipelines of the
// problems ahead compile while this one is measured. The loop asks the session's PipelineCache
// as ever: a pipeline the pool made is there, one in the making is waited for, and one not begun
// is made by the thread that asks (kernels/vk/kernel_instance.h). Which pipelines the pool makes
// first changes when they are ready, never what the loop measures.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <span>
#include <thread>
#include <vector>

#include "kernels/vk/kernel_instance.h"
#include "tuner/candidate.h"

namespace vktune::tuner {

class PipelinePool {
 public:
  // A variant whose pipeline is to be made.
  struct Variant {
    const kernels::Family* family = nullptr;
    kernels::Knobs knobs;
  };

  // Starts `threads` workers (at least one) making the pipeline of each distinct variant of
  // `variants`, in that order, into `cache`; the workers run at a lower scheduling priority than
  // the measuring loop, whose CPU work (uploads, references, checks) keeps the GPU fed. A variant
  // that does not compile is skipped: the loop's own ask compiles it again and reports the error
  // there. Once `stop` (if given) reads true the variants not yet begun are skipped. `device`,
  // `compiler`, `cache` and `stop` must outlive the pool.
  PipelinePool(const vk::Device& device, ShaderCompiler& compiler, kernels::PipelineCache& cache,
               std::vector<Variant> variants, size_t threads,
               const std::atomic<bool>* stop = nullptr);
  // Skips what is not begun and waits for the pipelines in the making: the pool never outlives
  // a device or a run that stops (SIGTERM, an error) with it.
  ~PipelinePool();
  PipelinePool(const PipelinePool&) = delete;
  PipelinePool& operator=(const PipelinePool&) = delete;

  // Blocks until every variant was made (or skipped).
  void wait();
  // Distinct variants the pool was given.
  size_t size() const noexcept { return variants_.size(); }
  // Wall time from the start to the last variant's end; until then, to now.
  std::chrono::steady_clock::duration busy() const;
  // CPU time the workers spent, counted as each finishes (all of it after wait()).
  std::chrono::nanoseconds cpu() const noexcept { return std::chrono::nanoseconds(cpu_ns_.load()); }

 private:
  void work();

  const vk::Device& device_;
  ShaderCompiler& compiler_;
  kernels::PipelineCache& cache_;
  const std::atomic<bool>* stop_;
  std::vector<Variant> variants_;
  std::atomic<size_t> next_ = 0;     // the first variant not begun
  std::atomic<size_t> running_ = 0;  // workers still at work
  std::atomic<bool> closing_ = false;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<std::chrono::steady_clock::rep> end_{0};  // since start_; 0 while at work
  std::atomic<int64_t> cpu_ns_ = 0;                     // the finished workers' CPU time
  std::vector<std::jthread> workers_;
};

}  // namespace vktune::tuner
