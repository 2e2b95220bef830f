/* What an engine does with vktune, in C through <vktune/runtime/vktune_runtime.h>: ask which
   variant runs a q4gsw node on its VkDevice, how to dispatch it and how to prepack the weights,
   run the returned SPIR-V with plain Vulkan calls and check the result against a CPU reference.
   Usage: run_q4gsw_c DB M N K GS (VKTUNE_FORCE_BUILTIN=1 runs the built-in variants). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vktune/runtime/vktune_runtime.h>
#include <vulkan/vulkan.h>

/* An example exits on a failed Vulkan call; an engine would report it. */
#define VK_CHECK(call)                                             \
  do {                                                             \
    const VkResult r_ = (call);                                    \
    if (r_ != VK_SUCCESS) {                                        \
      fprintf(stderr, "%s failed: VkResult %d\n", #call, (int)r_); \
      exit(1);                                                     \
    }                                                              \
  } while (0)

static int validation_messages; /* warnings and errors of the validation layer, when it is on */

static VKAPI_ATTR VkBool32 VKAPI_CALL
count_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT type,
              const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  (void)severity, (void)type, (void)user;
  fprintf(stderr, "validation: %s\n", data->pMessage);
  ++validation_messages;
  return VK_FALSE;
}

/* A storage buffer in host-visible memory, zeroed and mapped for the whole run (lavapipe's memory
   is all host-visible; a discrete GPU's engine would stage through device-local memory). */
typedef struct host_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void* data;
} host_buffer;

static host_buffer make_buffer(VkPhysicalDevice gpu, VkDevice device, VkDeviceSize bytes) {
  host_buffer b;
  const VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                   .size = bytes,
                                   .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
  VK_CHECK(vkCreateBuffer(device, &info, NULL, &b.buffer));
  VkMemoryRequirements need;
  vkGetBufferMemoryRequirements(device, b.buffer, &need);
  VkPhysicalDeviceMemoryProperties types;
  vkGetPhysicalDeviceMemoryProperties(gpu, &types);
  const VkMemoryPropertyFlags host =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = need.size};
  while (!((need.memoryTypeBits >> alloc.memoryTypeIndex) & 1) ||
         (types.memoryTypes[alloc.memoryTypeIndex].propertyFlags & host) != host) {
    if (++alloc.memoryTypeIndex == types.memoryTypeCount) {
      fprintf(stderr, "no host-visible memory\n");
      exit(1);
    }
  }
  VK_CHECK(vkAllocateMemory(device, &alloc, NULL, &b.memory));
  VK_CHECK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
  VK_CHECK(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.data));
  memset(b.data, 0, bytes);
  return b;
}

/* The device features the plan asks for (VKTUNE_FEATURE_* bits), checked on `gpu` and enabled in
   the chain v11 -> v12 (-> v13) (-> coopmat) and `extensions` — exactly those. Returns 0, or
   prints which one the device lacks and returns 1. */
typedef struct enabled_features {
  VkPhysicalDeviceVulkan11Features v11;
  VkPhysicalDeviceVulkan12Features v12;
  VkPhysicalDeviceVulkan13Features v13;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat;
  const char* extensions[1];
  uint32_t extension_count;
} enabled_features;

