// fit_error against a fake device: a buffer exactly at a limit fits, one byte past it does not,
// both limits are checked, and sizes read as units (never a 20-digit number).
#include "kernels/problem_limits.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <regex>
#include <string>

namespace vktune::kernels {
namespace {

vk::DeviceInfo fake_device(uint64_t range, uint64_t allocation) {
  vk::DeviceInfo d;
  d.name = "Fake GPU";
  d.limits.max_storage_buffer_range = range;
  d.limits.max_memory_allocation_size = allocation;
  return d;
}

Problem q4gsw(uint32_t m, uint32_t n, uint32_t k, uint32_t gs = 32) {
  return Problem{Op("q4gsw"), m, n, k, gs};
}

bool has_long_number(const std::string& text) {
  return std::regex_search(text, std::regex("[0-9]{11,}"));
}

TEST(FormatBytes, PicksTheLargestUnit) {
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(128ull << 20), "128 MiB");
  EXPECT_EQ(format_bytes(0xFFFFFFFFull), "4 GiB");
  EXPECT_EQ(format_bytes(std::numeric_limits<uint64_t>::max()), "16 EiB");
}

TEST(FitError, ABufferAtTheRangeFitsOneBytePastDoesNot) {
  const vk::DeviceInfo device = fake_device(128ull << 20, 1ull << 40);
  // x = M * K * 4 bytes: 8192 x 4096 floats are exactly 128 MiB.
  EXPECT_EQ(fit_error(q4gsw(8192, 64, 4096), device), "");
  const std::string error = fit_error(q4gsw(8193, 64, 4096), device);
  EXPECT_NE(error.find("x buffer is 128 MiB"), std::string::npos) << error;
  EXPECT_NE(error.find("maxStorageBufferRange"), std::string::npos) << error;
  EXPECT_NE(error.find("Fake GPU"), std::string::npos) << error;
  EXPECT_NE(error.find("M=8193"), std::string::npos) << error;
}

TEST(FitError, AllocationSizeIsCheckedToo) {
  const vk::DeviceInfo device = fake_device(0xFFFFFFFFull, 64ull << 20);
  const std::string error = fit_error(q4gsw(1, 65536, 4096), device);  // out 256 KiB, weight 128 MiB
  EXPECT_NE(error.find("weight buffer is 128 MiB"), std::string::npos) << error;
  EXPECT_NE(error.find("maxMemoryAllocationSize"), std::string::npos) << error;
}

TEST(FitError, HugeShapesGiveReadableSizes) {
  const vk::DeviceInfo device = fake_device(0xFFFFFFFFull, 0xFFFFFFFFull);
  const std::string m_huge = fit_error(q4gsw(4294967295u, 4096, 4096), device);
  EXPECT_NE(m_huge.find("x buffer is 64 TiB"), std::string::npos) << m_huge;
  EXPECT_FALSE(has_long_number(m_huge)) << m_huge;
  const std::string rms = fit_error(Problem{Op("rms_norm"), 1, 2147483648u}, device);
  EXPECT_NE(rms.find("x buffer is 8 GiB"), std::string::npos) << rms;
}

TEST(FitError, MalformedProblemsAndUnknownLimits) {
  EXPECT_NE(fit_error(q4gsw(1, 64, 4095), fake_device(1, 1)).find("odd"), std::string::npos);
  EXPECT_EQ(fit_error(q4gsw(4096, 4096, 4096), fake_device(0, 0)), "") << "0 means unknown";
  EXPECT_THROW(require_fit(std::vector<Problem>{q4gsw(1, 64, 64), q4gsw(8193, 64, 4096)},
                           fake_device(128ull << 20, 0)),
               InvalidProblem);
}

}  // namespace
}  // namespace vktune::kernels
