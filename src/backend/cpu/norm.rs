//! Training-mode batch norm in few passes: per-channel sums over the channel's planes (read in
//! memory order, a chunk of images a task), then one pass that writes every plane with its
//! channel's coefficients.
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

/// Images whose planes one task of [`channel_sums`] adds up: a fixed number, so that the sums do
/// not depend on the thread count.
const SUM_CHUNK: usize = 16;

/// For every channel, the sums of `f(channel, cells of a plane)` over its planes. The planes are
/// read in memory order, a chunk of images a task, each task keeping sums for every channel;
/// the chunks' sums are then added in order. (One task a channel read each channel's planes a
/// whole image apart, 256 bytes in every 16 KB at batch 256 and 64 channels: the reductions
/// ran at a few GB/s and were a tenth of a training step.)
fn channel_sums<const K: usize>(
    d: NormDims,
    f: impl Fn(usize, std::ops::Range<usize>) -> [f32; K] + Sync,
) -> Vec<[f32; K]> {
    let chunks = d.n.div_ceil(SUM_CHUNK);
    let per_task = (PAR_MIN / (SUM_CHUNK * d.c * d.plane).max(1)).max(1);
    let partials: Vec<Vec<[f32; K]>> = (0..chunks)
        .into_par_iter()
        .with_min_len(per_task)
        .map(|chunk| {
            let mut acc = vec![[0.0f32; K]; d.c];
            for i in chunk * SUM_CHUNK..((chunk + 1) * SUM_CHUNK).min(d.n) {
                for (ch, a) in acc.iter_mut().enumerate() {
                    let s = f(ch, plane(d, i, ch));
                    a.iter_mut().zip(s).for_each(|(a, s)| *a += s);
                }
            }
            acc
        })
        .collect();
    let mut total = vec![[0.0f32; K]; d.c];
    for p in partials {
        for (t, s) in total.iter_mut().zip(p) {
            t.iter_mut().zip(s).for_each(|(t, s)| *t += s);
        }
    }
    total
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
    let sums = channel_sums(d, |_, cells| {
        [lane_sum(&x[cells.clone()], &x[cells], |v, _| v)]
    });
    let means: Vec<f32> = sums.iter().map(|[s]| s / m).collect();
    let squares = channel_sums(d, |ch, cells| {
        let mean = means[ch];
        let p = &x[cells];
        [lane_sum(p, p, |v, _| (v - mean) * (v - mean))]
    });
    let stats: Vec<(f32, f32)> = means
        .iter()
        .zip(&squares)
        .map(|(&mean, [sq])| (mean, sq / m))
        .collect();
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
            assert_eq!(g.len(), y.len(), "batch norm gradient: ReLU output length");
            let fill = |out: &mut [MaybeUninit<f32>]| {
                (out.par_iter_mut().zip(g).zip(y)).for_each(|((o, &gv), &yv)| {
                    o.write(if yv > 0.0 { gv } else { 0.0 });
                })
            };
            // SAFETY: every cell is written (g and y are as long as the output).
            masked = unsafe { written(g.len(), fill) };
            &masked
        }
        None => g,
    };
    let m = d.count() as f32;
    let inv_std: Vec<f32> = var.iter().map(|&v| 1.0 / (v + eps).sqrt()).collect();
    // Per channel: dbeta = sum g, dgamma = sum g x^ (x^ from x, not kept from the forward).
    let sums: Vec<(f32, f32)> = channel_sums(d, |ch, cells| {
        let (gp, xp) = (&g[cells.clone()], &x[cells]);
        let mu = mean[ch];
        [
            lane_sum(gp, gp, |v, _| v),
            lane_sum(gp, xp, |gv, xv| gv * (xv - mu)),
        ]
    })
    .into_iter()
    .zip(&inv_std)
    .map(|([dbeta, g_centred], is)| (dbeta, g_centred * is))
    .collect();
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
