"""Runs an exported network in ONNX Runtime for tests/nn/onnx.rs.

usage: onnx_run.py MODEL INPUT BATCH OUT_DIR

Reads INPUT, the encoded positions as raw little-endian float32 (BATCH, planes, 8, 8), runs
MODEL on them, writes each output to OUT_DIR/NAME.f32 as raw little-endian float32, and
prints the graph's inputs, outputs (name and shape) and metadata as one JSON object.
"""

import json
import sys

import numpy as np
import onnxruntime as ort


def main():
    model, inputs, batch, out_dir = sys.argv[1:]
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    [planes] = session.get_inputs()
    x = np.fromfile(inputs, dtype="<f4").reshape([int(batch)] + planes.shape[1:])
    outputs = session.get_outputs()
    for info, value in zip(outputs, session.run(None, {planes.name: x})):
        np.ascontiguousarray(value, dtype="<f4").tofile(f"{out_dir}/{info.name}.f32")
    described = lambda values: [[v.name, v.shape] for v in values]
    print(json.dumps({
        "inputs": described(session.get_inputs()),
        "outputs": described(outputs),
        "metadata": session.get_modelmeta().custom_metadata_map,
    }))


if __name__ == "__main__":
    main()
