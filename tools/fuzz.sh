#!/bin/bash
# Runs one libFuzzer target of the fuzz build (build-fuzz, VKTUNE_FUZZ=ON) on one core, with its
# committed seeds and dictionary. New inputs go to build-fuzz/corpus/<name>, crashes to
# build-fuzz/artifacts/<name>/.
#   tools/fuzz.sh <json_import|open_bytes|snapshot_memory|c_api_select|gguf_header|model_config> [runs] [libFuzzer flags...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${VKTUNE_FUZZ_BUILD:-$root/build-fuzz}
name=$1
runs=${2:-1000000}
shift $(($# < 2 ? $# : 2))
case $name in
  json_import)     dir=db;    seeds=(db/fuzz/seeds/json);                  dict=db/fuzz/json.dict;            max_len=8192 ;;
  open_bytes)      dir=db;    seeds=(db/fuzz/seeds/db);                    dict=;                             max_len=65536 ;;
  snapshot_memory) dir=db;    seeds=(db/fuzz/seeds/db db/fuzz/seeds/json db/fuzz/seeds/zst); dict=;                          max_len=65536 ;;
  c_api_select)    dir=db;    seeds=();                                    dict=;                             max_len=128 ;;
  gguf_header)     dir=kernels/models; seeds=(kernels/models/fuzz/seeds/gguf); dict=;                         max_len=4096 ;;
  model_config)    dir=kernels/models; seeds=(kernels/models/fuzz/seeds/config); dict=kernels/models/fuzz/model_config.dict; max_len=4096 ;;
  *) echo "unknown fuzzer $name" >&2; exit 2 ;;
esac
corpus=$build/corpus/$name
artifacts=$build/artifacts/$name
mkdir -p "$corpus" "$artifacts"
# A 16 MB quarantine instead of ASan's 256 MB: use-after-free within the last 16 MB of frees is
# still caught, and the runs are about twice as fast (fresh pages for every SQLite allocation).
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16}
exec nice -n 19 "$build/$dir/fuzz/vktune_fuzz_$name" -runs="$runs" -rss_limit_mb=2048 \
  -max_len=$max_len -timeout=25 ${dict:+-dict=$root/$dict} -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$@" "$corpus" "${seeds[@]/#/$root/}"
