#!/usr/bin/env bash
# Quick start, command 1: set up, build, tune the default device on the smoke shapes and
# write the HTML report. VKTUNE_SHAPES, VKTUNE_OUT and VKTUNE_DEVICE change what and where.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
out=${VKTUNE_OUT:-$root/out}
mkdir -p "$out"
vktune="$root/build/tools/vktune"
"$vktune" tune --shapes "${VKTUNE_SHAPES:-smoke}" --db "$out/vktune.db"
"$vktune" report --db "$out/vktune.db" --format html -o "$out/report.html"
echo
echo "database: $out/vktune.db"
echo "report:   $out/report.html"
