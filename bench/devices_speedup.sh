#!/usr/bin/env bash
# devices_speedup.sh - one GPU against every GPU of the host (`tune --devices all`) on the same
# tuning command, both from warm caches; prints one Markdown table of each run's wall time and
# the speedup, then each problem's winner side by side (compare_winners.py beside this script).
#
#   bench/devices_speedup.sh VKTUNE [TUNE ARGS...] > table.md 2> log.txt
#
# TUNE ARGS default to the llama3-8b preset's linears at M 1 and 128, gs 32, every legal variant
# (--strategy exhaustive). Steps: a first `--devices all` run fills the SPIR-V and driver caches
# (VKTUNE_CACHE_DIR, default a folder under WORK; __GL_SHADER_DISK_CACHE=0 keeps the driver's own
# cache out), then `--device 0` and `--devices all`, each into a database of its own under WORK
# (default a new temporary folder). Wall times are the processes' own.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
vktune=$(realpath "$1"); shift
[ $# -gt 0 ] || set -- --shapes llama3-8b --ops q4gsw --m 1,128 --gs 32 --strategy exhaustive
work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
export VKTUNE_CACHE_DIR=${VKTUNE_CACHE_DIR:-$work/cache} __GL_SHADER_DISK_CACHE=0

# Runs tune into $work/$1.db with the rest of the arguments; prints its wall seconds.
run() {
  local name=$1; shift
  rm -f "$work/$name.db"
  local start; start=$(date +%s.%N)
  "$vktune" tune "$@" --plain --profile --db "$work/$name.db" > "$work/$name.out" 2>&1 \
    || { cat "$work/$name.out" >&2; exit 1; }
  grep -E "where the time went:|shard" "$work/$name.out" >&2 || true
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$start" "$(date +%s.%N)"
}

"$vktune" devices >&2
echo "filling the caches: $(run fill "$@" --devices all) s" >&2
one=$(run one "$@" --device 0)
all=$(run all "$@" --devices all)
echo "| run | wall s | speedup |"
echo "|---|--:|--:|"
echo "| one GPU (--device 0) | $one | 1.00 |"
echo "| every GPU (--devices all) | $all | $(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$one" "$all") |"
echo
python3 "$here/compare_winners.py" "$work/one.db" "$work/all.db"
