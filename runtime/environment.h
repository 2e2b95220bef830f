// The runtime's switches by environment variable, for a user or a developer of an application
// that links the runtime (docs/runtime.md, "Environment switches"):
//   VKTUNE_DB=/path/mine.db:/path/other.json  databases layered over the application's own,
//                                             the first on top (':' separates paths)
//   VKTUNE_FORCE_BUILTIN=1                    answer every query with the built-in routing
//   VKTUNE_LOG=1                              log each selection with its provenance to stderr
// A switch is on when set to anything but empty or "0".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/layers.h"

namespace vktune::runtime {

struct Environment {
  std::vector<std::string> db_paths;  // top first
  LayerOptions options;
};

// The switches as the process environment sets them now (getenv: call it at start-up, not
// while another thread calls setenv).
Environment read_environment();

// The application's snapshots (`app_top_first`: its user database first, its shipped system
// database last; may be empty) with the environment applied: VKTUNE_DB's databases loaded and
// stacked over them, VKTUNE_FORCE_BUILTIN and VKTUNE_LOG set. A VKTUNE_DB path that does not
// load is an error (nullptr, *error names it), not skipped: the user asked for it by name.
// Never throws.
std::shared_ptr<const Layers> layers_from_environment(
    std::vector<std::shared_ptr<const Snapshot>> app_top_first,
    std::string* error = nullptr) noexcept;

}  // namespace vktune::runtime
