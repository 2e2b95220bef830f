#!/usr/bin/env python3
"""`tune --prior` (tuner/kin_prior.h) replayed on a database holding two devices' measurements.

The prior is read from PRIOR's measurements: a variant is kept where it ran within X of the best
on some problem of its op and dtype there, or where PRIOR never measured its family or one of its
knob values for them; the baselines always stay. The truth is every problem of DEVICE with at
least MIN measured variants (swept whole), each judged by a prior that leaves out PRIOR's
problems of its shape. Prints one row per X: the problems, the median share of a problem's
measured variants the prior keeps, the pipelines a run over all those problems would make (one
pipeline serves every problem) against all measured, and the regret of the best kept variant
against the best of all: median, largest, problems within 2%.

    vktune import db/tuned/nvidia-h100-80gb-hbm3.json.zst --db two.db
    vktune import db/tuned/nvidia-h200.json.zst --db two.db
    bench/replay_prior.py two.db --prior "NVIDIA H100 80GB HBM3" --device "NVIDIA H200"
"""
import argparse
import collections
import sqlite3

from replay_family_screen import is_baseline  # beside this script

QUERY = """SELECT d.name, p.op, p.dtype, p.m, p.n, p.k, p.group_size, p.heads, p.kv_heads,
                  k.family, k.variant_key, MIN(m.median_ns)
           FROM measurements m JOIN problems p ON p.id = m.problem_id
           JOIN kernels k ON k.id = m.kernel_id JOIN devices d ON d.id = m.device_id
           WHERE m.status = 'ok' AND m.median_ns > 0
           GROUP BY m.device_id, m.problem_id, k.id"""


def knob_values(key):
    """The "knob=value" items of a variant key, family[a=1,b=2]."""
    return key[key.index("[") + 1:-1].split(",")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("--prior", required=True, help="the device the prior is read from")
    parser.add_argument("--device", required=True, help="the device whose problems are the truth")
    parser.add_argument("--within", default="0.02,0.05,0.1,0.25", help="X, comma-separated")
    parser.add_argument("--min-measured", type=int, default=500)
    args = parser.parse_args()

    times = collections.defaultdict(dict)  # (device, kind, shape) -> {key: ns}
    family_of = {}
    for device, op, dtype, m, n, k, gs, heads, kv, family, key, ns in \
            sqlite3.connect(args.db).execute(QUERY):
        times[(device, (op, dtype), (m, n, k, gs, heads, kv))][key] = ns
        family_of[key] = family
    prior = {(kind, shape): t for (d, kind, shape), t in times.items() if d == args.prior}
    truth = {(kind, shape): t for (d, kind, shape), t in times.items()
             if d == args.device and len(t) >= args.min_measured}
    # What PRIOR measured at all, per kind: families and "family knob=value".
    seen = collections.defaultdict(set)
    for (kind, _), t in prior.items():
        for key in t:
            seen[kind].add(family_of[key])
            seen[kind].update(family_of[key] + " " + v for v in knob_values(key))

    print(f"{len(truth)} problems of {args.device} with >= {args.min_measured} variants measured; "
          f"the prior from {len(prior)} problems of {args.prior}")
    print("| within | kept a problem (median) | pipelines | regret median | max | within 2% |")
    print("|--:|--:|--:|--:|--:|--:|")
    for within in (float(x) for x in args.within.split(",")):
        near = collections.defaultdict(set)  # (kind, key) -> the shapes it ran near the best on
        for (kind, shape), t in prior.items():
            best = min(t.values())
            for key, ns in t.items():
                if ns <= (1 + within) * best:
                    near[(kind, key)].add(shape)

        def kept(kind, shape, key):
            family = family_of[key]
            if is_baseline(family) or family not in seen[kind]:
                return True
            if any(family + " " + v not in seen[kind] for v in knob_values(key)):
                return True
            return bool(near.get((kind, key), set()) - {shape})

        shares, regrets, pipelines, every = [], [], set(), set()
        for (kind, shape), t in truth.items():
            keep = [key for key in t if kept(kind, shape, key)]
            shares.append(len(keep) / len(t))
            regrets.append(min(t[key] for key in keep) / min(t.values()) - 1)
            pipelines.update(keep)
            every.update(t)
        shares.sort()
        regrets.sort()
        print(f"| {within:.0%} | {shares[len(shares) // 2]:.1%} | {len(pipelines)} of {len(every)} "
              f"| {regrets[len(regrets) // 2]:.2%} | {regrets[-1]:.2%} "
              f"| {sum(r <= 0.02 for r in regrets)} of {len(regrets)} |")


if __name__ == "__main__":
    main()
