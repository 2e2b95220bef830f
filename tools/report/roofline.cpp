// render_roofline: both axes log10 over whole decades that hold every point and the ridge.
#include "tools/report/roofline.h"

#include <algorithm>
#include <cmath>

#include "tools/report/svg.h"

namespace vktune::report {
namespace {

constexpr double kX0 = 70, kX1 = 560, kY0 = 20, kY1 = 330, kWidth = 800, kHeight = 380;

// Whole decades [lo, hi] around [min_v, max_v], as exponents.
struct Decades {
  int lo = 0, hi = 1;
  Decades(double min_v, double max_v)
      : lo(static_cast<int>(std::floor(std::log10(min_v)))),
        hi(std::max(static_cast<int>(std::ceil(std::log10(max_v))), lo + 1)) {}
  double t(double v) const { return (std::log10(v) - lo) / (hi - lo); }
};

std::string decade_text(int e) {
  return e >= 0 ? format_number(std::pow(10.0, e), 0) : format_number(std::pow(10.0, e), -e);
}

}  // namespace

Roofs roofs_of(const DeviceSummary& device, std::optional<double> peak_gflops) {
  Roofs r;
  if (device.device.copy_bandwidth_gbps && *device.device.copy_bandwidth_gbps > 0)
    r.bandwidth_gbps = device.device.copy_bandwidth_gbps;
  if (peak_gflops) {
    r.compute_gflops = *peak_gflops;
    return r;
  }
  r.compute_measured = true;
  for (const auto& p : device.problems)
    r.compute_gflops = std::max(r.compute_gflops, p.gflops.value_or(0));
  return r;
}

std::string render_roofline(const DeviceSummary& device, const Roofs& roofs,
                            const FamilyColours& colours) {
  double ai_lo = INFINITY, ai_hi = 0, f_lo = INFINITY, f_hi = roofs.compute_gflops;
  for (const auto& p : device.problems) {
    if (!(p.gbps.value_or(0) > 0) || !(p.gflops.value_or(0) > 0)) continue;
    const double ai = *p.gflops / *p.gbps;
    ai_lo = std::min(ai_lo, ai), ai_hi = std::max(ai_hi, ai);
    f_lo = std::min(f_lo, *p.gflops), f_hi = std::max(f_hi, *p.gflops);
  }
  if (ai_hi == 0) return {};
  // The ridge, where the roofs meet, belongs on the page: it says which side a point is on.
  const double ridge = roofs.bandwidth_gbps && roofs.compute_gflops > 0
                           ? roofs.compute_gflops / *roofs.bandwidth_gbps
                           : ai_hi;
  const Decades xs(std::min(ai_lo, ridge), std::max(ai_hi, ridge) * 1.01);
  const Decades ys(f_lo, f_hi * 1.01);
  auto x = [&](double v) { return kX0 + std::clamp(xs.t(v), 0.0, 1.0) * (kX1 - kX0); };
  auto y = [&](double v) { return kY1 - std::clamp(ys.t(v), 0.0, 1.0) * (kY1 - kY0); };

  Svg svg(kWidth, kHeight, "Roofline of " + device.device.name);
  for (int e = xs.lo; e <= xs.hi; ++e) {
    const double v = std::pow(10.0, e);
    svg.line(x(v), kY0, x(v), kY1, "grid");
    svg.text(x(v), kY1 + 15, decade_text(e), "tick", "middle");
  }
  for (int e = ys.lo; e <= ys.hi; ++e) {
    const double v = std::pow(10.0, e);
    svg.line(kX0, y(v), kX1, y(v), "grid");
    svg.text(kX0 - 6, y(v) + 4, decade_text(e), "tick", "end");
  }
  svg.line(kX0, kY1, kX1, kY1, "axis");
  svg.line(kX0, kY0, kX0, kY1, "axis");
  svg.text((kX0 + kX1) / 2, kY1 + 36, "arithmetic intensity, flop per byte moved (log)",
           "axis-title", "middle");
  svg.vtext(18, (kY0 + kY1) / 2, "achieved GFLOP/s (log)", "axis-title");

  if (roofs.bandwidth_gbps) {
    // GFLOP/s = GB/s x flop/byte, a 45-degree line up to the ridge.
    const double a0 = std::pow(10.0, xs.lo), a1 = std::min(ridge, std::pow(10.0, xs.hi));
    const double start = std::max(a0, std::pow(10.0, ys.lo) / *roofs.bandwidth_gbps);
    svg.line(x(start), y(start * *roofs.bandwidth_gbps), x(a1), y(a1 * *roofs.bandwidth_gbps),
             "limit");
  }
  if (roofs.compute_gflops > 0) {
    svg.line(x(roofs.bandwidth_gbps ? ridge : std::pow(10.0, xs.lo)), y(roofs.compute_gflops),
             kX1, y(roofs.compute_gflops), "roof");
  }
  for (const auto& p : device.problems) {
    if (!(p.gbps.value_or(0) > 0) || !(p.gflops.value_or(0) > 0)) continue;
    svg.circle(x(*p.gflops / *p.gbps), y(*p.gflops), 3.5, "roof-point",
               db::ops::problem_label(p.problem) + ": " + p.winner_key + ", " +
                   format_number(p.gbps, 0) + " GB/s, " + format_number(p.gflops, 0) + " GFLOP/s",
               colours.at(p.winner_family));
  }
  double ly = kY0 + 10;
  if (roofs.bandwidth_gbps) {
    svg.line(kX1 + 16, ly - 4, kX1 + 34, ly - 4, "limit");
    svg.text(kX1 + 38, ly, "copy " + format_number(roofs.bandwidth_gbps, 0) + " GB/s", "legend");
    ly += 18;
  }
  if (roofs.compute_gflops > 0) {
    svg.line(kX1 + 16, ly - 4, kX1 + 34, ly - 4, "roof");
    svg.text(kX1 + 38, ly,
             format_number(roofs.compute_gflops / 1000.0, 2) + " TFLOP/s" +
                 (roofs.compute_measured ? " best reached" : " given"),
             "legend");
    ly += 18;
  }
  family_legend(svg, kX1 + 16, ly + 8, colours);
  return svg.str();
}

}  // namespace vktune::report
