// What an engine does with vktune, in C++: at graph build time it asks the runtime which variant
// runs a q4gsw node on its VkDevice, how to dispatch it and how to prepack the weights; then it
// runs the returned SPIR-V with its own Vulkan code (here vulkan_raii.hpp) and, being an example,
// checks the result against a CPU reference. Usage: run_q4gsw DB M N K GS
// VKTUNE_FORCE_BUILTIN=1 runs the built-in variants (the runtime's own SPIR-V) instead.
#include <vktune/runtime/builtin.h>
#include <vktune/runtime/dispatch.h>
#include <vktune/runtime/environment.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>
#include <vulkan/vulkan_raii.hpp>

namespace rt = vktune::runtime;

namespace {

int validation_messages = 0;  // warnings and errors of the validation layer, when it is on

VKAPI_ATTR VkBool32 VKAPI_CALL count_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data,
                                             void*) {
  std::fprintf(stderr, "validation: %s\n", data->pMessage);
  ++validation_messages;
  return VK_FALSE;
}

// One storage buffer in host-visible memory, mapped for the whole run (lavapipe's memory is all
// host-visible; a discrete GPU's engine would stage through device-local memory instead).
struct HostBuffer {
  vk::raii::Buffer buffer;
  vk::raii::DeviceMemory memory;
  void* data;
};

HostBuffer make_buffer(const vk::raii::PhysicalDevice& gpu, const vk::raii::Device& device,
                       vk::DeviceSize bytes) {
  vk::raii::Buffer buffer(device, {{}, bytes, vk::BufferUsageFlagBits::eStorageBuffer});
  const vk::MemoryRequirements need = buffer.getMemoryRequirements();
  const auto host =
      vk::MemoryPropertyFlagBits::eHostVisible | vk::MemoryPropertyFlagBits::eHostCoherent;
  const vk::PhysicalDeviceMemoryProperties types = gpu.getMemoryProperties();
  uint32_t type = 0;
  while (!((need.memoryTypeBits >> type) & 1) ||
         (types.memoryTypes[type].propertyFlags & host) != host) {
    if (++type == types.memoryTypeCount) throw std::runtime_error("no host-visible memory");
  }
  vk::raii::DeviceMemory memory(device, {need.size, type});
  buffer.bindMemory(*memory, 0);
  void* data = memory.mapMemory(0, VK_WHOLE_SIZE);
  std::memset(data, 0, bytes);
  return {std::move(buffer), std::move(memory), data};
}

// The device features the plan names, checked on `gpu` and enabled in `chain` (and `extensions`)
// — exactly those, nothing more. Returns why the device cannot run the variant, or "".
using FeatureChain = vk::StructureChain<vk::DeviceCreateInfo, vk::PhysicalDeviceVulkan11Features,
                                        vk::PhysicalDeviceVulkan12Features,
                                        vk::PhysicalDeviceVulkan13Features,
                                        vk::PhysicalDeviceCooperativeMatrixFeaturesNV>;
