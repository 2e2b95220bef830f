// The closing line of a problem says when the finalists' re-measurement crowned a variant other
// than the live line's best, and says nothing when they agree.
#include "tuner/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace vktune::tuner {
namespace {

// What a plain-lines Progress writes for one problem whose live best is "a" and whose winner
// is `winner`.
std::string closing(const std::optional<std::string>& winner) {
  std::FILE* f = std::tmpfile();
  {
    Progress progress(f, /*force_plain=*/true);
    progress.begin_problem(0, 1, "q4gsw M=1", 2);
    progress.variant_done(1, "a", 10'000.0);
    progress.variant_done(2, "a", 10'000.0);
    progress.end_problem("winner 9.90 us  b", winner);
  }
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

TEST(ProgressTest, SaysWhenTheFinalistsChangedTheLeader) {
  const std::string changed = closing("b");
  EXPECT_NE(changed.find("changed the leader: the live best was a"), std::string::npos) << changed;
  EXPECT_EQ(closing("a").find("changed the leader"), std::string::npos);
  EXPECT_EQ(closing(std::nullopt).find("changed the leader"), std::string::npos);
}

}  // namespace
}  // namespace vktune::tuner
