#!/usr/bin/env bash
# Quick start, command 1: set up, build, and run the main job on the default device.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
"$root/build/tools/vktune" devices
