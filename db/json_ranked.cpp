// Import of the winners and ranked sections of the JSON document (db/json_ranked.h).
#include "db/json_ranked.h"

namespace vktune::db::json_read {

using namespace json_columns;

std::vector<BestRow> parse_best_rows(const Reader& r, const json& doc, const char* section,
                                     const SectionSizes& sizes) {
  check_columns(r, doc, section, {kWinnerColumns});
  const json& rows = r.array(doc, section);
  std::vector<BestRow> out;
  out.reserve(rows.size());
  const auto id = [](size_t index) { return static_cast<int64_t>(index + 1); };
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row row(r, rows[i], at(section, i), kWinnerColumns);
    BestRow w;
    w.device_id = id(row.index(w_device, sizes.devices));
    w.problem_id = id(row.index(w_problem, sizes.problems));
    w.kernel_id = id(row.index(w_kernel, sizes.kernels));
    w.run_id = id(row.index(w_run, sizes.runs));
    w.median_ns = row.num(w_median_ns);
    out.push_back(w);
  }
  return out;
}

std::vector<BestRow> parse_ranked(const Reader& r, const json& doc, uint32_t version,
                                  const std::vector<BestRow>& winners, const SectionSizes& sizes) {
  if (version >= 2 && doc.contains("ranked")) return parse_best_rows(r, doc, "ranked", sizes);
  return winners;
}

}  // namespace vktune::db::json_read
