// Synthetic database generator: deterministic, so figures are comparable run to run.
#include "runtime/bench/synthetic.h"

#include <cstdio>
#include <cstring>

#include "db/spirv_check.h"
#include "db/store.h"

namespace vktune::runtime::bench {

namespace {
std::string uuid_hex(uint32_t index) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", index, 0xabcdef01u, 0x12345678u, index * 7);
  return buf;
}
}  // namespace

DeviceQuery synthetic_device(uint32_t index) {
  DeviceQuery q;
  q.vendor_id = 0x10de;
  q.device_id = 0x2000 + index;
  q.driver_id = 4;
  q.driver_version = 500 + index;
  q.device_type = DeviceType::discrete;
  const std::string hex = uuid_hex(index);
  for (size_t i = 0; i < 16; ++i) {
    q.pipeline_cache_uuid[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return q;
}

ProblemQuery synthetic_problem(uint32_t index) {
  ProblemQuery q;
  q.op = "q4gsw";
  q.dtype = "f32";
  q.m = 1 + (index % 16) * 17;                  // 1..256
  q.n = 256 + ((index / 16) % 25) * 32 * 20;    // 256..15616
  q.k = 256 + ((index / 400) % 25) * 32 * 20 + 32 * (index / 10000);
  q.group_size = 32;
  return q;
}

void write_synthetic_db(const std::string& path, const SyntheticShape& shape) {
  db::Store store = db::Store::open(path);
  auto batch = store.transaction();
  std::vector<int64_t> kernels;
  for (uint32_t i = 0; i < shape.kernels; ++i) {
    db::KernelRecord k;
    k.family = "q4gsw_tiled";
    k.variant_key = "q4gsw_tiled[layout=raw,tm=" + std::to_string(1 + i % 8) +
                    ",tn=4,wg=" + std::to_string(32 * (1 + i / 8)) + ",bk=0]";
    k.knobs_json = R"({"layout":"raw","tm":1,"tn":4,"wg":64,"bk":0})";
    k.constraints_json = R"({"k_multiple":8,"gs_multiple":8,"n_multiple":1,"m_max":0,"m_min":1})";
    k.layout = "raw";
    k.workgroup_size = 32 * (1 + i / 8);
    k.source_hash = "synthetic";
    // Distinct per kernel, and past the header check every load makes (db/spirv_check.h).
    k.spirv = std::vector<uint8_t>(256, static_cast<uint8_t>(i));
    std::memcpy(k.spirv->data(), &db::kSpirvMagic, sizeof db::kSpirvMagic);
    kernels.push_back(store.upsert_kernel(k));
  }
  std::vector<int64_t> problems;
  for (uint32_t i = 0; i < shape.problems; ++i) {
    const ProblemQuery q = synthetic_problem(i);
    problems.push_back(store.upsert_problem({0, std::string(q.op), std::string(q.dtype), q.m, q.n, q.k, q.group_size}));
  }
  const int64_t run = store.begin_run({});
  for (uint32_t d = 0; d < shape.devices; ++d) {
    const DeviceQuery q = synthetic_device(d);
    db::DeviceRecord rec;
    rec.vendor_id = q.vendor_id;
    rec.device_id = q.device_id;
    rec.name = "Synthetic GPU " + std::to_string(d);
    rec.driver_id = q.driver_id;
    rec.driver_version = q.driver_version;
    rec.pipeline_cache_uuid = uuid_hex(d);
    rec.device_type = "discrete";
    const int64_t device = store.upsert_device(rec);
    for (uint32_t p = 0; p < shape.problems; ++p) {
      for (uint32_t j = 0; j < shape.measured_per_problem; ++j) {
        db::Measurement m;
        m.run_id = run;
        m.device_id = device;
        m.problem_id = problems[p];
        m.kernel_id = kernels[(p * 7 + d + j) % kernels.size()];
        m.status = db::Status::ok;
        m.n = 5;
        // The first is the winner; the others' order varies from problem to problem.
        m.median_ns = (1000.0 + p) * (1 + 0.1 * (j == 0 ? 0 : 1 + (p + 3 * j) % shape.measured_per_problem));
        store.add_measurement(m);
      }
    }
  }
  batch.commit();
}

}  // namespace vktune::runtime::bench
