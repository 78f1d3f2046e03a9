//! Writing a network's inference graph as an ONNX model (onnx.proto, opset 17), so that
//! other runtimes (ONNX Runtime, or anything that reads ONNX) can run our networks. Only
//! what our layers need: float and int64 initializers, nodes with integer attributes,
//! tensor inputs and outputs whose first dimension may be the batch.

mod protobuf;

use crate::tensor::Tensor;
use protobuf::Message;

/// The operator set the nodes are written against. The ops used (Conv, Relu, Add, Gemm,
/// Flatten, Gather, Reshape, Tanh, Identity) mean the same on float tensors in every set
/// since 13; later sets only added types and attributes with defaults.
const OPSET: i64 = 17;
/// The ONNX IR version that goes with opset 17.
const IR_VERSION: i64 = 8;
/// The symbolic name of the batch dimension.
const BATCH: &str = "batch";

/// TensorProto.DataType values.
const FLOAT: i64 = 1;
const INT64: i64 = 7;
/// AttributeProto.AttributeType values.
const ATTR_INT: i64 = 2;
const ATTR_INTS: i64 = 7;

/// A dimension of a graph input or output.
#[derive(Clone, Copy, Debug)]
pub enum Dim {
    /// The batch: any size, named [`BATCH`].
    Batch,
    Fixed(usize),
}

/// A node attribute.
#[derive(Clone, Debug)]
pub enum Attr {
    Int(&'static str, i64),
    Ints(&'static str, Vec<i64>),
}

/// A graph under construction: nodes in the order added (which must be a topological order,
/// as ONNX requires), with the weights they read as initializers.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Message>,
    initializers: Vec<Message>,
    inputs: Vec<Message>,
    outputs: Vec<Message>,
}

impl Graph {
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Declares a float input of the graph.
    pub fn input(&mut self, name: &str, shape: &[Dim]) {
        self.inputs.push(value_info(name, shape));
    }

    /// Declares the float output `name`, the value `from` (an Identity node names it, which
    /// runtimes optimise away).
    pub fn output(&mut self, name: &str, from: &str, shape: &[Dim]) {
        self.add_node("Identity", &[from], &[], name);
        self.outputs.push(value_info(name, shape));
    }

    /// A float initializer holding `tensor` (read back from its device); returns its name.
    fn floats(&mut self, name: &str, tensor: &Tensor) -> String {
        let bytes: Vec<u8> = tensor
            .to_vec()
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        self.initializer(name, FLOAT, tensor.shape(), &bytes)
    }

    /// A one-dimensional int64 initializer; returns its name.
    pub fn int64s(&mut self, name: &str, values: &[i64]) -> String {
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.initializer(name, INT64, &[values.len()], &bytes)
    }

    /// Adds the node `op(inputs)` and returns the name of its one output.
    pub fn node(&mut self, op: &str, inputs: &[&str], attrs: &[Attr]) -> String {
        let output = format!("{}_{}", op.to_lowercase(), self.nodes.len());
        self.add_node(op, inputs, attrs, &output);
        output
    }

    /// Adds the node `op(x, weight, bias?)`, a layer whose weights become initializers
    /// `name.weight` and `name.bias`; returns the name of its output.
    pub fn layer(
        &mut self,
        op: &str,
        name: &str,
        x: &str,
        weight: &Tensor,
        bias: Option<&Tensor>,
        attrs: &[Attr],
    ) -> String {
        let mut inputs = vec![
            x.to_string(),
            self.floats(&format!("{name}.weight"), weight),
        ];
        inputs.extend(bias.map(|b| self.floats(&format!("{name}.bias"), b)));
        let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        self.node(op, &inputs, attrs)
    }

    fn add_node(&mut self, op: &str, inputs: &[&str], attrs: &[Attr], output: &str) {
        let mut node = inputs
            .iter()
            .fold(Message::new(), |m, input| m.string(1, input))
            .string(2, output)
            .string(3, output)
            .string(4, op);
        for attr in attrs {
            node = node.message(5, &attribute(attr));
        }
        self.nodes.push(node);
    }

