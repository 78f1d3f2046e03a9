//! The network's inference graph as ONNX: what [`PolicyValueNet::forward`] computes in
//! evaluation mode, op for op.

use super::{BOARD, PolicyValueNet};
use crate::nn::Module;
use crate::nn::onnx::{Attr, Dim, Graph};

/// The graph's input: the encoded positions, (batch, input planes, 8, 8).
pub const ONNX_INPUT: &str = "planes";
/// The graph's output of policy logits, (batch, head outputs).
pub const ONNX_POLICY: &str = "policy";
/// The graph's output of values, (batch).
pub const ONNX_VALUE: &str = "value";

impl PolicyValueNet {
    /// The network as an ONNX model (opset 17) with `metadata` as its key-value metadata:
    /// input [`ONNX_INPUT`]; outputs [`ONNX_POLICY`], the logits that `forward` returns
    /// (before any softmax or mask over legal actions), and [`ONNX_VALUE`], the value in
    /// (-1, 1) for the side to move. Always the evaluation-mode graph, whatever this
    /// network's mode: each batch norm's running statistics are folded into the convolution
    /// before it, exactly as inference folds them.
    pub fn to_onnx(&self, metadata: &[(&str, String)]) -> Vec<u8> {
        let mut net = self.clone();
        net.set_train(false);
        let board = Dim::Fixed(BOARD);
        let planes = Dim::Fixed(net.arch.input_planes);
        let mut g = Graph::new();
        g.input(ONNX_INPUT, &[Dim::Batch, planes, board, board]);

        let stem = net
            .stem
            .onnx(&mut g, "stem", Some(&net.stem_bn), ONNX_INPUT);
        let stem = g.node("Relu", &[&stem], &[]);
        let h = net.body.iter().enumerate().fold(stem, |h, (i, block)| {
            block.onnx(&mut g, &format!("body.{i}"), &h)
        });

        let p = net.policy.onnx(&mut g, "policy", None, &h);
        let p = g.node("Flatten", &[&p], &[Attr::Int("axis", 1)]);
        let logits = match &net.policy_fc {
            None => match &net.dark {
                Some(dark) => {
                    let dark: Vec<i64> = dark.iter().map(|&i| i as i64).collect();
                    let dark = g.int64s("policy.dark_squares", &dark);
                    g.node("Gather", &[&p, &dark], &[Attr::Int("axis", 1)])
                }
                None => p,
            },
            Some(fc) => {
                let p = g.node("Relu", &[&p], &[]);
                fc.onnx(&mut g, "policy_fc", &p)
            }
        };
        g.output(
            ONNX_POLICY,
            &logits,
            &[Dim::Batch, Dim::Fixed(net.head.outputs())],
        );

        let v = net
            .value_conv
            .onnx(&mut g, "value_conv", Some(&net.value_bn), &h);
        let v = g.node("Relu", &[&v], &[]);
        let v = g.node("Flatten", &[&v], &[Attr::Int("axis", 1)]);
        let v = net.value_fc1.onnx(&mut g, "value_fc1", &v);
        let v = g.node("Relu", &[&v], &[]);
        let v = net.value_fc2.onnx(&mut g, "value_fc2", &v);
        let v = g.node("Tanh", &[&v], &[]);
        // (batch, 1) -> (batch): -1 keeps whatever the batch is.
        let flat = g.int64s("value.shape", &[-1]);
        let v = g.node("Reshape", &[&v, &flat], &[]);
        g.output(ONNX_VALUE, &v, &[Dim::Batch]);

        g.into_model(&net.arch.name, metadata)
    }
}

#[cfg(test)]
mod tests {
    use crate::nn::onnx::tests::ops;
    use crate::nn::{Architecture, Body, Module, PolicyHead, PolicyValueNet};
    use crate::tensor::Device;
    use rand::SeedableRng;

    #[test]
    fn the_graph_is_the_evaluation_mode_forward() {
        let stem = ["Conv", "Relu"];
        let residual = ["Conv", "Relu", "Conv", "Add", "Relu"];
        let value = ["Conv", "Relu", "Flatten"];
        let value_fc = ["Gemm", "Relu", "Gemm", "Tanh", "Reshape"];
        let dark = ["Conv", "Flatten", "Gather", "Identity"];
        let dense = ["Conv", "Flatten", "Relu", "Gemm", "Identity"];
        // A dark-square conv: its taps gathered, a Gemm, back to (n, c, 32).
        let taps = [
            "Reshape",
            "Pad",
            "Gather",
            "Reshape",
            "Gemm",
            "Reshape",
            "Transpose",
        ];
        let dark_stem = [&taps[..], &["Relu"]].concat();
        let dark_block = [&taps[..], &["Relu"], &taps, &["Add", "Relu"]].concat();
        let dark_policy = [&taps[..], &["Flatten", "Identity"]].concat();
        let dark_value = [&taps[..], &["Relu", "Flatten"]].concat();
        let cases: [(Body, usize, PolicyHead, Vec<&str>); 3] = [
            (
                Body::Residual,
                2,
                PolicyHead::DarkSquares,
                [&stem[..], &residual, &residual, &dark, &value, &value_fc].concat(),
            ),
            // A plain network's stem is one of its 3 layers.
            (
                Body::Plain,
                3,
                PolicyHead::Dense { outputs: 65 },
                [&stem[..], &stem, &stem, &dense, &value, &value_fc].concat(),
            ),
            (
                Body::Dark,
                1,
                PolicyHead::DarkSquares,
                [
                    &dark_stem,
                    &dark_block,
                    &dark_policy,
                    &dark_value,
                    &value_fc[..],
                ]
                .concat(),
            ),
        ];
        for (body, blocks, head, want) in cases {
            let arch = Architecture {
                name: "test".into(),
                input_planes: 3,
                channels: 4,
                blocks,
                body,
                value_planes: 1,
                // Training's head, which the graph leaves out.
                aux: 2,
            };
            let mut rng = rand::rngs::StdRng::seed_from_u64(1);
            let mut net = PolicyValueNet::with_head(arch, head, &Device::Cpu, &mut rng);
            let onnx = net.to_onnx(&[]);
            net.set_train(false);
            assert_eq!(net.to_onnx(&[]), onnx, "the same graph in either mode");
            let want: Vec<&str> = want.into_iter().chain(["Identity"]).collect();
            assert_eq!(ops(&onnx), want, "{body:?} {head:?}");
        }
    }
}
