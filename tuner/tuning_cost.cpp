// tuning_cost: a problem's variants times a fixed part and one dispatch on a nominal GPU.
#include "tuner/tuning_cost.h"

#include <algorithm>

#include "kernels/op.h"

namespace vktune::tuner {
namespace {

constexpr double kBytesPerUs = 4e6;  // 4 TB/s
constexpr double kFlopsPerUs = 2e8;  // 200 TFLOP/s
constexpr double kFixedUs = 20.0;    // a variant's fixed part, in nominal dispatch time

}  // namespace

double nominal_dispatch_us(const kernels::Problem& problem) {
  const double bytes =
      static_cast<double>(kernels::binding_sizes(problem, kernels::Layout::raw).total());
  return std::max(bytes / kBytesPerUs, kernels::flops(problem) / kFlopsPerUs);
}

double tuning_cost(const kernels::Problem& problem, size_t variants) {
  return static_cast<double>(variants) * (kFixedUs + nominal_dispatch_us(problem));
}

}  // namespace vktune::tuner
