#!/usr/bin/env python3
"""Runs onnxruntime (the peer) on each model given, on the CPU, writing the output it expects:

    run_onnxruntime.py DIR NAME ...

reads DIR/NAME.onnx and DIR/NAME.input.npy, writes DIR/NAME.expected.npy. A model of another opset
(NAME-opsetK, as tools/bench/export_torchvision.py names it) reads NAME's input."""
import os
import sys

import numpy as np
import onnxruntime


def main(directory, names):
    for name in names:
        session = onnxruntime.InferenceSession(os.path.join(directory, name + ".onnx"),
                                               providers=["CPUExecutionProvider"])
        x = np.load(os.path.join(directory, name.split("-opset")[0] + ".input.npy"))
        (y,) = session.run(None, {session.get_inputs()[0].name: x})
        np.save(os.path.join(directory, name + ".expected.npy"), y.astype(np.float32))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
