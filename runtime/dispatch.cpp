// The dispatch contract, read from the kernel catalogue.
#include "runtime/dispatch.h"

#include <algorithm>
#include <exception>
#include <optional>

#include <nlohmann/json.hpp>

#include "kernels/families/q4gsw_layout.h"
#include "kernels/family.h"
#include "kernels/problem.h"
#include "runtime/builtin.h"

namespace vktune::runtime {
namespace {

DispatchPlan refuse(std::string why) {
  DispatchPlan plan;
  plan.status = Status::invalid_query;
  plan.error = std::move(why);
  return plan;
}

}  // namespace

DispatchPlan plan_dispatch(const Selection& s, const ProblemQuery& q,
                           const std::array<uint32_t, 3>& max_workgroup_count) noexcept {
  try {
    if (!s.ok()) return refuse("the selection is not ok: " + std::string(s.error));
    if (const std::string_view e = validate(q); !e.empty()) return refuse(std::string(e));
    const kernels::Family* family = kernels::find_family(s.family);
    if (family == nullptr) {
      return refuse("family '" + std::string(s.family) + "' is not in this runtime's catalogue");
    }
    if (kernels::op_name(family->op()) != q.op) {
      return refuse(std::string(s.variant_key) + " is a " + kernels::op_name(family->op()) +
                    " variant; the problem is " + std::string(q.op));
    }
    if (kernels::dtype_name(family->dtype()) != q.dtype) {
      return refuse(std::string(s.variant_key) + " computes " +
                    kernels::dtype_name(family->dtype()) + "; the problem is " +
                    std::string(q.dtype));
    }
    const kernels::Knobs knobs = family->knobs_from_json(nlohmann::json::parse(s.knobs_json));
    // The family's op is q.op's (checked above), so the conversion has an answer.
    const kernels::Problem p = *kernels::problem_of(q);
    if (std::string e = kernels::check(family->constraints(knobs), p); !e.empty()) {
      return refuse(std::string(s.variant_key) + " cannot run " + kernels::describe(p) + ": " + e);
    }

    DispatchPlan plan;
    plan.status = Status::ok;
    plan.push_constants = kernels::push_constants(p);
    const kernels::Layout layout = family->layout(knobs);
    plan.layout = kernels::layout_name(layout);
    const kernels::BindingSizes sizes = kernels::binding_sizes(p, layout);
    const auto& bindings = kernels::op_descriptor(p.op).bindings;
    for (uint32_t i = 0; i < bindings.size(); ++i) {
      const kernels::BindingDesc& b = bindings[i];
      const bool workspace = b.role == kernels::BufferRole::workspace;
      const uint64_t bytes = workspace ? family->workspace_bytes(knobs, p) : sizes.of(b.role);
      plan.bindings.push_back(
          {i, b.name, bytes, kernels::binding_alloc_bytes(bytes), b.written, workspace});
    }
    vk::DeviceInfo device;
    device.limits.max_workgroup_count = max_workgroup_count;
    plan.groups = family->groups(knobs, p, device);
    plan.workgroup_size = family->workgroup_size(knobs);
    plan.shared_memory_bytes = family->shared_bytes(knobs);
    const kernels::Requirements needs = family->requirements(knobs);
    plan.required_features = kernels::feature_names(needs);
    plan.required_feature_bits = needs.features;
    plan.required_subgroup_size = needs.subgroup_size;
    plan.subgroup_size_divides = needs.subgroup_size_divides;
    plan.tolerance = family->tolerance(p);
    return plan;
  } catch (const std::exception& e) {
    return refuse(std::string(s.variant_key) + ": " + e.what());
  } catch (...) {
    return refuse("unexpected error while planning the dispatch");
  }
}

uint64_t prepacked_bytes(std::string_view layout, uint32_t n, uint32_t k,
                         uint32_t group_size) noexcept {
  const std::optional<kernels::Layout> l = kernels::layout_from_name(layout);
  return l ? kernels::weight_bytes(*l, n, k, group_size) : 0;
}

std::string prepack(std::string_view layout, std::span<const uint8_t> raw,
                    std::span<const float> scales, uint32_t n, uint32_t k, uint32_t group_size,
                    std::vector<uint8_t>& out) noexcept {
  try {
    const std::optional<kernels::Layout> l = kernels::layout_from_name(layout);
    if (!l || *l == kernels::Layout::none) {
      return "layout '" + std::string(layout) +
             "' has no weights to prepack; expected raw, packed or packed_s16";
    }
    if (k % 2 != 0) return "K=" + std::to_string(k) + " is odd; int4 weights need an even K";
    if (raw.size() != uint64_t{n} * (k / 2)) {
      return "raw weights hold " + std::to_string(raw.size()) + " bytes; N x K/2 = " +
             std::to_string(uint64_t{n} * (k / 2));
    }
    out = kernels::prepack_weight(*l, raw, scales, n, k, group_size);
    return {};
  } catch (const std::exception& e) {
    return std::string("prepack: ") + e.what();
  }
}

std::string prepack(std::string_view layout, std::span<const uint8_t> raw, uint32_t n,
                    uint32_t k, std::vector<uint8_t>& out) noexcept {
  if (layout == kernels::layout_name(kernels::Layout::packed_s16)) {
    return "packed_s16 holds the scales: prepack it with the scales and the group size";
  }
  return prepack(layout, raw, {}, n, k, 0, out);
}

}  // namespace vktune::runtime
