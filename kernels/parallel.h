// Runs independent pieces of CPU work on every core: pipeline compilation, instance creation, the
// correctness gate's comparisons and references, which would otherwise leave the GPU waiting on
// one core.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace vktune::kernels {

// Calls `work(i)` for every i in [0, count) on up to hardware_concurrency threads (the caller's
// included). `work` must not throw: catch per item and record the failure there.
template <typename Work>
void parallel_for(size_t count, const Work& work) {
  std::atomic<size_t> next = 0;
  auto loop = [&] {
    for (size_t i = next++; i < count; i = next++) work(i);
  };
  const size_t threads = std::min<size_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::jthread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(loop);
  loop();
}

}  // namespace vktune::kernels
