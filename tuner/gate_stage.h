// The gate stage: a batch of variants checked against the CPU reference with one submission.
// Each variant's output (shared by the batch) is poisoned with NaN, the variant dispatched once
// between two timestamps, and only the rows the gate checks copied to a host buffer; the
// comparisons then run on every core. The dispatch's time is the timing stage's first estimate
// and, when clock readings around the submission show the peak clock, halving's first sample of
// a slow variant (tuner/session_problem.cpp). Weight copies rotate as in the timing stage, so a
// dispatch reads its weights from memory, not from the cache its predecessor filled.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/families/reference.h"
#include "kernels/vk/kernel_instance.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/instance.h"
#include "kernels/vk/timestamp_pool.h"
#include "tuner/gate.h"

namespace vktune::tuner {

class ClockProbe;

struct GateOutcome {
  kernels::CheckResult check;
  double dispatch_ns = 0;  // GPU time of the checked dispatch
  // The clock of the batch's submission: the larger of the readings at its start and end
  // (ClockProbe::slowdown_of, 1.0 at the peak); 0 when run without a probe.
  double slowdown = 0;
  std::string validation;  // the first validation message its dispatch drew; empty: none
};

class GateStage {
 public:
  // `device` and `gate` must outlive the stage; `problem` is the gate's.
  GateStage(vk::Device& device, const Gate& gate, const kernels::Problem& problem);

  // Instances one run() can check: as many as the read-back buffer holds checked rows of.
  size_t capacity() const noexcept { return capacity_; }

  // Checks each instance of `batch` (at most capacity()) with its relative `tolerances[i]`.
  // Instances may share an output buffer: each is read back before the next is poisoned.
  // With `validation` (the layer on), a message the layer gives while a variant's dispatch is
  // recorded is that variant's: the layer checks a command as it is recorded.
  // With `probe`, clock readings open and close the submission (GateOutcome::slowdown).
  // Throws vk::Error when the submission fails (nothing is known of the batch then).
  std::vector<GateOutcome> run(std::span<const kernels::KernelInstance* const> batch,
                               std::span<const double> tolerances,
                               std::chrono::nanoseconds timeout,
                               const vk::ValidationLog* validation = nullptr,
                               const ClockProbe* probe = nullptr);

 private:
  struct Rows {
    uint64_t first, count;  // a run of consecutive checked rows
  };

  vk::Device& device_;
  const Gate& gate_;
  kernels::DType dtype_;       // of the outputs read back
  uint64_t row_bytes_;         // one output row: N elements
  uint64_t slot_bytes_;        // the checked rows of one variant
  std::vector<Rows> runs_;     // the checked rows, merged into runs
  size_t capacity_;
  vk::Buffer readback_;
  vk::TimestampPool pool_;  // two a variant, then two a clock reading
  uint32_t next_copy_ = 0;  // the weight copy the next dispatch reads
};

}  // namespace vktune::tuner
