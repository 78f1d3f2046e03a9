#!/usr/bin/env python3
"""The rounding of `precision=mixed` (shaders/gemm_tensor.wgsl), emulated with numpy: each
product's operands rounded to f16, its sums in f32, for the direct 3x3 convolution (im2col)
and for Winograd F(4x4, 3x3) (the transformed filters and inputs rounded, the transforms in
f32), against the exact convolution in f64. Prints, per body layer of az-tiny, az-small and
az-large at 32 boards, the largest error over the sum of |w| |x| of its output (in units of
f16's u = 2^-11, the ratio tests/nn/gpu_mixed.rs bounds) and the norm-wise error.

    python3 bench/mixed_rounding.py
"""

import numpy as np

U16 = 2.0 ** -11
G = np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
              [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]], np.float32)
BT = np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
               [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], np.float32)
AT = np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0],
               [0, 1, -1, 8, -8, 1]], np.float32)


def f16(a):
    return a.astype(np.float16).astype(np.float32)


def im2col(x):
    """n, c, 8, 8 boards as (n * 64) x (c * 9) rows of 3x3 windows, padding 1."""
    n, c = x.shape[:2]
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([p[:, :, i:i + 8, j:j + 8] for i in range(3) for j in range(3)], axis=2)
    return cols.transpose(0, 3, 4, 1, 2).reshape(n * 64, c * 9)


def direct(x, w, rounded):
    n, c_out = x.shape[0], w.shape[0]
    a, b = w.reshape(c_out, -1), im2col(x).T
    if rounded:
        a, b = f16(a), f16(b)
    return (a @ b).reshape(c_out, n, 8, 8).transpose(1, 0, 2, 3)


def winograd(x, w, rounded):
    n, c_out = x.shape[0], w.shape[0]
    u = np.einsum("ij,ocjk,lk->ocil", G, w, G)
    p = np.pad(x, ((0, 0), (0, 0), (1, 3), (1, 3)))
    y = np.zeros((n, c_out, 8, 8), np.float32)
    for ty in range(2):
        for tx in range(2):
            d = p[:, :, 4 * ty:4 * ty + 6, 4 * tx:4 * tx + 6]
            v = np.einsum("ij,ncjk,lk->ncil", BT, d, BT)
            if rounded:
                u_, v = f16(u), f16(v)
            else:
                u_ = u
            m = np.einsum("ocij,ncij->noij", u_, v)
            y[:, :, 4 * ty:4 * ty + 4, 4 * tx:4 * tx + 4] = np.einsum("ij,nojk,lk->noil", AT, m, AT)
    return y


def main():
    rng = np.random.default_rng(1)
    print("| layer | product | largest error / sum |w||x| | in u (2^-11) | norm-wise error |")
    print("|---|---|---:|---:|---:|")
    for name, c in (("az-tiny body", 32), ("az-small body", 64), ("az-large body", 128)):
        x = rng.standard_normal((32, c, 8, 8)).astype(np.float32)
        w = rng.standard_normal((c, c, 3, 3)).astype(np.float32)
        exact = direct(x.astype(np.float64), w.astype(np.float64), False)
        scale = direct(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), False)
        for product, y in (("direct, f16 operands", direct(x, w, True)),
                           ("Winograd, f16 operands", winograd(x, w, True)),
                           ("Winograd, f32", winograd(x, w, False))):
            ratio = (np.abs(y - exact) / scale).max()
            norm = np.linalg.norm(y - exact) / np.linalg.norm(exact)
            print(f"| {name} | {product} | {ratio:.2e} | {ratio / U16:.2f} | {norm:.2e} |")


if __name__ == "__main__":
    main()
