// A kernel family as data: its knobs and their candidate values, which variants are legal for
// a problem on a device (checked before anything is compiled), the constraints a stored
// variant carries for the runtime, the weight layout it needs, its shader and dispatch
// geometry. Descriptors in kernels/families/*.cpp, each file registered with one line
// (kernels/catalogue_registry.h); families() at the bottom.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernels/constraints_json.h"
#include "kernels/knobs.h"
#include "kernels/op.h"
#include "kernels/output_tile.h"
#include "kernels/problem.h"
#include "kernels/requirements.h"
#include "kernels/shader_spec.h"
#include "kernels/device_info.h"

namespace vktune::kernels {

struct ProblemData;  // kernels/families/reference.h
struct Reference;

struct KnobSpec {
  std::string name;
  std::vector<KnobValue> values;  // candidates, in sweep order
};

struct Legality {
  bool ok = true;
  std::string reason;  // empty when ok; otherwise names the value, the limit and the knob
  explicit operator bool() const noexcept { return ok; }
};

// Empty when `problem` satisfies `c`, else e.g. "K=96 is not a multiple of 32 (k_multiple)".
std::string check(const Constraints& c, const Problem& problem);

class Family {
 public:
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  // The base name, with "_f16" appended for the fp16 instance: "q4gsw_gemv_f16".
  const std::string& name() const noexcept { return name_; }
  Op op() const noexcept { return op_; }
  // The dtype of the problems it computes: one shader source serves both, F16 selects.
  DType dtype() const noexcept { return dtype_; }
  // Knob specs in declared (key) order.
  const std::vector<KnobSpec>& knob_specs() const noexcept { return knobs_; }

  // Cartesian product of the candidates, minus combinations no shape or device could use.
  std::vector<Knobs> all_variants() const;
  // The canonical key of `knobs` for this family (checks them first; throws BadKey).
  std::string key(const Knobs& knobs) const;
  // Empty when `knobs` names exactly this family's knobs, in order, with candidate values.
  std::string check_knobs(const Knobs& knobs) const;
  // Knobs from a JSON object {"wg": 128, "layout": "raw", ...}, in declared order. Throws
  // BadKey when a knob is missing, unknown or has a bad value.
  Knobs knobs_from_json(const nlohmann::json& object) const;

  // Whether the variant can run `problem` on `device` when compiled by a shader compiler that
  // accepts `compiler`'s GLSL extensions (the default, none, is Debian 12's shaderc; the tuner
  // passes what kernels/vk/compiler_probe.h found in the one it links): knobs, dtype, GLSL
  // extensions, device features (16-bit storage for f16, ...), problem validity, constraints,
  // workgroup and shared-memory limits, storage-buffer range of every binding.
  // Pure: no Vulkan or compiler calls, so it works on fake DeviceInfo.
  Legality legality(const Knobs& knobs, const Problem& problem, const vk::DeviceInfo& device,
                    const CompilerSupport& compiler = {}) const;
  // Why no variant can run on `device` with `compiler`, whatever the problem: the first
  // variant's unmet requirement (a GLSL extension the compiler lacks, then a device feature)
  // when every variant has one; empty when some variant might run. What the CLI prints for a
  // family it cannot offer.
  std::string unavailable_reason(const vk::DeviceInfo& device,
                                 const CompilerSupport& compiler = {}) const;

  // The device features the variant's shader needs (16-bit storage for f16, then the
  // family's own) and the GLSL extensions its compiler must accept: what legality checks and
  // (the features) what an engine must enable to run it.
  Requirements requirements(const Knobs& knobs) const;

