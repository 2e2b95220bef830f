#!/usr/bin/env bash
# attention_side_by_side.sh - vktune's tuned sdpa beside llama.cpp's flash attention
# (ggml-vulkan's FLASH_ATTN_EXT) on the same shapes, on one device, in one invocation; prints one
# Markdown table on stdout (M, L, the head counts and head dim where the shapes file has more
# than one, vktune us, llama.cpp us, ratio = vktune / llama.cpp) and every step's output on
# stderr.
#
#   bench/attention_side_by_side.sh VKTUNE TEST_BACKEND_OPS [SHAPES.json] > table.md 2> log.txt
#
# VKTUNE: build/tools/vktune. TEST_BACKEND_OPS: ggml's test-backend-ops with its Vulkan backend
# (../shared/tools/build-peer.sh builds it). SHAPES: a vktune shapes file of sdpa entries
# (default: shapes/sdpa_side_by_side_shapes.json beside this script, Llama-3-8B's heads).
# The helper attention_side_by_side.py is read from beside this script, so the script, the
# helper and shapes/ can be copied together (to the device bundle's .dev/, say).
#
# Steps, in this order so that the tune warms the GPU before either side is timed:
#   1. vktune tune --ops sdpa --dtype f16 --shapes SHAPES --strategy halving --budget $BUDGET
#      --cache hot (every sdpa family, f16 q, KV cache and out, fp32 softmax and accumulators)
#   2. vktune bench --db that --shapes SHAPES --ops sdpa --dtype f16 --cache hot --json: the
#      winners re-timed; the vktune column is the re-timed median GPU time
#   3. test-backend-ops perf -b $PEER_BACKEND --test-file CASES with GGML_VK_PERF_LOGGER=1
#      GGML_VK_PERF_LOGGER_FREQUENCY=$PEER_LOG_FREQUENCY: one FLASH_ATTN_EXT case per (M, L)
#      (q f32, K/V f16, f16 mask, GGML_PREC_F32; see the helper), each run in graphs of
#      hundreds to thousands of the op for at least a second; the llama.cpp column is the median
#      of the logged GPU means (one line per graph at frequency 1; the warm-up graph's single
#      run left out)
#   4. the table; then, with CHECK_PEER=1 (default), test-backend-ops test on the same cases
#      (the peer's output against ggml's CPU backend), its verdict on stderr only.
# Environment: BUDGET (tune's --budget, seconds, default 300: the first decode shape compiles
# both decode families, about 1,900 pipelines, 113 s on a 16-core host), PEER_BACKEND (default
# Vulkan0), PEER_LOG_FREQUENCY (default 1), CHECK_PEER (default 1), CHECK_TIMEOUT (the
# check's limit, seconds, default 180), WORK (scratch folder, default a new temporary one;
# the tune's database, bench's JSON, the peer's cases and logs stay there).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
vktune=$(realpath "$1"); peer=$(realpath "$2")
shapes=$(realpath "${3:-$here/shapes/sdpa_side_by_side_shapes.json}")
helper=$here/attention_side_by_side.py
BUDGET=${BUDGET:-300}; PEER_BACKEND=${PEER_BACKEND:-Vulkan0}
PEER_LOG_FREQUENCY=${PEER_LOG_FREQUENCY:-1}; CHECK_PEER=${CHECK_PEER:-1}
work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
say() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" >&2; }

say "device"
"$vktune" devices >&2 || true
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu --format=csv >&2 || true
fi
python3 "$helper" peer-cases "$shapes" > "$work/peer_cases.txt"
echo "peer cases ($work/peer_cases.txt):" >&2; cat "$work/peer_cases.txt" >&2

say "vktune tune"
rm -f "$work/sbs.db"
"$vktune" tune --ops sdpa --dtype f16 --shapes "$shapes" --strategy halving --budget "$BUDGET" \
  --cache hot --plain --db "$work/sbs.db" >&2

say "vktune bench"
"$vktune" bench --db "$work/sbs.db" --shapes "$shapes" --ops sdpa --dtype f16 --cache hot \
  --plain --json > "$work/bench.json"
cat "$work/bench.json" >&2

say "llama.cpp test-backend-ops perf, FLASH_ATTN_EXT"
GGML_VK_PERF_LOGGER=1 GGML_VK_PERF_LOGGER_FREQUENCY=$PEER_LOG_FREQUENCY \
  "$peer" perf -b "$PEER_BACKEND" --test-file "$work/peer_cases.txt" \
  > "$work/peer_perf.txt" 2> "$work/peer_log.txt" || { cat "$work/peer_perf.txt" "$work/peer_log.txt" >&2; exit 1; }
cat "$work/peer_perf.txt" >&2
grep -E '^(ggml_vulkan|FLASH_ATTN_EXT)' "$work/peer_log.txt" >&2 || true

say "table"
python3 "$helper" table --shapes "$shapes" --bench "$work/bench.json" --peer-log "$work/peer_log.txt"

if [ "$CHECK_PEER" = 1 ]; then
  say "llama.cpp test-backend-ops test (against its CPU backend), FLASH_ATTN_EXT"
  if timeout "${CHECK_TIMEOUT:-180}" "$peer" test -b "$PEER_BACKEND" --test-file "$work/peer_cases.txt" > "$work/peer_test.txt" 2>&1; then
    echo "peer check: OK" >&2
  else
    echo "peer check: FAILED or timed out" >&2
  fi
  grep -E 'FLASH_ATTN_EXT|passed|FAIL' "$work/peer_test.txt" >&2 || true
fi
say "done"
