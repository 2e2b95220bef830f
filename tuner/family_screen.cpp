#include "tuner/family_screen.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "kernels/vk/shader_compiler.h"

namespace vktune::tuner {

FamilyScreen::FamilyScreen(const std::vector<Candidate>& list,
                           const std::function<bool(const Candidate&)>& exempt, ScreenRule rule)
    : rule_(rule), group_of_(list.size()) {
  std::vector<std::vector<size_t>> members;  // by group, not exempt
  for (size_t i = 0; i < list.size(); ++i) {
    const Candidate& c = list[i];
    auto it = std::ranges::find(groups_, c.family, &Group::family);
    if (it == groups_.end()) {
      members.emplace_back();
      it = groups_.insert(groups_.end(), Group{c.family});
    }
    group_of_[i] = static_cast<size_t>(it - groups_.begin());
    if (c.resumed && c.timed()) measured(i, c.stats->median);
    if (exempt(c)) {
      if (!c.resumed) order_.push_back(i);
    } else {
      members[group_of_[i]].push_back(i);
    }
  }
  // The probes are picked among the resumed too, so a resumed run picks those the interrupted
  // one measured and hands out only what it had not.
  const auto not_resumed = [&](size_t i) { return !list[i].resumed; };
  for (size_t g = 0; g < members.size(); ++g) {
    std::vector<size_t>& m = members[g];
    std::ranges::stable_sort(m, {}, [&](size_t i) { return content_hash_value(list[i].key); });
    const auto probes = m.begin() + static_cast<ptrdiff_t>(std::min(rule_.probes, m.size()));
    std::copy_if(m.begin(), probes, std::back_inserter(order_), not_resumed);
    std::copy_if(probes, m.end(), std::back_inserter(groups_[g].rest), not_resumed);
    std::ranges::sort(groups_[g].rest);
  }
  std::ranges::sort(order_);  // the list's order (warm starts and baselines first)
}

std::vector<size_t> FamilyScreen::next(size_t max) {
  // next() is asked again only once what it handed out was measured: at the screen's end the
  // whole screen has its times.
  if (next_ == order_.size() && !decided_) decide();
  const size_t end = std::min(order_.size(), next_ + max);
  std::vector<size_t> picks(order_.begin() + static_cast<ptrdiff_t>(next_),
                            order_.begin() + static_cast<ptrdiff_t>(end));
  next_ = end;
  return picks;
}

void FamilyScreen::measured(size_t i, std::optional<double> ns) {
  if (!ns) return;
  Group& g = groups_[group_of_[i]];
  g.best = std::min(g.best.value_or(*ns), *ns);
  best_ = std::min(best_.value_or(*ns), *ns);
}

void FamilyScreen::decide() {
  decided_ = true;
  std::vector<size_t> rest;
  for (Group& g : groups_) {
    // A family with no time (every screened variant failed, or none was screened) stays: there
    // is nothing to drop it on.
    g.dropped = g.best && best_ && *g.best > rule_.within * *best_;
    if (!g.dropped) rest.insert(rest.end(), g.rest.begin(), g.rest.end());
  }
  std::ranges::sort(rest);
  order_.insert(order_.end(), rest.begin(), rest.end());
}

std::string FamilyScreen::summary() const {
  std::string text;
  for (const Group& g : groups_) {
    if (!g.dropped || g.rest.empty()) continue;
    char line[160];
    std::snprintf(line, sizeof line, "%s%s (%zu variants left out, best screened %.1fx the best)",
                  text.empty() ? "screen dropped " : ", ", g.family->name().c_str(), g.rest.size(),
                  *g.best / *best_);
    text += line;
  }
  return text;
}

}  // namespace vktune::tuner
