#!/usr/bin/env bash
# Rewrites kernels/prebuilt/: every SPIR-V module a variant needs a newer shader compiler than
# Debian 12's for (GL_EXT_integer_dot_product, the KHR and NV2 cooperative matrices), compiled by
# the one tools/setup-newer-shaderc.sh builds, with a manifest of each module's source hash.
# Run it after changing such a shader; the default build embeds the modules, and
# tests/kernels/prebuilt_spirv_test.cpp fails while one is stale or missing.
#
#   tools/regenerate-prebuilt-spirv.sh [PREFIX]   # default .deps/shaderc-trixie
#   BUILD=build-newsc (default)                   # the build directory linked with it
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=$(realpath -m "${1:-$root/.deps/shaderc-trixie}")
build=$(realpath -m "${BUILD:-$root/build-newsc}")
if [ ! -s "$prefix/lib/libshaderc_combined.a" ]; then
  echo "regenerate-prebuilt-spirv: no newer compiler in $prefix; build it with tools/setup-newer-shaderc.sh" >&2
  exit 1
fi
test=vktune_prebuilt_spirv_test
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKTUNE_SHADERC_PREFIX="$prefix" >/dev/null
cmake --build "$build" --target "$test"
VKTUNE_REGENERATE=1 "$build/tests/kernels/$test" --gtest_filter='PrebuiltSpirv.EveryModuleIsCompiledFromTheCurrentGlsl'
# The rewritten modules embedded, and checked.
cmake --build "$build" --target "$test"
"$build/tests/kernels/$test"
echo "regenerate-prebuilt-spirv: $(grep -vc '^#\|^vktune-prebuilt' "$root/kernels/prebuilt/manifest.txt") modules," \
     "$(du -cb "$root"/kernels/prebuilt/*.spv | tail -1 | cut -f1) bytes"
