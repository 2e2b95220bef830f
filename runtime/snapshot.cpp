// Snapshot: build-time indexing (per device, per (op, dtype, group size): a sorted array for
// exact hits and a k-d tree over log-dims for nearest hits) and the lookup itself.
#include "runtime/snapshot.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "db/error.h"
#include "db/json_io.h"
#include "db/store.h"
#include "runtime/builtin.h"

namespace vktune::runtime {

struct Snapshot::Kernel {
  std::string family, variant_key, knobs_json, constraints_json, layout;
  uint32_t workgroup_size = 0;
  Constraints constraints;
  std::vector<uint8_t> spirv;
};

// A tuned problem of one device and its winner; c holds (ln M, ln N, ln K).
struct Snapshot::Point {
  std::array<double, 3> c{};
  uint32_t m = 0, n = 0, k = 0;
  uint32_t kernel = 0;  // index into kernels_
  double median_ns = 0;
};

struct Snapshot::Group {
  std::string op, dtype;
  uint32_t group_size = 0;
  std::vector<Point> by_shape;  // sorted by (m, n, k): exact hits by binary search
  std::vector<Point> tree;      // implicit k-d tree: median of [lo, hi) at the middle
};

struct Snapshot::Device {
  uint32_t vendor_id = 0, device_id = 0, driver_id = 0, driver_version = 0;
  DeviceType type = DeviceType::other;
  std::array<uint8_t, 16> uuid{};
  std::string name;
  std::vector<Group> groups;
};

Snapshot::Snapshot() = default;
Snapshot::~Snapshot() = default;

namespace {

using Kernel = Snapshot::Kernel;
using Point = Snapshot::Point;
using Group = Snapshot::Group;
using Device = Snapshot::Device;

// Thrown while building only; load() turns it into its error string.
struct BuildError {
  std::string message;
};

DeviceType parse_type(const std::string& t) {
  if (t == "discrete") return DeviceType::discrete;
  if (t == "integrated") return DeviceType::integrated;
  if (t == "virtual") return DeviceType::virtual_gpu;
  if (t == "cpu") return DeviceType::cpu;
  return DeviceType::other;
}

std::array<uint8_t, 16> parse_uuid(const std::string& hex, const std::string& device) {
  auto nibble = [&](char ch) -> uint8_t {
    if (ch >= '0' && ch <= '9') return static_cast<uint8_t>(ch - '0');
    if (ch >= 'a' && ch <= 'f') return static_cast<uint8_t>(ch - 'a' + 10);
    if (ch >= 'A' && ch <= 'F') return static_cast<uint8_t>(ch - 'A' + 10);
    throw BuildError{"device '" + device + "': pipeline_cache_uuid is not hex"};
  };
  if (hex.size() != 32) throw BuildError{"device '" + device + "': pipeline_cache_uuid is not 32 hex digits"};
  std::array<uint8_t, 16> out{};
  for (size_t i = 0; i < 16; ++i) out[i] = static_cast<uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return out;
}

Constraints parse_constraints(const std::string& text, const std::string& key) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) throw BuildError{"kernel '" + key + "': constraints_json is not a JSON object"};
  Constraints c;
  auto read = [&](const char* name, uint32_t& field) {
    const auto it = j.find(name);
    if (it == j.end()) return;
    if (!it->is_number_integer() || it->get<int64_t>() < 0 ||
        it->get<int64_t>() > std::numeric_limits<uint32_t>::max()) {
      throw BuildError{"kernel '" + key + "': constraints_json." + name + " is not an unsigned integer"};
    }
    field = static_cast<uint32_t>(it->get<int64_t>());
  };
  read("k_multiple", c.k_multiple);
  read("gs_multiple", c.gs_multiple);
  read("n_multiple", c.n_multiple);
  read("m_min", c.m_min);
  read("m_max", c.m_max);
  return c;
}

void build_tree(std::vector<Point>& pts, size_t lo, size_t hi, int axis) {
  if (hi - lo <= 1) return;
  const size_t mid = lo + (hi - lo) / 2;
  std::nth_element(pts.begin() + static_cast<ptrdiff_t>(lo), pts.begin() + static_cast<ptrdiff_t>(mid),
                   pts.begin() + static_cast<ptrdiff_t>(hi),
                   [axis](const Point& a, const Point& b) { return a.c[axis] < b.c[axis]; });
  build_tree(pts, lo, mid, (axis + 1) % 3);
  build_tree(pts, mid + 1, hi, (axis + 1) % 3);
}

struct Nearest {
  const Point* point = nullptr;
  double d2 = std::numeric_limits<double>::infinity();
};

