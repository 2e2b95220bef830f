// The bad-input corpus (tests/reliability/bad_inputs.tsv): every case runs the built vktune
// binary and must exit with its expected code, printing its expected message. A case is one
// line: exit code, a substring of the output (stdout and stderr), the arguments (shell words).
// In the arguments {in} is tests/reliability/inputs, {dir} a fresh directory the command runs
// in, {db} a database there holding {in}/good.json (one device, kernel and problem of a
// lavapipe run) and {json} a copy of that document, {fifo} a FIFO there that nothing writes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "db/json_io.h"
#include "db/store.h"
#include "tests/temp_dir.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;
namespace fs = std::filesystem;

struct Case {
  int line = 0;
  int exit_code = 0;
  std::string message, args;
};

std::vector<Case> read_corpus(const std::string& path) {
  std::ifstream in(path);
  std::vector<Case> cases;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.empty() || text[0] == '#') continue;
    const size_t tab1 = text.find('\t'), tab2 = text.find('\t', tab1 + 1);
    if (tab1 == std::string::npos || tab2 == std::string::npos) {
      ADD_FAILURE() << path << ":" << line << ": expected exit<TAB>message<TAB>arguments";
      continue;
    }
    cases.push_back({line, std::stoi(text.substr(0, tab1)), text.substr(tab1 + 1, tab2 - tab1 - 1),
                     text.substr(tab2 + 1)});
  }
  return cases;
}

std::string substitute(std::string text, const std::string& name, const std::string& value) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + value.size())) {
    text.replace(at, name.size(), value);
  }
  return text;
}

TEST(VktuneBadInputs, EveryCaseExitsWithItsCodeAndMessage) {
  const std::string corpus = std::string(VKTUNE_SOURCE_DIR) + "/tests/reliability/bad_inputs.tsv";
  const std::string inputs = std::string(VKTUNE_SOURCE_DIR) + "/tests/reliability/inputs";
  const std::vector<Case> cases = read_corpus(corpus);
  ASSERT_GE(cases.size(), 300u) << corpus;
  TempDir dir;
  const std::string db = dir.file("db.db");
  fs::copy_file(inputs + "/good.json", dir.file("db.json"));
  {
    std::ifstream in(inputs + "/good.json");
    std::stringstream text;
    text << in.rdbuf();
    db::Store store = db::Store::open(db);
    db::import_json_text(store, text.str(), "good.json");
  }
  for (const Case& c : cases) {
    const fs::path run = dir.path() / ("case" + std::to_string(c.line));
    fs::create_directories(run);
    fs::copy_file(db, run / "db.db");
    fs::copy_file(dir.file("db.json"), run / "db.json");
    ASSERT_EQ(::mkfifo((run / "fifo").c_str(), 0600), 0);
    std::string args = c.args;
    for (const auto& [name, value] :
         {std::pair<std::string, std::string>{"{in}", inputs}, {"{dir}", run.string()},
          {"{db}", (run / "db.db").string()}, {"{json}", (run / "db.json").string()},
          {"{fifo}", (run / "fifo").string()}}) {
      args = substitute(args, name, value);
    }
    // The case's own redirections (> /dev/full) apply to vktune's stdout alone; its stderr,
    // and the stdout it did not redirect, come back here.
    const std::string command = "cd " + quoted(run.string()) + " && { timeout 300 " +
                                quoted(VKTUNE_BINARY) + " " + args + " ; } 2>&1 </dev/null";
    VktuneResult r;
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
    const int status = ::pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::string where = "bad_inputs.tsv:" + std::to_string(c.line) + ": vktune " + c.args;
    EXPECT_EQ(r.exit_code, c.exit_code) << where << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos)
        << where << "\nexpected \"" << c.message << "\" in:\n" << r.output;
    fs::remove_all(run);
  }
}

}  // namespace
}  // namespace vktune::report
