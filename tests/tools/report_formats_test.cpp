// The HTML, CSV, Markdown and JSON reports of the synthetic database parse back into the
// numbers they were made from; write_report fails clearly on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "db/json_io.h"
#include "tests/tools/report_fixture.h"
#include "tools/report/html.h"
#include "tools/report/summary_json.h"
#include "tools/report/report.h"
#include "tools/report/svg.h"
#include "tools/report/tables.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

// The text of the first <figure class="cls"> after `from`, or "".
std::string figure(const std::string& html, const std::string& cls, size_t from = 0) {
  const size_t begin = html.find("<figure class=\"" + cls + "\">", from);
  if (begin == std::string::npos) return {};
  return html.substr(begin, html.find("</figure>", begin) - begin);
}

class ReportFormatsTest : public ::testing::Test {
 protected:
  void SetUp() override { ids_ = build_synthetic(store_); }
  db::Store store_ = db::Store::open_memory();
  SyntheticIds ids_;
};

TEST_F(ReportFormatsTest, HtmlChartsAndEscaping) {
  const std::string html = render_html(summarize(store_));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // One inline script (the table's sort and filter), nothing loaded from elsewhere.
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);

  // Device 1: roofline, family map, heat map, family chart; device 2: roofline and family map
  // (no tiled results, so no heat map).
  EXPECT_EQ(count(html, "<svg"), 6u);
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));

  const size_t d1 = html.find("id=\"device-0\"");
  const size_t d2 = html.find("id=\"device-1\"");
  ASSERT_NE(d1, std::string::npos);
  ASSERT_NE(d2, std::string::npos);
  // Every winner has both rates: a point each, under the 1000 GB/s copy roof and a compute roof
  // at the best rate reached (P5: 600 GB/s, 150 GFLOP/s), each drawn once plus its legend line.
  const std::string roof = figure(html, "chart-roofline", d1);
  EXPECT_EQ(count(roof, "class=\"roof-point\""), 6u);
  EXPECT_EQ(count(roof, "class=\"limit\""), 2u);
  EXPECT_EQ(count(roof, "class=\"roof\""), 2u);
  EXPECT_NE(roof.find("copy 1000 GB/s"), std::string::npos);
  EXPECT_NE(roof.find("0.15 TFLOP/s best reached"), std::string::npos);
  EXPECT_NE(roof.find("q4gsw M=1 N=4096 K=4096 gs=32: " + std::string(kGemvTuned) +
                      ", 500 GB/s, 125 GFLOP/s"),
            std::string::npos);
  EXPECT_EQ(count(figure(html, "chart-roofline", d2), "class=\"roof-point\""), 1u);
  // The family map: a cell per problem, families in the legend (tiled wins 4, gemv and
  // rms_norm one each).
  const std::string fams = figure(html, "chart-families", d1);
  EXPECT_EQ(count(fams, "class=\"fam-cell\""), 6u);
  EXPECT_EQ(count(fams, "class=\"swatch\""), 3u);
  EXPECT_NE(fams.find("fill=\"#4e79a7\"><title>q4gsw M=4 "), std::string::npos)
      << "the most frequent winner, q4gsw_tiled, takes the first colour";

  // Default heat map: the largest-M q4gsw problem with tiled results (M=256): 4x4 and 8x8
  // measured, the other 14 of the 4x4 grid empty.
  const std::string heat = figure(html, "chart-heatmap", d1);
  EXPECT_NE(heat.find("q4gsw M=256 N=4096 K=4096 gs=32"), std::string::npos);
  EXPECT_EQ(count(heat, "class=\"heat-cell\""), 2u);
  EXPECT_EQ(count(heat, "class=\"heat-empty\""), 14u);
  EXPECT_EQ(figure(html, "chart-heatmap", d2), "");

  const std::string fam = figure(html, "chart-family", d1);
  EXPECT_EQ(count(fam, "class=\"bar-family\""), 2u);  // tiled and naive

  // The device name with markup is escaped everywhere, never raw.
  EXPECT_EQ(html.find(kDevice2Name), std::string::npos);
  EXPECT_NE(html.find(escape_xml(kDevice2Name)), std::string::npos);
  // Several devices: the device-by-device table.
  EXPECT_NE(html.find("Device by device"), std::string::npos);
  EXPECT_NE(html.find("run-two"), std::string::npos);
  EXPECT_NE(html.find("0123456789abcdef0123456789abcdef"), std::string::npos);
}

