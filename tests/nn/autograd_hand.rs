//! Hand-worked values, including the original design's convolution example.

use checkers_zero::tensor::{Device, Tape, Tensor, Var};

fn t(data: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(data.to_vec(), shape, &Device::Cpu)
}

#[test]
fn valid_cross_correlation_and_its_gradients() {
    // [[1,6,2],[5,3,1],[7,0,4]] (*) [[1,2],[-1,0]] = [[8,7],[4,5]]
    let tape = Tape::new();
    let x = tape.var(t(&[1., 6., 2., 5., 3., 1., 7., 0., 4.], &[1, 1, 3, 3]));
    let k = tape.var(t(&[1., 2., -1., 0.], &[1, 1, 2, 2]));
    let y = x.conv2d(&k, None, (0, 0), (1, 1));
    assert_eq!(y.value().to_vec(), vec![8., 7., 4., 5.]);
    // With an all-ones upstream gradient, dk = [[15,12],[15,8]] as the design worked it.
    // The design's dx, [[0,-1,-1],[2,2,0],[2,3,1]], is the 180-degree rotation of the true
    // gradient (a full correlation without flipping the kernel): raising x[0][0] by e raises
    // only y[0][0], by e * k[0][0] = e, so dx[0][0] is 1, not 0. The true dx is the full
    // convolution of the ones with the kernel, checked below against finite differences.
    let grads = y.sum_all().backward();
    let dx = grads.get(&x).unwrap().to_vec();
    assert_eq!(dx, vec![1., 3., 2., 0., 2., 2., -1., -1., 0.]);
    assert_eq!(grads.get(&k).unwrap().to_vec(), vec![15., 12., 15., 8.]);
    let base = x.value().to_vec();
    for i in 0..9 {
        let f = |delta: f32| {
            let mut v = base.clone();
            v[i] += delta;
            t(&v, &[1, 1, 3, 3])
                .conv2d(k.value(), None, (0, 0), (1, 1))
                .sum_all()
                .item()
        };
        // Integer data and a step of 0.5: the central difference is exact for this linear map.
        assert_eq!((f(0.5) - f(-0.5)) / 1.0, dx[i], "dx[{i}]");
    }
}

#[test]
fn small_expression() {
    // f = sum((a * b + a) / b), d/da = (b + 1) / b, d/db = -a / b^2
    let tape = Tape::new();
    let a = tape.var(t(&[1., 2., 3.], &[3]));
    let b = tape.var(t(&[2., 4., 8.], &[3]));
    let f = a.mul(&b).add(&a).div(&b).sum_all();
    let g = f.backward();
    assert_eq!(g.get(&a).unwrap().to_vec(), vec![1.5, 1.25, 1.125]);
    assert_eq!(
        g.get(&b).unwrap().to_vec(),
        vec![-0.25, -0.125, -3.0 / 64.0]
    );
    let c = Var::constant(t(&[1.0], &[1]));
    assert!(!c.mul(&c).is_tracked());
}
