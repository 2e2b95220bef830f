#!/usr/bin/env python3
"""Benchmark: two builds' tuning runs of the same problems and families, compared.

    bench/compare_builds.py A.db B.db [--min-samples N]

A.db and B.db are `vktune tune` databases of the same problems on one device (say the default
build and one linked with the newer compiler, `--strategy exhaustive` so every variant is timed).
Prints each database's result counts by status, then per (problem, family) both fastest ok medians
and their ratio A/B (flagged where A is over 3% slower), then per family the geometric mean of A/B
over the variants both timed with at least N samples (default 3). Python's standard library only.
"""
import argparse
import math
import sqlite3
from collections import defaultdict

QUERY = """select p.m, p.n, p.k, p.group_size, k.family, k.variant_key, m.status, m.n, m.median_ns
           from measurements m join problems p on p.id = m.problem_id
           join kernels k on k.id = m.kernel_id"""


def load(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(QUERY).fetchall()


def statuses(rows):
    counts = defaultdict(int)
    for row in rows:
        counts[row[6]] += 1
    return dict(counts)


def fastest(rows):
    """(m, n, k, gs, family) -> (median ns, samples) of its fastest ok variant."""
    best = {}
    for m, n, k, gs, family, _, status, samples, median in rows:
        if status == "ok" and median is not None:
            key = (m, n, k, gs, family)
            if key not in best or median < best[key][0]:
                best[key] = (median, samples)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--min-samples", type=int, default=3)
    args = parser.parse_args()
    a, b = load(args.a), load(args.b)
    print(f"A {args.a}: {statuses(a)}\nB {args.b}: {statuses(b)}\n")
    best_a, best_b = fastest(a), fastest(b)
    print("problem                   family                             A us      B us    A/B")
    for key in sorted(best_a.keys() & best_b.keys()):
        ratio = best_a[key][0] / best_b[key][0]
        flag = "  A over 3% slower" if ratio > 1.03 else ""
        problem = f"M{key[0]} N{key[1]} K{key[2]} gs{key[3]}"
        print(f"{problem:25s} {key[4]:32s} {best_a[key][0] / 1e3:8.2f} {best_b[key][0] / 1e3:8.2f} "
              f"{ratio:6.3f}{flag}")
    timed_a = {(r[0], r[1], r[2], r[3], r[5]): r for r in a
               if r[6] == "ok" and r[7] >= args.min_samples}
    logs = defaultdict(list)
    for r in b:
        key = (r[0], r[1], r[2], r[3], r[5])
        if r[6] == "ok" and r[7] >= args.min_samples and key in timed_a:
            logs[r[4]].append(math.log(timed_a[key][8] / r[8]))
    print(f"\nfamily                           variants  geomean A/B (both >= {args.min_samples} samples)")
    for family in sorted(logs):
        print(f"{family:32s} {len(logs[family]):8d}  {math.exp(sum(logs[family]) / len(logs[family])):.3f}")


if __name__ == "__main__":
    main()
