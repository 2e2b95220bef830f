// Schema versions and forward migrations. PRAGMA user_version holds the version; every step
// from the current version to the target runs inside one write transaction.
#pragma once

#include "db/sqlite.h"

namespace vktune::db {

// The schema this build writes and reads. History:
//   1: devices, kernels, problems, runs, measurements, view `best`.
//   2: devices.copy_bandwidth_gbps; index on measurements(device_id, problem_id, kernel_id)
//      for resume checks; `best` never picks a kernel that ever gave a wrong result there.
//   3: coverage.
//   4: problems.heads and problems.kv_heads (sdpa; 0 otherwise) in the problem key.
//   5: `best` reads each variant's latest ok time on a problem, not its fastest over all runs.
inline constexpr int kSchemaVersion = 6;

// PRAGMA user_version of the connection.
int schema_version(const Connection& connection);

// Migrates forward from the current version to `target` (1..kSchemaVersion) in one
// BEGIN IMMEDIATE transaction that also reads the version, so concurrent openers serialise on
// the busy timeout and exactly one of them creates the schema. Throws Error when the database
// is newer than `target` (never downgrades); a failed step leaves the database unchanged.
void migrate(const Connection& connection, int target = kSchemaVersion);

}  // namespace vktune::db
