#!/usr/bin/env python3
"""The CPU peer of `cortado bench exported`: onnxruntime on one model, on the input cortado ran,
timed like cortado (a warm-up, then ITERATIONS runs; median, minimum and maximum).

    onnxruntime_peer.py MODEL.onnx INPUT.npy OUTPUT.npy ITERATIONS

Writes its output to OUTPUT.npy and prints one line: `onnxruntime VERSION MEDIAN MIN MAX` (ms).
onnxruntime picks its own thread count (one per core), as a user's session would."""
import statistics
import sys
import time

import numpy as np
import onnxruntime


def main(model, input_path, output_path, iterations):
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: np.load(input_path)}
    (output,) = session.run(None, feed)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1e3)
    np.save(output_path, output.astype(np.float32))
    print("onnxruntime", onnxruntime.__version__, statistics.median(times), min(times), max(times))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
