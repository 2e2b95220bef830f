// The schema scripts, one per version step. Never edit a shipped step: add a new one.
#include "db/schema.h"

#include <array>
#include <string>

#include "db/error.h"

namespace vktune::db {
namespace {

constexpr const char* kV1 = R"sql(
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  vendor_id INTEGER NOT NULL,
  device_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  driver_id INTEGER NOT NULL,
  driver_version INTEGER NOT NULL,
  driver_version_text TEXT NOT NULL DEFAULT '',
  driver_info TEXT NOT NULL DEFAULT '',
  api_version INTEGER NOT NULL DEFAULT 0,
  pipeline_cache_uuid TEXT NOT NULL CHECK (length(pipeline_cache_uuid) = 32),
  device_type TEXT NOT NULL
    CHECK (device_type IN ('discrete', 'integrated', 'virtual', 'cpu', 'other')),
  subgroup_size INTEGER NOT NULL DEFAULT 0,
  properties_json TEXT NOT NULL DEFAULT '{}',
  UNIQUE (vendor_id, device_id, driver_id, driver_version, pipeline_cache_uuid, name)
);
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY,
  family TEXT NOT NULL,
  variant_key TEXT NOT NULL,
  knobs_json TEXT NOT NULL DEFAULT '{}',
  constraints_json TEXT NOT NULL DEFAULT '{}',
  layout TEXT NOT NULL DEFAULT '',
  workgroup_size INTEGER NOT NULL DEFAULT 0,
  source_hash TEXT NOT NULL,
  spirv BLOB,
  UNIQUE (variant_key, source_hash)
);
CREATE TABLE problems (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  dtype TEXT NOT NULL,
  m INTEGER NOT NULL CHECK (m > 0),
  n INTEGER NOT NULL CHECK (n > 0),
  k INTEGER NOT NULL CHECK (k > 0),
  group_size INTEGER NOT NULL CHECK (group_size >= 0),
  UNIQUE (op, dtype, m, n, k, group_size)
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  strategy TEXT NOT NULL DEFAULT '',
  tool_version TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  cache_mode TEXT NOT NULL DEFAULT ''
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  status TEXT NOT NULL CHECK (status IN ('ok', 'wrong_result', 'compile_error', 'unsupported',
                                         'timeout', 'device_lost')),
  message TEXT NOT NULL DEFAULT '',
  n INTEGER NOT NULL DEFAULT 0,
  median_ns REAL,
  min_ns REAL,
  p10_ns REAL,
  p90_ns REAL,
  max_error REAL,
  gbps REAL,
  gflops REAL,
  UNIQUE (run_id, device_id, problem_id, kernel_id)
);
CREATE VIEW best AS
SELECT device_id, problem_id, kernel_id, run_id, measurement_id, median_ns FROM (
  SELECT m.device_id, m.problem_id, m.kernel_id, m.run_id, m.id AS measurement_id, m.median_ns,
         row_number() OVER (PARTITION BY m.device_id, m.problem_id
                            ORDER BY m.median_ns, r.started_at DESC, m.run_id DESC) AS rank
  FROM measurements m JOIN runs r ON r.id = m.run_id
  WHERE m.status = 'ok' AND m.median_ns IS NOT NULL)
WHERE rank = 1;
)sql";

// Ties go to the latest run (started_at, then insertion order of runs).
constexpr const char* kV2 = R"sql(
ALTER TABLE devices ADD COLUMN copy_bandwidth_gbps REAL;
CREATE INDEX measurements_by_triple ON measurements (device_id, problem_id, kernel_id, status);
DROP VIEW best;
CREATE VIEW best AS
SELECT device_id, problem_id, kernel_id, run_id, measurement_id, median_ns FROM (
  SELECT m.device_id, m.problem_id, m.kernel_id, m.run_id, m.id AS measurement_id, m.median_ns,
         row_number() OVER (PARTITION BY m.device_id, m.problem_id
                            ORDER BY m.median_ns, r.started_at DESC, m.run_id DESC) AS rank
  FROM measurements m JOIN runs r ON r.id = m.run_id
  WHERE m.status = 'ok' AND m.median_ns IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM measurements w
                    WHERE w.device_id = m.device_id AND w.problem_id = m.problem_id
                      AND w.kernel_id = m.kernel_id AND w.status = 'wrong_result'))
WHERE rank = 1;
)sql";

// How much of each problem's space a run measured: the legal variants, those with a result,
// the variants timed at each stage (stage one first, the finalists last) and whether the budget
// stopped the run before every variant was measured.
constexpr const char* kV3 = R"sql(
CREATE TABLE coverage (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  legal INTEGER NOT NULL CHECK (legal >= 0),
  measured INTEGER NOT NULL CHECK (measured >= 0),
  stages_json TEXT NOT NULL DEFAULT '[]',
  budget_cut INTEGER NOT NULL DEFAULT 0 CHECK (budget_cut IN (0, 1)),
  PRIMARY KEY (run_id, device_id, problem_id)
);
)sql";

