// problem_label through the catalogue's description of a problem; parse_problem_label, its
// inverse, a token at a time.
#include "db/ops/problem_label.h"

#include <cctype>
#include <charconv>
#include <optional>
#include <stdexcept>

#include "kernels/op.h"
#include "kernels/problem.h"

namespace vktune::db::ops {

std::string problem_label(const db::Problem& p) {
  db::Problem written = p;
  if (written.dtype.empty()) written.dtype = "f32";
  if (const std::optional<kernels::Problem> problem = kernels::problem_of(written)) {
    return kernels::describe(*problem);
  }
  // What this build does not know, with its stored dimensions as they are.
  std::string s = p.op + " M=" + std::to_string(p.m) + " N=" + std::to_string(p.n) +
                  " K=" + std::to_string(p.k) + " gs=" + std::to_string(p.group_size);
  if (p.dtype != "f32" && !p.dtype.empty()) s += " " + p.dtype;
  return s;
}

db::Problem parse_problem_label(std::string_view text) {
  db::Problem p;
  p.dtype = "f32";
  bool has_m = false, has_n = false, has_k = false;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    size_t end = pos;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    if (end == pos) break;
    const std::string_view token = text.substr(pos, end - pos);
    pos = end;
    const size_t eq = token.find('=');
    if (eq == std::string_view::npos) {
      if (p.op.empty()) {
        p.op = std::string(token);
      } else {
        p.dtype = std::string(token);
      }
      continue;
    }
    // Keys are case-insensitive.
    std::string key(token.substr(0, eq));
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string_view value = token.substr(eq + 1);
    uint32_t v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size()) {
      throw std::invalid_argument("problem \"" + std::string(text) + "\": \"" + std::string(token) +
                                  "\" needs an unsigned integer value");
    }
    if (key == "m") {
      p.m = v, has_m = true;
    } else if (key == "n" || key == "l") {
      p.n = v, has_n = true;
    } else if (key == "k" || key == "d") {
      p.k = v, has_k = true;
    } else if (key == "gs" || key == "group_size") {
      p.group_size = v;
    } else if (key == "hq" || key == "h") {
      p.heads = v;
    } else if (key == "hkv") {
      p.kv_heads = v;
    } else {
      throw std::invalid_argument(
          "problem \"" + std::string(text) + "\": unknown key \"" +
          std::string(token.substr(0, eq)) +
          "\"; use M=, N=, K=, gs= or the names an op's description uses (L=, D=, H=, Hq=, Hkv=)");
    }
  }
  if (p.op.empty() || !has_m || !has_n) {
    throw std::invalid_argument("problem \"" + std::string(text) +
                                "\": expected e.g. \"q4gsw M=64 N=4096 K=4096 gs=32\"");
  }
  if (const kernels::OpDescriptor* op = kernels::find_op(p.op); !has_k && op != nullptr) {
    kernels::Problem shape;
    shape.op = *op;
    shape.n = p.n;
    p.k = op->with_defaults(shape).k;
  }
  if (p.k == 0) throw std::invalid_argument("problem \"" + std::string(text) + "\": K= missing");
  return p;
}

}  // namespace vktune::db::ops
