// Family: the knob machinery and the legality checks every family shares; the registry's order.
#include "kernels/family.h"

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>
#include <tuple>

#include "kernels/catalogue_registry.h"
#include "kernels/families/q4gsw_layout.h"
#include "kernels/families/reference.h"

namespace vktune::kernels {

std::string check(const Constraints& c, const Problem& p) {
  auto multiple = [](const char* what, uint32_t value, uint32_t of, const char* knob) {
    if (of > 1 && value % of != 0) {
      return std::string(what) + "=" + std::to_string(value) + " is not a multiple of " +
             std::to_string(of) + " (" + knob + ")";
    }
    return std::string();
  };
  const char* k_name = op_descriptor(p.op).k_name.data();
  if (auto e = multiple(k_name, p.k, c.k_multiple, "k_multiple"); !e.empty()) return e;
  if (auto e = multiple("group_size", p.group_size, c.gs_multiple, "gs_multiple"); !e.empty()) {
    return e;
  }
  if (c.gs_power_of_two && !std::has_single_bit(p.group_size)) {
    return "gs=" + std::to_string(p.group_size) +
           " is not a power of two (gs_power_of_two: the variant finds a block's scale by a shift)";
  }
  if (auto e = multiple("N", p.n, c.n_multiple, "n_multiple"); !e.empty()) return e;
  if (p.m < c.m_min) {
    return "M=" + std::to_string(p.m) + " is below this variant's m_min=" +
           std::to_string(c.m_min);
  }
  if (c.m_max != 0 && p.m > c.m_max) {
    return "M=" + std::to_string(p.m) + " is above this variant's m_max=" +
           std::to_string(c.m_max);
  }
  if (c.k_max != 0 && p.k > c.k_max) {
    return std::string(k_name) + "=" + std::to_string(p.k) +
           " is above this variant's k_max=" + std::to_string(c.k_max) +
           " (what it holds per workgroup)";
  }
  if (p.k < c.k_min) {
    return std::string(k_name) + "=" + std::to_string(p.k) +
           " is below this variant's k_min=" + std::to_string(c.k_min) +
           " (part of what it holds or splits would idle; a smaller variant does the same work)";
  }
  if (p.kv_heads != 0 && (p.heads / p.kv_heads) % c.head_group_multiple != 0) {
    return "the " + std::to_string(p.heads / p.kv_heads) + " query heads per KV head (heads " +
           std::to_string(p.heads) + " / kv_heads " + std::to_string(p.kv_heads) +
           ") are not a multiple of this variant's head_group_multiple=" +
           std::to_string(c.head_group_multiple) + " (its workgroup's heads share one KV head)";
  }
  if (p.n < c.n_min) {
    return "N=" + std::to_string(p.n) +
           " is below this variant's n_min=" + std::to_string(c.n_min) +
           " (its splits would take fewer than two blocks each)";
  }
  if (!c.split.split_allowed(p.m, p.n)) {
    // A tile without rows (a split GEMV) takes every row of M.
    const std::string rows = c.split.m == 0 ? "M" : std::to_string(c.split.m);
    return std::to_string(c.split.count(p.m, p.n)) + " output tiles of " + rows + "x" +
           std::to_string(c.split.n) + " already fill the GPU (split-K is for at most " +
           std::to_string(kMaxSplitTiles) + ")";
  }
  if (p.kv_heads == 0) return {};
  const uint32_t group = p.heads / p.kv_heads;
  if (const uint64_t rows = uint64_t{p.m} * group; rows < c.query_rows_min) {
    return "the " + std::to_string(rows) + " query rows a KV head serves (M x heads / kv_heads) " +
           "are below this variant's query_rows_min=" + std::to_string(c.query_rows_min) +
           " (its blocks of rows would pad more than half; fewer rows a block pad less)";
  }
  if (c.head_group_max != 0 && group > c.head_group_max) {
    return "the " + std::to_string(group) + " query heads per KV head are above this variant's " +
           "head_group_max=" + std::to_string(c.head_group_max) + " (a tile holds whole groups)";
  }
  if (const uint64_t tiles = c.split_tiles(p); tiles > kMaxSplitTiles) {
    return std::to_string(tiles) +
           " tiles of split_tile_rows=" + std::to_string(c.split_tile_rows) +
           " query rows already fill the GPU (a split over the cache is for at most " +
           std::to_string(kMaxSplitTiles) + ")";
  }
  return {};
}

Family::Family(std::string_view base_name, DType dtype, Op op, std::vector<KnobSpec> knobs)
    : name_(family_name(base_name, dtype)), dtype_(dtype), op_(op), knobs_(std::move(knobs)) {}

ShaderSpec Family::shader(const Knobs& knobs) const {
  ShaderSpec spec = source(knobs);
  if (dtype_ == DType::f16) spec.defines.emplace_back("F16", "1");
  const Requirements r = requirements(knobs);
  for (const GlslExtensionDesc& e : glsl_extension_descs()) {
    if (r.needs(e.extension)) spec.vulkan_minor = std::max(spec.vulkan_minor, e.vulkan_minor);
  }
  return spec;
}

Requirements Family::requirements(const Knobs& knobs) const {
  Requirements r = shader_requirements(knobs);
  if (dtype_ == DType::f16) r.add(Feature::storage_buffer_16bit);  // float_type.glsl
  return r;
}

double Family::arithmetic_tolerance(const Problem& problem) const {
  return fp32_tolerance(problem);
}

std::vector<double> Family::tolerance_on(const Problem& problem, std::span<const double>,
                                         const ProblemData&, const Reference& ref) const {
  return std::vector<double>(ref.values.size(), tolerance(problem));
}

double Family::tolerance(const Problem& problem) const {
  return arithmetic_tolerance(problem) +
         (problem.dtype == DType::f16 ? fp16_output_tolerance() : 0.0);
}

std::vector<Knobs> Family::all_variants() const {
  std::vector<Knobs> out;
  std::vector<size_t> index(knobs_.size(), 0);
  while (true) {
    Knobs k;
    for (size_t i = 0; i < knobs_.size(); ++i) k.push_back({knobs_[i].name, knobs_[i].values[index[i]]});
    if (combination_error(k).empty()) out.push_back(std::move(k));
    size_t i = knobs_.size();
    while (i > 0) {
      --i;
      if (++index[i] < knobs_[i].values.size()) break;
      index[i] = 0;
      if (i == 0) return out;
    }
    if (knobs_.empty()) return out;
  }
}

std::string Family::check_knobs(const Knobs& knobs) const {
  if (knobs.size() != knobs_.size()) {
    return name_ + " takes " + std::to_string(knobs_.size()) + " knobs, got " +
           std::to_string(knobs.size());
  }
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (knobs[i].name != knobs_[i].name) {
      return name_ + ": knob " + std::to_string(i) + " must be " + knobs_[i].name + ", got " +
             knobs[i].name;
    }
    bool found = false;
    for (const KnobValue& v : knobs_[i].values) found = found || v == knobs[i].value;
    if (!found) {
      std::string list;
      for (const KnobValue& v : knobs_[i].values) list += (list.empty() ? "" : ", ") + to_string(v);
      return name_ + ": " + knobs[i].name + "=" + to_string(knobs[i].value) +
             " is not one of {" + list + "}";
    }
  }
  return {};
}

