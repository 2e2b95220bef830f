#!/usr/bin/env bash
# The package as an engine sees it: a runtime-only configure (SQLite and nlohmann/json only)
# installed into a fresh prefix, the examples/consumer programs (C++ and C) built against that
# prefix alone, not the source tree, and run on the shipped lavapipe database.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${VKTUNE_JOBS:-2}
cmake -S "$root" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKTUNE_RUNTIME_ONLY=ON \
      -DCMAKE_INSTALL_PREFIX="$work/prefix" >/dev/null
cmake --build "$work/build" -j "$jobs" >/dev/null
cmake --install "$work/build" >/dev/null
cmake -S "$root/examples/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" -j "$jobs" >/dev/null
db="$root/db/tuned/llvmpipe-lavapipe.winners.json"
"$work/consumer/select_and_plan" "$db" 3 100 256 32
"$work/consumer/select_and_plan_c" "$db" 1 4096 4096 32
# pkg-config sees the same library.
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs vktune >/dev/null
cc -o "$work/pc_consumer" "$root/examples/consumer/select_and_plan.c" \
   $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs vktune)
"$work/pc_consumer" "$db" 16 2048 2048 128 >/dev/null
echo "check-install: runtime-only package installed, consumers (CMake C++/C, pkg-config C) ran"
