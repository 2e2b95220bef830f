// The compile stage: every variant's pipeline of the whole run built once, before the first
// measurement, on every core. Shapes are push constants, so one pipeline serves every problem:
// a run of a hundred problems compiles each variant once, not once per problem.
#pragma once

#include <atomic>
#include <span>

#include "kernels/vk/kernel_instance.h"
#include "tuner/candidate.h"

namespace vktune::tuner {

// Builds the pipeline of each distinct variant in `candidates` into `cache`. A variant that does
// not compile is skipped: creating its instance compiles it again and reports the error there.
// Once `stop` (if given) reads true the variants not yet begun are skipped too: a run of a
// hundred problems compiles for a minute or more before its first measurement.
void compile_all(const vk::Device& device, ShaderCompiler& compiler, kernels::PipelineCache& cache,
                 std::span<const Candidate* const> candidates,
                 const std::atomic<bool>* stop = nullptr);

}  // namespace vktune::tuner
