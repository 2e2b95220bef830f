// GateStage: poison -> dispatch -> read back the checked rows, for a whole batch at once.
#include "tuner/gate_stage.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "kernels/float16.h"
#include "kernels/op.h"
#include "kernels/parallel.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "tuner/clock_probe.h"

namespace vktune::tuner {
namespace {

// Read-back buffer size: large enough for 64 decode-shaped variants a submission, small enough
// for any device (an lm_head's 32 checked rows of 128256 outputs take 16 MB: 4 a batch).
constexpr uint64_t kReadbackBytes = 64ull << 20;
constexpr size_t kMaxBatch = 64;
// Outputs a core compares at a time: about a millisecond's work.
constexpr uint64_t kPieceOutputs = 1 << 18;

}  // namespace

GateStage::GateStage(vk::Device& device, const Gate& gate, const kernels::Problem& problem)
    : device_(device),
      gate_(gate),
      dtype_(problem.dtype),
      row_bytes_(kernels::output_count(problem) / problem.m * kernels::dtype_bytes(problem.dtype)),
      slot_bytes_(gate.rows().size() * row_bytes_),
      capacity_(
          std::clamp<uint64_t>(kReadbackBytes / std::max<uint64_t>(slot_bytes_, 1), 1, kMaxBatch)),
      readback_(vk::Buffer::create_host(device, capacity_ * slot_bytes_)),
      pool_(vk::TimestampPool::create(device,
                                      static_cast<uint32_t>(2 * capacity_) +
                                          ClockProbe::kBracketSlots)) {
  for (uint32_t row : gate.rows()) {
    if (!runs_.empty() && runs_.back().first + runs_.back().count == row) {
      ++runs_.back().count;
    } else {
      runs_.push_back({row, 1});
    }
  }
}

std::vector<GateOutcome> GateStage::run(std::span<const kernels::KernelInstance* const> batch,
                                        std::span<const double> tolerances,
                                        std::chrono::nanoseconds timeout,
                                        const vk::ValidationLog* validation,
                                        const ClockProbe* probe) {
  if (batch.size() > capacity_ || tolerances.size() != batch.size()) {
    throw std::invalid_argument("GateStage: a batch of " + std::to_string(batch.size()) +
                                " with " + std::to_string(tolerances.size()) +
                                " tolerances; capacity " + std::to_string(capacity_));
  }
  std::vector<GateOutcome> outcomes(batch.size());
  const auto readings = static_cast<uint32_t>(2 * batch.size());  // the first reading's slot
  device_.run(
      [&](vk::CommandBuffer& cb) {
        cb.reset_timestamps(pool_);
        if (probe != nullptr) probe->record_reading(cb, pool_, readings);
        for (size_t i = 0; i < batch.size(); ++i) {
          const kernels::KernelInstance& inst = *batch[i];
          inst.record_poison(cb);
          cb.barrier();
          cb.timestamp(pool_, static_cast<uint32_t>(2 * i));
          const size_t seen = validation ? validation->size() : 0;
          inst.record(cb, next_copy_++);
          if (validation) {
            const std::vector<std::string> drawn = validation->since(seen);
            if (!drawn.empty()) outcomes[i].validation = drawn.front();
          }
          cb.barrier();
          cb.timestamp(pool_, static_cast<uint32_t>(2 * i + 1));
          uint64_t offset = i * slot_bytes_;
          for (const Rows& r : runs_) {
            cb.copy(inst.output_buffer(), readback_, r.count * row_bytes_, r.first * row_bytes_,
                    offset);
            offset += r.count * row_bytes_;
          }
          cb.barrier();  // the next variant's poison overwrites the output this copy reads
        }
        if (probe != nullptr) probe->record_reading(cb, pool_, readings + 2);
      },
      timeout);
  const std::vector<uint64_t> ns =
      pool_.read_ns(readings + (probe != nullptr ? ClockProbe::kBracketSlots : 0));
  const double slowdown = probe == nullptr ? 0 : probe->bracket_slowdown(ns, readings);
  const auto* rows = static_cast<const std::byte*>(readback_.mapped());
  // Each variant's checked outputs in pieces: a batch of a few large outputs (an lm_head's
  // four) then still spreads its comparisons over every core.
  const uint64_t count = gate_.picked_count();
  const uint64_t pieces = (count + kPieceOutputs - 1) / kPieceOutputs;
  const size_t element_bytes = kernels::dtype_bytes(dtype_);
  std::vector<kernels::CheckResult> parts(batch.size() * pieces);
  kernels::parallel_for(parts.size(), [&](size_t t) {
    const size_t i = t / pieces;
    const uint64_t first = t % pieces * kPieceOutputs;
    const uint64_t n = std::min(kPieceOutputs, count - first);
    const std::vector<float> piece = kernels::decode(
        std::span<const std::byte>(rows + i * slot_bytes_ + first * element_bytes,
                                   n * element_bytes),
        dtype_);
    parts[t] = gate_.check_piece(piece, first, tolerances[i]);
  });
  for (size_t i = 0; i < batch.size(); ++i) {
    outcomes[i].check = std::accumulate(parts.begin() + i * pieces + 1,
                                        parts.begin() + (i + 1) * pieces, parts[i * pieces],
                                        kernels::merge);
    outcomes[i].dispatch_ns = static_cast<double>(ns[2 * i + 1] - ns[2 * i]);
    outcomes[i].slowdown = slowdown;
  }
  return outcomes;
}

}  // namespace vktune::tuner
