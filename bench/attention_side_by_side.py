#!/usr/bin/env python3
"""Helper of bench/attention_side_by_side.sh (Python's standard library only).

  attention_side_by_side.py peer-cases SHAPES.json
      llama.cpp's test-backend-ops `--test-file` lines (test-export-graph-ops format), one
      FLASH_ATTN_EXT per sdpa (M, L) of the shapes file
  attention_side_by_side.py table --shapes SHAPES.json --bench BENCH.json --peer-log LOG
      the Markdown table: M, L (and the head counts and head dim where the shapes file has
      more than one), vktune us (`vktune bench --json`'s re-timed winner), llama.cpp us
      (median of the GGML_VK_PERF_LOGGER lines of that FLASH_ATTN_EXT), ratio

A --test-file line is: op type ne0..ne3, the op-params count and values (int32), the sources
count, per source its type, ne0..ne3 and nb0..nb3 (bytes), and a name. The FLASH_ATTN_EXT
cases are built as test-backend-ops' own test_flash_attn_ext builds them: q f32 [D, M, Hq],
K and V f16 [D, L, Hkv], the mask f16 [L, M] (test-backend-ops fills it at random, a fifth of
it in 128 x 64 blocks of 0 or -inf), the output f32 [D, Hq, M]; op params scale = 1/sqrt(D),
max_bias 0, logit_softcap 0, precision GGML_PREC_F32 (what llama.cpp's graph asks for), no
sinks, n_kv_max 0.
"""
import argparse
import json
import math
import re
import statistics
import struct
import sys

# ggml.h of the peer (llama.cpp v0.5.0, ggml 0.25.1): enum ggml_op, ggml_type, ggml_prec.
GGML_OP_FLASH_ATTN_EXT = 74
GGML_TYPE_F32, GGML_TYPE_F16 = 0, 1
GGML_PREC_F32 = 10


def as_list(value):
    return value if isinstance(value, list) else [value]


def sdpa_shapes(path):
    """(M, L, heads, kv_heads, D) of every sdpa problem of a vktune shapes file, in file order."""
    with open(path) as f:
        doc = json.load(f)
    file_m = as_list(doc.get("m", 1))
    shapes = []
    for entry in doc["problems"]:
        if entry.get("op") != "sdpa":
            continue
        for m in as_list(entry.get("m", file_m)):
            for length in as_list(entry.get("context", [128, 512, 2048, 8192])):
                if length < m:
                    continue  # as tune: a length below M is skipped
                shapes.append((m, length, entry["heads"], entry["kv_heads"], entry["head_dim"]))
    if not shapes:
        sys.exit(f"{path}: no sdpa problems")
    return shapes


def peer_case(m, length, heads, kv_heads, d):
    scale_bits = struct.unpack("<i", struct.pack("<f", 1.0 / math.sqrt(d)))[0]
    q = f"{GGML_TYPE_F32} {d} {m} {heads} 1 4 {4 * d} {4 * d * m} {4 * d * m * heads}"
    kv = f"{GGML_TYPE_F16} {d} {length} {kv_heads} 1 2 {2 * d} {2 * d * length} {2 * d * length * kv_heads}"
    mask = f"{GGML_TYPE_F16} {length} {m} 1 1 2 {2 * length} {2 * length * m} {2 * length * m}"
    params = f"5 {scale_bits} 0 0 {GGML_PREC_F32} 0"
    return (f"{GGML_OP_FLASH_ATTN_EXT} {GGML_TYPE_F32} {d} {heads} {m} 1 {params} 4 "
            f"{q} {kv} {kv} {mask} sdpa_m{m}_l{length}_h{heads}_kv{kv_heads}_d{d}")