std::string enable_features(const vk::raii::PhysicalDevice& gpu, const rt::DispatchPlan& plan,
                            FeatureChain& chain, std::vector<const char*>& extensions) {
  const auto has = gpu.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan11Features,
                                    vk::PhysicalDeviceVulkan12Features>();
  const auto subgroup = gpu.getProperties2<vk::PhysicalDeviceProperties2,
                                           vk::PhysicalDeviceSubgroupProperties>()
                            .get<vk::PhysicalDeviceSubgroupProperties>();
  chain.unlink<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>();
  // Vulkan 1.3's feature struct is known to 1.3 devices only: a 1.2 one gets neither the query
  // nor the struct in its create info.
  const bool vulkan13 = gpu.getProperties().apiVersion >= VK_API_VERSION_1_3;
  if (!vulkan13) chain.unlink<vk::PhysicalDeviceVulkan13Features>();
  for (const std::string& name : plan.required_features) {
    bool supported = false;
    if (name == "storageBuffer16BitAccess") {
      supported = has.get<vk::PhysicalDeviceVulkan11Features>().storageBuffer16BitAccess;
      chain.get<vk::PhysicalDeviceVulkan11Features>().storageBuffer16BitAccess = true;
    } else if (name == "shaderFloat16") {
      supported = has.get<vk::PhysicalDeviceVulkan12Features>().shaderFloat16;
      chain.get<vk::PhysicalDeviceVulkan12Features>().shaderFloat16 = true;
    } else if (name == "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT") {
      supported = (subgroup.supportedOperations & vk::SubgroupFeatureFlagBits::eArithmetic) &&
                  (subgroup.supportedStages & vk::ShaderStageFlagBits::eCompute);
    } else if (name == VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) {
      for (const vk::ExtensionProperties& e : gpu.enumerateDeviceExtensionProperties()) {
        supported = supported || name == e.extensionName.data();
      }
      supported = supported && gpu.getFeatures2<vk::PhysicalDeviceFeatures2,
                                                vk::PhysicalDeviceCooperativeMatrixFeaturesNV>()
                                   .get<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>()
                                   .cooperativeMatrix;
      extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
      chain.relink<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>();
      chain.get<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>().cooperativeMatrix = true;
    } else if (name == "shaderIntegerDotProduct") {
      supported = vulkan13 && gpu.getFeatures2<vk::PhysicalDeviceFeatures2,
                                               vk::PhysicalDeviceVulkan13Features>()
                                  .get<vk::PhysicalDeviceVulkan13Features>()
                                  .shaderIntegerDotProduct;
      chain.get<vk::PhysicalDeviceVulkan13Features>().shaderIntegerDotProduct = true;
    }  // a name this example does not know stays unsupported
    if (!supported) return "the variant needs " + name + ", which this device lacks";
  }
  const uint32_t size = subgroup.subgroupSize;
  if (plan.required_subgroup_size != 0 && size != plan.required_subgroup_size) {
    return "the variant needs subgroup size " + std::to_string(plan.required_subgroup_size) +
           "; this device has " + std::to_string(size);
  }
  if (plan.subgroup_size_divides != 0 && plan.subgroup_size_divides % size != 0) {
    return "the variant needs a subgroup size dividing " +
           std::to_string(plan.subgroup_size_divides) + "; this device has " + std::to_string(size);
  }
  return {};
}

// Random q4gsw inputs in the raw layout: x [M, K], weights [N, K/2], scales [K/gs, N].
struct Inputs {
  std::vector<float> x, scales;
  std::vector<uint8_t> raw;
};

Inputs random_inputs(const rt::ProblemQuery& problem) {
  std::mt19937 random(problem.m * 7919u + problem.n * 31u + problem.k);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  Inputs in{std::vector<float>(size_t{problem.m} * problem.k),
            std::vector<float>(size_t{problem.k / problem.group_size} * problem.n),
            std::vector<uint8_t>(size_t{problem.n} * (problem.k / 2))};
  for (float& v : in.x) v = uniform(random);
  // fp16 values (multiples of 2^-10 in [0.5, 1.5]), as engines ship int4 scales: the
  // packed_s16 layout stores them as fp16, and then the reference below still holds exactly.
  for (float& v : in.scales) v = std::ldexp(std::round(std::ldexp(1.0f + 0.5f * uniform(random), 10)), -10);
  for (uint8_t& b : in.raw) b = uint8_t(random());
  return in;
}

