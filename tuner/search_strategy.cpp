// The three search strategies: stage one's order (the list's, or the model search's picks) and
// halving's later stages, shared by halving and model.
#include "tuner/search_strategy.h"

#include <algorithm>
#include <utility>

#include "tuner/search.h"

namespace vktune::tuner {
namespace {

// The candidates not resumed, handed out in list order.
class ListOrder {
 public:
  explicit ListOrder(const std::vector<Candidate>& list) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].resumed) order_.push_back(i);
    }
  }
  std::vector<size_t> next(size_t max) {
    const size_t end = std::min(order_.size(), next_ + max);
    std::vector<size_t> picks(order_.begin() + static_cast<ptrdiff_t>(next_),
                              order_.begin() + static_cast<ptrdiff_t>(end));
    next_ = end;
    return picks;
  }
  bool over() const { return next_ == order_.size(); }

 private:
  std::vector<size_t> order_;
  size_t next_ = 0;
};

// Halving's stages after stage one: one recheck of the readings far behind a kept neighbour,
// then narrowings to what is near the best, each timed longer, until the finalists remain.
class HalvingStages {
 public:
  HalvingStages(const TimingOptions& full, size_t finalists, std::set<std::string> protect)
      : full_(full), finalists_(finalists), protect_(std::move(protect)) {}

  std::optional<LaterStage> next(const std::vector<Candidate*>& pool) {
    if (pool.size() <= finalists_) return std::nullopt;
    // A one-sample reading far behind a kept neighbour is sampled again before halving drops
    // the variant on it (search.h); the second sample is its time from then on.
    if (!rechecked_) {
      rechecked_ = true;
      Recheck r = recheck(pool);
      if (!r.again.empty()) {
        return LaterStage{std::move(r.again), stage_timing(full_, 0), false, r.bound};
      }
    }
    // After stage one's single sample, the nearest tuned problems' winners advance whatever it
    // read (search.h); later stages take medians of three samples or more.
    ++stage_;
    return LaterStage{halve(pool, finalists_, stage_ == 1 ? protect_ : std::set<std::string>{}),
                      stage_timing(full_, stage_), true, 0};
  }

 private:
  TimingOptions full_;
  size_t finalists_;
  std::set<std::string> protect_;
  bool rechecked_ = false;
  int stage_ = 0;
};

class Exhaustive final : public SearchStrategy {
 public:
  Exhaustive(const std::vector<Candidate>& list, const TimingOptions& full)
      : order_(list), timing_(full) {}
  const TimingOptions& first_timing() const override { return timing_; }
  std::vector<size_t> next(size_t max) override { return order_.next(max); }
  bool stage_one_over() const override { return order_.over(); }
  void measured(size_t, std::optional<double>) override {}
  std::optional<LaterStage> next_stage(const std::vector<Candidate*>&) override {
    return std::nullopt;
  }

 private:
  ListOrder order_;
  TimingOptions timing_;
};

// Halving and model: stage one timed at the first stage's rounds, then halving's later stages.
// Every stage-one sample comes from the time stage, never from the gate: a gate dispatch is the
// variant's first, at whatever clock the GPU fell to while the CPU checked the batch before (on
// the H100 3-8x the variant's time on the lm_head problems), and halving drops variants on that
// one sample.
class Staged : public SearchStrategy {
 public:
  Staged(const TimingOptions& full, size_t finalists, std::set<std::string> protect)
      : timing_(stage_timing(full, 0)), stages_(full, finalists, std::move(protect)) {}
  const TimingOptions& first_timing() const final { return timing_; }
  std::optional<LaterStage> next_stage(const std::vector<Candidate*>& pool) final {
    return stages_.next(pool);
  }

 private:
  TimingOptions timing_;
  HalvingStages stages_;
};

// Stage one screens the families first (family_screen.h), then measures the rest of those kept.
class Halving final : public Staged {
 public:
  Halving(const std::vector<Candidate>& list, const TimingOptions& full, size_t finalists,
          std::set<std::string> protect, const std::function<bool(const Candidate&)>& exempt,
          ScreenRule rule)
      : Staged(full, finalists, protect),
        screen_(list, [&](const Candidate& c) { return protect.contains(c.key) || exempt(c); },
                rule) {}
  std::vector<size_t> next(size_t max) override { return screen_.next(max); }
  bool stage_one_over() const override { return screen_.over(); }
  void measured(size_t i, std::optional<double> ns) override { screen_.measured(i, ns); }
  std::string summary() const override { return screen_.summary(); }

 private:
  FamilyScreen screen_;
};

class Model final : public Staged {
 public:
  Model(ModelSearch search, size_t legal, const TimingOptions& full, size_t finalists,
        std::set<std::string> protect)
      : Staged(full, finalists, std::move(protect)), search_(std::move(search)), legal_(legal) {}
  std::vector<size_t> next(size_t max) override { return search_.next(max); }
  void measured(size_t i, std::optional<double> ns) override { search_.measured(i, ns); }
  std::string summary() const override {
    return "model: estimated " + std::to_string(search_.handed_out()) + " of " +
           std::to_string(legal_) + " legal variants; " + search_.stop_reason();
  }

 private:
  ModelSearch search_;
  size_t legal_;
};

}  // namespace

std::unique_ptr<SearchStrategy> exhaustive_strategy(const std::vector<Candidate>& list,
                                                    const TimingOptions& full) {
  return std::make_unique<Exhaustive>(list, full);
}

std::unique_ptr<SearchStrategy> halving_strategy(
    const std::vector<Candidate>& list, const TimingOptions& full, size_t finalists,
    std::set<std::string> protect, const std::function<bool(const Candidate&)>& exempt,
    ScreenRule screen) {
  return std::make_unique<Halving>(list, full, finalists, std::move(protect), exempt, screen);
}

std::unique_ptr<SearchStrategy> model_strategy(ModelSearch search, size_t legal,
                                               const TimingOptions& full, size_t finalists,
                                               std::set<std::string> protect) {
  return std::make_unique<Model>(std::move(search), legal, full, finalists, std::move(protect));
}

}  // namespace vktune::tuner