# GGML_VK_PERF_LOGGER: "FLASH_ATTN_EXT dst(D,Hq,M,1),  q(D,M,Hq,1),  k(D,L,Hkv,1),  v(...),
# m(L,M,1,1): N x T us = S us (F GFLOPS/s)", T the mean GPU time of the N runs since the last print.
PEER_LINE = re.compile(r"^FLASH_ATTN_EXT dst\([^)]*\),\s+q\((\d+),(\d+),(\d+),\d+\),\s+"
                       r"k\(\d+,(\d+),(\d+),\d+\).*?:\s+(\d+) x ([0-9.eE+-]+) us")


def peer_times(path):
    """{(M, L, heads, kv_heads, D): [(runs, mean us), ...]} from the peer's stderr."""
    times = {}
    with open(path, errors="replace") as f:
        for line in f:
            hit = PEER_LINE.match(line.strip())
            if hit:
                d, m, heads, length, kv_heads, runs, us = hit.groups()
                key = (int(m), int(length), int(heads), int(kv_heads), int(d))
                times.setdefault(key, []).append((int(runs), float(us)))
    return times


def peer_median(lines):
    # The lone run of test-backend-ops' warm-up graph is left out where the timed graphs printed.
    timed = [us for runs, us in lines if runs > 1] or [us for _, us in lines]
    return statistics.median(timed)


VKTUNE_PROBLEM = re.compile(r"^sdpa M=(\d+) L=(\d+) Hq=(\d+) Hkv=(\d+) D=(\d+) f16$")


def vktune_times(path):
    """{(M, L, heads, kv_heads, D): (us, winner)} from `vktune bench --json`."""
    with open(path) as f:
        doc = json.load(f)
    times = {}
    for check in doc["checks"]:
        hit = VKTUNE_PROBLEM.match(check["problem"])
        if hit:
            ns = check["retimed_ns"] if check["retimed_ns"] is not None else check["stored_ns"]
            times[tuple(int(g) for g in hit.groups())] = (ns / 1e3, check["winner"])
    return times


def us(value):
    return "-" if value is None else f"{value:,.2f}"


def table(args):
    ours, peer = vktune_times(args.bench), peer_times(args.peer_log)
    shapes = sdpa_shapes(args.shapes)
    # The heads and head dim get columns of their own where the shapes file has more than one.
    heads = len({shape[2:] for shape in shapes}) > 1
    rows = ["| M | L |" + (" Hq / Hkv | D |" if heads else "") +
            " vktune us | llama.cpp us | ratio |",
            "|--:|--:|" + ("--:|--:|" if heads else "") + "--:|--:|--:|"]
    for shape in shapes:
        mine, winner = ours.get(shape, (None, None))
        theirs = peer_median(peer[shape]) if shape in peer else None
        ratio = f"{mine / theirs:.2f}" if mine and theirs else "-"
        head_cells = f" {shape[2]} / {shape[3]} | {shape[4]} |" if heads else ""
        rows.append(f"| {shape[0]} | {shape[1]} |{head_cells} {us(mine)} | {us(theirs)} "
                    f"| {ratio} |")
        n = len([1 for runs, _ in peer.get(shape, []) if runs > 1])
        print(f"M={shape[0]} L={shape[1]} Hq={shape[2]} Hkv={shape[3]} D={shape[4]}: vktune "
              f"{us(mine)} us ({winner}), llama.cpp {us(theirs)} us (median of {n} logged graphs)",
              file=sys.stderr)
    print("\n".join(rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cases = sub.add_parser("peer-cases", help="test-backend-ops --test-file lines")
    cases.add_argument("shapes")
    tab = sub.add_parser("table", help="the Markdown table")
    tab.add_argument("--shapes", required=True)
    tab.add_argument("--bench", required=True, help="vktune bench --json output")
    tab.add_argument("--peer-log", required=True, help="test-backend-ops perf's stderr")
    args = parser.parse_args()
    if args.command == "peer-cases":
        for shape in sdpa_shapes(args.shapes):
            print(peer_case(*shape))
    else:
        table(args)


if __name__ == "__main__":
    main()
