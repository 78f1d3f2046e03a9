//! Gradients against central finite differences, entry by entry, on every device present
//! (the CPU, and the GPU where one opens: lavapipe on CI, where a spread of each parameter's
//! entries is checked), each check written once.
//!
//! The forward runs in f32; the loss is accumulated in f64 on the host from the network's
//! outputs. ReLU kinks are what a difference quotient cannot see past: where a step carries a
//! ReLU input across zero, the quotient is off by up to half that unit's contribution. An entry
//! whose quotients at `STEP` and `STEP / 2` disagree has a kink within the step (a smooth
//! function gives the same value at both) and is left out; the tests bound how many are.
//! Networks with many ReLU units (a policy-value net has 256 per channel per layer at batch 4)
//! put a kink within any useful step of most body parameters, so the body's layers are checked
//! in a small network with few units, and the policy-value network where its loss is smooth:
//! the heads after the last ReLU, which carry the dark-square gather and the value plane. The
//! Othello tower network has no ReLU (tanh throughout) and is checked whole, against a squared
//! error of its values.

use super::common::on_every_device;
use super::rng;
use checkers_zero::net::ValueModel;
use checkers_zero::net::towers::{TowerArch, TowerNet};
use checkers_zero::nn::{
    Architecture, BatchNorm2d, Body, Conv2d, Ctx, Flatten, Linear, Module, Param, PolicyValueNet,
    Relu, ResidualBlock, Sequential, Sigmoid, Tanh, alphazero_loss, masked_mse,
};
use checkers_zero::tensor::{Device, Tensor, Var};
use rand::Rng;

/// Central-difference step. The f32 rounding of the loss (~1e-7 here) becomes ~1e-4 in the
/// quotient at worst; the truncation error (step^2 times third derivatives) stays far below.
const STEP: f32 = 1e-3;
/// Quotients at STEP and STEP / 2 further apart than KINK (1 + |quotient|) straddle a kink;
/// rounding alone keeps them within ~2e-4.
const KINK: f64 = 1e-3;
/// Norm-wise over a tensor: |analytic - numeric| <= RTOL |grad| + ATOL sqrt(entries). Correct
/// gradients land within ~2e-4 relative; the rounding of the quotients adds up to ~4e-5 per
/// tensor, which ATOL covers where the gradient is tiny (a conv bias before batch norm has
/// none at all).
const RTOL: f64 = 3e-3;
const ATOL: f64 = 1e-4;

/// The AlphaZero loss from a network's outputs (logits (n, classes), value (n)), in f64.
fn host_loss(logits: &[f32], value: &[f32], pi: &[f32], z: &[f32]) -> f64 {
    let n = value.len();
    let classes = logits.len() / n;
    let mut total = 0.0;
    for r in 0..n {
        let row = &logits[r * classes..(r + 1) * classes];
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x as f64));
        let log_sum = row
            .iter()
            .map(|&x| (x as f64 - max).exp())
            .sum::<f64>()
            .ln()
            + max;
        let ce: f64 = row
            .iter()
            .zip(&pi[r * classes..])
            .map(|(&x, &p)| -(p as f64) * (x as f64 - log_sum))
            .sum();
        let d = value[r] as f64 - z[r] as f64;
        total += (ce + d * d) / n as f64;
    }
    total
}

/// A fixed batch: inputs, visit distributions, results.
struct Problem {
    x: Tensor,
    pi: Vec<f32>,
    z: Vec<f32>,
}

impl Problem {
    /// A batch on `dev` (its values the same on every device).
    fn new(x_shape: &[usize], classes: usize, seed: u64, dev: &Device) -> Problem {
        let (cpu, mut r) = (Device::Cpu, rng(seed));
        let n = x_shape[0];
        let x = Tensor::randn(x_shape, 1.0, &mut r, &cpu).to_device(dev);
        let pi = Tensor::randn(&[n, classes], 1.0, &mut r, &cpu)
            .softmax(-1)
            .to_vec();
        let z = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
        Problem { x, pi, z }
    }
}

/// A network's loss on a fixed batch: computed in f64 on the host from the network's outputs
/// (for the difference quotients), and differentiated on the tape.
trait Objective<M: Module> {
    fn loss(&self, net: &M) -> f64;
    fn grads(&self, net: &M) -> Vec<Vec<f32>>;
}

/// The tape's gradients of every parameter from a training context's loss.
fn tape_grads<M: Module>(net: &M, ctx: &Ctx, loss: &Var) -> Vec<Vec<f32>> {
    ctx.param_grads(net, &loss.backward())
        .into_iter()
        .enumerate()
        .map(|(k, g)| {
            g.unwrap_or_else(|| panic!("parameter {k} got no gradient"))
                .to_vec()
        })
        .collect()
}

