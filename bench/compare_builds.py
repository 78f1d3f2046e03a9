#!/usr/bin/env python3
"""Two builds side by side: checkers perft, network inference and training, and self-play.

Runs each benchmark of the old and the new binary in alternation (old, new, old, new, ...)
for --rounds rounds, so both see the same machine load, and prints per benchmark the
median of each build's figure and their ratio new/old (above 1: the new build is faster).

    python3 bench/compare_builds.py OLD_BINARY NEW_BINARY [--rounds 5] [--only self-play]
"""

import argparse
import json
import statistics
import subprocess

# (name, arguments, JSON key of the figure, how to pick the line: a predicate on it)
BENCHES = [
    (
        "perft depth 11, 1 thread (nodes/s)",
        ["bench", "perft", "--depth", "11", "--threads", "1", "--repeat", "1"],
        "nodes_per_s",
        lambda r: "stat" not in r,
    ),
    (
        "az-tiny inference batch 1 (positions/s)",
        ["bench", "nn", "--net", "az-tiny", "--batches", "1", "--train-batch", "0",
         "--seconds", "1", "--threads", "1"],
        "positions_per_s",
        lambda r: r.get("mode") == "inference" and r.get("batch") == 1,
    ),
    (
        "az-tiny inference batch 64 (positions/s)",
        ["bench", "nn", "--net", "az-tiny", "--batches", "64", "--train-batch", "0",
         "--seconds", "1", "--threads", "1"],
        "positions_per_s",
        lambda r: r.get("mode") == "inference" and r.get("batch") == 64,
    ),
    (
        "az-tiny training batch 64 (positions/s)",
        ["bench", "nn", "--net", "az-tiny", "--batches", "1", "--train-batch", "64",
         "--seconds", "1", "--threads", "1"],
        "positions_per_s",
        lambda r: r.get("mode") == "train",
    ),
    (
        "self-play az-tiny, 8 games, 100 searches (simulations/s)",
        ["bench", "selfplay", "--games", "8", "--searches", "100", "--threads", "1",
         "--repeat", "1"],
        "simulations_per_s",
        lambda r: "stat" not in r,
    ),
    (
        "self-play, the cpu preset's workers, games and leaves, 80 searches (simulations/s)",
        ["bench", "selfplay", "--games", "24", "--searches", "80", "--threads", "2",
         "--workers", "1", "--games-per-worker", "24", "--leaf-batch", "4", "--repeat", "1"],
        "simulations_per_s",
        lambda r: "stat" not in r,
    ),
]


def figure(binary, args, key, pick):
    out = subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    values = [r[key] for r in rows if pick(r)]
    if not values:
        raise SystemExit(f"{binary} {' '.join(args)}: no line with {key}")
    return values[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--only", default="", help="run the benchmarks whose name holds this")
    a = p.parse_args()
    print(f"| benchmark | old (median) | new (median) | new/old |")
    print(f"|---|---|---|---|")
    for name, args, key, pick in BENCHES:
        if a.only not in name:
            continue
        old, new = [], []
        for _ in range(a.rounds):
            old.append(figure(a.old, args, key, pick))
            new.append(figure(a.new, args, key, pick))
        mo, mn = statistics.median(old), statistics.median(new)
        print(f"| {name} | {mo:,.0f} | {mn:,.0f} | {mn / mo:.3f} |", flush=True)


if __name__ == "__main__":
    main()
