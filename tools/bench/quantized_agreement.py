#!/usr/bin/env python3
"""How closely cortado's output of a quantized ONNX model agrees with onnxruntime's run of the same
model (issue 47's accuracy floor): the share of output elements within one step of the output's
last quantization (the scale of the DequantizeLinear that writes it), the largest difference in
steps, and whether every image's top-1 is the same.

    quantized_agreement.py MODEL.onnx INPUT.npy OURS.npy

OURS.npy is `cortado run MODEL.onnx --precision int8 --input INPUT.npy --output OURS.npy`'s."""
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import numpy_helper


def output_step(model):
    output = model.graph.output[0].name
    (last,) = [n for n in model.graph.node if output in n.output]
    if last.op_type != "DequantizeLinear":
        sys.exit("the output is not dequantized (its last node is a %s)" % last.op_type)
    scales = [numpy_helper.to_array(t) for t in model.graph.initializer if t.name == last.input[1]]
    if len(scales) != 1 or scales[0].size != 1:
        sys.exit("the output's scale is not one constant")
    return float(scales[0])


def main(model_path, input_path, ours_path):
    step = output_step(onnx.load(model_path, load_external_data=False))
    x = np.load(input_path)
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, {session.get_inputs()[0].name: x})
    ours = np.load(ours_path).reshape(theirs.shape)
    steps = np.abs(ours.astype(np.float64) - theirs) / step
    within = float(np.mean(steps <= 1.001))
    top1 = bool(np.all(ours.reshape(len(ours), -1).argmax(1) == theirs.reshape(len(theirs), -1).argmax(1)))
    print("within one step: %.4f%% of %d; largest difference %.1f steps; top-1 equal: %s"
          % (100 * within, steps.size, steps.max(), top1))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