// sdpa's head counts join the problem key (0 for the other ops). SQLite cannot change a UNIQUE
// constraint in place, so the table is rebuilt (migrate() runs it with foreign keys off and
// checks them before committing); ids are kept, so measurements and coverage still point right.
constexpr const char* kV4 = R"sql(
CREATE TABLE problems_v4 (
  id INTEGER PRIMARY KEY,
  op TEXT NOT NULL,
  dtype TEXT NOT NULL,
  m INTEGER NOT NULL CHECK (m > 0),
  n INTEGER NOT NULL CHECK (n > 0),
  k INTEGER NOT NULL CHECK (k > 0),
  group_size INTEGER NOT NULL CHECK (group_size >= 0),
  heads INTEGER NOT NULL DEFAULT 0 CHECK (heads >= 0),
  kv_heads INTEGER NOT NULL DEFAULT 0 CHECK (kv_heads >= 0),
  UNIQUE (op, dtype, m, n, k, group_size, heads, kv_heads)
);
INSERT INTO problems_v4 (id, op, dtype, m, n, k, group_size)
  SELECT id, op, dtype, m, n, k, group_size FROM problems;
DROP TABLE problems;
ALTER TABLE problems_v4 RENAME TO problems;
)sql";

// A variant's time on a problem is its latest run's (by started_at, then run id), not the
// fastest any run ever stored: runs differ in clocks and duty cycle, and a minimum over runs
// only ever falls, so a re-measurement could never correct a time an idle, cooler GPU
// flattered. Latest by variant key, not kernel row: a kernel re-measured after its shader
// source changed is a new row of the same variant, and its new time replaces the old source's
// (two sources of one variant in one run: the faster, then the first stored).
constexpr const char* kV5 = R"sql(
DROP VIEW best;
CREATE VIEW best AS
SELECT device_id, problem_id, kernel_id, run_id, measurement_id, median_ns FROM (
  SELECT device_id, problem_id, kernel_id, run_id, measurement_id, median_ns,
         row_number() OVER (PARTITION BY device_id, problem_id
                            ORDER BY median_ns, started_at DESC, run_id DESC) AS rank
  FROM (
    SELECT m.device_id, m.problem_id, m.kernel_id, m.run_id, m.id AS measurement_id, m.median_ns,
           r.started_at,
           row_number() OVER (PARTITION BY m.device_id, m.problem_id, k.variant_key
                              ORDER BY r.started_at DESC, m.run_id DESC, m.median_ns, m.id)
             AS recency
    FROM measurements m JOIN runs r ON r.id = m.run_id JOIN kernels k ON k.id = m.kernel_id
    WHERE m.status = 'ok' AND m.median_ns IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM measurements w
                      WHERE w.device_id = m.device_id AND w.problem_id = m.problem_id
                        AND w.kernel_id = m.kernel_id AND w.status = 'wrong_result'))
  WHERE recency = 1)
WHERE rank = 1;
)sql";

// A kernel's specialisation constants, the values its SPIR-V takes at pipeline creation, as a
// JSON array of [constant_id, value] pairs in ascending id. Every kernel stored before had none
// (its sizes were compiled in), so the default is the empty array.
constexpr const char* kV6 = R"sql(
ALTER TABLE kernels ADD COLUMN specialization_json TEXT NOT NULL DEFAULT '[]';
)sql";

constexpr std::array<const char*, kSchemaVersion> kSteps = {kV1, kV2, kV3, kV4, kV5, kV6};

// Foreign keys off for the life of a migration (SQLite ignores the pragma inside a
// transaction, so it is set before one opens), back on afterwards, whatever happens.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(const Connection& connection) : connection_(connection) {
    connection_.exec("PRAGMA foreign_keys = OFF");
  }
  ~ForeignKeysOff() {
    try {
      connection_.exec("PRAGMA foreign_keys = ON");
    } catch (...) {  // destructors never throw; the connection is then unusable anyway
    }
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  const Connection& connection_;
};

}  // namespace

int schema_version(const Connection& connection) {
  return static_cast<int>(connection.query_int("PRAGMA user_version"));
}

void migrate(const Connection& connection, int target) {
  if (target < 1 || target > kSchemaVersion) {
    throw Error(connection.label() + ": cannot migrate to schema version " +
                std::to_string(target));
  }
  // Versions only grow, so a database already at the target needs no write lock.
  if (schema_version(connection) == target) return;
  // The version is read again inside the write transaction that applies the steps, so writers
  // that open one new (or old) file together serialise here: the first migrates, the others
  // wait on the busy timeout and then find nothing left to do. Read only outside it, two would
  // both see version 0 and the second would fail on "table devices already exists".
  const ForeignKeysOff rebuilds_allowed(connection);
  Transaction transaction(connection);
  int version = schema_version(connection);
  if (version > target) {
    throw Error(connection.label() + ": schema version " + std::to_string(version) +
                " is newer than " + std::to_string(target) +
                ", the newest this vktune understands; use a newer vktune");
  }
  if (version == target) return;  // the transaction rolls back: nothing was written
  for (; version < target; ++version) connection.exec(kSteps[static_cast<size_t>(version)]);
  if (connection.query_int("SELECT count(*) FROM pragma_foreign_key_check") != 0) {
    throw Error(connection.label() + ": migrating to schema version " + std::to_string(target) +
                " left dangling references; nothing was changed");
  }
  connection.exec("PRAGMA user_version = " + std::to_string(target));
  transaction.commit();
}

}  // namespace vktune::db
