// What a variant compiles: an embedded source and the defines its knobs become. Plain data, so
// the catalogue describes shaders without linking the compiler.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vktune {

using Defines = std::vector<std::pair<std::string, std::string>>;

}  // namespace vktune

namespace vktune::kernels {

struct ShaderSpec {
  std::string file;  // embedded source, e.g. "q4gsw_gemv.comp"
  Defines defines;   // one per knob that shapes the code
};

}  // namespace vktune::kernels
