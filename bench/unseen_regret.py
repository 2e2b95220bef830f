#!/usr/bin/env python3
"""Benchmark: the runtime's picks for shapes a database never tuned, against their measured best.

    bench/unseen_regret.py --truth TRUTH.db [--vktune build/tools/vktune] RUNTIME_DB...

TRUTH.db holds every legal variant of some problems measured on one device (say `vktune tune
--strategy exhaustive --shapes bench/shapes/h100/unseen_shapes.json --db TRUTH.db`); each
RUNTIME_DB (a .db or an exported .json) is what an engine would load, and should hold none of
those problems.
For every q4gsw, rms_norm and sdpa problem of TRUTH.db it asks `vktune lookup` what each RUNTIME_DB
answers on that device, reads the pick's fastest ok time in TRUTH.db and prints the regret
(pick / best - 1) per problem, then median, p90, max and how many picks are within 10%. A pick
TRUTH.db never timed counts as unmeasured. Python's standard library only.
"""
import argparse
import json
import math
import sqlite3
import statistics
import subprocess
import sys


def problems(truth):
    rows = truth.execute(
        "SELECT p.id, d.id, p.op, p.dtype, p.m, p.n, p.k, p.group_size, p.heads, p.kv_heads, "
        "d.vendor_id, d.device_id, d.device_type "
        "FROM problems p JOIN measurements x ON x.problem_id = p.id "
        "JOIN devices d ON d.id = x.device_id WHERE p.op IN ('q4gsw', 'rms_norm', 'sdpa') "
        "GROUP BY p.id, d.id ORDER BY p.op, p.heads, p.kv_heads, p.m, p.n, p.k, p.group_size")
    return rows.fetchall()


def times(truth, problem_id, device_row):
    rows = truth.execute(
        "SELECT k.variant_key, MIN(x.median_ns) FROM measurements x "
        "JOIN kernels k ON k.id = x.kernel_id WHERE x.problem_id = ? AND x.device_id = ? "
        "AND x.status = 'ok' AND x.median_ns IS NOT NULL GROUP BY k.variant_key",
        (problem_id, device_row))
    return dict(rows.fetchall())


def pick(vktune, db, op, dtype, m, n, k, gs, heads, kv_heads, vendor, device, device_type):
    # The device type too: on a device the runtime database never saw, lookup cannot read it there,
    # and the runtime's same_vendor_type match needs it.
    args = [vktune, "lookup", "--db", db, "--vendor-id", str(vendor), "--device-id", str(device),
            "--device-type", device_type,
            "--op", op, "--dtype", dtype, "--m", str(m), "--n", str(n), "--json"]
    if op == "q4gsw":
        args += ["--k", str(k), "--gs", str(gs)]
    if op == "sdpa":
        args += ["--k", str(k), "--heads", str(heads), "--kv-heads", str(kv_heads)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"vktune lookup failed on {db}: {out.stderr.strip()}")
    selection = json.loads(out.stdout)["selection"]
    return selection["variant_key"], selection.get("shape_match", "")


def summary(regrets):
    measured = sorted(r for r in regrets if r is not None)
    if not measured:
        return "no pick was measured in the truth database"
    p90 = measured[max(0, math.ceil(0.9 * len(measured)) - 1)]
    within = sum(r <= 0.10 for r in measured)
    # The log of the geometric mean slowdown, as `vktune evaluate` prints it.
    mean_log = statistics.fmean(math.log1p(r) for r in measured)
    return (f"median {100 * statistics.median(measured):.1f}%  p90 {100 * p90:.1f}%  "
            f"max {100 * measured[-1]:.1f}%  within 10%: {within} of {len(regrets)}"
            f" ({len(regrets) - len(measured)} unmeasured)  mean ln(1 + r) {100 * mean_log:.2f}%")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--truth", required=True, help="database with every variant measured")
    parser.add_argument("--vktune", default="build/tools/vktune")
    parser.add_argument("runtime_dbs", nargs="+")
    args = parser.parse_args()
    truth = sqlite3.connect(f"file:{args.truth}?mode=ro", uri=True)
    regrets = {db: [] for db in args.runtime_dbs}
    for pid, device_row, op, dtype, m, n, k, gs, heads, kv_heads, vendor, device, device_type \
            in problems(truth):
        measured = times(truth, pid, device_row)
        if not measured:
            continue
        best = min(measured.values())
        label = f"{op} {dtype} M={m} N={n}" + (f" K={k} gs={gs}" if op == "q4gsw" else "")
        if op == "sdpa":
            label = f"sdpa {dtype} M={m} L={n} D={k} heads {heads}/{kv_heads}"
        print(f"{label:<42} best {best / 1e3:9.2f} us")
        for db in args.runtime_dbs:
            key, how = pick(args.vktune, db, op, dtype, m, n, k, gs, heads, kv_heads, vendor, device,
                            device_type)
            ns = measured.get(key)
            regret = ns / best - 1 if ns is not None else None
            regrets[db].append(regret)
            shown = f"{100 * regret:+7.1f}%" if regret is not None else "unmeasured"
            print(f"    {shown:>10}  {how:<17} {key}   ({db})")
    print()
    for db in args.runtime_dbs:
        print(f"{db}: {summary(regrets[db])}")


if __name__ == "__main__":
    main()
