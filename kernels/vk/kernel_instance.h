// One variant ready to run one problem: legality checked, shader compiled, pipeline created,
// inputs uploaded in the variant's weight layout, output poisoned with NaN. What the tuner
// times and checks and what an engine dispatches.
#pragma once

#include <array>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/family.h"
#include "kernels/families/reference.h"
#include "kernels/vk/problem_buffers.h"
#include "kernels/vk/shader_compiler.h"
#include "kernels/vk/buffer.h"
#include "kernels/vk/command_buffer.h"
#include "kernels/vk/device.h"
#include "kernels/vk/pipeline.h"

namespace vktune::kernels {

// A variant that legality rejected for a problem on a device; what() is the reason.
class IllegalVariant : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Pipelines by variant key, so that many instances of one variant (one per shape, say) pay for
// the driver's shader compilation once; created through `driver_cache` (the driver's
// VkPipelineCache, PipelineCacheFile) where given. Thread-safe: pipelines of different keys are
// created concurrently (the lock is not held while the driver compiles), and a thread asking
// for a key another is creating waits for that one instead of creating it twice (a tuner's
// background pool and its measuring loop ask for the same keys). Must not outlive the device or
// the driver cache.
class PipelineCache {
 public:
  explicit PipelineCache(VkPipelineCache driver_cache = VK_NULL_HANDLE)
      : driver_cache_(driver_cache) {}

  // Throws what creating it threw (vk::Error), to every thread that waited for it; a failed key
  // is not kept, so the next ask tries again.
  std::shared_ptr<const vk::ComputePipeline> get_or_create(
      const vk::Device& device, const std::string& key, vk::PipelineDesc desc);
  // Pipelines created (those in the making not counted).
  size_t size() const;
  // Pipelines the driver reported finding in driver_cache (ComputePipeline::from_driver_cache).
  size_t driver_cache_hits() const;

 private:
  using Made = std::shared_future<std::shared_ptr<const vk::ComputePipeline>>;
  // The created pipelines, each with its flag of the driver's cache (read without waiting).
  std::vector<std::shared_ptr<const vk::ComputePipeline>> created() const;

  VkPipelineCache driver_cache_;
  mutable std::mutex mutex_;
  std::map<std::string, Made> pipelines_;
};

class KernelInstance {
 public:
  // Buffers an instance binds instead of its own: `out` replaces the instance's own output
  // ([M, N] at least). Not owned: they must outlive the instance.
  // An external output is the caller's: create() does not poison it (record_poison() does).
  // `workspace` replaces the instance's own split-K workspace (Family::workspace_bytes), so
  // that many instances of one problem share one; the caller zeroes it (record_poison()).
  struct ExternalBuffers {
    vk::Buffer* out = nullptr;  // written by the dispatch and by reset_output()
    vk::Buffer* workspace = nullptr;
  };

  // Throws IllegalVariant with Family::legality's reason (for the linked compiler,
  // kernels/vk/compiler_probe.h), InvalidProblem for a bad problem,
  // CompileError when the shader does not compile, vk::Error on Vulkan failures.
  // `weight_copies` (>= 1) identical copies of the weight and scales are uploaded; record()
  // picks one, so a timing loop can rotate among them and read weights cold from memory.
  // `device` (and `cache`, if given) must outlive the instance. `data` is not retained.
  static KernelInstance create(vk::Device& device, ShaderCompiler& compiler, const Family& family,
                               const Knobs& knobs, const Problem& problem,
                               const ProblemData& data, uint32_t weight_copies = 1,
                               PipelineCache* cache = nullptr);
  // The same over inputs already uploaded in the variant's layout (shared among variants).
  // Throws std::invalid_argument when `inputs` hold another problem or layout.
  static KernelInstance create(vk::Device& device, ShaderCompiler& compiler, const Family& family,
                               const Knobs& knobs, const Problem& problem,
                               std::shared_ptr<const ProblemBuffers> inputs,
                               PipelineCache* cache = nullptr);
  // The same binding `external` buffers (see ExternalBuffers); throws std::invalid_argument
  // when one is too small.
  static KernelInstance create(vk::Device& device, ShaderCompiler& compiler, const Family& family,
                               const Knobs& knobs, const Problem& problem,
                               std::shared_ptr<const ProblemBuffers> inputs,
                               const ExternalBuffers& external, PipelineCache* cache = nullptr);

