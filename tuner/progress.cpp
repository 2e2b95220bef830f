// Terminal and log progress lines.
#include "tuner/progress.h"

#include <unistd.h>

namespace vktune::tuner {

Progress::Progress(std::FILE* out, bool force_plain)
    : out_(out), tty_(!force_plain && isatty(fileno(out))) {}

std::string format_seconds(double seconds) {
  char text[32];
  if (seconds < 10) {
    std::snprintf(text, sizeof text, "%.2f s", seconds);
  } else if (seconds < 120) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else {
    std::snprintf(text, sizeof text, "%d min %02d s", static_cast<int>(seconds) / 60,
                  static_cast<int>(seconds) % 60);
  }
  return text;
}

void Progress::begin_problem(size_t index, size_t count, const std::string& label,
                             size_t variants) {
  index_ = index;
  count_ = count;
  label_ = label;
  variants_ = variants;
  done_ = 0;
  best_key_.clear();
  best_ns_.reset();
  problem_start_ = last_plain_ = std::chrono::steady_clock::now();
  draw(false);
}

void Progress::variant_done(size_t done, const std::string& best_key,
                            std::optional<double> best_ns) {
  done_ = done;
  best_key_ = best_key;
  best_ns_ = best_ns;
  // Plain output: a line every 10 s at most, so a long problem still shows it is alive.
  const auto now = std::chrono::steady_clock::now();
  if (tty_ || now - last_plain_ >= std::chrono::seconds(10)) {
    last_plain_ = now;
    draw(false);
  }
}

void Progress::note(const std::string& text) {
  if (tty_) std::fputs("\r\033[K", out_);
  std::fprintf(out_, "%s\n", text.c_str());
  if (tty_) draw(false);
  std::fflush(out_);
}

void Progress::end_problem(const std::string& summary,
                           const std::optional<std::string>& winner_key) {
  draw(true);
  std::fprintf(out_, "    %s\n", summary.c_str());
  if (winner_key && !best_key_.empty() && *winner_key != best_key_) {
    std::fprintf(out_, "    (the finalists' re-measurement changed the leader: the live best was %s)\n",
                 best_key_.c_str());
  }
  std::fflush(out_);
}

void Progress::draw(bool final_line) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - problem_start_).count();
  std::string eta = "?";
  if (done_ > 0 && done_ <= variants_) {
    eta = format_seconds(elapsed / static_cast<double>(done_) *
                         static_cast<double>(variants_ - done_));
  }
  char best[64] = "-";
  if (best_ns_) std::snprintf(best, sizeof best, "%.2f us", *best_ns_ / 1000.0);
  if (tty_) std::fputs("\r\033[K", out_);
  std::fprintf(out_, "[%zu/%zu] %s  variants %zu/%zu  elapsed %s  ETA %s  best %s %s",
               index_ + 1, count_, label_.c_str(), done_, variants_,
               format_seconds(elapsed).c_str(), final_line ? "0 s" : eta.c_str(), best,
               best_key_.c_str());
  if (!tty_ || final_line) std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace vktune::tuner
