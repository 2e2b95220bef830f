// Feature columns of the cost model.
#include "tuner/cost_features.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/op.h"

namespace vktune::tuner {
namespace {

// The shape (sdpa: n is the context L, k the head dim, plus its head counts; 0 for the other
// ops), then what the family's geometry derives from it.
constexpr const char* kDerived[] = {
    "log2_m",          "log2_n",          "log2_k",          "log2_group_size", "log2_heads",
    "log2_kv_heads",   "log2_workgroups", "log2_wg_size",    "log2_shared",     "log2_bytes_per_wg",
    "log2_flops_per_wg"};

float log2f_of(double v) { return static_cast<float>(std::log2(std::max(v, 1.0))); }

// A word knob as its position among the family's candidates (trees only compare, so an order is
// enough); an integer knob as its log2 (tiles and workgroups double), or itself when not positive.
float knob_feature(const kernels::KnobSpec& spec, const kernels::KnobValue& value) {
  if (std::holds_alternative<std::string>(value)) {
    const auto it = std::find(spec.values.begin(), spec.values.end(), value);
    return it == spec.values.end() ? std::numeric_limits<float>::quiet_NaN()
                                   : static_cast<float>(it - spec.values.begin());
  }
  const int64_t v = std::get<int64_t>(value);
  return v > 0 ? static_cast<float>(std::log2(static_cast<double>(v))) : static_cast<float>(v);
}

}  // namespace

FeatureSpace::FeatureSpace(std::span<const kernels::Family* const> families)
    : families_(families.begin(), families.end()) {
  for (const kernels::Family* f : families_) names_.push_back("family=" + f->name());
  for (const kernels::Family* f : families_) {
    first_knob_column_.push_back(names_.size());
    for (const kernels::KnobSpec& spec : f->knob_specs())
      names_.push_back(f->name() + "." + spec.name);
  }
  derived_column_ = names_.size();
  names_.insert(names_.end(), std::begin(kDerived), std::end(kDerived));
}

void FeatureSpace::append(const kernels::Family& family, const kernels::Knobs& knobs,
                          const kernels::Problem& problem, const vk::DeviceInfo& device,
                          std::vector<float>& out) const {
  const size_t start = out.size();
  out.resize(start + size(), std::numeric_limits<float>::quiet_NaN());
  float* row = out.data() + start;
  const auto it = std::find(families_.begin(), families_.end(), &family);
  for (size_t f = 0; f < families_.size(); ++f) row[f] = families_[f] == &family ? 1.0f : 0.0f;
  if (it != families_.end()) {
    const size_t first = first_knob_column_[it - families_.begin()];
    const auto& specs = family.knob_specs();
    for (size_t i = 0; i < specs.size() && i < knobs.size(); ++i) {
      row[first + i] = knob_feature(specs[i], knobs[i].value);
    }
  }
  const std::array<uint32_t, 3> g = family.groups(knobs, problem, device);
  const double groups = static_cast<double>(g[0]) * g[1] * g[2];
  const double bytes =
      static_cast<double>(kernels::binding_sizes(problem, family.layout(knobs)).total());
  const float derived[] = {log2f_of(problem.m),
                           log2f_of(problem.n),
                           log2f_of(problem.k),
                           log2f_of(problem.group_size),
                           log2f_of(problem.heads),
                           log2f_of(problem.kv_heads),
                           log2f_of(groups),
                           log2f_of(family.workgroup_size(knobs)),
                           log2f_of(family.shared_bytes(knobs) + 1.0),
                           log2f_of(bytes / groups),
                           log2f_of(kernels::flops(problem) / groups)};
  std::copy(std::begin(derived), std::end(derived), row + derived_column_);
}

vk::DeviceInfo feature_device(uint32_t subgroup_size) {
  vk::DeviceInfo d;
  d.subgroup_size = subgroup_size;
  d.limits.max_workgroup_count = {2147483647u, 65535u, 65535u};
  return d;
}

}  // namespace vktune::tuner
