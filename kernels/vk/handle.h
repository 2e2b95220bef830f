// Move-only owner of one Vulkan handle. It does nothing but own the handle: the types that
// use it (Buffer, Pipeline, ...) carry the functionality.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <utility>

namespace vktune::vk {

template <typename T>
class Handle {
 public:
  using Deleter = std::function<void(T)>;

  Handle() = default;
  Handle(T handle, Deleter deleter) : handle_(handle), deleter_(std::move(deleter)) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept
      : handle_(std::exchange(other.handle_, VK_NULL_HANDLE)),
        deleter_(std::move(other.deleter_)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
      deleter_ = std::move(other.deleter_);
    }
    return *this;
  }
  ~Handle() { reset(); }

  T get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != VK_NULL_HANDLE; }

  // Gives up ownership without destroying the handle.
  T release() noexcept { return std::exchange(handle_, VK_NULL_HANDLE); }

  void reset() noexcept {
    if (handle_ != VK_NULL_HANDLE && deleter_) deleter_(handle_);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  T handle_ = VK_NULL_HANDLE;
  Deleter deleter_;
};

}  // namespace vktune::vk
