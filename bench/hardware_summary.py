#!/usr/bin/env python3
"""summary.md of a GPU hardware check (bench/gpu-hardware.sh): the card, each step's outcome,
ours beside PyTorch CUDA (strict FP32 and TF32), the switches' alternating runs, the
profiler's heaviest kernels, self-play with the GPU's utilisation, training and the tests.

    python3 bench/hardware_summary.py OUT_FOLDER STEPS_FILE > OUT_FOLDER/summary.md
"""

import json
import os
import statistics
import sys


def lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


def records(path):
    out = []
    for line in lines(path):
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def fmt(x):
    return "-" if x is None else f"{x:,.0f}"


def ratio(a, b):
    return "-" if not a or not b else f"{a / b:.2f}"


def header(out, steps):
    print("# GPU hardware check\n")
    for line in lines(os.path.join(out, "check.log"))[:6]:
        if line.startswith(("checkers-zero GPU", "commit:", "host:", "nvidia-smi:")):
            print(f"- {line}")
    for a in records(os.path.join(out, "adapter.jsonl"))[:1]:
        print(f"- adapter: {a['name']} ({a['backend']}, {a['device_type']}), driver "
              f"{a['driver']} {a['driver_info']}, timestamps: {a['timestamps']}")
    print("\n| step | outcome |\n|---|---|")
    for line in lines(steps):
        name, _, outcome = line.rpartition(": exit ")
        print(f"| {name} | exit {outcome} |")


def network_table(nn):
    ours = {(r["net"], r["mode"], r["batch"]): r for r in nn
            if r.get("impl") == "checkers-zero" and "variant" not in r}
    torch = {}
    for r in nn:
        if r.get("impl") == "pytorch":
            torch[(r.get("math"), r["net"], r["mode"], r["batch"])] = r["positions_per_s"]
    print("\n## Positions per second: ours (wgpu) beside PyTorch CUDA\n")
    print("| net | mode | batch | ours | PyTorch FP32 | ours/FP32 | PyTorch TF32 | ours/TF32 "
          "| dispatches | submits | waits |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key, r in ours.items():
        mine = r["positions_per_s"]
        fp32, tf32 = torch.get(("fp32",) + key), torch.get(("tf32",) + key)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {fmt(mine)} | {fmt(fp32)} | "
              f"{ratio(mine, fp32)} | {fmt(tf32)} | {ratio(mine, tf32)} | "
              f"{r.get('dispatches', '-')} | {r.get('submits', '-')} | {r.get('waits', '-')} |")


def variants_table(nn):
    """The alternating runs of az-small as shipped and with each switch (gpu-hardware.sh)."""
    runs, winograd = {}, {}
    for r in nn:
        if "variant" in r:
            runs.setdefault((r["mode"], r["batch"], r["variant"]), []).append(
                r["positions_per_s"])
            if r["variant"] == "shipped" and "winograd_layers" in r:
                winograd[(r["mode"], r["batch"])] = r["winograd_layers"]
    if not runs:
        return
    print("\n## Switches (az-small, positions/s, medians, alternating)\n")
    print("`checks`: wgpu's runtime checks in the product kernels; `baseline`: the forward never "
          "split over k, batch norm's statistics read from its input "
          "(CHECKERS_ZERO_GPU_BASELINE); `winograd`: the towers' 3x3 convolutions as "
          "Winograd's (CHECKERS_ZERO_GPU_WINOGRAD=1); `implicit`: every 3x3 convolution an "
          "implicit GEMM (CHECKERS_ZERO_GPU_WINOGRAD=0); `mixed`: the products on tensor cores "
          "(--precision mixed; none where the adapter offers no cooperative matrices). A "
          "hardware GPU ships neither Winograd nor the implicit GEMM alone: its inference times "
          "the two for each layer and batch size and runs the faster, and `Winograd layers` "
          "says how many 3x3 layers of a shipped call ran as Winograd's.\n")
    variants = ("checks", "baseline", "winograd", "implicit", "mixed")
    print("| mode | batch | Winograd layers | shipped | "
          + " | ".join(f"{v} | shipped/{v}" for v in variants) + " |\n"
          + "|---|---:|---:|---:|" + "---:|---:|" * len(variants))
    for mode, batch in sorted({(m, b) for m, b, _ in runs}):
        # A switch that did not run (mixed without cooperative matrices) shows as "-".
        med = {v: statistics.median(runs[(mode, batch, v)]) if (mode, batch, v) in runs else None
               for v in ("shipped",) + variants}
        cells = " | ".join(f"{fmt(med[v])} | {ratio(med['shipped'], med[v])}" for v in variants)
        layers = winograd.get((mode, batch), "-")
        print(f"| {mode} | {batch} | {layers} | {fmt(med['shipped'])} | {cells} |")