    /// The ONNX model file's bytes: this graph named `name`, with `metadata` as the model's
    /// key-value metadata (which runtimes show, e.g. onnxruntime's `custom_metadata_map`).
    pub fn into_model(self, name: &str, metadata: &[(&str, String)]) -> Vec<u8> {
        let mut graph = Message::new();
        for node in &self.nodes {
            graph = graph.message(1, node);
        }
        graph = graph.string(2, name);
        for init in &self.initializers {
            graph = graph.message(5, init);
        }
        for input in &self.inputs {
            graph = graph.message(11, input);
        }
        for output in &self.outputs {
            graph = graph.message(12, output);
        }
        let opset = Message::new().string(1, "").int(2, OPSET);
        let mut model = Message::new()
            .int(1, IR_VERSION)
            .string(2, env!("CARGO_PKG_NAME"))
            .string(3, env!("CARGO_PKG_VERSION"))
            .message(7, &graph)
            .message(8, &opset);
        for (key, value) in metadata {
            model = model.message(14, &Message::new().string(1, key).string(2, value));
        }
        model.into_bytes()
    }

    fn initializer(&mut self, name: &str, data_type: i64, shape: &[usize], raw: &[u8]) -> String {
        let tensor = shape
            .iter()
            .fold(Message::new(), |m, &d| m.int(1, d as i64))
            .int(2, data_type)
            .string(8, name)
            .bytes(9, raw);
        self.initializers.push(tensor);
        name.to_string()
    }
}

/// A ValueInfoProto: a float tensor's name, and its shape with the batch left symbolic.
fn value_info(name: &str, shape: &[Dim]) -> Message {
    let shape = shape.iter().fold(Message::new(), |m, dim| {
        let dim = match *dim {
            Dim::Batch => Message::new().string(2, BATCH),
            Dim::Fixed(n) => Message::new().int(1, n as i64),
        };
        m.message(1, &dim)
    });
    let tensor = Message::new().int(1, FLOAT).message(2, &shape);
    let ty = Message::new().message(1, &tensor);
    Message::new().string(1, name).message(2, &ty)
}

fn attribute(attr: &Attr) -> Message {
    match attr {
        Attr::Int(name, value) => Message::new()
            .string(1, name)
            .int(3, *value)
            .int(20, ATTR_INT),
        Attr::Ints(name, values) => values
            .iter()
            .fold(Message::new().string(1, name), |m, &v| m.int(8, v))
            .int(20, ATTR_INTS),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tensor::Device;

    /// A field's value as written: a varint, or a length-delimited field's bytes.
    #[derive(Clone, Debug, PartialEq)]
    pub enum Field {
        Int(u64),
        Bytes(Vec<u8>),
    }

    /// A message's fields, in order, as (field number, value).
    type Fields = Vec<(u64, Field)>;

    /// The fields of an encoded message.
    pub fn fields(mut bytes: &[u8]) -> Fields {
        fn varint(bytes: &mut &[u8]) -> u64 {
            let mut value = 0;
            for shift in (0..).step_by(7) {
                let (&b, rest) = bytes.split_first().expect("a varint ends");
                *bytes = rest;
                value |= ((b & 0x7f) as u64) << shift;
                if b < 0x80 {
                    break;
                }
            }
            value
        }
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let key = varint(&mut bytes);
            let value = match key & 7 {
                0 => Field::Int(varint(&mut bytes)),
                2 => {
                    let len = varint(&mut bytes) as usize;
                    let (data, rest) = bytes.split_at(len);
                    bytes = rest;
                    Field::Bytes(data.to_vec())
                }
                other => panic!("wire type {other} is never written"),
            };
            out.push((key >> 3, value));
        }
        out
    }

    /// The values of field `number`.
    pub fn all(fields: &Fields, number: u64) -> Vec<Field> {
        let of = fields.iter().filter(|(n, _)| *n == number);
        of.map(|(_, v)| v.clone()).collect()
    }

    /// The messages in field `number`, decoded.
    pub fn messages(fields: &Fields, number: u64) -> Vec<Fields> {
        let decode = |f: &Field| match f {
            Field::Bytes(b) => self::fields(b),
            Field::Int(_) => panic!("field {number} is not a message"),
        };
        all(fields, number).iter().map(decode).collect()
    }

    /// The message in the one field `number`, decoded.
    pub fn message(fields: &Fields, number: u64) -> Fields {
        let [m] = &messages(fields, number)[..] else {
            panic!("field {number} once")
        };
        m.clone()
    }

    /// The bytes or text in the one field `number`.
    pub fn bytes(fields: &Fields, number: u64) -> Vec<u8> {
        match &all(fields, number)[..] {
            [Field::Bytes(b)] => b.clone(),
            other => panic!("field {number}: {other:?}"),
        }
    }

    pub fn text(fields: &Fields, number: u64) -> String {
        String::from_utf8(bytes(fields, number)).unwrap()
    }

    /// The op types of a model's nodes, in order.
    pub fn ops(model: &[u8]) -> Vec<String> {
        let graph = message(&fields(model), 7);
        messages(&graph, 1).iter().map(|n| text(n, 4)).collect()
    }

    // Field numbers are onnx.proto's: ModelProto ir_version 1, graph 7, opset_import 8,
    // metadata_props 14; GraphProto node 1, name 2, initializer 5, input 11, output 12;
    // NodeProto input 1, output 2, op_type 4, attribute 5; TensorProto dims 1, data_type 2,
    // raw_data 9; AttributeProto name 1, i 3, type 20.
    #[test]
    fn a_graph_is_written_as_an_onnx_model() {
        let mut g = Graph::new();
        g.input("x", &[Dim::Batch, Dim::Fixed(3)]);
        let w = Tensor::from_vec(vec![1.0, -2.0, 0.5, 4.0, 0.0, 1.5], &[2, 3], &Device::Cpu);
        let y = g.layer("Gemm", "fc", "x", &w, None, &[Attr::Int("transB", 1)]);
        let shape = g.int64s("shape", &[-1]);
        let y = g.node("Reshape", &[&y, &shape], &[]);
        g.output("y", &y, &[Dim::Batch]);
        let model = g.into_model("test", &[("game", "checkers".to_string())]);

        let m = fields(&model);
        assert_eq!(all(&m, 1), [Field::Int(IR_VERSION as u64)]);
        let opset = message(&m, 8);
        assert_eq!(text(&opset, 1), "", "the default domain");
        assert_eq!(all(&opset, 2), [Field::Int(OPSET as u64)]);
        let meta = message(&m, 14);
        assert_eq!([text(&meta, 1), text(&meta, 2)], ["game", "checkers"]);
        assert_eq!(ops(&model), ["Gemm", "Reshape", "Identity"]);

        let graph = message(&m, 7);
        assert_eq!(text(&graph, 2), "test");
        let nodes = messages(&graph, 1);
        let inputs = ["x", "fc.weight"].map(|s| Field::Bytes(s.into()));
        assert_eq!(all(&nodes[0], 1), inputs);
        let trans_b = message(&nodes[0], 5);
        assert_eq!(text(&trans_b, 1), "transB");
        assert_eq!(all(&trans_b, 3), [Field::Int(1)]);
        assert_eq!(all(&trans_b, 20), [Field::Int(ATTR_INT as u64)]);
        assert_eq!(text(&nodes[2], 2), "y", "the output is named as declared");

        let inits = messages(&graph, 5);
        assert_eq!(all(&inits[0], 1), [Field::Int(2), Field::Int(3)], "dims");
        assert_eq!(all(&inits[0], 2), [Field::Int(FLOAT as u64)]);
        let raw: Vec<f32> = bytes(&inits[0], 9)
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(raw, w.to_vec());
        assert_eq!(all(&inits[1], 2), [Field::Int(INT64 as u64)]);
        assert_eq!(bytes(&inits[1], 9), (-1i64).to_le_bytes());

        // ValueInfoProto type (2) -> TypeProto tensor_type (1) -> elem_type (1), shape (2).
        let input = message(&graph, 11);
        assert_eq!(text(&input, 1), "x");
        let tensor = message(&message(&input, 2), 1);
        assert_eq!(all(&tensor, 1), [Field::Int(FLOAT as u64)]);
        let dims = messages(&message(&tensor, 2), 1);
        assert_eq!(text(&dims[0], 2), BATCH, "dim_param");
        assert_eq!(all(&dims[1], 1), [Field::Int(3)], "dim_value");
        assert_eq!(text(&message(&graph, 12), 1), "y");
    }
}
