#!/usr/bin/env python3
"""The policy-value networks of checkers-zero in PyTorch, timed the way `checkers-zero bench nn`
times its own, so the two programs' JSON lines can be set side by side.

What it builds (src/nn/policy_value.rs and src/nn/layers/residual.rs are the originals):
  stem      3x3 conv (no bias) -> batch norm -> ReLU, from the input planes to C channels
  body      residual blocks relu(x + bn(conv(relu(bn(conv(x)))))), or for a plain network
            single relu(bn(conv(x))) layers (the stem counts as one of its layers)
  policy    1x1 conv to 4 planes (with bias); of its 4 x 8 x 8 outputs the 128 on dark
            squares (row + column odd), plane-major, are the logits
  value     1x1 conv to 1 plane (no bias) -> batch norm -> ReLU -> 64 -> ReLU -> 1 -> tanh
Every conv is stride 1 and keeps the 8x8 plane. The parameter count (batch-norm running
statistics excluded, as on the Rust side) is checked against a closed-form count, which is the
`params` value `checkers-zero bench nn` prints.

What it measures, like src/bench.rs:
  inference  evaluation mode, no autograd, a batch of random inputs; the policy softmax and
             the value are computed and brought to the host each call (an inference service
             must read them), at each --batches size
  train      training mode: forward, the AlphaZero loss (policy cross-entropy against random
             visit distributions + value MSE against results in [-1, 1]), backward, SGD with
             momentum 0.9, lr 0.01, weight decay 1e-4, the loss read back every step
Each measurement calls the function twice to warm up, then repeatedly, checking the clock
every 4 calls, until --seconds have passed. One JSON object per measurement on stdout:
  {"impl": "pytorch", "torch": ..., "device": "cpu", "threads": 2, "net": "az-tiny",
   "math": "fp32", "params": 80999, "mode": "inference", "batch": 16, "positions_per_s": ...}

Usage (flags as `checkers-zero bench nn`; pinned versions in bench/requirements.txt):
  python3 bench/pytorch_reference.py --net az-tiny,az-small --device cpu --threads 2
  python3 bench/pytorch_reference.py --params-only      # architectures and counts, no timing
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

# name: (input planes, channels, blocks, residual) -- the PRESETS of src/nn/policy_value.rs.
# For a residual net `blocks` counts residual blocks after the stem; for a plain net it counts
# conv layers including the stem.
PRESETS = {
    "az-tiny": (8, 32, 4, True),
    "az-small": (8, 64, 6, True),
    "az-large": (8, 128, 10, True),
    "plain-7x128": (14, 128, 7, False),
}
POLICY_PLANES = 4
POLICY_SIZE = 128  # 32 dark squares x 4 diagonal directions
VALUE_HIDDEN = 64


def conv_bn(c_in, c_out):
    """A 3x3 convolution without bias (the batch norm's shift takes its place) and its norm."""
    return nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out)


class BodyBlock(nn.Module):
    def __init__(self, channels, residual):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(channels, channels)
        self.residual = residual
        if residual:
            self.conv2, self.bn2 = conv_bn(channels, channels)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        if not self.residual:
            return y
        return F.relu(x + self.bn2(self.conv2(y)))


