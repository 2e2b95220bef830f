// ClockRamp: a warm-up's stopping rule.
#include "tuner/clock_ramp.h"

namespace vktune::tuner {

bool ClockRamp::add(double per_dispatch_ns, double probe_slowdown) {
  if (!started_ || per_dispatch_ns < best_ * (1 - tolerance_)) {
    flat_ = 0;  // still getting faster: the clocks are still coming up
  } else {
    ++flat_;
  }
  if (!started_ || per_dispatch_ns < best_) best_ = per_dispatch_ns;
  started_ = true;
  return flat_ >= settle_batches_ && probe_slowdown <= 1 + clock_tolerance_;
}

}  // namespace vktune::tuner