// One dispatch of the selection's SPIR-V as the plan says, over `buffers` (one per binding of the
// plan), waited for.
void dispatch_once(const vk::raii::Device& vk_device, uint32_t family, const rt::DispatchPlan& plan,
                   const rt::Selection& s, const std::vector<HostBuffer>& buffers,
                   const std::vector<vk::DescriptorSetLayoutBinding>& layout_bindings) {
  const vk::raii::DescriptorSetLayout set_layout_owner(vk_device, {{}, layout_bindings});
  const vk::DescriptorSetLayout set_layout = *set_layout_owner;
  const vk::PushConstantRange push_range(vk::ShaderStageFlagBits::eCompute, 0,
                                         uint32_t(plan.push_constants.size()));
  const vk::raii::PipelineLayout layout(vk_device, {{}, set_layout, push_range});
  const vk::raii::ShaderModule shader(
      vk_device, {{}, s.spirv.size(), reinterpret_cast<const uint32_t*>(s.spirv.data())});
  // The selection's specialisation constants, each value read in place from its pair.
  std::vector<vk::SpecializationMapEntry> entries;
  for (size_t i = 0; i < s.specialization.size(); ++i) {
    entries.emplace_back(s.specialization[i].constant_id,
                         uint32_t(i * sizeof(vktune::SpecConstant) +
                                  offsetof(vktune::SpecConstant, value)),
                         sizeof(uint32_t));
  }
  const vk::SpecializationInfo specialization(uint32_t(entries.size()), entries.data(),
                                              s.specialization.size_bytes(),
                                              s.specialization.data());
  const vk::raii::Pipeline pipeline(
      vk_device, nullptr,
      vk::ComputePipelineCreateInfo(
          {}, {{}, vk::ShaderStageFlagBits::eCompute, *shader, "main", &specialization},
          *layout));

  const vk::DescriptorPoolSize pool_size(vk::DescriptorType::eStorageBuffer,
                                         uint32_t(plan.bindings.size()));
  const vk::raii::DescriptorPool pool(
      vk_device, {vk::DescriptorPoolCreateFlagBits::eFreeDescriptorSet, 1, pool_size});
  const vk::raii::DescriptorSet set =
      std::move(vk::raii::DescriptorSets(vk_device, {*pool, set_layout}).front());
  std::vector<vk::DescriptorBufferInfo> infos;
  for (const HostBuffer& buffer : buffers) infos.push_back({*buffer.buffer, 0, VK_WHOLE_SIZE});
  std::vector<vk::WriteDescriptorSet> writes;
  for (uint32_t i = 0; i < infos.size(); ++i) {
    writes.push_back(
        {*set, plan.bindings[i].binding, 0, vk::DescriptorType::eStorageBuffer, {}, infos[i]});
  }
  vk_device.updateDescriptorSets(writes, nullptr);

  const vk::raii::CommandPool commands(vk_device, {{}, family});
  const vk::raii::CommandBuffer cmd = std::move(
      vk::raii::CommandBuffers(vk_device, {*commands, vk::CommandBufferLevel::ePrimary, 1})
          .front());
  cmd.begin({vk::CommandBufferUsageFlagBits::eOneTimeSubmit});
  cmd.bindPipeline(vk::PipelineBindPoint::eCompute, *pipeline);
  cmd.bindDescriptorSets(vk::PipelineBindPoint::eCompute, *layout, 0, *set, nullptr);
  cmd.pushConstants<std::byte>(*layout, vk::ShaderStageFlagBits::eCompute, 0, plan.push_constants);
  cmd.dispatch(plan.groups[0], plan.groups[1], plan.groups[2]);
  const vk::MemoryBarrier to_host(vk::AccessFlagBits::eShaderWrite, vk::AccessFlagBits::eHostRead);
  cmd.pipelineBarrier(vk::PipelineStageFlagBits::eComputeShader, vk::PipelineStageFlagBits::eHost,
                      {}, to_host, nullptr, nullptr);
  cmd.end();
  const vk::raii::Queue queue(vk_device, family, 0);
  const vk::CommandBuffer cmd_handle = *cmd;
  queue.submit(vk::SubmitInfo({}, {}, cmd_handle));
  queue.waitIdle();
}

// The largest error of `out` against the CPU reference in double, relative to sum_k |x w|.
double reference_error(const rt::ProblemQuery& problem, const Inputs& in, const float* out) {
  // The CPU reference in double: out[m, n] = sum_k x[m, k] (q(n, k) - 8) scale[k / gs, n], with
  // q(n, k) the low nibble of byte k/2 of row n for even k; each error is measured against
  // sum_k |x w|, so the tolerance does not depend on the data's cancellation.
  double max_error = 0;
  for (uint32_t m = 0; m < problem.m; ++m) {
    for (uint32_t n = 0; n < problem.n; ++n) {
      double sum = 0, bound = 0;
      for (uint32_t k = 0; k < problem.k; ++k) {
        const int q = (in.raw[size_t{n} * (problem.k / 2) + k / 2] >> (4 * (k % 2))) & 0xF;
        const double w = (q - 8) * double{in.scales[size_t{k / problem.group_size} * problem.n + n]};
        sum += in.x[size_t{m} * problem.k + k] * w;
        bound += std::abs(in.x[size_t{m} * problem.k + k] * w);
      }
      const double e = std::abs(out[size_t{m} * problem.n + n] - sum) / (bound + 1e-30);
      max_error = std::isnan(e) ? INFINITY : std::max(max_error, e);
    }
  }
  return max_error;
}

