#!/usr/bin/env python3
"""Benchmark: each problem's winner in two tuning databases, side by side.

    bench/compare_winners.py A.db B.db [--within PERCENT]

A.db and B.db are `vktune tune` databases of the same problems (say one GPU's run and a
`--devices all` run of the same command). Prints, per problem, the best median of each (the
database's `best` view), B/A, and how many problems B's winner is within PERCENT (default 2) of
A's; a problem one of them lacks is listed as missing. Python's standard library only.
"""
import argparse
import sqlite3

QUERY = """select p.op, p.dtype, p.m, p.n, p.k, p.group_size, b.median_ns, k.variant_key
           from best b join problems p on p.id = b.problem_id join kernels k on k.id = b.kernel_id"""


def winners(path):
    """(op, dtype, m, n, k, gs) -> (median ns, variant key) of the problem's best."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return {row[:6]: (row[6], row[7]) for row in db.execute(QUERY)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--within", type=float, default=2.0, help="percent (default 2)")
    args = parser.parse_args()
    a, b = winners(args.a), winners(args.b)
    print("| problem | A us | B us | B / A |\n|---|--:|--:|--:|")
    within = 0
    for key in sorted(a.keys() | b.keys()):
        op, dtype, m, n, k, gs = key
        problem = f"{op} {dtype} M={m} N={n} K={k} gs={gs}"
        if key not in a or key not in b:
            print(f"| {problem} | {'missing' if key not in a else f'{a[key][0] / 1e3:.2f}'} | "
                  f"{'missing' if key not in b else f'{b[key][0] / 1e3:.2f}'} | - |")
            continue
        ratio = b[key][0] / a[key][0]
        within += ratio <= 1 + args.within / 100
        print(f"| {problem} | {a[key][0] / 1e3:.2f} | {b[key][0] / 1e3:.2f} | {ratio:.3f} |")
    print(f"\n{within} of {len(a.keys() | b.keys())} problems: B's winner within {args.within:g}% "
          f"of A's")


if __name__ == "__main__":
    main()
