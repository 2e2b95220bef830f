// What the cost model sees of a variant on a problem: one column per family (one-hot), one per
// (family, knob) (NaN for the other families' variants), the shape, and what the family's
// geometry derives from both (workgroups launched, workgroup size, shared memory, bytes and
// flops per workgroup). Logarithms throughout: times scale with sizes multiplicatively.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kernels/family.h"
#include "kernels/problem.h"
#include "kernels/device_info.h"

namespace vktune::tuner {

class FeatureSpace {
 public:
  // The columns of `families` (kernels::families() in the tuner). The space keeps the span's
  // pointers: the families must outlive it.
  explicit FeatureSpace(std::span<const kernels::Family* const> families);

  size_t size() const { return names_.size(); }
  // Column names, e.g. "family=q4gsw_gemv", "q4gsw_gemv.rows", "log2_m", for reports and tests.
  const std::vector<std::string>& names() const { return names_; }

  // Appends the features of (`family`, `knobs`) on `problem` to `out`. `device` decides the
  // workgroup count's clamp (Family::groups). A family not in the space gets only the shape and
  // derived columns.
  void append(const kernels::Family& family, const kernels::Knobs& knobs,
              const kernels::Problem& problem, const vk::DeviceInfo& device,
              std::vector<float>& out) const;

 private:
  std::vector<const kernels::Family*> families_;
  std::vector<size_t> first_knob_column_;  // per family
  size_t derived_column_ = 0;              // where the shape and derived columns start
  std::vector<std::string> names_;
};

// A device description with generous limits, for features of stored measurements whose device
// is known only by its database record (the offline evaluation).
vk::DeviceInfo feature_device(uint32_t subgroup_size);

}  // namespace vktune::tuner
