// --budget: a run's wall-time limit in seconds, where "no limit" has every spelling a user tries.
#include <cmath>
#include <cstdlib>
#include <string>

#include "tools/cli.h"

namespace vktune::cli {

std::optional<double> parse_budget(const std::string& text) {
  if (text == "0" || text == "none" || text == "inf" || text == "infinity") return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || std::isnan(seconds) || seconds < 0) {
    throw CLI::ValidationError("--budget", "\"" + text + "\" is not a number of seconds >= 0; "
                                           "use 0, none or inf for no limit");
  }
  // Past a year no run is cut: the limit is none, rather than a count of clock ticks that
  // overflows (1e10 s is more nanoseconds than an int64 holds).
  if (seconds == 0 || seconds > kNoBudgetAbove) return std::nullopt;
  return seconds;
}

}  // namespace vktune::cli
