#!/usr/bin/env bash
# Quick start, command 1: set up, build, tune the default device on the smoke shapes and
# write the HTML report. VKTUNE_SHAPES, VKTUNE_OUT and VKTUNE_DEVICE change what and where.
# The tuning run has a wall-time budget (VKTUNE_BUDGET seconds, 0: none), so a first run stays
# quick where every pipeline is compiled for the first time (lavapipe compiles each at its first
# dispatch, about 0.25 s a variant on two cores, until Mesa's shader cache holds it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh" vktune  # the tool alone: the tests are run-tests.sh's to build
out=${VKTUNE_OUT:-$root/out}
mkdir -p "$out"
vktune="$root/build/tools/vktune"
shapes=${VKTUNE_SHAPES:-smoke}
# The cost-model search learns from the shipped database of the device (db/tuned/, when it has
# one) and measures what it ranks high: on lavapipe, where each pipeline's first dispatch costs
# a quarter of a second of LLVM, a sweep of the smoke space would take ten minutes.
"$vktune" tune --shapes "$shapes" --strategy model --train-db "$root/db/tuned" \
  --budget "${VKTUNE_BUDGET:-120}" --db "$out/vktune.db"
"$vktune" report --db "$out/vktune.db" --format html -o "$out/report.html"
echo
echo "database: $out/vktune.db"
echo "report:   $out/report.html"
echo "(a problem the budget cut reads 'cut' in the coverage column; finish it with"
echo " $vktune tune --shapes $shapes --fill --db $out/vktune.db)"
