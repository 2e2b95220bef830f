#!/usr/bin/env bash
# Installs the Debian packages vktune needs (only those missing, non-interactively) and builds
# it in Release into build/: the targets given (run-main.sh: `vktune` and what it links), or
# everything, tests included. Called by run-main.sh and run-tests.sh; safe to run again.
#   tools/setup.sh [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(g++ cmake ninja-build pkg-config libvulkan-dev libshaderc-dev libsqlite3-dev libzstd-dev zstd
          nlohmann-json3-dev libgtest-dev libcli11-dev libbenchmark-dev mesa-vulkan-drivers
          vulkan-validationlayers ${VKTUNE_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "vktune setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

jobs=${VKTUNE_JOBS:-2}
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$root/build" -j "$jobs" "${targets[@]}"