def mixed_table(nn):
    """Our mixed precision (the alternating runs' medians) beside PyTorch's AMP and TF32."""
    mixed = {}
    for r in nn:
        if r.get("variant") == "mixed":
            mixed.setdefault((r["mode"], r["batch"]), []).append(r["positions_per_s"])
    torch = {(r.get("math"), r["mode"], r["batch"]): r["positions_per_s"] for r in nn
             if r.get("impl") == "pytorch" and r["net"] == "az-small"}
    if not mixed:
        return
    print("\n## Mixed precision: az-small, ours beside PyTorch (positions/s)\n")
    print("| mode | batch | ours mixed | PyTorch AMP | ours/AMP | PyTorch TF32 | ours/TF32 |\n"
          "|---|---:|---:|---:|---:|---:|---:|")
    for (mode, batch), values in sorted(mixed.items()):
        mine = statistics.median(values)
        amp, tf32 = torch.get(("amp", mode, batch)), torch.get(("tf32", mode, batch))
        print(f"| {mode} | {batch} | {fmt(mine)} | {fmt(amp)} | {ratio(mine, amp)} | "
              f"{fmt(tf32)} | {ratio(mine, tf32)} |")


def profile_table(out):
    prof = records(os.path.join(out, "profile.txt"))
    for variant, label in ((None, "as shipped"), ("winograd", "Winograd forced")):
        for mode in ("inference", "train"):
            rows = [r for r in prof if r.get("profile") == mode and r.get("variant") == variant]
            if not rows:
                continue
            total = sum(r["ms_per_call"] for r in rows)
            print(f"\n## Profile ({label}): az-small {mode} at batch {rows[0]['batch']}, "
                  f"{total:.3f} ms of kernels per call\n")
            print("| share | ms/call | dispatches | GFLOP/s | GB/s | kernel |\n"
                  "|---:|---:|---:|---:|---:|---|")
            for r in sorted(rows, key=lambda r: -r["share"])[:12]:
                print(f"| {100 * r['share']:.1f}% | {r['ms_per_call']:.3f} | "
                      f"{r['dispatches_per_call']:.1f} | {r['gflop_s']:.0f} | {r['gb_s']:.0f} | "
                      f"{r['kernel']} |")


def utilisation(out):
    """Per section of gpu-util.csv: samples, mean utilisation, share of samples above 0."""
    sections, name = {}, None
    for line in lines(os.path.join(out, "gpu-util.csv")):
        if line.startswith("# "):
            name = line[2:]
            sections.setdefault(name, [])
        elif name and line.count(",") >= 5:
            try:
                sections[name].append(float(line.split(",")[1]))
            except ValueError:
                pass
    return {k: v for k, v in sections.items() if v}


def selfplay(out):
    runs = [r for r in records(os.path.join(out, "selfplay.jsonl")) if r.get("stat") != "median"]
    util = utilisation(out)
    print("\n## Self-play and training on the GPU\n")
    for r in runs:
        print(f"- self-play ({r['net']}, {r['workers']} workers, {r['searches']} simulations): "
              f"{r['games']} games in {r['seconds']:.1f} s, {r['simulations_per_s']:,.0f} "
              f"simulations/s, {r['evaluations_per_s']:,.0f} evaluations/s, mean batch "
              f"{r['mean_batch']:.1f}")
    for name, samples in util.items():
        busy = sum(1 for s in samples if s > 0) / len(samples)
        print(f"- GPU utilisation during {name} (nvidia-smi, every 200 ms): mean "
              f"{statistics.mean(samples):.0f}%, median {statistics.median(samples):.0f}%, "
              f"{100 * busy:.0f}% of {len(samples)} samples busy")
    metrics = records(os.path.join(out, "train.log"))
    iters = [m for m in metrics if "iteration" in m]
    print(f"- train: {len(iters)} iterations finished")
    for m in iters:
        keys = ("iteration", "games", "mean_batch", "simulations_per_s", "selfplay_s",
                "train_s", "train_steps", "policy_loss", "value_loss", "gating_score")
        print("  - " + ", ".join(f"{k} {m[k]}" for k in keys if k in m))


def tests(out):
    results = [l for l in lines(os.path.join(out, "tests.log")) if l.startswith("test result")]
    failed = [l for l in lines(os.path.join(out, "tests.log")) if l.endswith("FAILED")]
    print("\n## GPU parity and budget tests on this driver\n")
    print("- " + (results[-1] if results else "no result (see tests.log)"))
    for f in failed:
        print(f"  - {f}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: hardware_summary.py OUT_FOLDER STEPS_FILE")
    out, steps = sys.argv[1], sys.argv[2]
    nn = records(os.path.join(out, "nn.jsonl"))
    header(out, steps)
    network_table(nn)
    variants_table(nn)
    mixed_table(nn)
    profile_table(out)
    selfplay(out)
    tests(out)


if __name__ == "__main__":
    main()
