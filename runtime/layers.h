// Several snapshots answering as one, the way applications ship databases: a system database
// installed with the application under the user's own tuning (and anything VKTUNE_DB names
// over both), with the runtime switches of runtime/environment.h applied.
#pragma once

#include <memory>
#include <vector>

#include "runtime/snapshot.h"

namespace vktune::runtime {

// What the environment switches (runtime/environment.h) turn on; both off by default.
struct LayerOptions {
  bool force_builtin = false;  // answer every query with the built-in routing
  bool log = false;            // one line per selection, with its provenance, on stderr
};

// Immutable once built: any number of threads may call select() at once.
class Layers {
 public:
  // `top_first`: the layer that wins ties first (the user's database), the shipped system
  // database last. Null snapshots are skipped.
  explicit Layers(std::vector<std::shared_ptr<const Snapshot>> top_first,
                  LayerOptions options = {});

  // Each layer answers as Snapshot::select alone; the answer found most closely wins: first by
  // device (exact, other driver, same vendor and type), then by shape (exact, ranked,
  // nearest), and between equally close answers the upper layer's. So the user's tuning of a
  // problem on this device overrides the system database's, while a shape only the system
  // database tuned still comes from it. As within one database, a device's answer for a shape it
  // never tuned gives way to another layer's kin answer whose matched shape is nearer by more
  // than kKinDistance (runtime/rank.h). The answer's `layer` is the index in `top_first` and
  // `source` that snapshot's source(). With no tuned answer, built-in routing (layer -1).
  // Lock-free; allocation-free unless options.log is on (formatting the line allocates).
  Selection select(const DeviceQuery& device, const ProblemQuery& problem) const noexcept;

  // The layers, top first (null snapshots dropped).
  const std::vector<std::shared_ptr<const Snapshot>>& snapshots() const noexcept { return layers_; }
  const LayerOptions& options() const noexcept { return options_; }

 private:
  Selection pick(const DeviceQuery& device, const ProblemQuery& problem) const noexcept;

  std::vector<std::shared_ptr<const Snapshot>> layers_;
  LayerOptions options_;
};

}  // namespace vktune::runtime
