//! Training-mode batch norm in few passes: per-channel sums over the channel's planes (one
//! task per channel), then one pass that writes every plane with its channel's coefficients.
//! Composed from primitive kernels the same op takes about eight passes over the data and as
//! many freshly zeroed buffers, which made batch norm a fifth of a training step.

use super::reduce::lane_sum;
use super::{CpuBuf, PAR_MIN, written};
use crate::backend::NormDims;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// The cells of image `i`'s plane of channel `ch`.
fn plane(d: NormDims, i: usize, ch: usize) -> std::ops::Range<usize> {
    (i * d.c + ch) * d.plane..(i * d.c + ch + 1) * d.plane
}

/// `f(channel)` for every channel, in parallel when the data is large.
fn per_channel<T: Send>(d: NormDims, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let per_task = (PAR_MIN / d.count().max(1)).max(1);
    (0..d.c)
        .into_par_iter()
        .with_min_len(per_task)
        .map(&f)
        .collect()
}

/// A new (n, c, plane) array whose every plane `p` is `f(channel of p, p, cells)` written
/// into it: `f` writes every cell.
fn map_planes(d: NormDims, f: impl Fn(usize, usize, &mut [MaybeUninit<f32>]) + Sync) -> CpuBuf {
    let per_task = (PAR_MIN / d.plane.max(1)).max(1);
    let fill = |out: &mut [MaybeUninit<f32>]| {
        out.par_chunks_mut(d.plane.max(1))
            .with_min_len(per_task)
            .enumerate()
            .for_each(|(p, dst)| f(p % d.c, p, dst));
    };
    // SAFETY: every plane goes to `f`, which writes all its cells (both callers below).
    CpuBuf::new(unsafe { written(d.n * d.c * d.plane, fill) })
}

/// [y, mean, var], y through a ReLU when `relu`.
pub fn train(
    x: &[f32],
    gamma: &[f32],
    beta: &[f32],
    relu: bool,
    d: NormDims,
    eps: f32,
) -> [CpuBuf; 3] {
    let m = d.count() as f32;
    // Two passes (mean, then squared deviations from it), as the definition: one pass of sums
    // and sums of squares loses the variance to cancellation when the mean is large.
    let stats = per_channel(d, |ch| {
        let planes = || (0..d.n).map(|i| &x[plane(d, i, ch)]);
        let sum: f32 = planes().map(|p| lane_sum(p, p, |v, _| v)).sum();
        let mean = sum / m;
        let squares: f32 = planes()
            .map(|p| lane_sum(p, p, |v, _| (v - mean) * (v - mean)))
            .sum();
        (mean, squares / m)
    });
    let scale: Vec<f32> = (stats.iter().zip(gamma))
        .map(|(&(_, var), &g)| g / (var + eps).sqrt())
        .collect();
    let y = map_planes(d, |ch, p, dst| {
        let (mean, s, b) = (stats[ch].0, scale[ch], beta[ch]);
        let src = &x[p * d.plane..(p + 1) * d.plane];
        for (o, &v) in dst.iter_mut().zip(src) {
            let y = (v - mean) * s + b;
            o.write(if relu { y.max(0.0) } else { y });
        }
    });
    let (mean, var) = stats.into_iter().unzip();
    [y, CpuBuf::new(mean), CpuBuf::new(var)]
}

/// [dx, dgamma, dbeta]; with `relu_out` (the forward's output through its ReLU) g passes only
/// where that is positive.
#[allow(clippy::too_many_arguments)]
pub fn train_grad(
    x: &[f32],
    g: &[f32],
    relu_out: Option<&[f32]>,
    mean: &[f32],
    var: &[f32],
    gamma: &[f32],
    d: NormDims,
    eps: f32,
) -> [CpuBuf; 3] {
    let masked: Vec<f32>;
    let g = match relu_out {
        Some(y) => {
            masked = (g.par_iter().zip(y))
                .map(|(&gv, &yv)| if yv > 0.0 { gv } else { 0.0 })
                .collect();
            &masked
        }
        None => g,
    };
    let m = d.count() as f32;
    let inv_std: Vec<f32> = var.iter().map(|&v| 1.0 / (v + eps).sqrt()).collect();
    // Per channel: dbeta = sum g, dgamma = sum g x^ (x^ from x, not kept from the forward).
    let sums = per_channel(d, |ch| {
        let mu = mean[ch];
        let (mut dbeta, mut g_centred) = (0.0f32, 0.0f32);
        for i in 0..d.n {
            let (gp, xp) = (&g[plane(d, i, ch)], &x[plane(d, i, ch)]);
            dbeta += lane_sum(gp, gp, |v, _| v);
            g_centred += lane_sum(gp, xp, |gv, xv| gv * (xv - mu));
        }
        (dbeta, g_centred * inv_std[ch])
    });
    let dx = map_planes(d, |ch, p, dst| {
        let (dbeta, dgamma) = sums[ch];
        let (mu, is, k) = (mean[ch], inv_std[ch], gamma[ch] * inv_std[ch]);
        let (mean_g, mean_g_xhat) = (dbeta / m, dgamma / m);
        let cells = p * d.plane..(p + 1) * d.plane;
        for ((o, &gv), &xv) in dst.iter_mut().zip(&g[cells.clone()]).zip(&x[cells]) {
            o.write(k * (gv - mean_g - (xv - mu) * is * mean_g_xhat));
        }
    });
    let (dgamma, dbeta): (Vec<f32>, Vec<f32>) = sums.into_iter().map(|(b, g)| (g, b)).unzip();
    [dx, CpuBuf::new(dgamma), CpuBuf::new(dbeta)]
}