impl<M: Module<Output = (Var, Var)>> Objective<M> for Problem {
    fn loss(&self, net: &M) -> f64 {
        let (logits, v) = net.forward(&Ctx::inference(), &Var::constant(self.x.clone()));
        host_loss(
            &logits.value().to_vec(),
            &v.value().to_vec(),
            &self.pi,
            &self.z,
        )
    }

    /// The tape's gradients, after checking the fused f32 loss against the host's.
    fn grads(&self, net: &M) -> Vec<Vec<f32>> {
        let dev = self.x.device();
        let (n, classes) = (self.z.len(), self.pi.len() / self.z.len());
        let pi = Tensor::from_vec(self.pi.clone(), &[n, classes], &dev);
        let z = Tensor::from_vec(self.z.clone(), &[n], &dev);
        let ctx = Ctx::training();
        let (logits, v) = net.forward(&ctx, &Var::constant(self.x.clone()));
        let loss = alphazero_loss(&logits, &v, &pi, &z);
        let (got, want) = (loss.total.value().item() as f64, self.loss(net));
        assert!(
            (got - want).abs() <= 1e-5 * want,
            "fused loss {got} vs {want}"
        );
        tape_grads(net, &ctx, &loss.total)
    }
}

/// A value network's squared error against fixed results: inputs, results.
struct ValueProblem {
    x: Tensor,
    z: Vec<f32>,
}

impl<M: Module<Output = Var>> Objective<M> for ValueProblem {
    fn loss(&self, net: &M) -> f64 {
        let v = net.forward(&Ctx::inference(), &Var::constant(self.x.clone()));
        let v = v.value().to_vec();
        let sq: f64 = v
            .iter()
            .zip(&self.z)
            .map(|(&a, &b)| (a as f64 - b as f64).powi(2))
            .sum();
        sq / v.len() as f64
    }

    fn grads(&self, net: &M) -> Vec<Vec<f32>> {
        let ctx = Ctx::training();
        let v = net.forward(&ctx, &Var::constant(self.x.clone()));
        let z = Tensor::from_vec(self.z.clone(), v.shape(), &self.x.device());
        let loss = v.mse(&Var::constant(z));
        tape_grads(net, &ctx, &loss)
    }
}

/// The auxiliary head's squared error against targets some of which are unknown: inputs,
/// targets (n, outputs), 1 where a target is known.
struct AuxProblem {
    x: Tensor,
    targets: Vec<f32>,
    known: Vec<f32>,
}

impl Objective<PolicyValueNet> for AuxProblem {
    fn loss(&self, net: &PolicyValueNet) -> f64 {
        let (_, _, aux) = net.forward_aux(&Ctx::inference(), &Var::constant(self.x.clone()));
        let aux = aux.expect("the network has the head").value().to_vec();
        let sq: f64 = (aux.iter().zip(&self.targets).zip(&self.known))
            .map(|((&a, &t), &k)| k as f64 * (a as f64 - t as f64).powi(2))
            .sum();
        sq / self.known.iter().sum::<f32>() as f64
    }

    fn grads(&self, net: &PolicyValueNet) -> Vec<Vec<f32>> {
        let ctx = Ctx::training();
        let (_, _, aux) = net.forward_aux(&ctx, &Var::constant(self.x.clone()));
        let loss = masked_mse(&aux.unwrap(), &self.targets, &self.known);
        let (got, want) = (loss.value().item() as f64, self.loss(net));
        assert!((got - want).abs() <= 1e-5 * want, "loss {got} vs {want}");
        // The policy and value heads' parameters take no part: their gradients are zero.
        let sizes = param_tensors(net)
            .iter()
            .map(Tensor::numel)
            .collect::<Vec<_>>();
        (ctx.param_grads(net, &loss.backward()).into_iter())
            .zip(sizes)
            .map(|(g, n)| g.map_or(vec![0.0; n], |g| g.to_vec()))
            .collect()
    }
}

fn param_tensors<M: Module + ?Sized>(net: &M) -> Vec<Tensor> {
    let mut out = Vec::new();
    net.params(&mut |p| out.push(p.value().clone()));
    out
}

fn set_params<M: Module + ?Sized>(net: &mut M, values: &[Tensor]) {
    let mut it = values.iter();
    net.params_mut(&mut |p| p.set(it.next().expect("one value per parameter").clone()));
}

/// Entries of each parameter checked on a GPU, spread over it: there every entry costs four
/// forwards, each a round trip to the device, so a spread stands for the rest (the CPU
/// checks every entry).
#[cfg(feature = "gpu")]
const GPU_ENTRIES: usize = 12;

