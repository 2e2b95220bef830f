// Renders the HTML report in headless Chromium: the page parses with its SVG intact and the
// screenshot is far from blank. CI installs Debian's `chromium` (tools/run-tests.sh); a
// missing browser fails the test rather than skipping it.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "db/atomic_write.h"
#include "tests/tools/report_fixture.h"
#include "tools/report/html.h"
#include "tools/report/report.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

std::string find_chromium() {
  for (const char* name :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(name)) return name;
  }
  return {};
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs `command`, returns (exit status, stdout).
std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return {-1, out};
  std::array<char, 4096> buf;
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  return {status, out};
}

std::string chromium_command(const std::string& chromium, const std::string& profile,
                             const std::string& action, const std::string& page) {
  return "timeout 180 " + shell_quote(chromium) +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
         " --disable-background-networking --disable-component-update --disable-sync"
         " --disable-dev-shm-usage --hide-scrollbars --user-data-dir=" +
         shell_quote(profile) + " --window-size=1200,2000 " + action + " " +
         shell_quote("file://" + page) + " 2>/dev/null";
}

// Width and height from a PNG's IHDR chunk; {0, 0} when `png` is not a PNG.
std::pair<uint32_t, uint32_t> png_size(const std::string& png) {
  static const std::string kMagic = "\x89PNG\r\n\x1a\n";
  if (png.size() < 24 || png.compare(0, 8, kMagic) != 0 || png.compare(12, 4, "IHDR") != 0) {
    return {0, 0};
  }
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
           (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
  };
  return {be32(16), be32(20)};
}

TEST(HtmlChromium, RendersChartsAndIsNotBlank) {
  const std::string chromium = find_chromium();
  ASSERT_FALSE(chromium.empty()) << "chromium not found; install the Debian `chromium` package "
                                    "(tools/run-tests.sh does)";
  TempDir dir;
  db::Store store = db::Store::open_memory();
  build_synthetic(store);
  const std::string report = dir.file("report.html");
  const std::string empty = dir.file("empty.html");
  db::write_output(report, render_html(summarize(store)));
  db::write_output(empty,
                   "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body></body></html>\n");

  // The DOM after parsing: every chart survived as SVG.
  const auto [dom_status, dom] =
      run(chromium_command(chromium, dir.file("profile-dom"), "--dump-dom", report));
  ASSERT_EQ(dom_status, 0) << "chromium --dump-dom failed";
  EXPECT_EQ(count(dom, "<svg"), 6u);
  EXPECT_EQ(count(dom, "class=\"heat-cell\""), 2u);
  EXPECT_EQ(count(dom, "class=\"roof-point\""), 7u);  // 6 on device 1, 1 on device 2
  EXPECT_NE(dom.find("vktune tuning report"), std::string::npos);

  const std::string shot = dir.file("shot.png");
  const std::string blank = dir.file("blank.png");
  ASSERT_EQ(run(chromium_command(chromium, dir.file("profile-a"),
                                 "--screenshot=" + shell_quote(shot), report))
                .first,
            0);
  ASSERT_EQ(run(chromium_command(chromium, dir.file("profile-b"),
                                 "--screenshot=" + shell_quote(blank), empty))
                .first,
            0);
  const std::string shot_png = slurp(shot), blank_png = slurp(blank);
  EXPECT_EQ(png_size(shot_png), (std::pair<uint32_t, uint32_t>{1200, 2000}));
  EXPECT_EQ(png_size(blank_png), (std::pair<uint32_t, uint32_t>{1200, 2000}));
  // A blank page compresses to almost nothing; text, tables and bars do not.
  EXPECT_GT(shot_png.size(), 10 * blank_png.size() + 20000)
      << "report " << shot_png.size() << " bytes, blank " << blank_png.size() << " bytes";
}

// Clicks the "time us" header of device 1's table twice and filters it, by script appended to
// the page (it runs after the page's own script, as a reader's clicks would), and reports the
// row order and any script error or console.error through the DOM that --dump-dom prints.
TEST(HtmlChromium, TableSortsAndFiltersWithoutErrors) {
  const std::string chromium = find_chromium();
  ASSERT_FALSE(chromium.empty()) << "chromium not found";
  TempDir dir;
  db::Store store = db::Store::open_memory();
  build_synthetic(store);
  std::string page = render_html(summarize(store));
  const std::string watch = R"(<script>
window.seen = [];
window.addEventListener("error", e => seen.push(String(e.message)));
const consoleError = console.error;
console.error = (...a) => { seen.push(a.join(" ")); consoleError(...a); };
</script>)";
  const std::string act = R"(<script>
const table = document.getElementById("problems-0");
const th = Array.from(table.tHead.rows[0].cells).find(c => c.textContent === "time us");
const order = () => Array.from(table.tBodies[0].rows, r => r.cells[0].textContent.split(" ")[0] +
                                                          r.cells[1].textContent).join(",");
th.click();
const up = order();
th.click();
const down = order();
document.getElementById("problems-0-flagged").click();
const flagged = Array.from(table.tBodies[0].rows).filter(r => !r.hidden).length;
const box = document.getElementById("problems-0-filter");
box.value = "RMS_norm";
box.dispatchEvent(new Event("input"));
const both = Array.from(table.tBodies[0].rows).filter(r => !r.hidden).length;
document.getElementById("problems-0-flagged").click();
const words = Array.from(table.tBodies[0].rows).filter(r => !r.hidden).length;
const out = document.createElement("pre");
out.id = "result";
out.textContent = `up=${up};down=${down};flagged=${flagged};both=${both};words=${words};` +
                  `aria=${th.getAttribute("aria-sort")};errors=${seen.join("|")};`;
document.body.append(out);
</script>)";
  page.insert(page.find("<head>") + 6, watch);
  page.insert(page.rfind("</body>"), act);
  const std::string file = dir.file("sort.html");
  db::write_output(file, page);
  const auto [status, dom] =
      run(chromium_command(chromium, dir.file("profile"), "--dump-dom", file));
  ASSERT_EQ(status, 0) << "chromium --dump-dom failed";
  const size_t at = dom.find("<pre id=\"result\">");
  ASSERT_NE(at, std::string::npos) << "the test script did not finish: " << dom.substr(0, 2000);
  const std::string result = dom.substr(at + 17, dom.find("</pre>", at) - at - 17);
  // Times on device 1: rms_norm 4, M=1 20, M=4 30, M=128 50, M=64 and M=256 100 us (a tie
  // keeps the order it had: the sort is stable).
  EXPECT_NE(result.find("up=rms_norm8,q4gsw1,q4gsw4,q4gsw128,q4gsw64,q4gsw256;"),
            std::string::npos)
      << result;
  EXPECT_NE(result.find("down=q4gsw64,q4gsw256,q4gsw128,q4gsw4,q4gsw1,rms_norm8;"),
            std::string::npos)
      << result;
  // Flagged: M=4 and M=64; none of them is an rms_norm; the words alone leave rms_norm.
  EXPECT_NE(result.find("flagged=2;both=0;words=1;aria=descending;errors=;"), std::string::npos)
      << result;
}

}  // namespace
}  // namespace vktune::report
