//! Optimizer updates, elementwise over a parameter.

use super::CpuBuf;
use crate::backend::OptimStep;

pub fn step(step: OptimStep, w: &CpuBuf, g: &CpuBuf, s1: &CpuBuf, s2_buf: &CpuBuf) -> [CpuBuf; 3] {
    let (w, g, s1, s2) = (w.as_slice(), g.as_slice(), s1.as_slice(), s2_buf.as_slice());
    let n = w.len();
    let (mut nw, mut n1) = (Vec::with_capacity(n), Vec::with_capacity(n));
    match step {
        OptimStep::Sgd {
            lr,
            momentum,
            weight_decay,
        } => {
            for i in 0..n {
                let v = momentum * s1[i] + g[i] + weight_decay * w[i];
                n1.push(v);
                nw.push(w[i] - lr * v);
            }
            // SGD has no second state: hand the buffer back shared, not copied.
            [CpuBuf::new(nw), CpuBuf::new(n1), s2_buf.clone()]
        }
        OptimStep::Adam {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay,
            t,
        } => {
            let mut n2 = Vec::with_capacity(n);
            let c1 = 1.0 - beta1.powi(t as i32);
            let c2 = 1.0 - beta2.powi(t as i32);
            for i in 0..n {
                let gi = g[i] + weight_decay * w[i];
                let m = beta1 * s1[i] + (1.0 - beta1) * gi;
                let v = beta2 * s2[i] + (1.0 - beta2) * gi * gi;
                n1.push(m);
                n2.push(v);
                nw.push(w[i] - lr * (m / c1) / ((v / c2).sqrt() + eps));
            }
            [CpuBuf::new(nw), CpuBuf::new(n1), CpuBuf::new(n2)]
        }
    }
}