  // Compiles the variant and creates its pipeline (through `cache` when given) without
  // binding any data: lets a tuner build pipelines ahead, on several threads.
  static std::shared_ptr<const vk::ComputePipeline> pipeline(const vk::Device& device,
                                                             ShaderCompiler& compiler,
                                                             const Family& family,
                                                             const Knobs& knobs,
                                                             PipelineCache* cache = nullptr);

  KernelInstance(KernelInstance&&) noexcept = default;
  KernelInstance& operator=(KernelInstance&&) noexcept = default;
  KernelInstance(const KernelInstance&) = delete;
  KernelInstance& operator=(const KernelInstance&) = delete;

  // Records the dispatch reading weight copy `copy_index` (< weight_copies()). No barrier:
  // the caller puts one between dependent dispatches.
  void record(vk::CommandBuffer& commands, uint32_t copy_index = 0) const;
  // An op whose N is a length (OpDescriptor::n_is_length; sdpa: attend the first `length`
  // cache positions): N = `length` from the next record() on, with the same pipeline and
  // buffers (a decode loop's growing cache). Throws std::invalid_argument unless the op's N is
  // a length and M <= length <= the N it was created for (what its buffers hold).
  void set_length(uint32_t length);
  // Fills the output (the external one when bound) with NaN again (blocks).
  void reset_output();
  // Records what reset_output() does, and zeroes the part of the workspace this variant uses,
  // so a tuner can poison, dispatch and read back many instances in one submission. Puts no
  // barrier after it.
  void record_poison(vk::CommandBuffer& commands) const;
  // Zeroes the part of the workspace this variant uses (nothing without one); no barrier after.
  // A split variant counts its workgroups' arrivals in the workspace and leaves the counters at
  // zero, which its next dispatch relies on: after another instance has used a shared
  // workspace (other tiles, other counters: its partials sit where these counters are), this
  // must run before the next dispatch of this one, or its workgroups miscount, skip the final
  // reduction and leave the output unwritten.
  void record_workspace_reset(vk::CommandBuffer& commands) const;
  bool has_workspace() const noexcept { return workspace_bytes_ > 0; }
  // The output [M, N] buffer (the external one when bound), for a caller's own read-back.
  const vk::Buffer& output_buffer() const noexcept { return output(); }
  // The output [M, N] (blocks; call after the submission finished).
  std::vector<float> download_output() const;

  // Bytes one dispatch must move at least: weight (in its layout) + scales + x + out + bias
  // (rms_norm: x + out + w). For GB/s.
  uint64_t bytes_moved() const noexcept { return bytes_moved_; }
  // 2*M*N*K for q4gsw, 3*M*N for rms_norm.
  double flops() const noexcept;

  const std::string& key() const noexcept { return key_; }
  const Family& family() const noexcept { return *family_; }
  const Problem& problem() const noexcept { return problem_; }
  uint32_t weight_copies() const noexcept { return static_cast<uint32_t>(sets_.size()); }
  std::array<uint32_t, 3> groups() const noexcept { return groups_; }

 private:
  KernelInstance() = default;
  const vk::Buffer& output() const noexcept { return external_out_ ? *external_out_ : *output_; }
  vk::Buffer& output() noexcept { return external_out_ ? *external_out_ : *output_; }

  const Family* family_ = nullptr;
  Problem problem_;
  std::string key_;
  std::array<uint32_t, 3> groups_{};
  std::vector<std::byte> push_;
  uint64_t bytes_moved_ = 0;
  std::shared_ptr<const vk::ComputePipeline> pipeline_;
  std::shared_ptr<const ProblemBuffers> inputs_;
  std::optional<vk::Buffer> output_;          // unless an external output is bound
  std::optional<vk::Buffer> workspace_;       // q4gsw: binding 5 (Family::workspace_bytes)
  uint64_t workspace_bytes_ = 0;              // of it, what this variant uses
  vk::Buffer* external_out_ = nullptr;  // not owned
  vk::Buffer* external_workspace_ = nullptr;  // not owned
  std::vector<vk::DescriptorSet> sets_;  // one per weight copy
};

}  // namespace vktune::kernels