  // Every shape rule of the variant, as data: legality, the runtime's select and its dispatch
  // plan all check these, so a variant tuned on one shape never answers one it cannot run.
  virtual Constraints constraints(const Knobs& knobs) const = 0;
  virtual Layout layout(const Knobs& knobs) const = 0;
  virtual uint32_t workgroup_size(const Knobs& knobs) const = 0;
  // Shared memory the shader declares, in bytes.
  virtual uint32_t shared_bytes(const Knobs& knobs) const = 0;
  // The family's source and knob defines, plus F16=1 for the fp16 instance.
  ShaderSpec shader(const Knobs& knobs) const;
  // Workgroups to dispatch, each dimension clamped to the device's maxComputeWorkGroupCount:
  // the shaders grid-stride past it.
  virtual std::array<uint32_t, 3> groups(const Knobs& knobs, const Problem& problem,
                                         const vk::DeviceInfo& device) const = 0;
  // The output block a workgroup computes whole, padding at the edges included, over the op's
  // OutputGrid; {} for families that compute only real outputs (kernels/output_tile.h).
  virtual OutputTile output_tile(const Knobs&) const { return {}; }
  // The block of outputs a K split hands over whole, with its slices: what the split's rule
  // counts (OutputTile::split_allowed, which the tuner and the runtime both apply). The output
  // tile where the family tiles its output; a split GEMV, which pads nothing, names its
  // workgroup's outputs along N.
  virtual OutputTile split_tile(const Knobs& k) const { return output_tile(k); }
  // Bytes of the workspace (binding 5 of the q4gsw kernels) one instance needs for
  // `problem`; 0 for none. It is zeroed when the instance is created, and a kernel that uses
  // part of it as counters leaves them zero when its dispatch ends.
  virtual uint64_t workspace_bytes(const Knobs&, const Problem&) const { return 0; }
  // Correctness-gate tolerance relative to the per-output bound (kernels/families/reference.h):
  // the arithmetic's, plus fp16_output_tolerance when the output is stored as fp16.
  double tolerance(const Problem& problem) const;
  // tolerance() per output for given inputs rather than the gate's (`x` [rows, K] as the kernel
  // reads it, `data`'s weights, `ref` the reference of those rows; the layer check's): the same
  // for every output, unless the arithmetic's error depends on how x is spread, as rounding it
  // to int8 does (q4gsw_gemv_i8dot).
  virtual std::vector<double> tolerance_on(const Problem& problem, std::span<const double> x,
                                           const ProblemData& data, const Reference& ref) const;

 protected:
  // `base_name` gets "_f16" appended for dtype f16.
  Family(std::string_view base_name, DType dtype, Op op, std::vector<KnobSpec> knobs);
  // The source and the defines of the knobs (F16 is added by shader()).
  virtual ShaderSpec source(const Knobs& knobs) const = 0;
  // fp32_tolerance unless the family computes in lower precision.
  virtual double arithmetic_tolerance(const Problem& problem) const;
  // Why a knob combination is useless for every shape and device; empty when it is fine.
  virtual std::string combination_error(const Knobs&) const { return {}; }
  // The family's own feature requirements (subgroup operations, cooperative matrix, ...).
  virtual Requirements shader_requirements(const Knobs&) const { return {}; }
  // Family-specific device checks beyond the features (cooperative-matrix shapes, ...).
  virtual std::string device_error(const Knobs&, const Problem&, const vk::DeviceInfo&) const {
    return {};
  }

 private:
  std::string name_;
  DType dtype_;
  Op op_;
  std::vector<KnobSpec> knobs_;
};

// The name of a family's instance for `dtype`: "q4gsw_gemv", "q4gsw_gemv_f16".
std::string family_name(std::string_view base_name, DType dtype);

// Whether the family is its op's baseline (OpDescriptor::baseline_family, in the family's
// dtype), the naive kernel speedups are quoted against. By name: false for a family the
// catalogue does not know.
bool is_baseline(const Family& family);
bool is_baseline(std::string_view family_name);

// Every family, ordered by (op as all_ops() orders them, dtype, name): the order the cost
// model's feature columns, sweeps and listings follow (tests/kernels/family_test.cpp pins it).
// The descriptors are immutable statics: thread-safe.
std::span<const Family* const> families();
// The family named `name`, or nullptr.
const Family* find_family(std::string_view name);

// Divides rounding up.
constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace vktune::kernels