std::string Family::key(const Knobs& knobs) const {
  if (std::string e = check_knobs(knobs); !e.empty()) throw BadKey(e);
  return kernels::key(name_, knobs);
}

Knobs Family::knobs_from_json(const nlohmann::json& object) const {
  if (!object.is_object()) throw BadKey(name_ + ": knobs must be a JSON object");
  Knobs knobs;
  for (const KnobSpec& spec : knobs_) {
    auto it = object.find(spec.name);
    if (it == object.end()) throw BadKey(name_ + ": knob " + spec.name + " is missing");
    if (it->is_number_integer()) {
      knobs.push_back({spec.name, KnobValue(it->get<int64_t>())});
    } else if (it->is_string()) {
      knobs.push_back({spec.name, KnobValue(it->get<std::string>())});
    } else {
      throw BadKey(name_ + ": knob " + spec.name + " must be an integer or a string");
    }
  }
  if (object.size() != knobs_.size()) throw BadKey(name_ + ": unknown knobs in " + object.dump());
  if (std::string e = check_knobs(knobs); !e.empty()) throw BadKey(e);
  return knobs;
}

Legality Family::legality(const Knobs& knobs, const Problem& p, const vk::DeviceInfo& device,
                          const CompilerSupport& compiler) const {
  auto no = [](std::string reason) { return Legality{false, std::move(reason)}; };
  if (std::string e = check_knobs(knobs); !e.empty()) return no(e);
  if (std::string e = combination_error(knobs); !e.empty()) return no(e);
  if (p.op != op_) {
    return no(name_ + " computes " + op_name(op_) + ", not " + op_name(p.op));
  }
  if (p.dtype != dtype_) {
    return no(name_ + " computes " + dtype_name(dtype_) + " problems, not " + dtype_name(p.dtype));
  }
  const Requirements needs = requirements(knobs);
  // The compiler first: a family this build cannot compile is unavailable on every device.
  if (std::string e = check(needs, compiler, name_); !e.empty()) return no(e);
  if (std::string e = check(needs, device, name_); !e.empty()) return no(e);
  if (std::string e = validate(p); !e.empty()) return no(e);
  if (std::string e = check(constraints(knobs), p); !e.empty()) return no(e);

  const vk::DeviceLimits& lim = device.limits;
  const uint32_t wg = workgroup_size(knobs);
  if (wg > lim.max_invocations || wg > lim.max_workgroup_size[0]) {
    return no("workgroup size " + std::to_string(wg) + " exceeds the device's limit of " +
              std::to_string(std::min(lim.max_invocations, lim.max_workgroup_size[0])) +
              " invocations");
  }
  if (const uint32_t shared = shared_bytes(knobs); shared > lim.max_shared_memory_bytes) {
    return no("needs " + std::to_string(shared) + " bytes of shared memory; " + device.name +
              " has " + std::to_string(lim.max_shared_memory_bytes) +
              " (maxComputeSharedMemorySize)");
  }
  const BindingSizes sizes = binding_sizes(p, layout(knobs));
  for (const BindingDesc& b : op_descriptor(p.op).bindings) {
    const uint64_t bytes =
        b.role == BufferRole::workspace ? workspace_bytes(knobs, p) : sizes.of(b.role);
    if (bytes > lim.max_storage_buffer_range) {
      return no(std::string(b.name) + " of " + describe(p) + " is " + std::to_string(bytes) +
                " bytes, more than one storage-buffer binding can address on " + device.name +
                " (maxStorageBufferRange = " + std::to_string(lim.max_storage_buffer_range) +
                " bytes); split the tensor");
    }
  }
  if (std::string e = device_error(knobs, p, device); !e.empty()) return no(e);
  return {};
}

