// Strategy names as the CLI and the run records spell them.
#include "tuner/options.h"

namespace vktune::tuner {

const char* strategy_name(Strategy strategy) noexcept {
  switch (strategy) {
    case Strategy::exhaustive:
      return "exhaustive";
    case Strategy::halving:
      return "halving";
    case Strategy::model:
      return "model";
  }
  return "unknown";
}

std::optional<Strategy> parse_strategy(std::string_view name) noexcept {
  for (Strategy s : {Strategy::exhaustive, Strategy::halving, Strategy::model}) {
    if (name == strategy_name(s)) return s;
  }
  return std::nullopt;
}

std::shared_future<const db::Store*> read_store(const db::Store& store) {
  std::promise<const db::Store*> read;
  read.set_value(&store);
  return read.get_future().share();
}

}  // namespace vktune::tuner
