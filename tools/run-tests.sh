#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run the whole test suite through ctest
# (GPU tests run on the default Vulkan device: lavapipe where there is no GPU).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VKTUNE_EXTRA_PACKAGES="chromium ${VKTUNE_EXTRA_PACKAGES:-}" "$root/tools/setup.sh"
cd "$root/build"
ctest --output-on-failure -j "${VKTUNE_JOBS:-2}" --timeout 900 "$@"
# The runtime as an installed package, used by examples/consumer against the prefix alone.
"$root/tools/check-install.sh"