/// Checks the entries of the parameters `which` selects (by visit index); returns how many
/// entries there were, how many were checked and how many of those sat on a kink.
fn check_entries<M: Module>(
    net: &mut M,
    problem: &impl Objective<M>,
    which: impl Fn(usize) -> bool,
) -> (usize, usize, usize) {
    let analytic = problem.grads(net);
    let base = param_tensors(net);
    let (mut total, mut checked, mut kinks) = (0, 0, 0);
    for (k, (value, grad)) in base
        .iter()
        .zip(&analytic)
        .enumerate()
        .filter(|(k, _)| which(*k))
    {
        let host = value.to_vec();
        let mut quotient = |e: usize, step: f32| {
            let mut at = |delta: f32| {
                let mut v = host.clone();
                v[e] += delta;
                let mut params = base.clone();
                params[k] = Tensor::from_vec(v, value.shape(), &value.device());
                set_params(net, &params);
                problem.loss(net)
            };
            (at(step) - at(-step)) / (2.0 * step as f64)
        };
        let (mut diff2, mut norm2) = (0.0, 0.0);
        let every = match value.device() {
            Device::Cpu => 1,
            #[cfg(feature = "gpu")]
            Device::Gpu(_) => host.len().div_ceil(GPU_ENTRIES),
        };
        for (e, &a) in grad.iter().enumerate().step_by(every) {
            checked += 1;
            let (n1, n2) = (quotient(e, STEP), quotient(e, STEP / 2.0));
            if (n1 - n2).abs() > KINK * (1.0 + n1.abs()) {
                kinks += 1;
                continue;
            }
            diff2 += (a as f64 - n1).powi(2);
            norm2 += (a as f64).powi(2).max(n1 * n1);
        }
        set_params(net, &base);
        total += host.len();
        let (diff, norm) = (diff2.sqrt(), norm2.sqrt());
        let tol = RTOL * norm + ATOL * (host.len().div_ceil(every) as f64).sqrt();
        assert!(
            diff <= tol,
            "on {}: parameter {k} {:?}: |analytic - numeric| = {diff:.3e}, |grad| = {norm:.3e}, tolerance {tol:.3e}",
            value.device().name(),
            value.shape()
        );
    }
    (total, checked, kinks)
}

/// A trunk, flattened, then two linear heads: policy logits, and tanh for the value.
struct TwoHeads {
    trunk: Sequential,
    policy: Linear,
    value: Linear,
}

impl TwoHeads {
    /// `trunk` maps (3, 2, 4, 4) inputs to (3, 48).
    fn new(trunk: Sequential, dev: &Device, r: &mut impl Rng) -> TwoHeads {
        TwoHeads {
            trunk,
            policy: Linear::new(48, 10, true, dev, r),
            value: Linear::new(48, 1, true, dev, r),
        }
    }
}

impl Module for TwoHeads {
    type Output = (Var, Var);

    fn forward(&self, ctx: &Ctx, x: &Var) -> (Var, Var) {
        let h = self.trunk.forward(ctx, x);
        let n = h.shape()[0];
        (
            self.policy.forward(ctx, &h),
            self.value.forward(ctx, &h).tanh().reshape(&[n]),
        )
    }

    fn params(&self, f: &mut dyn FnMut(&Param)) {
        self.trunk.params(f);
        self.policy.params(f);
        self.value.params(f);
    }

    fn params_mut(&mut self, f: &mut dyn FnMut(&mut Param)) {
        self.trunk.params_mut(f);
        self.policy.params_mut(f);
        self.value.params_mut(f);
    }
}

#[test]
fn every_parameter_of_a_smooth_network() {
    // conv (bias) -> batch norm -> tanh -> conv -> batch norm -> sigmoid: no kinks at all.
    on_every_device(|dev| {
        let mut r = rng(11);
        let trunk = Sequential::new()
            .push(Conv2d::new(2, 3, 3, 1, true, dev, &mut r))
            .push(BatchNorm2d::new(3, dev))
            .push(Tanh)
            .push(Conv2d::new(3, 3, 3, 1, false, dev, &mut r))
            .push(BatchNorm2d::new(3, dev))
            .push(Sigmoid)
            .push(Flatten);
        let mut net = TwoHeads::new(trunk, dev, &mut r);
        let problem = Problem::new(&[3, 2, 4, 4], 10, 12, dev);
        let (total, _, kinks) = check_entries(&mut net, &problem, |_| true);
        assert_eq!((total, kinks), (689, 0), "a smooth network has no kinks");
    });
}

