// A writer and a reader on one file at once: WAL lets the reader see committed results
// while the writer keeps appending, and neither blocks the other. Writers that create a new
// file together all succeed; a writer behind a long transaction waits for it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

#include "db/sqlite.h"
#include "db/store.h"
#include "tests/db/fixtures.h"

namespace vktune::db {
namespace {

TEST(Concurrency, ReaderSeesCommittedRowsWhileWriterRuns) {
  testing::TempDir dir;
  const std::string path = dir.file("shared.db");
  Store writer = Store::open(path);
  testing::populate(writer);
  Store reader = Store::open(path, OpenMode::read_only);
  const auto before = reader.measurements().size();

  constexpr int kResults = 200;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    const auto run = writer.begin_run({});
    for (uint32_t i = 0; i < kResults; ++i) {
      const auto p = writer.upsert_problem(testing::fake_problem(i + 100, 64, 64));
      writer.add_measurement(testing::ok_measurement(run, 1, p, 1, 10.0 + i));
    }
    done = true;
  });
  size_t last = before;
  int reads = 0;
  while (!done || reads == 0) {
    const auto now = reader.measurements().size();
    EXPECT_GE(now, last) << "a reader never sees rows disappear";
    last = now;
    ++reads;
  }
  producer.join();
  EXPECT_EQ(reader.measurements().size(), before + kResults);
  EXPECT_EQ(reader.best(1).size(), 2u + kResults);
}

TEST(Concurrency, TwoWritersQueueOnTheBusyTimeout) {
  testing::TempDir dir;
  const std::string path = dir.file("two.db");
  Store a = Store::open(path);
  testing::populate(a);
  Store b = Store::open(path);
  std::thread other([&] {
    for (uint32_t i = 0; i < 50; ++i) b.upsert_problem(testing::fake_problem(i + 1000, 8, 8));
  });
  for (uint32_t i = 0; i < 50; ++i) a.upsert_problem(testing::fake_problem(i + 2000, 8, 8));
  other.join();
  EXPECT_EQ(a.problems().size(), 102u);
}

// Many writers open a path that does not exist yet at the same moment (a barrier releases them
// together), each adds its own problem: every one succeeds and every problem is stored. Before
// the schema was created in one exclusive transaction, most such rounds lost a writer to
// "table devices already exists" or "database is locked".
TEST(Concurrency, WritersCreatingANewFileTogetherAllSucceed) {
  testing::TempDir dir;
  constexpr int kRounds = 10;
  constexpr uint32_t kWriters = 12;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.file("new" + std::to_string(round) + ".db");
    std::barrier start(kWriters);
    std::vector<std::string> errors(kWriters);
    std::vector<std::thread> writers;
    for (uint32_t w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        start.arrive_and_wait();
        try {
          Store s = Store::open(path);
          s.upsert_problem(testing::fake_problem(w + 1, 64, 64));
        } catch (const std::exception& e) {
          errors[w] = e.what();
        }
      });
    }
    for (std::thread& t : writers) t.join();
    for (const std::string& e : errors) {
      EXPECT_EQ(e, "") << "round " << round;
      failures += !e.empty();
    }
    EXPECT_EQ(Store::open(path, OpenMode::read_only).problems().size(), kWriters);
  }
  EXPECT_EQ(failures, 0) << "of " << kRounds * kWriters << " writers";
}

// A writer behind another's long transaction (an import or merge of a large database holds the
// write lock for as long as it takes) waits for it instead of failing with "database is
// locked". The holder keeps the lock past the few seconds a busy timeout is often given.
TEST(Concurrency, AWriterWaitsBehindALongTransaction) {
  testing::TempDir dir;
  const std::string path = dir.file("long.db");
  Store writer = Store::open(path);
  testing::populate(writer);
  const Connection holder = Connection::open(path, SQLITE_OPEN_READWRITE, path);
  holder.exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::seconds(6));
    holder.exec("COMMIT");
  });
  EXPECT_NO_THROW(writer.upsert_problem(testing::fake_problem(4242, 8, 8)));
  release.join();
  EXPECT_EQ(writer.problems().size(), 3u);
}

}  // namespace
}  // namespace vktune::db
