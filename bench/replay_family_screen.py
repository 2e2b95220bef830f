#!/usr/bin/env python3
"""Halving's family screen (tuner/family_screen.h) replayed on a database's measurements.

For every (device, problem): up to PROBES variants of each family, picked as the tuner picks them
(the smallest FNV-1a hashes of their keys), the families whose best picked time is more than
WITHIN times the best picked time of all dropped (baseline families never are), and the best
of what is left read against the best of everything. Prints one row per rule: problems, how
many lose more than 1%, the largest loss, and the share of the measured variants' summed
times (one dispatch each, what the gate spends) the screen leaves out. Meaningful on databases
that measured every variant (exhaustive runs): `vktune import --db h100.db
db/tuned/nvidia-h100-80gb-hbm3.json.zst`, then `bench/replay_family_screen.py h100.db`.

`--rounds 8@4,16@2` replays a screen of several rounds instead (each round's probes of the
families still kept, then those further behind than its factor dropped), and every row adds the
pipelines a run over all the database's problems of a device would make: one pipeline serves
every problem, so a variant counts once however many problems measure it.
"""
import argparse
import collections
import sqlite3

BASELINES = ("q4gsw_naive", "rms_norm_naive", "sdpa_naive")  # kernels::is_baseline's families
QUERY = """SELECT m.device_id, p.op, p.dtype, p.m, p.n, p.k, p.group_size, p.heads, p.kv_heads,
                  k.family, k.variant_key, MIN(m.median_ns)
           FROM measurements m JOIN problems p ON p.id = m.problem_id
           JOIN kernels k ON k.id = m.kernel_id
           WHERE m.status = 'ok' AND m.median_ns > 0
           GROUP BY m.device_id, m.problem_id, k.id"""


def fnv1a(text):
    h = 1469598103934665603
    for byte in text.encode():
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def is_baseline(family):
    return family.removesuffix("_f16") in BASELINES


def screen(families, rounds):
    """The families kept and the (family, key) pairs measured under `rounds` of (probes, within)."""
    order = {f: sorted(times, key=fnv1a) for f, times in families.items()}
    kept, measured = set(families), set()
    for probes, within in rounds:
        screened = {f: min(families[f][k] for k in order[f][:probes]) for f in kept}
        measured |= {(f, k) for f in kept for k in order[f][:probes]}
        bound = within * min(screened.values())
        kept = {f for f in kept if is_baseline(f) or screened[f] <= bound}
    measured |= {(f, k) for f in kept for k in families[f]}
    return kept, measured


def replay(problems, rounds):
    losses, left_out, total = [], 0.0, 0.0
    pipelines, everything = collections.defaultdict(set), collections.defaultdict(set)
    for problem, families in problems.items():
        best = min(t for times in families.values() for t in times.values())
        total += sum(t for times in families.values() for t in times.values())
        kept, measured = screen(families, rounds)
        losses.append(min(min(families[f].values()) for f in kept) / best - 1)
        left_out += sum(t for f, times in families.items() for k, t in times.items()
                        if (f, k) not in measured)
        pipelines[problem[0]] |= measured
        everything[problem[0]] |= {(f, k) for f, times in families.items() for k in times}
    share = left_out / total if total else 0.0
    return losses, share, sum(map(len, pipelines.values())), sum(map(len, everything.values()))


def parse_rounds(text):
    return [(int(p), float(w)) for p, w in (r.split("@") for r in text.split(","))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("db")
    parser.add_argument("--probes", type=int, nargs="+", default=[4, 8])
    parser.add_argument("--within", type=float, nargs="+", default=[3.0, 4.0])
    parser.add_argument("--rounds", nargs="+", type=parse_rounds, default=[],
                        help="screens of several rounds, e.g. 8@4,16@2 "
                             "(instead of --probes and --within)")
    args = parser.parse_args()
    problems = collections.defaultdict(lambda: collections.defaultdict(dict))
    for row in sqlite3.connect(f"file:{args.db}?mode=ro", uri=True).execute(QUERY):
        problems[row[:9]][row[9]][row[10]] = row[11]
    rules = args.rounds or [[(p, w)] for p in args.probes for w in args.within]
    print("| rounds (probes @ within) | problems | lose > 1% | largest loss | gate time left out "
          "| pipelines |")
    print("|---|--:|--:|--:|--:|--:|")
    for rule in rules:
        losses, share, pipelines, everything = replay(problems, rule)
        name = ", ".join(f"{p} @ {w:g}x" for p, w in rule)
        print(f"| {name} | {len(losses)} | {sum(l > 0.01 for l in losses)} "
              f"| {100 * max(losses, default=0):.1f}% | {100 * share:.1f}% "
              f"| {pipelines:,} of {everything:,} |")


if __name__ == "__main__":
    main()
