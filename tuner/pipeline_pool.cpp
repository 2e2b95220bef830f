// PipelinePool: distinct variants, then workers taking the next one until none is left.
#include "tuner/pipeline_pool.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>

namespace vktune::tuner {
namespace {

// Workers yield to the measuring loop's threads (nice 0) but still use every idle core.
constexpr int kWorkerNice = 10;

}  // namespace

PipelinePool::PipelinePool(const vk::Device& device, ShaderCompiler& compiler,
                           kernels::PipelineCache& cache, std::vector<Variant> variants,
                           size_t threads, const std::atomic<bool>* stop)
    : device_(device),
      compiler_(compiler),
      cache_(cache),
      stop_(stop),
      start_(std::chrono::steady_clock::now()) {
  std::set<std::string> seen;
  for (Variant& v : variants) {
    if (seen.insert(v.family->key(v.knobs)).second) variants_.push_back(std::move(v));
  }
  const size_t count = std::clamp<size_t>(threads, 1, std::max<size_t>(variants_.size(), 1));
  running_ = count;
  for (size_t t = 0; t < count; ++t) workers_.emplace_back([this] { work(); });
}

PipelinePool::~PipelinePool() {
  closing_ = true;
  workers_.clear();  // joins
}

void PipelinePool::wait() {
  for (std::jthread& w : workers_) w.join();
  workers_.clear();
}

std::chrono::steady_clock::duration PipelinePool::busy() const {
  const auto end = end_.load();
  return end != 0 ? std::chrono::steady_clock::duration(end)
                  : std::chrono::steady_clock::now() - start_;
}

void PipelinePool::work() {
  // Linux schedules each thread with its own nice value: this lowers the worker's alone. Where
  // that is refused the worker runs at the loop's priority, which costs speed, not results.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kWorkerNice);
  for (size_t i = next_++; i < variants_.size(); i = next_++) {
    if (closing_ || (stop_ != nullptr && stop_->load())) break;
    try {
      kernels::KernelInstance::pipeline(device_, compiler_, *variants_[i].family,
                                        variants_[i].knobs, &cache_);
    } catch (const std::exception&) {
    }
  }
  timespec cpu{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0) {
    cpu_ns_ += int64_t{cpu.tv_sec} * 1'000'000'000 + cpu.tv_nsec;
  }
  if (--running_ == 0) {
    const auto spent = std::chrono::steady_clock::now() - start_;
    end_ = std::max<std::chrono::steady_clock::rep>(spent.count(), 1);
  }
}

}  // namespace vktune::tuner
