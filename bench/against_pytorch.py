#!/usr/bin/env python3
"""`bench nn` beside the PyTorch reference, alternating, and the table of ratios.

Runs `BINARY bench nn` and `bench/pytorch_reference.py` with the same arguments in alternation
(ours, PyTorch, ours, PyTorch, ...) for --rounds rounds, so both see the same machine load,
and prints a Markdown table: per cell the median positions/s of each side, the median of the
per-round ratios ours/PyTorch, and the ratios of every round. PyTorch runs with
OMP_WAIT_POLICY=PASSIVE (spinning OpenMP threads collapse on a shared 2-core machine).

    python3 bench/against_pytorch.py target/release/checkers-zero --rounds 3 \
        --net az-tiny,az-small,plain-7x128 --threads 2 --batches 1,16,64,256 \
        --train-batch 256 --seconds 2
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def records(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    cells = {}
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "positions_per_s" in r and "mode" in r:
            cells[(r["net"], r["mode"], r["batch"])] = r
    return cells


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("binary")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--net", default="az-tiny,az-small,plain-7x128")
    p.add_argument("--threads", default="2")
    p.add_argument("--batches", default="1,16,64,256")
    p.add_argument("--train-batch", default="256")
    p.add_argument("--seconds", default="2")
    p.add_argument("--python", default=sys.executable)
    a = p.parse_args()
    args = ["--net", a.net, "--threads", a.threads, "--batches", a.batches,
            "--train-batch", a.train_batch, "--seconds", a.seconds]
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    ours, theirs, kernel = [], [], None
    for r in range(a.rounds):
        o = records([a.binary, "bench", "nn", "--device", "cpu", *args])
        t = records([a.python, os.path.join(HERE, "pytorch_reference.py"), *args], env)
        ours.append(o)
        theirs.append(t)
        kernel = kernel or next(iter(o.values())).get("kernel")
        print(f"round {r + 1} of {a.rounds} done", file=sys.stderr, flush=True)
    print(f"kernel: {kernel}")
    print("| net | mode | batch | ours | PyTorch | ours/PyTorch (paired median) | per round |")
    print("|---|---|---:|---:|---:|---:|---|")
    for cell in ours[0]:
        if not all(cell in o and cell in t for o, t in zip(ours, theirs)):
            continue
        mine = [o[cell]["positions_per_s"] for o in ours]
        ref = [t[cell]["positions_per_s"] for t in theirs]
        ratios = [m / r for m, r in zip(mine, ref)]
        net, mode, batch = cell
        print(f"| {net} | {mode} | {batch} | {statistics.median(mine):,.0f} | "
              f"{statistics.median(ref):,.0f} | {statistics.median(ratios):.2f} | "
              f"{' '.join(f'{x:.2f}' for x in ratios)} |", flush=True)


if __name__ == "__main__":
    main()