// What the engine knows of its device, as the runtime asks it.
rt::DeviceQuery device_query(
    const vk::StructureChain<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceDriverProperties>& chain) {
  const vk::PhysicalDeviceProperties& props = chain.get<vk::PhysicalDeviceProperties2>().properties;
  rt::DeviceQuery device{
      .vendor_id = props.vendorID,
      .device_id = props.deviceID,
      .driver_id = uint32_t(chain.get<vk::PhysicalDeviceDriverProperties>().driverID),
      .driver_version = props.driverVersion,
      .device_type = rt::DeviceType(props.deviceType),
      .name = props.deviceName.data()};
  std::copy_n(props.pipelineCacheUUID.data(), VK_UUID_SIZE, device.pipeline_cache_uuid.begin());
  return device;
}

// One host-visible buffer per binding of the plan, the inputs copied in and the output poisoned
// with NaN; returns the output's mapping.
const float* bind_inputs(const vk::raii::PhysicalDevice& gpu, const vk::raii::Device& vk_device,
                         const rt::DispatchPlan& plan, const std::vector<float>& x,
                         const std::vector<float>& scales, const std::vector<uint8_t>& weights,
                         std::vector<HostBuffer>& buffers,
                         std::vector<vk::DescriptorSetLayoutBinding>& layout_bindings) {
  const float* out = nullptr;
  for (const rt::BindingPlan& b : plan.bindings) {
    HostBuffer& buffer = buffers.emplace_back(make_buffer(gpu, vk_device, b.alloc_bytes));
    if (b.name == "x") std::memcpy(buffer.data, x.data(), b.bytes);
    if (b.name == "weight") std::memcpy(buffer.data, weights.data(), b.bytes);
    if (b.name == "scales") std::memcpy(buffer.data, scales.data(), b.bytes);
    if (b.name == "out") {  // NaN: an output the variant never writes cannot pass
      std::fill_n(static_cast<float*>(buffer.data), b.bytes / 4, NAN);
      out = static_cast<const float*>(buffer.data);
    }
    layout_bindings.push_back(
        {b.binding, vk::DescriptorType::eStorageBuffer, 1, vk::ShaderStageFlagBits::eCompute});
  }
  return out;
}