TEST_F(ReportFormatsTest, HtmlMarksCutProblems) {
  const std::string html = render_html(summarize(store_));
  // Only q4gsw M=64 is cut; its row is shaded and its coverage cell flagged.
  EXPECT_EQ(count(html, "<tr class=\"cut\""), 1u);
  const size_t row = html.find("<tr class=\"cut\"");
  ASSERT_NE(row, std::string::npos);
  const std::string cut_row = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(cut_row.find("q4gsw M=64 "), std::string::npos) << cut_row;
  EXPECT_NE(cut_row.find("<td class=\"num bad\" data-v=\"7\" title=\"6&gt;2\">7/12 cut</td>"),
            std::string::npos)
      << cut_row;
  EXPECT_NE(cut_row.find("<span class=\"flag\">cut</span>"), std::string::npos) << cut_row;
  // Complete and unknown problems: plain cells.
  EXPECT_NE(html.find("<td class=\"num\" data-v=\"5\" title=\"5&gt;2\">5/5</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\" data-v=\"3\">3/?</td>"), std::string::npos);
}

TEST_F(ReportFormatsTest, HtmlSummaryListsWhatNeedsAttention) {
  const std::string html = render_html(summarize(store_));
  // Device 1: M=4 (two neighbours' winners untried) and M=64 (cut, slower than M=128).
  const size_t list = html.find("<ul class=\"attention\">");
  ASSERT_NE(list, std::string::npos);
  const std::string items = html.substr(list, html.find("</ul>", list) - list);
  EXPECT_EQ(count(items, "<li>"), 2u) << items;
  EXPECT_NE(items.find("<a href=\"#p-0-1\">q4gsw M=4 N=4096 K=4096 gs=32</a>"), std::string::npos)
      << items;
  EXPECT_NE(items.find("search cut; slower (100.00 us) than M=128 (50.00 us)"), std::string::npos)
      << items;
  EXPECT_NE(html.find("<tr class=\"cut\" id=\"p-0-2\" data-flagged>"), std::string::npos);
  // Device 2 has one problem and nothing to flag.
  EXPECT_NE(html.find("No problem needs attention."), std::string::npos);
  // Spread and runner-up margin of P1's winner, the runner-up named on hover.
  EXPECT_NE(html.find("<td class=\"num\" data-v=\"15\">15.0</td><td class=\"num\" "
                      "data-v=\"100\" title=\"runner-up " +
                      std::string(kGemvFixed) + ": 40.00 us\">100.0</td>"),
            std::string::npos);
}

TEST_F(ReportFormatsTest, HtmlHeatmapProblemOption) {
  HtmlOptions o;
  o.heatmap_problem = db::ops::parse_problem_label("q4gsw M=64 N=4096 K=4096 gs=32");
  const std::string html = render_html(summarize(store_), o);
  const std::string heat = figure(html, "chart-heatmap");
  EXPECT_NE(heat.find("q4gsw M=64 N=4096"), std::string::npos);
  EXPECT_EQ(count(heat, "class=\"heat-cell\""), 3u);
  EXPECT_EQ(count(heat, "class=\"heat-empty\""), 13u);

  o.heatmap_problem = db::ops::parse_problem_label("q4gsw M=3 N=5 K=8 gs=8");
  EXPECT_THROW(render_html(summarize(store_), o), std::invalid_argument);
}

TEST_F(ReportFormatsTest, SingleDeviceHasNoMatrix) {
  SummaryOptions so;
  so.device = kDevice1Name;
  const std::string html = render_html(summarize(store_, so));
  EXPECT_EQ(html.find("Device by device"), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), 4u);
}

