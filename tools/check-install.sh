#!/usr/bin/env bash
# The package as an engine sees it: a runtime-only configure (SQLite and nlohmann/json only)
# installed into a fresh prefix, the examples/consumer programs (C++ and C) built against that
# prefix alone, not the source tree, and run with their own VkDevice on the default Vulkan device
# (lavapipe where there is no GPU): the shipped lavapipe database's answers and the built-in ones,
# each checked against the CPU reference, under the validation layer where it is installed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# docs/runtime.md's "Using the runtime in an engine" quotes run_q4gsw.cpp: every line it shows is there.
awk '/^## Using the runtime in an engine/{on=1; next} /^##/{on=0} on && /^```/{code=!code; next} on && code' \
    "$root/docs/runtime.md" | sed 's/^ *//' | grep -vxF -e '' -e '...' | while IFS= read -r line; do
  grep -qF -- "$line" "$root/examples/consumer/run_q4gsw.cpp" ||
    { echo "docs/runtime.md quotes a line examples/consumer/run_q4gsw.cpp does not have: $line" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${VKTUNE_JOBS:-2}
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKTUNE_RUNTIME_ONLY=ON \
      -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/build" -j "$jobs" >/dev/null
cmake --install "$work/build" >/dev/null
cmake -S "$root/examples/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" -j "$jobs" >/dev/null

# The examples count validation warnings and errors and fail on any.
for dir in /usr/share /usr/local/share /etc; do
  if [ -f "$dir/vulkan/explicit_layer.d/VkLayer_khronos_validation.json" ]; then
    export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
  fi
done
echo "check-install: validation layer ${VK_INSTANCE_LAYERS:-not installed}"
db="$root/db/tuned/llvmpipe-lavapipe.winners.json.zst"
# Tuned shapes (the exact answers), a ragged untuned one, a random one; then the built-ins.
random_shape="$((RANDOM % 8 + 1)) $((RANDOM % 300 + 1)) $((64 * (RANDOM % 8 + 1))) 32"
for shape in "1 200 256 32" "5 200 256 32" "3 100 256 32" "$random_shape"; do
  "$work/consumer/run_q4gsw" "$db" $shape
  "$work/consumer/run_q4gsw_c" "$db" $shape
done
for shape in "1 200 256 32" "3 100 256 32"; do
  VKTUNE_FORCE_BUILTIN=1 "$work/consumer/run_q4gsw" "$db" $shape
  VKTUNE_FORCE_BUILTIN=1 "$work/consumer/run_q4gsw_c" "$db" $shape
done
# The int8-dot GEMVs: a Vulkan 1.3 device with shaderIntegerDotProduct enabled, checked against the
# plan's tolerance. Debian 12's shaderc cannot compile them, so the database is a fixture tuned on
# lavapipe by the newer-compiler build (`vktune tune --shapes smoke --ops q4gsw --m 1,5 --families
# q4gsw_gemv_i8dot,q4gsw_gemv_i8dot_s16`, exported --winners-only): it carries their SPIR-V.
i8db="$root/tests/runtime/databases/llvmpipe-lavapipe-i8dot.winners.json"
for shape in "1 200 256 32" "5 200 256 32"; do
  out=$("$work/consumer/run_q4gsw" "$i8db" $shape)
  echo "$out"
  [[ $out == *"features: shaderIntegerDotProduct"* ]] ||
    { echo "check-install: $i8db did not answer $shape with an int8-dot variant" >&2; exit 1; }
  "$work/consumer/run_q4gsw_c" "$i8db" $shape
done

# pkg-config sees the same library.
pc() { PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config "$@"; }
pc --cflags --libs vktune >/dev/null
cc -o "$work/pc_consumer" "$root/examples/consumer/run_q4gsw.c" $(pc --cflags --libs vktune vulkan)
"$work/pc_consumer" "$db" 16 2048 2048 128 >/dev/null
echo "check-install: runtime-only package installed, consumers (CMake C++/C, pkg-config C) dispatched and matched the CPU reference"
