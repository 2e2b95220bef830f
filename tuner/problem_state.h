// What the variants of the problem being tuned share: its random inputs and their CPU
// reference (the gate), and on the device its inputs per weight layout, one output, one
// split-K workspace and the gate stage. A tuning run uploads per (problem, layout), not per
// variant, so an instance costs descriptor sets only. Device objects are dropped with the
// device (release_device) and made again on demand (prepare).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>

#include "kernels/vk/problem_buffers.h"
#include "kernels/vk/buffer.h"
#include "tuner/candidate.h"
#include "tuner/gate.h"
#include "tuner/gate_stage.h"

namespace vktune::tuner {

struct ProblemState {
  ProblemState(const kernels::Problem& p, kernels::ProblemData d, uint64_t workspace_size)
      : problem(p), data(std::move(d)), gate(problem, data), workspace_bytes(workspace_size) {}

  // Makes what `candidates` need on `device` that does not exist yet: the output, the
  // workspace, the inputs in each of their layouts (`weight_copies` of the weights) and the
  // gate stage. Throws vk::Error.
  void prepare(vk::Device& device, std::span<Candidate* const> candidates,
               uint32_t weight_copies);
  void release_device();

  kernels::Problem problem;
  kernels::ProblemData data;
  Gate gate;
  uint64_t workspace_bytes;
  std::map<kernels::Layout, std::shared_ptr<const kernels::ProblemBuffers>> inputs;
  std::optional<vk::Buffer> out, workspace;
  std::optional<GateStage> gate_stage;
};

}  // namespace vktune::tuner