int run(const char* db_path, const rt::ProblemQuery& problem) {
  vk::raii::Context context;
  // 1.3 for shaderIntegerDotProduct (the int8-dot GEMVs); a 1.2 device still runs the rest.
  const vk::ApplicationInfo app("run_q4gsw", 1, nullptr, 0, VK_API_VERSION_1_3);
  const char* debug_utils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  const vk::raii::Instance instance(context, vk::InstanceCreateInfo({}, &app, {}, debug_utils));
  using Severity = vk::DebugUtilsMessageSeverityFlagBitsEXT;
  using Type = vk::DebugUtilsMessageTypeFlagBitsEXT;
  const vk::raii::DebugUtilsMessengerEXT messenger(
      instance, {{},
                 Severity::eWarning | Severity::eError,
                 Type::eGeneral | Type::eValidation | Type::ePerformance,
                 count_message});
  const vk::raii::PhysicalDevice gpu = std::move(vk::raii::PhysicalDevices(instance).front());
  const auto chain =
      gpu.getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceDriverProperties>();
  const vk::PhysicalDeviceProperties& props = chain.get<vk::PhysicalDeviceProperties2>().properties;

  // Graph build: the databases (the application's, under any VKTUNE_DB), the variant for this
  // device and shape, its dispatch plan and the weights in its layout.
  std::string error;
  const auto app_db = rt::Snapshot::load(db_path, &error);
  const auto db = app_db ? rt::layers_from_environment({app_db}, &error) : nullptr;
  if (!db) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const rt::DeviceQuery device = device_query(chain);
  rt::Selection s = db->select(device, problem);
  if (s.ok() && s.spirv.empty()) {
    // The database names a variant without its SPIR-V; with no shader compiler, take the
    // built-in answer, which always carries it.
    std::printf("%s: no SPIR-V in the database, using the built-in variant\n",
                s.variant_key.data());
    rt::select_builtin(problem, s);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "select: %s\n", s.error.data());
    return 1;
  }
  const auto& max_groups = props.limits.maxComputeWorkGroupCount;
  const rt::DispatchPlan plan =
      rt::plan_dispatch(s, problem, {max_groups[0], max_groups[1], max_groups[2]});
  if (!plan.ok()) {
    std::fprintf(stderr, "plan: %s\n", plan.error.c_str());
    return 1;
  }
  std::string features;
  for (const std::string& f : plan.required_features) features += " " + f;
  std::printf("%s (device %s, shape %s): groups %u x %u x %u, features:%s\n",
              s.variant_key.data(), std::string(rt::to_string(s.device_match)).c_str(),
              std::string(rt::to_string(s.shape_match)).c_str(), plan.groups[0], plan.groups[1],
              plan.groups[2], features.empty() ? " none" : features.c_str());

  const Inputs in = random_inputs(problem);
  const auto& [x, scales, raw] = in;
  std::vector<uint8_t> weights;
  const std::string prepacked =
      rt::prepack(plan.layout, raw, scales, problem.n, problem.k, problem.group_size, weights);
  if (!prepacked.empty()) {
    std::fprintf(stderr, "prepack: %s\n", prepacked.c_str());
    return 1;
  }

  // The engine's own Vulkan: a device, one buffer per binding of the plan, the returned SPIR-V.
  const auto families = gpu.getQueueFamilyProperties();
  const auto compute = std::ranges::find_if(families, [](const vk::QueueFamilyProperties& f) {
    return bool(f.queueFlags & vk::QueueFlagBits::eCompute);
  });
  const uint32_t family = uint32_t(compute - families.begin());
  const float priority = 1.0f;
  const vk::DeviceQueueCreateInfo queue_info({}, family, 1, &priority);
  FeatureChain device_info;
  std::vector<const char*> extensions;
  if (const std::string missing = enable_features(gpu, plan, device_info, extensions);
      !missing.empty()) {
    std::fprintf(stderr, "%s: %s\n", s.variant_key.data(), missing.c_str());
    return 1;
  }
  device_info.get<vk::DeviceCreateInfo>().setQueueCreateInfos(queue_info).setPEnabledExtensionNames(
      extensions);
  const vk::raii::Device vk_device(gpu, device_info.get<vk::DeviceCreateInfo>());

  std::vector<HostBuffer> buffers;
  std::vector<vk::DescriptorSetLayoutBinding> layout_bindings;
  const float* out = bind_inputs(gpu, vk_device, plan, x, scales, weights, buffers, layout_bindings);
  dispatch_once(vk_device, family, plan, s, buffers, layout_bindings);

  const double max_error = reference_error(problem, in, out);
  // The plan's tolerance is the tuner's gate's: ~1e-5 of the bound in fp32 (which errs ~1e-7
  // here), ~3e-3 where x is rounded to int8; a wrong kernel errs ~1e-2 or more.
  const bool pass = max_error <= plan.tolerance && validation_messages == 0;
  std::printf("  %s: M=%u N=%u K=%u gs=%u, max error %.2e of sum|x w|, %d validation messages\n",
              pass ? "PASS" : "FAIL", problem.m, problem.n, problem.k, problem.group_size,
              max_error, validation_messages);
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s DB M N K GS\n", argv[0]);
    return 2;
  }
  const rt::ProblemQuery problem{"q4gsw",
                                 "f32",
                                 uint32_t(std::atoi(argv[2])),
                                 uint32_t(std::atoi(argv[3])),
                                 uint32_t(std::atoi(argv[4])),
                                 uint32_t(std::atoi(argv[5]))};
  try {
    return run(argv[1], problem);
  } catch (const std::exception& e) {  // vulkan_raii.hpp throws vk::SystemError on failure
    std::fprintf(stderr, "run_q4gsw: %s\n", e.what());
    return 1;
  }
}
