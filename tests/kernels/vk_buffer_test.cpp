// Buffer upload/download round trips, whole and at offsets.
#include "kernels/vk/buffer.h"

#include <random>

#include "kernels/vk/error.h"
#include "tests/kernels/vulkan_fixture.h"

namespace vktune::test {
namespace {

class BufferTest : public VulkanFixture {};

TEST_F(BufferTest, RoundTripsRandomBytes) {
  std::mt19937 rng(7);
  std::vector<uint32_t> data(100'003);
  for (auto& v : data) v = rng();
  vk::Buffer buffer = vk::Buffer::create(device(), data.size() * sizeof(uint32_t));
  buffer.upload(std::span<const uint32_t>(data));
  EXPECT_EQ(buffer.download<uint32_t>(data.size()), data);
}

TEST_F(BufferTest, TransfersAtAnOffset) {
  vk::Buffer buffer = vk::Buffer::create(device(), 64);
  const std::vector<uint32_t> zeros(16, 0), tail{1, 2, 3, 4};
  buffer.upload(std::span<const uint32_t>(zeros));
  buffer.upload(std::as_bytes(std::span<const uint32_t>(tail)), 48);
  const auto all = buffer.download<uint32_t>(16);
  EXPECT_EQ(all[11], 0u);
  EXPECT_EQ(std::vector<uint32_t>(all.begin() + 12, all.end()), tail);
}

TEST_F(BufferTest, RejectsTransfersPastTheEnd) {
  vk::Buffer buffer = vk::Buffer::create(device(), 16);
  const std::vector<uint32_t> five(5, 1);
  EXPECT_THROW(buffer.upload(std::span<const uint32_t>(five)), vk::Error);
  EXPECT_THROW(vk::Buffer::create(device(), 0), vk::Error);
}

}  // namespace
}  // namespace vktune::test