// Branch-and-bound over the implicit tree with incremental cell distances (Arya & Mount):
// `offset` holds the query's per-axis distance to the current cell and `cell_d2` their squared
// sum, so a far subtree is skipped when its whole cell is farther than the best so far, not
// merely its splitting plane. Points whose winner is illegal for the query are skipped but
// still guide the descent. Recursion depth is log2(points); no allocation.
void search(const Point* pts, size_t lo, size_t hi, int axis, const std::array<double, 3>& q,
            std::array<double, 3>& offset, double cell_d2, const ProblemQuery& problem,
            const std::vector<Kernel>& kernels, Nearest& best) noexcept {
  if (lo >= hi) return;
  const size_t mid = lo + (hi - lo) / 2;
  const Point& p = pts[mid];
  const double dx = q[0] - p.c[0], dy = q[1] - p.c[1], dz = q[2] - p.c[2];
  const double d2 = dx * dx + dy * dy + dz * dz;
  if (d2 < best.d2 && kernels[p.kernel].constraints.allows(problem)) best = {&p, d2};
  const double diff = q[axis] - p.c[axis];
  const int next = (axis + 1) % 3;
  const bool left_first = diff < 0;
  search(pts, left_first ? lo : mid + 1, left_first ? mid : hi, next, q, offset, cell_d2, problem,
         kernels, best);
  const double old = offset[axis];
  const double far_d2 = cell_d2 - old * old + diff * diff;
  if (far_d2 < best.d2) {
    offset[axis] = diff;
    search(pts, left_first ? mid + 1 : lo, left_first ? hi : mid, next, q, offset, far_d2, problem,
           kernels, best);
    offset[axis] = old;
  }
}

void fill(const Kernel& k, const Point& p, const Device& d, Selection& out) noexcept {
  out.status = Status::ok;
  out.family = k.family;
  out.variant_key = k.variant_key;
  out.knobs_json = k.knobs_json;
  out.constraints_json = k.constraints_json;
  out.layout = k.layout;
  out.workgroup_size = k.workgroup_size;
  out.constraints = k.constraints;
  out.spirv = k.spirv;
  out.median_ns = p.median_ns;
  out.matched_device_name = d.name;
  out.matched_driver_version = d.driver_version;
  out.matched_m = p.m;
  out.matched_n = p.n;
  out.matched_k = p.k;
}

bool exact_fingerprint(const Device& d, const DeviceQuery& q) noexcept {
  return d.vendor_id == q.vendor_id && d.device_id == q.device_id && d.driver_id == q.driver_id &&
         d.driver_version == q.driver_version && d.uuid == q.pipeline_cache_uuid;
}

bool matches(DeviceMatch level, const Device& d, const DeviceQuery& q) noexcept {
  switch (level) {
    case DeviceMatch::exact: return exact_fingerprint(d, q);
    case DeviceMatch::other_driver:
      return d.vendor_id == q.vendor_id && d.device_id == q.device_id && !exact_fingerprint(d, q);
    case DeviceMatch::same_vendor_type:
      return d.vendor_id == q.vendor_id && d.device_id != q.device_id && d.type == q.device_type;
    case DeviceMatch::builtin: return false;
  }
  return false;
}

std::shared_ptr<const Snapshot> fail(std::string* error, std::string message) noexcept {
  if (error != nullptr) {
    try {
      *error = std::move(message);
    } catch (...) {
    }
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<const Snapshot> Snapshot::from_catalog(const db::Catalog& catalog,
                                                       std::string* error) noexcept {
  try {
    auto snap = std::make_shared<Snapshot>();
    std::unordered_map<int64_t, uint32_t> kernel_index, device_index;
    std::unordered_map<int64_t, const db::Problem*> problems;
    snap->kernels_.reserve(catalog.kernels.size());
    for (const auto& k : catalog.kernels) {
      kernel_index[k.id] = static_cast<uint32_t>(snap->kernels_.size());
      snap->kernels_.push_back(Kernel{k.family, k.variant_key, k.knobs_json, k.constraints_json,
                                      k.layout, k.workgroup_size,
                                      parse_constraints(k.constraints_json, k.variant_key),
                                      k.spirv.value_or(std::vector<uint8_t>{})});
    }
    for (const auto& d : catalog.devices) {
      device_index[d.id] = static_cast<uint32_t>(snap->devices_.size());
      Device dev;
      dev.vendor_id = d.vendor_id;
      dev.device_id = d.device_id;
      dev.driver_id = d.driver_id;
      dev.driver_version = d.driver_version;
      dev.type = parse_type(d.device_type);
      dev.uuid = parse_uuid(d.pipeline_cache_uuid, d.name);
      dev.name = d.name;
      snap->devices_.push_back(std::move(dev));
    }
    for (const auto& p : catalog.problems) problems[p.id] = &p;
    for (const auto& w : catalog.winners) {
      const auto d = device_index.find(w.device_id);
      const auto k = kernel_index.find(w.kernel_id);
      const auto p = problems.find(w.problem_id);
      if (d == device_index.end() || k == kernel_index.end() || p == problems.end()) {
        throw BuildError{"a winner refers to a device, kernel or problem that is not there"};
      }
      const db::Problem& prob = *p->second;
      auto& groups = snap->devices_[d->second].groups;
      auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
        return x.op == prob.op && x.dtype == prob.dtype && x.group_size == prob.group_size;
      });
      if (g == groups.end()) g = groups.insert(groups.end(), Group{prob.op, prob.dtype, prob.group_size, {}, {}});
      Point pt;
      pt.c = {std::log(double(prob.m)), std::log(double(prob.n)), std::log(double(prob.k))};
      pt.m = prob.m;
      pt.n = prob.n;
      pt.k = prob.k;
      pt.kernel = k->second;
      pt.median_ns = w.median_ns;
      g->by_shape.push_back(pt);
    }
    for (auto& dev : snap->devices_) {
      for (auto& g : dev.groups) {
        std::sort(g.by_shape.begin(), g.by_shape.end(), [](const Point& a, const Point& b) {
          return std::tie(a.m, a.n, a.k) < std::tie(b.m, b.n, b.k);
        });
        g.tree = g.by_shape;
        build_tree(g.tree, 0, g.tree.size(), 0);
      }
    }
    // Newest driver first, so "other driver" prefers the most recent tuning of the device.
    std::stable_sort(snap->devices_.begin(), snap->devices_.end(), [](const Device& a, const Device& b) {
      return std::tie(a.vendor_id, a.device_id, b.driver_version) <
             std::tie(b.vendor_id, b.device_id, a.driver_version);
    });
    return snap;
  } catch (const BuildError& e) {
    return fail(error, e.message);
  } catch (const std::exception& e) {
    return fail(error, e.what());
  } catch (...) {
    return fail(error, "unknown error while building the snapshot");
  }
}

