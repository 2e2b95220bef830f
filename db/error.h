// The one exception type of db/: every failure inside the store surfaces as vktune::db::Error,
// with a message that names the file (or ":memory:") and the problem.
#pragma once

#include <stdexcept>
#include <string>

namespace vktune::db {

// Thrown by everything in db/ on failure: SQLite errors, corrupt or foreign files, schema
// versions this build cannot read, malformed JSON documents. what() is meant for humans.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace vktune::db