std::string Family::unavailable_reason(const vk::DeviceInfo& device,
                                       const CompilerSupport& compiler) const {
  std::string first;
  for (const Knobs& knobs : all_variants()) {
    const Requirements needs = requirements(knobs);
    std::string e = check(needs, compiler, name_);
    if (e.empty()) e = check(needs, device, name_);
    if (e.empty()) return {};
    if (first.empty()) first = std::move(e);
  }
  return first;
}

std::span<const Family* const> families() {
  static const std::vector<const Family*> all = [] {
    std::vector<const Family*> v = registry::families();
    std::sort(v.begin(), v.end(), [](const Family* a, const Family* b) {
      return std::tuple(a->op(), a->dtype(), std::string_view(a->name())) <
             std::tuple(b->op(), b->dtype(), std::string_view(b->name()));
    });
    return v;
  }();
  return all;
}

std::string family_name(std::string_view base_name, DType dtype) {
  return std::string(base_name) + (dtype == DType::f16 ? "_f16" : "");
}

bool is_baseline(const Family& family) {
  const std::string_view base = op_descriptor(family.op()).baseline_family;
  return !base.empty() && family.name() == family_name(base, family.dtype());
}

bool is_baseline(std::string_view family_name) {
  const Family* family = find_family(family_name);
  return family != nullptr && is_baseline(*family);
}

const Family* find_family(std::string_view name) {
  for (const Family* f : families()) {
    if (f->name() == name) return f;
  }
  return nullptr;
}

}  // namespace vktune::kernels
