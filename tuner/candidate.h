// One variant of the problem being tuned, with what is known of it so far.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "db/records.h"
#include "kernels/family.h"
#include "kernels/vk/kernel_instance.h"
#include "tuner/statistics.h"

namespace vktune::tuner {

struct Candidate {
  const kernels::Family* family = nullptr;
  kernels::Knobs knobs;
  std::string key;
  int64_t kernel_id = 0;
  std::unique_ptr<kernels::KernelInstance> instance;  // kept while it may be measured again
  db::Status status = db::Status::ok;
  std::string message;
  double max_error = 0;
  std::optional<SampleStats> stats;  // of its latest measurement
  // Timed at stage one by the run being resumed: `stats` is that timing, and it joins the
  // later stages without being measured again.
  bool resumed = false;
  uint64_t bytes_moved = 0;          // of one dispatch (KernelInstance), for GB/s
  double flops = 0;                  // of one dispatch, for GFLOP/s

  bool timed() const { return status == db::Status::ok && stats.has_value(); }
  // Whether stage one is over for it: it failed, or it has a first timing.
  bool finished() const { return status != db::Status::ok || stats.has_value(); }
};

}  // namespace vktune::tuner
