// Layers: the closest answer over several snapshots, ties to the upper layer, and a kin's
// nearer shape over a device's far one.
#include "runtime/layers.h"

#include <cstdio>
#include <string>
#include <tuple>

#include "runtime/builtin.h"
#include "runtime/rank.h"

namespace vktune::runtime {
namespace {

// Lower is closer. Within one snapshot select() prefers exact, then ranked, then nearest
// shapes; ShapeMatch's values are in the order the kinds were added, not that one.
int shape_rank(ShapeMatch m) noexcept {
  switch (m) {
    case ShapeMatch::exact: return 0;
    case ShapeMatch::ranked: return 1;
    case ShapeMatch::nearest: return 2;
    case ShapeMatch::builtin: return 3;
  }
  return 3;
}

auto closeness(const Selection& s) noexcept {
  return std::pair{static_cast<int>(s.device_match), shape_rank(s.shape_match)};
}

// "vktune: q4gsw f32 M=1 N=4096 K=4096 gs=32 -> <key> (device exact, shape exact, layer 0
// /path/user.db)". Only called when logging is on; it allocates.
void log_selection(const ProblemQuery& q, const Selection& s) {
  std::string line = "vktune: " + std::string(q.op) + " " + std::string(q.dtype) +
                     " M=" + std::to_string(q.m) + " N=" + std::to_string(q.n) +
                     " K=" + std::to_string(q.k) + " gs=" + std::to_string(q.group_size) + " -> ";
  if (!s.ok()) {
    line += std::string(to_string(s.status)) + ": " + std::string(s.error);
  } else {
    line += std::string(s.variant_key) + " (device " + std::string(to_string(s.device_match)) +
            ", shape " + std::string(to_string(s.shape_match));
    line += s.layer < 0 ? std::string(", built-in")
                        : ", layer " + std::to_string(s.layer) + " " + std::string(s.source);
    line += ')';
  }
  line += '\n';
  std::fputs(line.c_str(), stderr);
}

}  // namespace

Layers::Layers(std::vector<std::shared_ptr<const Snapshot>> top_first, LayerOptions options)
    : options_(options) {
  for (auto& snapshot : top_first) {
    if (snapshot) layers_.push_back(std::move(snapshot));
  }
}

Selection Layers::pick(const DeviceQuery& device, const ProblemQuery& problem) const noexcept {
  Selection best;
  if (options_.force_builtin || layers_.empty()) {
    if (const std::string_view why = validate(problem); !why.empty()) {
      best.status = Status::invalid_query;
      best.error = why;
    } else {
      select_builtin(problem, best);
    }
    return best;
  }
  bool tuned = false;
  Selection kin;  // the nearest same_vendor_type answer of any layer
  for (size_t i = 0; i < layers_.size(); ++i) {
    Selection s = layers_[i]->select(device, problem);
    if (s.status == Status::invalid_query) return s;  // the same from every layer
    // A layer with nothing tuned for this device answers with the built-in routing (or no
    // match): kept only until some layer has a tuned answer.
    if (!s.ok() || s.device_match == DeviceMatch::builtin) {
      if (!tuned) best = s;
      continue;
    }
    s.layer = static_cast<int>(i);
    if (!tuned || closeness(s) < closeness(best)) best = s;
    tuned = true;
    if (closeness(best) == std::pair{0, 0}) break;  // nothing below can be closer
    if (s.device_match == DeviceMatch::same_vendor_type &&
        (!kin.ok() || s.shape_distance < kin.shape_distance)) {
      kin = s;
    }
  }
  // One layer's device answering for a shape it never tuned gives way to another layer's kin,
  // as within one database (runtime/rank.h).
  return kin_answers_instead(best, kin) ? kin : best;
}

Selection Layers::select(const DeviceQuery& device, const ProblemQuery& problem) const noexcept {
  Selection s = pick(device, problem);
  if (options_.log) {
    try {
      log_selection(problem, s);
    } catch (...) {
      // A log line that cannot be formatted (out of memory) is dropped, not the answer.
    }
  }
  return s;
}

}  // namespace vktune::runtime
