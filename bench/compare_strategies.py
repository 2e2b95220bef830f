#!/usr/bin/env python3
"""Benchmark: exhaustive, halving and model on the same problems, in one invocation.

Runs `vktune tune` once per strategy into a fresh database each (after an untimed run that fills
the driver's shader cache) and prints, per problem, the variants each measured, each winner's
stored time and whether the winners agree (within 2% of exhaustive's), then the wall time of
every run and its ratio to exhaustive's.

    bench/compare_strategies.py [--vktune build/tools/vktune] [--out DIR]
                                [--train-db EXPORT.json[.zst]] -- TUNE-ARGS...

TUNE-ARGS are passed to every run (say `--shapes bench/shapes/h100/strategy_shapes.json`);
the databases, logs and CSV reports stay in --out. The model strategy learns from --train-db (an
exported JSON document, compressed or not, e.g. db/tuned/nvidia-h100-80gb-hbm3.json.zst) with the compared problems'
rows taken out first (OUT/train.json), so it never sees the answers it is judged on; without
--train-db it starts from nothing and sweeps the first problems. Python's standard library only (and the zstd tool for a compressed --train-db).
"""
import argparse
import csv
import json
import pathlib
import subprocess
import sys
import tempfile
import time

STRATEGIES = ("exhaustive", "halving", "model")
AGREEMENT = 0.02  # a strategy's winner at most this much slower than exhaustive's
# Sections of an exported document whose rows name a problem (by index, column "problem").
PROBLEM_ROWS = ("measurements", "coverage", "winners", "ranked")
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def problem_key(op, dtype, m, n, k, gs):
    return (op, dtype, int(m), int(n), int(k), int(gs))


def hold_out(train_db, problems, path):
    """Writes train_db's document without the rows of `problems` to `path`; returns how many
    of its problems were held out and how many remain."""
    with open(train_db, "rb") as f:
        raw = f.read()
    if raw.startswith(ZSTD_MAGIC):  # the shipped exports are zstd-compressed
        raw = subprocess.run(["zstd", "-dc", train_db], check=True, stdout=subprocess.PIPE).stdout
    doc = json.loads(raw)
    if doc.get("format") != "vktune-db" or doc.get("version") != 2:
        sys.exit(f"{train_db}: not a version 2 vktune-db export (vktune export writes one)")
    hidden = {i for i, p in enumerate(doc["problems"])
              if problem_key(p["op"], p["dtype"], p["m"], p["n"], p["k"], p["group_size"])
              in problems}
    for section in PROBLEM_ROWS:
        if section not in doc:
            continue
        column = doc["columns"][section].index("problem")
        doc[section] = [row for row in doc[section] if row[column] not in hidden]
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    return len(hidden), len(doc["problems"]) - len(hidden)


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
            key = problem_key(row["op"], row["dtype"], row["m"], row["n"], row["k"],
                              row["group_size"])
            rows[key] = row
    return wall, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vktune", default="build/tools/vktune")
    parser.add_argument("--out", help="folder for the databases and logs (default: a new one)")
    parser.add_argument("--train-db", help="exported JSON the model strategy learns from, "
                        "less the compared problems")
    parser.add_argument("tune_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    tune_args = [a for a in args.tune_args if a != "--"]
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="vktune-strategies-"))
    out.mkdir(parents=True, exist_ok=True)

    # The driver's own shader cache (NVIDIA keeps compiled pipelines on disk) would make the
    # first timed run pay every compile and the others none: an untimed run fills it first.
    tune(args.vktune, "halving", out, tune_args)
    walls, results = {}, {}
    for strategy in STRATEGIES:
        strategy_args = list(tune_args)
        if strategy == "model" and args.train_db:
            held, kept = hold_out(args.train_db, set(results["exhaustive"]), out / "train.json")
            print(f"model learns from {args.train_db}: {kept} problems (held out: {held} of"
                  f" the compared ones)")
            # Imported before the timed run: parsing a large document is no part of a search.
            train = out / "train.db"
            for stale in out.glob("train.db*"):
                stale.unlink()
            subprocess.run([args.vktune, "import", "--db", str(train), str(out / "train.json")],
                           check=True, stdout=subprocess.DEVNULL)
            strategy_args += ["--train-db", str(train)]
        walls[strategy], results[strategy] = tune(args.vktune, strategy, out, strategy_args)

    exhaustive = results["exhaustive"]
    others = STRATEGIES[1:]
    print(f"{'problem':<34} {'legal':>6}" + "".join(f" {s[:5] + ' n':>8}" for s in STRATEGIES)
          + "".join(f" {s[:5] + ' us':>9}" for s in STRATEGIES)
          + "".join(f" {s[:5] + ' diff':>11}" for s in others))
    agree = {s: 0 for s in others}
    measured = {s: 0 for s in STRATEGIES}
    legal_total = 0
    for key in sorted(exhaustive):
        rows = [results[s].get(key) for s in STRATEGIES]
        op, _, m, n, k, gs = key
        label = f"{op} M={m} N={n} K={k}" + (f" gs={gs}" if gs else "")
        if any(r is None or not r["median_ns"] for r in rows):
            print(f"{label}: missing from one run")
            continue
        legal = int(rows[0]["legal"] or rows[0]["measured"])
        legal_total += legal
        line = f"{label:<34} {legal:>6}"
        for s, r in zip(STRATEGIES, rows):
            measured[s] += int(r["measured"])
            line += f" {int(r['measured']):>8}"
        times = [float(r["median_ns"]) for r in rows]
        line += "".join(f" {t / 1e3:>9.2f}" for t in times)
        for s, t, r in zip(others, times[1:], rows[1:]):
            diff = t / times[0] - 1
            ok = diff <= AGREEMENT
            agree[s] += ok
            line += f" {100 * diff:>+6.1f}% {'ok' if ok else 'NO':<3}"
        print(line)
    print()
    for s in STRATEGIES:
        ratio = walls[s] / walls["exhaustive"]
        print(f"{s:<11} wall {walls[s]:8.1f} s ({ratio:6.1%} of exhaustive's), measured"
              f" {measured[s]} of {legal_total} legal variants ({measured[s] / max(1, legal_total):.1%})"
              + (f", winner within {AGREEMENT:.0%} of exhaustive's on {agree[s]} of"
                 f" {len(exhaustive)} problems" if s in agree else ""))
    print(f"databases and logs: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