static int enable_features(VkPhysicalDevice gpu, const vktune_dispatch* plan, enabled_features* on) {
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceVulkan13Features v13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features v12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features v11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                          .pNext = &v12};
  VkPhysicalDeviceFeatures2 has = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v11};
  uint32_t extension_count = 0;
  vkEnumerateDeviceExtensionProperties(gpu, NULL, &extension_count, NULL);
  VkExtensionProperties* extensions = malloc((extension_count + 1) * sizeof *extensions);
  vkEnumerateDeviceExtensionProperties(gpu, NULL, &extension_count, extensions);
  int has_coopmat = 0;
  for (uint32_t i = 0; i < extension_count; ++i) {
    has_coopmat |= strcmp(extensions[i].extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0;
  }
  free(extensions);
  VkPhysicalDeviceSubgroupProperties subgroup = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                       .pNext = &subgroup};
  vkGetPhysicalDeviceProperties2(gpu, &props);
  /* Each struct only where the device knows it: v13 from Vulkan 1.3, coopmat with the extension. */
  const int vulkan13 = props.properties.apiVersion >= VK_API_VERSION_1_3;
  void** tail = &v12.pNext;
  if (vulkan13) {
    *tail = &v13;
    tail = &v13.pNext;
  }
  if (has_coopmat) *tail = &coopmat;
  vkGetPhysicalDeviceFeatures2(gpu, &has);

  memset(on, 0, sizeof *on);
  on->v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  on->v11.pNext = &on->v12;
  on->v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  on->v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  on->coopmat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  void** on_tail = &on->v12.pNext; /* v13 and coopmat linked only when asked for */
  for (uint32_t bit = 1; bit != 0; bit <<= 1) {
    if (!(plan->required_features & bit)) continue;
    int supported = 0;
    switch (bit) {
      case VKTUNE_FEATURE_STORAGE_BUFFER_16BIT:
        supported = v11.storageBuffer16BitAccess;
        on->v11.storageBuffer16BitAccess = VK_TRUE;
        break;
      case VKTUNE_FEATURE_SHADER_FLOAT16:
        supported = v12.shaderFloat16;
        on->v12.shaderFloat16 = VK_TRUE;
        break;
      case VKTUNE_FEATURE_SUBGROUP_ARITHMETIC:
        supported = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                    (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
        break;
      case VKTUNE_FEATURE_COOPERATIVE_MATRIX_NV:
        supported = has_coopmat && coopmat.cooperativeMatrix;
        on->coopmat.cooperativeMatrix = VK_TRUE;
        *on_tail = &on->coopmat;
        on_tail = &on->coopmat.pNext;
        on->extensions[on->extension_count++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
        break;
      case VKTUNE_FEATURE_SHADER_INTEGER_DOT_PRODUCT:
        supported = vulkan13 && v13.shaderIntegerDotProduct;
        on->v13.shaderIntegerDotProduct = VK_TRUE;
        *on_tail = &on->v13;
        on_tail = &on->v13.pNext;
        break;
      default: /* a feature this example does not know stays unsupported */
        break;
    }
    if (!supported) {
      fprintf(stderr, "the variant needs %s, which this device lacks\n", vktune_feature_name(bit));
      return 1;
    }
  }
  const uint32_t size = subgroup.subgroupSize;
  if ((plan->required_subgroup_size != 0 && size != plan->required_subgroup_size) ||
      (plan->subgroup_size_divides != 0 && plan->subgroup_size_divides % size != 0)) {
    fprintf(stderr, "the variant needs subgroup size %u (or one dividing %u); this device has %u\n",
            plan->required_subgroup_size, plan->subgroup_size_divides, size);
    return 1;
  }
  return 0;
}

static float uniform(void) { return 2.0f * (float)rand() / (float)RAND_MAX - 1.0f; } /* [-1, 1] */

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s DB M N K GS\n", argv[0]);
    return 2;
  }
  const vktune_problem_query problem = {"q4gsw",
                                        "f32",
                                        (uint32_t)atoi(argv[2]),
                                        (uint32_t)atoi(argv[3]),
                                        (uint32_t)atoi(argv[4]),
                                        (uint32_t)atoi(argv[5])};

  /* An instance with a messenger that counts validation messages, and the first device. */
  const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                 .apiVersion = VK_API_VERSION_1_3}; /* 1.3: shaderIntegerDotProduct */
  const char* debug_utils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  const VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                              .pApplicationInfo = &app,
                                              .enabledExtensionCount = 1,
                                              .ppEnabledExtensionNames = &debug_utils};
  VkInstance instance;
  VK_CHECK(vkCreateInstance(&instance_info, NULL, &instance));
  const VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = count_message};
  PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
      (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance,
                                                                "vkCreateDebugUtilsMessengerEXT");
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
      (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance,
                                                                 "vkDestroyDebugUtilsMessengerEXT");
  VkDebugUtilsMessengerEXT messenger;
  VK_CHECK(create_messenger(instance, &messenger_info, NULL, &messenger));
  uint32_t gpu_count = 1;
  VkPhysicalDevice gpu = VK_NULL_HANDLE;
  const VkResult enumerated = vkEnumeratePhysicalDevices(instance, &gpu_count, &gpu);
  if ((enumerated != VK_SUCCESS && enumerated != VK_INCOMPLETE) || gpu_count == 0) {
    fprintf(stderr, "no Vulkan device\n");
    return 1;
  }
  VkPhysicalDeviceDriverProperties driver = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                        .pNext = &driver};
  vkGetPhysicalDeviceProperties2(gpu, &props2);
  const VkPhysicalDeviceProperties* props = &props2.properties;

  /* Graph build: the databases (the application's, under any VKTUNE_DB), the variant for this
     device and shape, its dispatch plan and the weights in its layout. */
  char err[512];
  vktune_snapshot* app_db = vktune_snapshot_load(argv[1], err, sizeof err);
  vktune_snapshot* db = app_db ? vktune_snapshot_from_environment(
                                     (const vktune_snapshot* const*)&app_db, 1, err, sizeof err)
                               : NULL;
  if (db == NULL) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  vktune_device_query device = {.vendor_id = props->vendorID,
                                .device_id = props->deviceID,
                                .driver_id = (uint32_t)driver.driverID,
                                .driver_version = props->driverVersion,
                                .device_type = (int)props->deviceType,
                                .name = props->deviceName};
  memcpy(device.pipeline_cache_uuid, props->pipelineCacheUUID, VK_UUID_SIZE);
  vktune_selection s;
  vktune_selection_ext ext = {.struct_size = sizeof ext};
  vktune_select_ext(db, &device, &problem, &s, &ext);
  if (s.status == VKTUNE_OK && s.spirv == NULL) {
    /* The database names a variant without its SPIR-V; with no shader compiler, take the
       built-in answer (a NULL snapshot), which always carries it. */
    printf("%s: no SPIR-V in the database, using the built-in variant\n", s.variant_key);
    vktune_select_ext(NULL, &device, &problem, &s, &ext);
  }
  if (s.status != VKTUNE_OK) {
    fprintf(stderr, "select: %s\n", s.error);
    return 1;
  }
  vktune_dispatch plan;
  if (vktune_plan_dispatch(&s, &problem, props->limits.maxComputeWorkGroupCount, &plan) !=
      VKTUNE_OK) {
    fprintf(stderr, "plan: %s\n", plan.error);
    return 1;
  }
  printf("%s (%s): groups %u x %u x %u\n", s.variant_key,
         s.device_match == VKTUNE_DEVICE_BUILTIN ? "built-in" : "tuned", plan.groups[0],
         plan.groups[1], plan.groups[2]);

  /* Random q4gsw inputs in the raw layout: x [M, K], weights [N, K/2], scales [K/gs, N]. */
  const uint32_t m_count = problem.m, n_count = problem.n, k_count = problem.k;
  const size_t x_count = (size_t)m_count * k_count, raw_size = (size_t)n_count * (k_count / 2);
  const size_t scale_count = (size_t)(k_count / problem.group_size) * n_count;
  float* x = malloc(x_count * sizeof(float));
  float* scales = malloc(scale_count * sizeof(float));
  uint8_t* raw = malloc(raw_size);
  srand(m_count * 7919u + n_count * 31u + k_count);
  for (size_t i = 0; i < x_count; ++i) x[i] = uniform();
  /* fp16 values (multiples of 2^-10 in [0.5, 1.5]), as engines ship int4 scales: the packed_s16
     layout stores them as fp16, and then the reference below still holds exactly. */
  for (size_t i = 0; i < scale_count; ++i)
    scales[i] = ldexpf(roundf(ldexpf(1.0f + 0.5f * uniform(), 10)), -10);
  for (size_t i = 0; i < raw_size; ++i) raw[i] = (uint8_t)rand();
  const size_t weight_size =
      (size_t)vktune_prepacked_weight_size(plan.layout, n_count, k_count, problem.group_size);
  uint8_t* weights = malloc(weight_size ? weight_size : 1);
  if (vktune_prepack_weight(plan.layout, raw, raw_size, scales, scale_count, n_count, k_count,
                            problem.group_size, weights, weight_size, err,
                            sizeof err) != VKTUNE_OK) {
    fprintf(stderr, "prepack: %s\n", err);
    return 1;
  }

  /* The engine's own Vulkan: a device, one buffer per binding of the plan, the returned SPIR-V. */
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(gpu, &family_count, NULL);
  VkQueueFamilyProperties* families = malloc(family_count * sizeof *families);
  vkGetPhysicalDeviceQueueFamilyProperties(gpu, &family_count, families);
  uint32_t family = 0;
  while (family + 1 < family_count && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
    ++family;
  }
  free(families);
  const float priority = 1.0f;
  const VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                              .queueFamilyIndex = family,
                                              .queueCount = 1,
                                              .pQueuePriorities = &priority};
  enabled_features features;
  if (enable_features(gpu, &plan, &features) != 0) return 1;
  const VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                          .pNext = &features.v11,
                                          .queueCreateInfoCount = 1,
                                          .pQueueCreateInfos = &queue_info,
                                          .enabledExtensionCount = features.extension_count,
                                          .ppEnabledExtensionNames = features.extensions};
  VkDevice vk_device;
  VK_CHECK(vkCreateDevice(gpu, &device_info, NULL, &vk_device));

  host_buffer buffers[VKTUNE_MAX_BINDINGS];
  VkDescriptorSetLayoutBinding layout_bindings[VKTUNE_MAX_BINDINGS];
  VkDescriptorBufferInfo buffer_infos[VKTUNE_MAX_BINDINGS];
  VkWriteDescriptorSet writes[VKTUNE_MAX_BINDINGS];
  const float* out = NULL;
  for (uint32_t i = 0; i < plan.binding_count; ++i) {
    const vktune_binding* b = &plan.bindings[i];
    buffers[i] = make_buffer(gpu, vk_device, b->alloc_bytes);
    if (strcmp(b->name, "x") == 0) memcpy(buffers[i].data, x, b->bytes);
    if (strcmp(b->name, "weight") == 0) memcpy(buffers[i].data, weights, b->bytes);
    if (strcmp(b->name, "scales") == 0) memcpy(buffers[i].data, scales, b->bytes);
    if (strcmp(b->name, "out") == 0) { /* NaN: an output the variant never writes cannot pass */
      for (size_t j = 0; j < b->bytes / sizeof(float); ++j) ((float*)buffers[i].data)[j] = NAN;
      out = buffers[i].data;
    }
    layout_bindings[i] = (VkDescriptorSetLayoutBinding){
        b->binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    buffer_infos[i] = (VkDescriptorBufferInfo){buffers[i].buffer, 0, VK_WHOLE_SIZE};
  }
  const VkDescriptorSetLayoutCreateInfo set_layout_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = plan.binding_count,
      .pBindings = layout_bindings};
  VkDescriptorSetLayout set_layout;
  VK_CHECK(vkCreateDescriptorSetLayout(vk_device, &set_layout_info, NULL, &set_layout));
  const VkPushConstantRange push_range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, plan.push_constant_size};
  const VkPipelineLayoutCreateInfo layout_info = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &set_layout,
      .pushConstantRangeCount = 1,
      .pPushConstantRanges = &push_range};
  VkPipelineLayout layout;
  VK_CHECK(vkCreatePipelineLayout(vk_device, &layout_info, NULL, &layout));
  const VkShaderModuleCreateInfo shader_info = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = s.spirv_size,
      .pCode = (const uint32_t*)s.spirv};
  VkShaderModule shader;
  VK_CHECK(vkCreateShaderModule(vk_device, &shader_info, NULL, &shader));
  /* The selection's specialisation constants: each value is read in place, the second word of
     its {constant_id, value} pair. */
  VkSpecializationMapEntry* entries =
      calloc(ext.specialization_count + 1, sizeof(VkSpecializationMapEntry));
  for (size_t i = 0; i < ext.specialization_count; ++i) {
    entries[i].constantID = ext.specialization[i].constant_id;
    entries[i].offset = (uint32_t)(i * sizeof(vktune_spec_constant) +
                                   offsetof(vktune_spec_constant, value));
    entries[i].size = sizeof(uint32_t);
  }
  const VkSpecializationInfo specialization = {
      .mapEntryCount = (uint32_t)ext.specialization_count,
      .pMapEntries = entries,
      .dataSize = ext.specialization_count * sizeof(vktune_spec_constant),
      .pData = ext.specialization};
  const VkComputePipelineCreateInfo pipeline_info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = shader,
                .pName = "main",
                .pSpecializationInfo = &specialization},
      .layout = layout};
  VkPipeline pipeline;
  VK_CHECK(vkCreateComputePipelines(vk_device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &pipeline));
  free(entries);

  const VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, plan.binding_count};
  const VkDescriptorPoolCreateInfo pool_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = 1,
      .poolSizeCount = 1,
      .pPoolSizes = &pool_size};
  VkDescriptorPool pool;
  VK_CHECK(vkCreateDescriptorPool(vk_device, &pool_info, NULL, &pool));
  const VkDescriptorSetAllocateInfo set_info = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = pool,
      .descriptorSetCount = 1,
      .pSetLayouts = &set_layout};
  VkDescriptorSet set;
  VK_CHECK(vkAllocateDescriptorSets(vk_device, &set_info, &set));
  for (uint32_t i = 0; i < plan.binding_count; ++i) {
    writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = set,
                                       .dstBinding = plan.bindings[i].binding,
                                       .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &buffer_infos[i]};
  }
  vkUpdateDescriptorSets(vk_device, plan.binding_count, writes, 0, NULL);

  const VkCommandPoolCreateInfo commands_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = family};
  VkCommandPool commands;
  VK_CHECK(vkCreateCommandPool(vk_device, &commands_info, NULL, &commands));
  const VkCommandBufferAllocateInfo cmd_info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = commands,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1};
  VkCommandBuffer cmd;
  VK_CHECK(vkAllocateCommandBuffers(vk_device, &cmd_info, &cmd));
  const VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
  vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, plan.push_constant_size,
                     plan.push_constants);
  vkCmdDispatch(cmd, plan.groups[0], plan.groups[1], plan.groups[2]);
  const VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                   .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                   .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &to_host, 0, NULL, 0, NULL);
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkQueue queue;
  vkGetDeviceQueue(vk_device, family, 0, &queue);
  const VkSubmitInfo submit = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  VK_CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
  VK_CHECK(vkQueueWaitIdle(queue));

  /* The CPU reference in double: out[m, n] = sum_k x[m, k] (q(n, k) - 8) scale[k / gs, n], q(n, k)
     the low nibble of byte k/2 of row n for even k; each error is measured against sum_k |x w|. */
  double max_error = 0;
  for (uint32_t m = 0; m < m_count; ++m) {
    for (uint32_t n = 0; n < n_count; ++n) {
      double sum = 0, bound = 0;
      for (uint32_t k = 0; k < k_count; ++k) {
        const int q = (raw[(size_t)n * (k_count / 2) + k / 2] >> (4 * (k % 2))) & 0xF;
        const double w = (q - 8) * (double)scales[(size_t)(k / problem.group_size) * n_count + n];
        sum += x[(size_t)m * k_count + k] * w;
        bound += fabs(x[(size_t)m * k_count + k] * w);
      }
      const double e = fabs(out[(size_t)m * n_count + n] - sum) / (bound + 1e-30);
      max_error = isnan(e) ? INFINITY : fmax(max_error, e);
    }
  }

  vkDestroyCommandPool(vk_device, commands, NULL);
  vkDestroyDescriptorPool(vk_device, pool, NULL);
  vkDestroyPipeline(vk_device, pipeline, NULL);
  vkDestroyShaderModule(vk_device, shader, NULL);
  vkDestroyPipelineLayout(vk_device, layout, NULL);
  vkDestroyDescriptorSetLayout(vk_device, set_layout, NULL);
  for (uint32_t i = 0; i < plan.binding_count; ++i) {
    vkDestroyBuffer(vk_device, buffers[i].buffer, NULL);
    vkFreeMemory(vk_device, buffers[i].memory, NULL);
  }
  vkDestroyDevice(vk_device, NULL);
  destroy_messenger(instance, messenger, NULL);
  vkDestroyInstance(instance, NULL);
  vktune_snapshot_free(db);
  vktune_snapshot_free(app_db);
  free(x), free(scales), free(raw), free(weights);

  /* The plan's tolerance is the tuner's gate's: ~1e-5 of the bound in fp32 (which errs ~1e-7
     here), ~3e-3 where x is rounded to int8; a wrong kernel errs ~1e-2 or more. */
  const int pass = max_error <= plan.tolerance && validation_messages == 0;
  printf("  %s: M=%u N=%u K=%u gs=%u, max error %.2e of sum|x w|, %d validation messages\n",
         pass ? "PASS" : "FAIL", m_count, n_count, k_count, problem.group_size, max_error,
         validation_messages);
  return pass ? 0 : 1;
}