TEST_F(ReportFormatsTest, CsvMatchesDatabase) {
  const std::string csv = render_csv(summarize(store_));
  EXPECT_NE(csv.find("\r\n"), std::string::npos);
  const auto rows = parse_csv(csv);
  ASSERT_EQ(rows.size(), 1u + 6u + 1u);  // header, device 1, device 2
  EXPECT_EQ(rows[0], csv_columns());
  auto col = [&](const std::string& name) {
    const auto& h = rows[0];
    return static_cast<size_t>(std::find(h.begin(), h.end(), name) - h.begin());
  };
  for (const auto& r : rows) ASSERT_EQ(r.size(), csv_columns().size());
  const auto& p1 = rows[1];
  EXPECT_EQ(p1[col("device")], kDevice1Name);
  EXPECT_EQ(p1[col("op")], "q4gsw");
  EXPECT_EQ(p1[col("m")], "1");
  EXPECT_EQ(p1[col("winner")], kGemvTuned);  // has commas: quoted and read back
  EXPECT_EQ(std::stod(p1[col("median_ns")]), 20000);
  EXPECT_EQ(std::stod(p1[col("gbps")]), 500);
  EXPECT_EQ(std::stod(p1[col("pct_bandwidth")]), 50);
  EXPECT_EQ(std::stod(p1[col("speedup_naive")]), 15);
  EXPECT_EQ(std::stod(p1[col("speedup_fixed")]), 2);
  EXPECT_EQ(p1[col("fixed_variant")], kGemvFixed);
  EXPECT_EQ(p1[col("naive_variant")], kNaive128);
  const auto& p5 = rows[4];  // q4gsw M=128: no fixed time
  EXPECT_EQ(p5[col("m")], "128");
  EXPECT_EQ(p5[col("fixed_ns")], "");
  EXPECT_EQ(p5[col("speedup_fixed")], "");
  const auto& p3 = rows[3];
  EXPECT_EQ(p3[col("ok")], "5");
  EXPECT_EQ(p3[col("wrong_result")], "1");
  EXPECT_EQ(p3[col("compile_error")], "1");
  const auto& d2 = rows[7];
  EXPECT_EQ(d2[col("device")], kDevice2Name);  // quotes doubled and read back
  EXPECT_EQ(d2[col("pct_bandwidth")], "");

  // Coverage: P1 complete, P3 cut, P2 unknown (no record).
  EXPECT_EQ(p1[col("legal")], "5");
  EXPECT_EQ(p1[col("measured")], "5");
  EXPECT_EQ(p1[col("budget_cut")], "false");
  EXPECT_EQ(p1[col("stages")], "5>2");
  EXPECT_EQ(p3[col("legal")], "12");
  EXPECT_EQ(p3[col("measured")], "7");
  EXPECT_EQ(p3[col("budget_cut")], "true");
  EXPECT_EQ(p3[col("stages")], "6>2");
  const auto& p2 = rows[2];
  EXPECT_EQ(p2[col("m")], "4");
  EXPECT_EQ(p2[col("legal")], "");
  EXPECT_EQ(p2[col("measured")], "3");
  EXPECT_EQ(p2[col("budget_cut")], "");
  EXPECT_EQ(p2[col("stages")], "");
}

TEST_F(ReportFormatsTest, SummaryJsonForScripts) {
  const auto doc = nlohmann::json::parse(render_summary_json(summarize(store_)));
  EXPECT_EQ(doc["format"], "vktune-summary");
  ASSERT_EQ(doc["devices"].size(), 2u);
  const auto& d1 = doc["devices"][0];
  EXPECT_EQ(d1["name"], kDevice1Name);
  EXPECT_EQ(d1["copy_bandwidth_gbps"], 1000.0);
  EXPECT_DOUBLE_EQ(d1["geomean_x_fixed"]["1"].get<double>(), 2.0);
  EXPECT_TRUE(doc["devices"][1]["copy_bandwidth_gbps"].is_null());
  ASSERT_EQ(d1["problems"].size(), 6u);
  const auto& p1 = d1["problems"][0];
  EXPECT_EQ(p1["m"], 1);
  EXPECT_EQ(p1["winner"], kGemvTuned);
  EXPECT_EQ(p1["median_ns"], 20000.0);
  EXPECT_EQ(p1["runner_up"], kGemvFixed);
  EXPECT_EQ(p1["x_fixed"], 2.0);
  EXPECT_EQ(p1["legal"], 5);
  EXPECT_EQ(p1["cut"], false);
  EXPECT_TRUE(p1["flags"].empty());
  // M=64: cut, and flagged; M=128: no fixed or naive time, coverage unknown.
  EXPECT_EQ(d1["problems"][2]["cut"], true);
  EXPECT_EQ(d1["problems"][2]["flags"][0], "slower (100.00 us) than M=128 (50.00 us)");
  EXPECT_TRUE(d1["problems"][3]["x_fixed"].is_null());
  EXPECT_TRUE(d1["problems"][3]["cut"].is_null());
  EXPECT_TRUE(d1["problems"][3]["runner_up"].is_null());
  // Compact: a summary, not the export (which holds every measurement).
  EXPECT_EQ(count(render_summary_json(summarize(store_)), "\n"), 1u);
}

TEST(CsvQuoting, Rfc4180) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  const auto rows = parse_csv("a,\"b,\"\"c\"\"\",\r\n\"x\ny\",z\r\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b,\"c\"", ""}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"x\ny", "z"}));
  EXPECT_THROW(parse_csv("\"open"), std::invalid_argument);
}

TEST_F(ReportFormatsTest, MarkdownHasARowPerProblem) {
  const std::string md = render_markdown(summarize(store_));
  size_t problem_rows = 0;
  size_t pos = 0;
  while (pos < md.size()) {
    const size_t end = md.find('\n', pos);
    const std::string line = md.substr(pos, end - pos);
    if (line.rfind("| q4gsw ", 0) == 0 || line.rfind("| rms_norm ", 0) == 0) ++problem_rows;
    pos = end == std::string::npos ? md.size() : end + 1;
  }
  EXPECT_EQ(problem_rows, 7u);
  EXPECT_NE(md.find("| q4gsw M=1 N=4096 K=4096 gs=32 | `" + std::string(kGemvTuned) +
                    "` | 20.00 | 500.0 | 50.0 | 125.0 | 300.00 | 15.00x | 40.00 | 2.00x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| >=128 | 1 | 8.00x |"), std::string::npos);
  // Coverage before the status counts: P3 cut, P1 complete, P2 unknown.
  EXPECT_NE(md.find("| 2.00x | 7/12 cut | ok 5, wrong_result 1, compile_error 1 |"),
            std::string::npos);
  EXPECT_NE(md.find("| 2.00x | 5/5 | ok 5 |"), std::string::npos);
  EXPECT_NE(md.find("| 3.00x | 3/? | ok 3 |"), std::string::npos);
  EXPECT_NE(md.find("## Runs"), std::string::npos);
}

