// Schema versions and forward migrations. PRAGMA user_version holds the version; each step
// migrates version v-1 to v inside one transaction.
#pragma once

#include "db/sqlite.h"

namespace vktune::db {

// The schema this build writes and reads. History:
//   1: devices, kernels, problems, runs, measurements, view `best`.
//   2: devices.copy_bandwidth_gbps; index on measurements(device_id, problem_id, kernel_id)
//      for resume checks; `best` never picks a kernel that ever gave a wrong result there.
inline constexpr int kSchemaVersion = 3;

// PRAGMA user_version of the connection.
int schema_version(const Connection& connection);

// Migrates forward from the current version to `target` (1..kSchemaVersion), one transaction
// per step. Throws Error when the database is newer than `target` (never downgrades).
void migrate(const Connection& connection, int target = kSchemaVersion);

}  // namespace vktune::db
