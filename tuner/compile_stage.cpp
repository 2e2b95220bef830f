// compile_all: distinct keys, then a parallel for over them.
#include "tuner/compile_stage.h"

#include <set>
#include <string>
#include <vector>

#include "tuner/parallel.h"

namespace vktune::tuner {

void compile_all(const vk::Device& device, ShaderCompiler& compiler, kernels::PipelineCache& cache,
                 std::span<const Candidate* const> candidates, const std::atomic<bool>* stop) {
  std::set<std::string> seen;
  std::vector<const Candidate*> distinct;
  for (const Candidate* c : candidates) {
    if (seen.insert(c->key).second) distinct.push_back(c);
  }
  parallel_for(distinct.size(), [&](size_t i) {
    if (stop != nullptr && stop->load()) return;
    try {
      kernels::KernelInstance::pipeline(device, compiler, *distinct[i]->family, distinct[i]->knobs,
                                        &cache);
    } catch (const std::exception&) {
    }
  });
}

}  // namespace vktune::tuner