TEST_F(ReportFormatsTest, JsonImportsBack) {
  const std::string json = render_report(store_, Format::json, {}, {});
  db::Store fresh = db::Store::open_memory();
  const db::ImportStats stats = db::import_json_text(fresh, json, "report.json");
  EXPECT_EQ(stats.devices, 2);
  EXPECT_EQ(stats.kernels, 12);
  EXPECT_EQ(stats.problems, 6);
  EXPECT_EQ(stats.runs, 2);
  EXPECT_EQ(stats.measurements, ids_.measurements);
  EXPECT_EQ(stats.coverage, 4);
  EXPECT_EQ(fresh.coverage(), store_.coverage());
  // The cut record of q4gsw M=64 as a reader of the JSON sees it: a row of the columns the
  // header names, referring to problems and runs by index.
  const auto doc = nlohmann::json::parse(json);
  const auto& header = doc["columns"]["coverage"];
  auto col = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const auto cut = std::find_if(doc["coverage"].begin(), doc["coverage"].end(), [&](const auto& c) {
    return doc["problems"][c[col("problem")].template get<size_t>()]["m"] == 64;
  });
  ASSERT_NE(cut, doc["coverage"].end());
  EXPECT_EQ((*cut)[col("budget_cut")], true);
  EXPECT_EQ(doc["runs"][(*cut)[col("run")].get<size_t>()]["uuid"], "run-one");
  EXPECT_EQ((*cut)[col("legal")], 12);
  EXPECT_EQ((*cut)[col("measured")], 7);
  EXPECT_EQ((*cut)[col("stages")], nlohmann::json({6, 2}));
  EXPECT_EQ(fresh.devices().size(), store_.devices().size());
  EXPECT_EQ(fresh.measurements().size(), store_.measurements().size());
  EXPECT_EQ(fresh.best().size(), store_.best().size());
}

TEST(WriteReport, ClearErrors) {
  TempDir dir;
  ReportRequest r;
  r.db_path = dir.file("missing.db");
  r.output = dir.file("out.html");
  try {
    write_report(r);
    FAIL() << "missing database accepted";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }

  {
    db::Store s = db::Store::open(dir.file("a.db"));
    build_synthetic(s);
  }
  r.db_path = dir.file("a.db");
  r.format = "pdf";
  try {
    write_report(r);
    FAIL() << "unknown format accepted";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown report format \"pdf\""), std::string::npos);
  }

  r.format = "html";
  r.output = dir.file("no/such/dir/out.html");
  try {
    write_report(r);
    FAIL() << "unwritable output accepted";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
  }

  for (const char* format : {"html", "md", "csv", "json", "txt"}) {
    r.format = format;
    r.output = dir.file(std::string("out.") + format);
    ASSERT_NO_THROW(write_report(r)) << format;
    EXPECT_GT(slurp(r.output).size(), 100u) << format;
  }
  // The page names the database by its file name, never the directory it sat in.
  const std::string html = slurp(dir.file("out.html"));
  EXPECT_NE(html.find("Database <code>a.db</code>"), std::string::npos);
  EXPECT_EQ(html.find(dir.file("")), std::string::npos);
}

// An attention problem's label has no N ("sdpa M=1 L=2048 Hq=32 Hkv=8 D=128"): the family map
// names its series without the M, as for the others (it threw std::out_of_range before).
TEST_F(ReportFormatsTest, HtmlFamilyMapTakesAttention) {
  const int64_t kernel =
      store_.upsert_kernel(synthetic_kernel("sdpa_split[vec=4,keys=1,wg=32,slices=16,qpg=1]"));
  db::Problem p = fake_problem(1, 2048, 128, 0, "sdpa");
  p.heads = 32;
  p.kv_heads = 8;
  const int64_t problem = store_.upsert_problem(p);
  store_.add_measurement(ok_measurement(ids_.run1, ids_.device1, problem, kernel, 40000));
  const std::string map = figure(render_html(summarize(store_)), "chart-families");
  EXPECT_NE(map.find("sdpa L=2048 Hq=32 Hkv=8 D=128"), std::string::npos) << map;
}

}  // namespace
}  // namespace vktune::report
