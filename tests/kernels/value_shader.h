// A one-line compute shader whose VALUE define decides its binary: the shader compiler's and
// its disk cache's tests compile it under different defines.
#pragma once

namespace vktune::test {

inline constexpr const char* kValueShader = R"(#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Y { float y[]; };
void main() { y[0] = VALUE; }
)";

}  // namespace vktune::test
