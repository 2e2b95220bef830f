// Hand-written SVG: text escaping and a small element writer, so reports carry their charts
// inline with no scripts, fonts or network references.
#pragma once

#include <string>
#include <string_view>

namespace vktune::report {

// Escapes &, <, >, " and ' for HTML/XML text and attribute values. Control characters other
// than tab and newline (not allowed in XML 1.0) become U+FFFD.
std::string escape_xml(std::string_view text);

// A number for an SVG attribute: at most 2 decimals, no trailing zeros, never "nan".
std::string svg_num(double v);

// Appends SVG elements to a string. Coordinates are user units (pixels at 1:1).
class Svg {
 public:
  Svg(double width, double height, std::string_view aria_label);

  // `cls` names a CSS class of the page's stylesheet; `title` (optional) becomes a <title>
  // child, which browsers show as a tooltip.
  Svg& rect(double x, double y, double w, double h, std::string_view cls,
            std::string_view title = {}, std::string_view fill = {});
  Svg& circle(double cx, double cy, double r, std::string_view cls, std::string_view title = {},
              std::string_view fill = {});
  Svg& line(double x1, double y1, double x2, double y2, std::string_view cls);
  // anchor: "start", "middle" or "end".
  Svg& text(double x, double y, std::string_view content, std::string_view cls,
            std::string_view anchor = "start");
  // Text rotated -90 degrees around (x, y) (vertical axis titles).
  Svg& vtext(double x, double y, std::string_view content, std::string_view cls);

  // The finished <svg> element.
  std::string str() const;

 private:
  // Class, optional fill and the closing of a shape whose geometry body_ already holds.
  void close_shape(std::string_view tag, std::string_view cls, std::string_view title,
                   std::string_view fill);

  double width_, height_;
  std::string label_;
  std::string body_;
};

}  // namespace vktune::report
