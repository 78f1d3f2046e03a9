//! The training losses with their gradients, each in one pass (`Backend::softmax_xent` and
//! `Backend::squared_error`).

use super::{CpuBuf, PAR_MIN};
use rayon::prelude::*;

/// Per row of (rows, cols) logits `z` and soft targets `t`: the loss
/// -scale sum_j t_j log softmax(z)_j and the gradient scale (softmax(z) sum_j t_j - t).
pub fn softmax_xent(z: &[f32], t: &[f32], rows: usize, cols: usize, scale: f32) -> [CpuBuf; 2] {
    let mut loss = vec![0.0f32; rows];
    let mut grad = vec![0.0f32; rows * cols];
    if z.len() >= PAR_MIN {
        (z.par_chunks(cols).zip(t.par_chunks(cols)))
            .zip(loss.par_iter_mut().zip(grad.par_chunks_mut(cols)))
            .for_each(|((z, t), (loss, grad))| *loss = xent_row(z, t, scale, grad));
    } else {
        (z.chunks(cols).zip(t.chunks(cols)))
            .zip(loss.iter_mut().zip(grad.chunks_mut(cols)))
            .for_each(|((z, t), (loss, grad))| *loss = xent_row(z, t, scale, grad));
    }
    [CpuBuf::new(loss), CpuBuf::new(grad)]
}

/// One row of [`softmax_xent`]: writes the gradient, returns the loss. The row maximum is
/// subtracted before exp.
fn xent_row(z: &[f32], t: &[f32], scale: f32, grad: &mut [f32]) -> f32 {
    let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0f32;
    for (g, &v) in grad.iter_mut().zip(z) {
        *g = (v - max).exp();
        sum += *g;
    }
    let log_sum = sum.ln();
    let (mut mass, mut cross) = (0.0f32, 0.0f32);
    for (&tj, &zj) in t.iter().zip(z) {
        mass += tj;
        cross += tj * (zj - max - log_sum);
    }
    let k = scale * mass / sum;
    for (g, &tj) in grad.iter_mut().zip(t) {
        *g = k * *g - scale * tj;
    }
    -scale * cross
}

/// Elementwise: scale (p - t)^2 and its gradient 2 scale (p - t).
pub fn squared_error(p: &[f32], t: &[f32], scale: f32) -> [CpuBuf; 2] {
    let (loss, grad) = p
        .iter()
        .zip(t)
        .map(|(&p, &t)| {
            let d = p - t;
            (scale * d * d, 2.0 * scale * d)
        })
        .unzip();
    [CpuBuf::new(loss), CpuBuf::new(grad)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both paths (one thread; rows split across tasks) against a plain loop in f64.
    #[test]
    fn softmax_xent_matches_a_plain_loop() {
        for (rows, cols) in [(5, 7), (300, 128)] {
            let z: Vec<f32> = (0..rows * cols)
                .map(|i| ((i * 7919) % 97) as f32 / 9.0 - 5.0)
                .collect();
            let t: Vec<f32> = (0..rows * cols)
                .map(|i| ((i * 104_729) % 13) as f32 / 40.0)
                .collect();
            let [loss, grad] = softmax_xent(&z, &t, rows, cols, 0.5);
            for r in 0..rows {
                let (z, t) = (&z[r * cols..][..cols], &t[r * cols..][..cols]);
                let max = z.iter().fold(f64::MIN, |m, &v| m.max(v as f64));
                let sum: f64 = z.iter().map(|&v| (v as f64 - max).exp()).sum();
                let mass: f64 = t.iter().map(|&v| v as f64).sum();
                let want: f64 = -0.5
                    * z.iter()
                        .zip(t)
                        .map(|(&z, &t)| t as f64 * (z as f64 - max - sum.ln()))
                        .sum::<f64>();
                assert!((loss.as_slice()[r] as f64 - want).abs() < 1e-4 * want.abs().max(1.0));
                for j in 0..cols {
                    let p = (z[j] as f64 - max).exp() / sum;
                    let want = 0.5 * (p * mass - t[j] as f64);
                    let got = grad.as_slice()[r * cols + j] as f64;
                    assert!((got - want).abs() < 1e-5, "({r}, {j}): {got} {want}");
                }
            }
        }
    }

    #[test]
    fn squared_error_and_its_gradient() {
        let [loss, grad] = squared_error(&[1.0, -2.0, 0.5], &[0.0, 1.0, 0.5], 0.25);
        assert_eq!(loss.as_slice(), [0.25, 2.25, 0.0]);
        assert_eq!(grad.as_slice(), [0.5, -1.5, 0.0]);
    }
}