#[test]
fn every_parameter_of_a_residual_relu_network() {
    // conv (bias) -> batch norm -> relu -> residual block -> plain block: 48 ReLU inputs per
    // channel and layer.
    on_every_device(|dev| {
        let mut r = rng(13);
        let trunk = Sequential::new()
            .push(Conv2d::new(2, 3, 3, 1, true, dev, &mut r))
            .push(BatchNorm2d::new(3, dev))
            .push(Relu)
            .push(ResidualBlock::new(3, true, dev, &mut r))
            .push(ResidualBlock::new(3, false, dev, &mut r))
            .push(Flatten);
        let mut net = TwoHeads::new(trunk, dev, &mut r);
        let problem = Problem::new(&[3, 2, 4, 4], 10, 14, dev);
        let (total, checked, kinks) = check_entries(&mut net, &problem, |_| true);
        assert_eq!(total, 863);
        assert!(
            kinks * 50 <= checked,
            "{kinks} of {checked} entries sit on ReLU kinks"
        );
    });
}

/// The policy-value network's parameters after its last ReLU: the policy conv (through the
/// dark-square gather into the cross-entropy) and the last value layer (through tanh into the
/// squared error).
fn heads_of_policy_value_network(arch: Architecture, seed: u64) {
    on_every_device(|dev| {
        let mut r = rng(seed);
        let mut net = PolicyValueNet::new(arch.clone(), dev, &mut r);
        let count = param_tensors(&net).len();
        // Visit order ends: policy weight, bias; value conv; value bn gamma, beta; fc1
        // weight, bias; fc2 weight, bias.
        let heads = [count - 9, count - 8, count - 2, count - 1];
        let problem = Problem::new(&[4, arch.input_planes, 8, 8], 128, seed + 1, dev);
        let (total, _, kinks) = check_entries(&mut net, &problem, |k| heads.contains(&k));
        assert_eq!((total, kinks), (4 * arch.channels + 4 + 64 + 1, 0));
    });
}

/// The auxiliary head (through tanh into the squared error over the known targets) and the
/// value MLP's hidden layer under it (through its ReLU); the rows without targets give
/// nothing.
#[test]
fn auxiliary_head_of_policy_value_network() {
    on_every_device(|dev| {
        let mut r = rng(51);
        let arch = Architecture::preset(checkers_zero::nn::NetPreset::DarkTiny)
            .with_input_planes(3)
            .with_aux(2);
        let mut net = PolicyValueNet::new(arch, dev, &mut r);
        let x = Tensor::randn(&[4, 3, 8, 8], 1.0, &mut rng(52), &Device::Cpu).to_device(dev);
        let targets = (0..8).map(|_| r.random_range(-1.0..1.0)).collect();
        let known = vec![1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0];
        let problem = AuxProblem { x, targets, known };
        let count = param_tensors(&net).len();
        // Visit order ends: fc1 weight, bias; fc2 weight, bias; aux weight, bias.
        let heads = [count - 6, count - 5, count - 2, count - 1];
        let (total, checked, kinks) = check_entries(&mut net, &problem, |k| heads.contains(&k));
        assert_eq!(total, 32 * 64 + 64 + 2 * 64 + 2);
        assert!(
            kinks * 50 <= checked,
            "{kinks} of {checked} entries sit on ReLU kinks"
        );
    });
}

#[test]
fn residual_policy_value_network_heads() {
    heads_of_policy_value_network(
        Architecture {
            name: "fd-residual".into(),
            input_planes: 3,
            channels: 4,
            blocks: 1,
            body: Body::Residual,
            value_planes: 1,
            aux: 0,
        },
        21,
    );
}

#[test]
fn plain_policy_value_network_heads() {
    heads_of_policy_value_network(
        Architecture {
            name: "fd-plain".into(),
            input_planes: 2,
            channels: 3,
            blocks: 2,
            body: Body::Plain,
            value_planes: 1,
            aux: 0,
        },
        31,
    );
}

#[test]
fn dark_square_policy_value_network_heads() {
    heads_of_policy_value_network(
        Architecture {
            name: "fd-dark".into(),
            input_planes: 3,
            channels: 4,
            blocks: 1,
            body: Body::Dark,
            value_planes: 1,
            aux: 0,
        },
        41,
    );
}

#[test]
fn every_parameter_of_the_tower_network() {
    // tanh throughout, so no kinks: every tower (rows, columns, strided corners, gathered
    // diagonals), the join and the head, on real board planes. Small widths keep the number
    // of entries (each needing four forwards) low.
    on_every_device(|dev| {
        let mut r = rng(41);
        let arch = TowerArch {
            lines: 2,
            corners: 2,
            diagonals: 2,
            hidden: vec![6, 4],
            ..TowerArch::default()
        };
        let mut net = TowerNet::new(arch, dev, &mut r);
        let boards = super::common::random_discs(&mut r, 3);
        let problem = ValueProblem {
            x: net.encode(&boards),
            z: vec![0.8, -0.3, 0.1],
        };
        let (total, _, kinks) = check_entries(&mut net, &problem, |_| true);
        assert_eq!(
            (total, kinks),
            (net.num_params(), 0),
            "a smooth network has no kinks"
        );
    });
}
