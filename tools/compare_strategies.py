#!/usr/bin/env python3
"""Benchmark: exhaustive against halving on the same problems, in one invocation.

Runs `vktune tune` once per strategy into a fresh database each (after an untimed run that fills
the driver's shader cache) and prints, per problem, the
variants each measured, each winner's stored time and whether the winners agree (halving's
winner within 2% of exhaustive's), then the wall time of both runs and their ratio.

    tools/compare_strategies.py [--vktune build/tools/vktune] [--out DIR] -- TUNE-ARGS...

TUNE-ARGS are passed to both runs (say `--shapes docs/h100/strategy_shapes.json`); the
databases, logs and CSV reports stay in --out. Python's standard library only.
"""
import argparse
import csv
import pathlib
import subprocess
import sys
import tempfile
import time

STRATEGIES = ("exhaustive", "halving")
STATUS_COLUMNS = ("ok", "wrong_result", "compile_error", "unsupported", "timeout", "device_lost")
AGREEMENT = 0.02  # halving's winner at most this much slower than exhaustive's


def tune(vktune, strategy, out, tune_args):
    db = out / f"{strategy}.db"
    for stale in out.glob(f"{strategy}.db*"):
        stale.unlink()
    start = time.monotonic()
    with open(out / f"{strategy}.log", "w") as log:
        subprocess.run([vktune, "tune", "--strategy", strategy, "--plain", "--profile", "--db",
                        str(db), *tune_args], check=True, stdout=log, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    report = out / f"{strategy}.csv"
    subprocess.run([vktune, "report", "--db", str(db), "--format", "csv", "-o", str(report)],
                   check=True, stdout=subprocess.DEVNULL)
    rows = {}
    with open(report, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["op"], row["dtype"], int(row["m"]), int(row["n"]), int(row["k"]),
                   int(row["group_size"]))
            rows[key] = row
    return wall, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vktune", default="build/tools/vktune")
    parser.add_argument("--out", help="folder for the databases and logs (default: a new one)")
    parser.add_argument("tune_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    tune_args = [a for a in args.tune_args if a != "--"]
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="vktune-strategies-"))
    out.mkdir(parents=True, exist_ok=True)

    # The driver's own shader cache (NVIDIA keeps compiled pipelines on disk) would make the
    # first timed run pay every compile and the second none: an untimed run fills it first.
    tune(args.vktune, "halving", out, tune_args)
    walls, results = {}, {}
    for strategy in STRATEGIES:
        walls[strategy], results[strategy] = tune(args.vktune, strategy, out, tune_args)

    exhaustive, halving = results["exhaustive"], results["halving"]
    print(f"{'problem':<34} {'exh. n':>7} {'halv. n':>7} {'exh. us':>9} {'halv. us':>9}"
          f" {'diff':>7}  agree")
    agree = 0
    for key in sorted(exhaustive):
        e, h = exhaustive[key], halving.get(key)
        if h is None or not e["median_ns"] or not h["median_ns"]:
            print(f"{key}: missing from one run")
            continue
        measured = [sum(int(r[c]) for c in STATUS_COLUMNS) for r in (e, h)]
        e_ns, h_ns = float(e["median_ns"]), float(h["median_ns"])
        diff = h_ns / e_ns - 1
        ok = diff <= AGREEMENT
        agree += ok
        op, _, m, n, k, gs = key
        label = f"{op} M={m} N={n} K={k}" + (f" gs={gs}" if gs else "")
        print(f"{label:<34} {measured[0]:>7} {measured[1]:>7} {e_ns / 1e3:>9.2f}"
              f" {h_ns / 1e3:>9.2f} {100 * diff:>+6.1f}%  {'yes' if ok else 'NO'}"
              f"{'' if e['winner'] == h['winner'] else '  (other variant)'}")
    print()
    for strategy in STRATEGIES:
        print(f"{strategy:<11} wall {walls[strategy]:8.1f} s")
    print(f"halving / exhaustive wall time: {walls['halving'] / walls['exhaustive']:.1%}")
    print(f"winners within {AGREEMENT:.0%}: {agree} of {len(exhaustive)} problems")
    print(f"databases and logs: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
