// SVG element writer; every string that reaches the output goes through escape_xml.
#include "tools/report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vktune::report {

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += "\xEF\xBF\xBD";
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string svg_num(double v) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

Svg::Svg(double width, double height, std::string_view aria_label)
    : width_(width), height_(height), label_(aria_label) {}

void Svg::close_shape(std::string_view tag, std::string_view cls, std::string_view title,
                      std::string_view fill) {
  body_ += " class=\"" + escape_xml(cls) + "\"";
  if (!fill.empty()) body_ += " fill=\"" + escape_xml(fill) + "\"";
  if (title.empty()) {
    body_ += "/>\n";
  } else {
    body_ += "><title>" + escape_xml(title) + "</title></" + std::string(tag) + ">\n";
  }
}

Svg& Svg::rect(double x, double y, double w, double h, std::string_view cls, std::string_view title,
               std::string_view fill) {
  body_ += "<rect x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" width=\"" +
           svg_num(std::max(w, 0.0)) + "\" height=\"" + svg_num(std::max(h, 0.0)) + "\"";
  close_shape("rect", cls, title, fill);
  return *this;
}

Svg& Svg::circle(double cx, double cy, double r, std::string_view cls, std::string_view title,
                 std::string_view fill) {
  body_ += "<circle cx=\"" + svg_num(cx) + "\" cy=\"" + svg_num(cy) + "\" r=\"" + svg_num(r) + "\"";
  close_shape("circle", cls, title, fill);
  return *this;
}

Svg& Svg::line(double x1, double y1, double x2, double y2, std::string_view cls) {
  body_ += "<line x1=\"" + svg_num(x1) + "\" y1=\"" + svg_num(y1) + "\" x2=\"" + svg_num(x2) +
           "\" y2=\"" + svg_num(y2) + "\" class=\"" + escape_xml(cls) + "\"/>\n";
  return *this;
}

Svg& Svg::text(double x, double y, std::string_view content, std::string_view cls,
               std::string_view anchor) {
  body_ += "<text x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" class=\"" + escape_xml(cls) +
           "\" text-anchor=\"" + escape_xml(anchor) + "\">" + escape_xml(content) + "</text>\n";
  return *this;
}

Svg& Svg::vtext(double x, double y, std::string_view content, std::string_view cls) {
  body_ += "<text x=\"" + svg_num(x) + "\" y=\"" + svg_num(y) + "\" class=\"" + escape_xml(cls) +
           "\" text-anchor=\"middle\" transform=\"rotate(-90 " + svg_num(x) + " " + svg_num(y) +
           ")\">" + escape_xml(content) + "</text>\n";
  return *this;
}

std::string Svg::str() const {
  // Inline SVG in HTML5 needs no xmlns (the parser puts it in the SVG namespace), and leaving
  // it out keeps reports free of any URL.
  return "<svg width=\"" + svg_num(width_) + "\" height=\"" + svg_num(height_) +
         "\" viewBox=\"0 0 " + svg_num(width_) + " " + svg_num(height_) +
         "\" role=\"img\" aria-label=\"" + escape_xml(label_) + "\">\n" + body_ + "</svg>\n";
}

}  // namespace vktune::report