def dark_squares():
    """Flat indices into the policy conv's (4, 8, 8) output of the 128 dark-square entries."""
    return torch.tensor(
        [i for i in range(POLICY_PLANES * 64) if ((i // 8) % 8 + i % 8) % 2 == 1],
        dtype=torch.long,
    )


class PolicyValueNet(nn.Module):
    def __init__(self, input_planes, channels, blocks, residual):
        super().__init__()
        self.stem_conv, self.stem_bn = conv_bn(input_planes, channels)
        body = blocks if residual else blocks - 1
        self.body = nn.Sequential(*(BodyBlock(channels, residual) for _ in range(body)))
        self.policy = nn.Conv2d(channels, POLICY_PLANES, 1)
        self.value_conv = nn.Conv2d(channels, 1, 1, bias=False)
        self.value_bn = nn.BatchNorm2d(1)
        self.value_fc1 = nn.Linear(64, VALUE_HIDDEN)
        self.value_fc2 = nn.Linear(VALUE_HIDDEN, 1)
        self.register_buffer("dark", dark_squares(), persistent=False)

    def forward(self, x):
        h = self.body(F.relu(self.stem_bn(self.stem_conv(x))))
        logits = self.policy(h).flatten(1).index_select(1, self.dark)
        v = F.relu(self.value_bn(self.value_conv(h))).flatten(1)
        v = torch.tanh(self.value_fc2(F.relu(self.value_fc1(v)))).squeeze(1)
        return logits, v


def expected_params(input_planes, channels, blocks, residual):
    """The parameter count from the architecture alone (weights, biases, batch-norm scale and
    shift), independent of PyTorch: what `checkers-zero bench nn` reports as `params`."""
    c = channels
    conv_bn_params = lambda c_in: c_in * c * 9 + 2 * c
    stem = conv_bn_params(input_planes)
    body = (blocks * 2 if residual else blocks - 1) * conv_bn_params(c)
    policy = c * POLICY_PLANES + POLICY_PLANES
    value = c + 2 + (64 * VALUE_HIDDEN + VALUE_HIDDEN) + (VALUE_HIDDEN + 1)
    return stem + body + policy + value


def build(name, device):
    if name not in PRESETS:
        sys.exit(f"unknown network preset '{name}'; expected one of {', '.join(PRESETS)}")
    net = PolicyValueNet(*PRESETS[name]).to(device)
    params = sum(p.numel() for p in net.parameters())
    want = expected_params(*PRESETS[name])
    if params != want:
        sys.exit(f"{name}: the PyTorch model has {params} parameters, the architecture {want}")
    return net, params


def pick_device(name):
    """cpu, gpu (CUDA) or auto (CUDA if present, else cpu), as `bench nn --device` names them.
    Returns the torch device and the name written into the JSON lines."""
    if name == "auto":
        name = "gpu" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        return torch.device("cpu"), "cpu"
    if name in ("gpu", "cuda"):
        if not torch.cuda.is_available():
            sys.exit("--device gpu: this PyTorch build sees no CUDA device")
        return torch.device("cuda"), "gpu"
    sys.exit(f"--device {name}: expected cpu, gpu or auto")


def timed(fn, seconds, sync):
    """Two warm-up calls, then calls until `seconds` have passed, checked every 4 calls."""
    fn()
    fn()
    sync()
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        if calls % 4 == 0:
            sync()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return calls, elapsed


def positive_list(text, flag):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) <= 0:
        sys.exit(f"{flag}: expected positive whole numbers separated by commas, e.g. 1,16,64")
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--net", "--nets", dest="net", default="az-tiny,az-small,plain-7x128",
                    help="presets, comma-separated: " + ", ".join(PRESETS))
    ap.add_argument("--device", default="cpu", help="cpu, gpu (CUDA) or auto")
    ap.add_argument("--threads", type=int, default=2, help="CPU threads")
    ap.add_argument("--batches", default="1,16,64,256", help="inference batch sizes")
    ap.add_argument("--train-batch", default="256",
                    help="training batch sizes, comma-separated (0: inference only)")
    ap.add_argument("--math", choices=["default", "fp32", "amp"], default="default",
                    help="CUDA float32 arithmetic: PyTorch's defaults (TF32 in convolutions), "
                         "strict FP32 (TF32 off; run with NVIDIA_TF32_OVERRIDE=0 as well), or "
                         "automatic mixed precision (f16 autocast, training under a GradScaler: "
                         "beside `bench nn --precision mixed`)")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    ap.add_argument("--params-only", action="store_true",
                    help="print each network's parameter count and stop")
    a = ap.parse_args()
    if a.threads < 1:
        sys.exit("--threads must be at least 1")
    batches = positive_list(a.batches, "--batches")
    train_batches = [] if a.train_batch == "0" else positive_list(a.train_batch, "--train-batch")
    if a.math == "fp32":
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    device, device_name = pick_device(a.device)
    # What float32 arithmetic the GPU did: TF32 where PyTorch allows it, unless the driver's
    # override forbids it everywhere.
    tf32 = device.type == "cuda" and os.environ.get("NVIDIA_TF32_OVERRIDE") != "0" and (
        torch.backends.cudnn.allow_tf32 or torch.backends.cuda.matmul.allow_tf32)
    math = "amp" if a.math == "amp" else "tf32" if tf32 else "fp32"
    if a.math == "amp" and device.type != "cuda":
        sys.exit("--math amp: automatic mixed precision is measured on CUDA only (--device gpu)")
    # Autocast to f16 under amp; otherwise a context that does nothing.
    autocast = lambda: torch.autocast("cuda", dtype=torch.float16, enabled=a.math == "amp")
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    for name in [n.strip() for n in a.net.split(",")]:
        net, params = build(name, device)
        planes = PRESETS[name][0]

        def emit(mode, batch, per_s):
            print(json.dumps({"impl": "pytorch", "torch": torch.__version__,
                              "device": device_name, "threads": a.threads, "net": name,
                              "math": math, "params": params, "mode": mode, "batch": batch,
                              "positions_per_s": round(per_s, 1)}), flush=True)

        if a.params_only:
            print(json.dumps({"impl": "pytorch", "torch": torch.__version__, "net": name,
                              "params": params}), flush=True)
            continue

        net.eval()
        for batch in batches:
            x = torch.randn(batch, planes, 8, 8, device=device)

            def infer():
                with torch.no_grad(), autocast():
                    logits, value = net(x)
                    policy = torch.softmax(logits, 1)
                    policy.cpu()
                    value.cpu()

            calls, elapsed = timed(infer, a.seconds, sync)
            emit("inference", batch, calls * batch / elapsed)

        net.train()
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
        scaler = torch.amp.GradScaler("cuda", enabled=a.math == "amp")
        for train_batch in train_batches:
            x = torch.randn(train_batch, planes, 8, 8, device=device)
            pi = torch.softmax(torch.randn(train_batch, POLICY_SIZE, device=device), 1)
            z = torch.rand(train_batch, device=device) * 2 - 1

            def train_step():
                with autocast():
                    logits, value = net(x)
                    loss = -(pi * F.log_softmax(logits.float(), 1)).sum(1).mean() + \
                        F.mse_loss(value.float(), z)
                opt.zero_grad(set_to_none=True)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
                loss.item()

            calls, elapsed = timed(train_step, a.seconds, sync)
            emit("train", train_batch, calls * train_batch / elapsed)


if __name__ == "__main__":
    main()