std::shared_ptr<const Snapshot> Snapshot::load(const std::string& path, std::string* error) noexcept {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(error, path + ": cannot open for reading");
    char head[16] = {};
    in.read(head, sizeof head);
    const auto got = static_cast<size_t>(in.gcount());
    if (got == sizeof head && std::memcmp(head, "SQLite format 3", 16) == 0) {
      in.close();
      const db::Store store = db::Store::open(path, db::OpenMode::read_only);
      auto snap = from_catalog(store.catalog(), error);
      if (!snap && error != nullptr) *error = path + ": " + *error;
      return snap;
    }
    size_t first = 0;
    while (first < got && std::isspace(static_cast<unsigned char>(head[first]))) ++first;
    if (first == got || head[first] != '{') {
      return fail(error, path + ": neither an SQLite database nor a vktune JSON document");
    }
    in.seekg(0);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto snap = from_catalog(db::catalog_from_json(text, path), error);
    if (!snap && error != nullptr) *error = path + ": " + *error;
    return snap;
  } catch (const std::exception& e) {
    return fail(error, e.what());
  } catch (...) {
    return fail(error, path + ": unknown error while loading");
  }
}

size_t Snapshot::device_count() const noexcept { return devices_.size(); }

size_t Snapshot::winner_count() const noexcept {
  size_t n = 0;
  for (const auto& d : devices_) {
    for (const auto& g : d.groups) n += g.by_shape.size();
  }
  return n;
}

Selection Snapshot::select(const DeviceQuery& device, const ProblemQuery& problem) const noexcept {
  Selection out;
  if (const auto why = validate(problem); !why.empty()) {
    out.status = Status::invalid_query;
    out.error = why;
    return out;
  }
  const std::array<double, 3> q = {std::log(double(problem.m)), std::log(double(problem.n)),
                                   std::log(double(problem.k))};
  for (const DeviceMatch level :
       {DeviceMatch::exact, DeviceMatch::other_driver, DeviceMatch::same_vendor_type}) {
    for (const Device& d : devices_) {
      if (!matches(level, d, device)) continue;
      for (const Group& g : d.groups) {
        if (g.op != problem.op || g.dtype != problem.dtype || g.group_size != problem.group_size) continue;
        const auto hit = std::lower_bound(
            g.by_shape.begin(), g.by_shape.end(), std::tuple(problem.m, problem.n, problem.k),
            [](const Point& a, const std::tuple<uint32_t, uint32_t, uint32_t>& key) {
              return std::tie(a.m, a.n, a.k) < key;
            });
        if (hit != g.by_shape.end() && hit->m == problem.m && hit->n == problem.n &&
            hit->k == problem.k && kernels_[hit->kernel].constraints.allows(problem)) {
          fill(kernels_[hit->kernel], *hit, d, out);
          out.device_match = level;
          out.shape_match = ShapeMatch::exact;
          out.matched_group_size = g.group_size;
          return out;
        }
        Nearest best;
        std::array<double, 3> offset{};
        search(g.tree.data(), 0, g.tree.size(), 0, q, offset, 0.0, problem, kernels_, best);
        if (best.point != nullptr) {
          fill(kernels_[best.point->kernel], *best.point, d, out);
          out.device_match = level;
          out.shape_match = ShapeMatch::nearest;
          out.shape_distance = std::sqrt(best.d2);
          out.matched_group_size = g.group_size;
          return out;
        }
      }
    }
  }
  select_builtin(problem, out);
  return out;
}

}  // namespace vktune::runtime
