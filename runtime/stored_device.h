// A device stored in a kernel database (db::DeviceRecord) as the runtime's fingerprint: the one
// conversion the snapshot builds its devices with and the tools query a stored device with;
// and a stored problem as the runtime's query.
#pragma once

#include "db/records.h"
#include "runtime/selection.h"

namespace vktune::runtime {

// The query that matches `record`'s exact fingerprint. name views record.name (valid while the
// record lives); a device type the runtime does not know reads as DeviceType::other. Throws
// std::invalid_argument naming the device when its pipeline_cache_uuid is not 32 hex digits.
DeviceQuery stored_device_query(const db::DeviceRecord& record);

// The compute units `record`'s properties name (limits.compute_units, as the tuner records
// vk::DeviceLimits); 0 where they name none or are not JSON, as in databases tuned before.
uint32_t stored_compute_units(const db::DeviceRecord& record) noexcept;

// The query for a stored problem, head counts included (op and dtype view the record's).
ProblemQuery stored_problem_query(const db::Problem& problem);

}  // namespace vktune::runtime
