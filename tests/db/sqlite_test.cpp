// Connection::prepared: one statement per SQL text, kept across calls, and none left behind a
// moved connection.
#include "db/sqlite.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace vktune::db {
namespace {

Connection memory() {
  Connection c = Connection::open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, "mem");
  c.exec("CREATE TABLE t (x INTEGER)");
  return c;
}

TEST(Connection, PreparedKeepsOneStatementPerTextAndResetsItForEachUse) {
  const Connection c = memory();
  Statement& insert = c.prepared("INSERT INTO t (x) VALUES (:x)");
  insert.bind(":x", int64_t{1}).run();
  Statement& again = c.prepared("INSERT INTO t (x) VALUES (:x)");
  EXPECT_EQ(&again, &insert);
  again.bind(":x", int64_t{2}).run();
  EXPECT_NE(&c.prepared("SELECT sum(x) FROM t"), &insert);
  // A query left on its first row is reset by the next prepared() of its text: it reads from
  // the start again.
  Statement& sum = c.prepared("SELECT sum(x) AS s FROM t");
  ASSERT_TRUE(sum.step());
  EXPECT_EQ(sum.integer("s"), 3);
  c.prepared("INSERT INTO t (x) VALUES (:x)").bind(":x", int64_t{4}).run();
  Statement& sum_again = c.prepared("SELECT sum(x) AS s FROM t");
  ASSERT_TRUE(sum_again.step());
  EXPECT_EQ(sum_again.integer("s"), 7);
}

TEST(Connection, AMovedConnectionPreparesItsStatementsAnew) {
  Connection first = memory();
  first.prepared("INSERT INTO t (x) VALUES (:x)").bind(":x", int64_t{5}).run();
  Connection moved = std::move(first);
  Statement& s = moved.prepared("SELECT count(*) AS n FROM t");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.integer("n"), 1);
  // The moved-to connection's statements name it in their errors: binding a parameter the
  // statement lacks throws with its label.
  Statement& insert = moved.prepared("INSERT INTO t (x) VALUES (:x)");
  try {
    insert.bind(":y", int64_t{1});
    FAIL() << "no :y parameter, no error";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("mem: no SQL parameter :y"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace vktune::db
