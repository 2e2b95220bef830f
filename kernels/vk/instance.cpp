// Instance creation, validation layer and debug messenger.
#include "kernels/vk/device_query.h"
#include "kernels/vk/instance.h"

#include <cstdlib>
#include <cstring>

#include "kernels/vk/error.h"

namespace vktune::vk {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool layer_present(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& layer : layers) {
    if (std::strcmp(layer.layerName, name) == 0) return true;
  }
  return false;
}

bool instance_extension_present(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data());
  for (const auto& e : extensions) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* user) {
  const char* level =
      (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
  static_cast<ValidationLog*>(user)->add(std::string("validation ") + level + ": " +
                                         (data->pMessage ? data->pMessage : ""));
  return VK_FALSE;  // never abort the call: the test fails on the recorded message instead
}

bool env_requests_validation() {
  const char* env = std::getenv("VKTUNE_VALIDATION");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

}  // namespace

void ValidationLog::echo_to(std::FILE* stream) noexcept {
  std::lock_guard lock(mutex_);
  echo_ = stream;
}

void ValidationLog::add(std::string message) {
  std::lock_guard lock(mutex_);
  if (echo_ != nullptr) std::fprintf(echo_, "vktune: %s\n", message.c_str());
  messages_.push_back(std::move(message));
}

std::vector<std::string> ValidationLog::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(messages_, {});
}

size_t ValidationLog::size() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}

std::vector<std::string> ValidationLog::since(size_t count) const {
  std::lock_guard lock(mutex_);
  if (count >= messages_.size()) return {};
  return {messages_.begin() + static_cast<std::ptrdiff_t>(count), messages_.end()};
}

Instance Instance::create(const InstanceOptions& options) {
  const bool validation =
      options.validation || (options.validation_from_env && env_requests_validation());
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (validation) {
    if (!layer_present(kValidationLayer)) {
      throw Error(std::string(kValidationLayer) +
                  " was requested but is not installed (Debian: vulkan-validationlayers)");
    }
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkInstanceCreateFlags flags = 0;
  if (instance_extension_present(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vktune";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  Instance result;
  VkInstance instance = VK_NULL_HANDLE;
  check(vkCreateInstance(&info, nullptr, &instance), "vkCreateInstance");
  result.instance_ = Handle<VkInstance>(instance, [](VkInstance i) { vkDestroyInstance(i, nullptr); });

  if (validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info.pfnUserCallback = on_message;
    messenger_info.pUserData = result.log_.get();
    if (options.print_messages) result.log_->echo_to(stderr);
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    check(create(instance, &messenger_info, nullptr, &messenger),
          "vkCreateDebugUtilsMessengerEXT");
    result.messenger_ = Handle<VkDebugUtilsMessengerEXT>(
        messenger, [instance, destroy](VkDebugUtilsMessengerEXT m) { destroy(instance, m, nullptr); });
  }
  return result;
}

std::vector<VkPhysicalDevice> Instance::physical_devices() const {
  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(get(), &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  check(vkEnumeratePhysicalDevices(get(), &count, devices.data()), "vkEnumeratePhysicalDevices");
  return devices;
}

std::vector<DeviceInfo> Instance::devices() const {
  std::vector<DeviceInfo> infos;
  const auto physical = physical_devices();
  for (uint32_t i = 0; i < physical.size(); ++i) {
    infos.push_back(query_device_info(get(), physical[i], i));
  }
  return infos;
}

}  // namespace vktune::vk
