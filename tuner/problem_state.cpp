// ProblemState: the shared device objects, made on demand.
#include "tuner/problem_state.h"

namespace vktune::tuner {

void ProblemState::prepare(vk::Device& device, std::span<Candidate* const> candidates,
                           uint32_t weight_copies) {
  if (!out) {
    out.emplace(kernels::padded_buffer(
        device, kernels::binding_sizes(problem, kernels::Layout::raw).out));
  }
  if (!workspace) workspace.emplace(kernels::padded_buffer(device, workspace_bytes));
  for (const Candidate* c : candidates) {
    const kernels::Layout layout = c->family->layout(c->knobs);
    auto& slot = inputs[layout];
    if (!slot) {
      slot = kernels::ProblemBuffers::create(device, problem, data, layout, weight_copies);
    }
  }
  if (!gate_stage) gate_stage.emplace(device, gate, problem);
}

void ProblemState::release_device() {
  gate_stage.reset();
  inputs.clear();
  out.reset();
  workspace.reset();
}

}  // namespace vktune::tuner
