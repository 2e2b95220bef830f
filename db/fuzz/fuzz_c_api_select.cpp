// Fuzzes the runtime's C API as an engine calls it: vktune_select on a random query (op, dtype,
// shape, head counts, device fingerprint), over no database, the lavapipe winners or the H100's,
// then vktune_plan_dispatch of an answer on that problem or another. Nothing may crash, an ok
// answer names a variant and carries SPIR-V that is a module or none, and a plan says ok or why.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "db/spirv_check.h"
#include "runtime/vktune_runtime.h"

namespace {

// Reads the fuzzer's bytes as a stream of values; past the end, zeros.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | u8();
    return v;
  }
  // Half the time a small value (where the legal shapes are), else any 32-bit one.
  uint32_t dim() {
    const uint8_t how = u8();
    if (how < 64) return how;                       // 0..63: edges, odd and tiny
    if (how < 160) return uint32_t{1} << (how % 16);  // powers of two up to 32768
    if (how < 208) return 32u * (1 + u8());          // multiples of 32
    return u32();
  }

 private:
  const uint8_t* data_;
  size_t size_, at_ = 0;
};

vktune_snapshot* load(const char* path) {
  char err[256] = {};
  vktune_snapshot* s = vktune_snapshot_load(path, err, sizeof err);
  if (s == nullptr) __builtin_trap();  // the committed databases always load
  return s;
}

void check_string(const char* s) {
  if (s == nullptr) __builtin_trap();  // never NULL, by the header's contract
  (void)std::strlen(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static vktune_snapshot* const snapshots[] = {
      nullptr, load(VKTUNE_SOURCE_DIR "/tests/runtime/databases/llvmpipe-lavapipe-i8dot.winners.json"),
      load(VKTUNE_SOURCE_DIR "/db/tuned/nvidia-h100-80gb-hbm3.winners.json.zst")};
  static const char* const ops[] = {"q4gsw", "rms_norm", "sdpa", "", "Q4GSW", "conv", nullptr};
  static const char* const dtypes[] = {"f32", "f16", nullptr, "", "f64"};
  static const uint32_t vendors[] = {0x10de, 0x10005, 0x1002, 0x8086, 0};

  Bytes in(data, size);
  const vktune_snapshot* snapshot = snapshots[in.u8() % 3];
  vktune_device_query device{};
  device.vendor_id = vendors[in.u8() % 5];
  device.device_id = in.u8() < 128 ? 0x2330 : in.u32();
  device.driver_id = in.u8();
  device.driver_version = in.u32();
  device.device_type = static_cast<int>(in.u8() % 7) - 1;  // -1 and 5 are out of range
  for (uint8_t& b : device.pipeline_cache_uuid) b = in.u8();
  device.name = in.u8() < 128 ? nullptr : "fuzz";
  vktune_problem_query problem{ops[in.u8() % 7], dtypes[in.u8() % 5], in.dim(), in.dim(),
                               in.dim(),         in.dim(),            in.dim(), in.dim()};

  vktune_selection s{};
  const int status = vktune_select(snapshot, &device, &problem, &s);
  if (status != s.status) __builtin_trap();
  for (const char* text : {s.error, s.family, s.variant_key, s.knobs_json, s.constraints_json,
                           s.layout, s.matched_device_name, s.source}) {
    check_string(text);
  }
  if (status == VKTUNE_OK) {
    if (s.variant_key[0] == '\0') __builtin_trap();  // an answer names its variant
    if (s.spirv != nullptr &&
        !vktune::db::spirv_problem({s.spirv, s.spirv_size}).empty()) {
      __builtin_trap();  // served SPIR-V is a module
    }
  } else if (s.error[0] == '\0') {
    __builtin_trap();  // a refusal says why
  }

  // The plan of that answer, for the problem or a mutated one, on a device's group limits.
  if (in.u8() % 2 == 1) {
    problem.m = in.dim();
    problem.n = in.dim();
  }
  const uint32_t limits[3] = {in.dim(), in.dim(), in.dim()};
  vktune_dispatch plan{};
  const int planned = vktune_plan_dispatch(status == VKTUNE_OK || in.u8() % 2 ? &s : nullptr,
                                           in.u8() % 8 ? &problem : nullptr, limits, &plan);
  if (planned != plan.status) __builtin_trap();
  if (planned != VKTUNE_OK && plan.error[0] == '\0') __builtin_trap();
  if (planned == VKTUNE_OK &&
      (plan.binding_count > VKTUNE_MAX_BINDINGS || plan.push_constant_size > VKTUNE_MAX_PUSH_BYTES)) {
    __builtin_trap();
  }
  return 0;
}
