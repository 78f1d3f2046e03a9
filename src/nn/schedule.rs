//! Learning-rate schedules: each a pure function of the (0-based) optimizer step.

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum LrSchedule {
    Constant {
        lr: f32,
    },
    /// `lr * gamma^(step / every)`: multiplied by `gamma` every `every` steps.
    Step {
        lr: f32,
        gamma: f32,
        every: u64,
    },
    /// A linear warm-up over `warmup` steps (lr (s + 1) / warmup at step s), then a half cosine
    /// from `lr` down to `floor` over the next `steps` steps, then `floor`.
    Cosine {
        lr: f32,
        floor: f32,
        steps: u64,
        warmup: u64,
    },
    /// Smith's cyclical learning rate, triangular policy (as in the Keras CLR callback that
    /// Checkers-MCTS uses): from `base_lr` up to `max_lr` over `step_size` steps and back down,
    /// repeating.
    Triangular {
        base_lr: f32,
        max_lr: f32,
        step_size: u64,
    },
}

impl LrSchedule {
    /// The learning rate of step `step`.
    pub fn at(&self, step: u64) -> f32 {
        match *self {
            LrSchedule::Constant { lr } => lr,
            LrSchedule::Step { lr, gamma, every } => {
                let k = step / every.max(1);
                (lr as f64 * (gamma as f64).powi(k.min(i32::MAX as u64) as i32)) as f32
            }
            LrSchedule::Cosine {
                lr,
                floor,
                steps,
                warmup,
            } => {
                if step < warmup {
                    return (lr as f64 * (step + 1) as f64 / warmup as f64) as f32;
                }
                let s = (step - warmup).min(steps) as f64;
                let frac = if steps == 0 { 1.0 } else { s / steps as f64 };
                (floor as f64 + (lr - floor) as f64 * 0.5 * (1.0 + (PI * frac).cos())) as f32
            }
            LrSchedule::Triangular {
                base_lr,
                max_lr,
                step_size,
            } => {
                // cycle = floor(1 + t / 2s); x = |t/s - 2 cycle + 1|; lr = base + (max - base) max(0, 1 - x)
                let (t, s) = (step as f64, step_size.max(1) as f64);
                let cycle = (1.0 + t / (2.0 * s)).floor();
                let x = (t / s - 2.0 * cycle + 1.0).abs();
                (base_lr as f64 + (max_lr - base_lr) as f64 * (1.0 - x).max(0.0)) as f32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LrSchedule;

    fn close(a: f32, b: f32) -> bool {
        // Schedules are computed in f64 and rounded once: a few f32 ulps at most.
        (a - b).abs() <= 1e-6 * b.abs().max(1e-3)
    }

    #[test]
    fn constant() {
        let s = LrSchedule::Constant { lr: 0.02 };
        assert_eq!(s.at(0), 0.02);
        assert_eq!(s.at(1_000_000), 0.02);
    }

    #[test]
    fn step() {
        let s = LrSchedule::Step {
            lr: 0.1,
            gamma: 0.5,
            every: 100,
        };
        for (step, want) in [
            (0, 0.1),
            (99, 0.1),
            (100, 0.05),
            (250, 0.025),
            (300, 0.0125),
        ] {
            assert!(
                close(s.at(step), want),
                "step {step}: {} vs {want}",
                s.at(step)
            );
        }
    }

    #[test]
    fn cosine_with_warmup() {
        let s = LrSchedule::Cosine {
            lr: 0.1,
            floor: 0.01,
            steps: 100,
            warmup: 10,
        };
        // Warm-up: 0.1 * (s + 1) / 10.
        for (step, want) in [(0, 0.01), (4, 0.05), (9, 0.1)] {
            assert!(
                close(s.at(step), want),
                "step {step}: {} vs {want}",
                s.at(step)
            );
        }
        // Decay: 0.01 + 0.09 (1 + cos(pi k / 100)) / 2 at k = step - 10.
        // k = 0: 0.1; k = 25: 0.01 + 0.045 (1 + 0.70710678) = 0.086819805; k = 50: 0.055;
        // k = 100 and beyond: the floor.
        for (step, want) in [
            (10, 0.1),
            (35, 0.086819805),
            (60, 0.055),
            (110, 0.01),
            (10_000, 0.01),
        ] {
            assert!(
                close(s.at(step), want),
                "step {step}: {} vs {want}",
                s.at(step)
            );
        }
    }

    #[test]
    fn cosine_without_warmup() {
        let s = LrSchedule::Cosine {
            lr: 1.0,
            floor: 0.0,
            steps: 4,
            warmup: 0,
        };
        // (1 + cos(pi k / 4)) / 2: 1, 0.85355339, 0.5, 0.14644661, 0
        for (step, want) in [(0, 1.0), (1, 0.853_553_4), (2, 0.5), (3, 0.146_446_6)] {
            assert!(
                close(s.at(step), want),
                "step {step}: {} vs {want}",
                s.at(step)
            );
        }
        assert!(s.at(4).abs() < 1e-7 && s.at(5).abs() < 1e-7);
    }

    #[test]
    fn triangular() {
        let s = LrSchedule::Triangular {
            base_lr: 0.001,
            max_lr: 0.006,
            step_size: 2000,
        };
        // Up 0.0000025 a step for 2000 steps, down for 2000, repeat.
        let points = [
            (0, 0.001),
            (500, 0.00225),
            (1000, 0.0035),
            (2000, 0.006),
            (3000, 0.0035),
            (4000, 0.001),
            (5000, 0.0035),
            (6000, 0.006),
        ];
        for (step, want) in points {
            assert!(
                close(s.at(step), want),
                "step {step}: {} vs {want}",
                s.at(step)
            );
        }
    }
}
