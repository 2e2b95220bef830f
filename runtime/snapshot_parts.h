// The snapshot's private parts, shared by its lookup (snapshot.cpp) and its construction from a
// catalog (snapshot_build.cpp). Internal to the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/rank.h"
#include "runtime/selection.h"
#include "runtime/shape_index.h"
#include "runtime/snapshot.h"

namespace vktune::runtime {

struct Snapshot::Kernel {
  std::string family, variant_key, knobs_json, constraints_json, layout;
  uint32_t workgroup_size = 0;
  Constraints constraints;
  std::vector<uint8_t> spirv;
  Specialization specialization;
};

// Problems whose answers may stand in for each other: one op, dtype, group size and (sdpa)
// head counts; their shapes (M, N, K; sdpa's N is the context length) are the index.
struct Snapshot::Group {
  std::string op, dtype;
  uint32_t group_size = 0, heads = 0, kv_heads = 0;
  ShapeIndex shapes;
  uint32_t lists = 0;  // its entries' ranked lists: Device::lists[lists]
};

// The ranked lists of every group of one op and dtype, whatever their group size or head counts,
// in one numbering: a shape tuned at another group size or head counts ranks beside the query's
// neighbours.
struct Snapshot::Lists {
  RankedLists ranked;             // the entries' fastest variants, sliced by each entry
  std::vector<double> ranked_ns;  // ranked.variants[i]'s measured time: read for the pick alone
};

struct Snapshot::Device {
  // Its name left empty: `name` owns the text, and a view into it would not survive the
  // devices' sort (a short name lives inside the string object).
  DeviceQuery fingerprint;
  std::string name;
  uint32_t compute_units = 0;  // stored_compute_units: 0 leaves the grid's fill out of the ranking
  std::vector<Group> groups;
  std::vector<Lists> lists;
};

}  // namespace vktune::runtime
