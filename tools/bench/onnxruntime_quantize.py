#!/usr/bin/env python3
"""The int8 model of `cortado bench exported --precision int8`: a float ONNX model as
onnxruntime's quantize_static writes it, in QDQ form (QuantizeLinear/DequantizeLinear pairs; uint8
activations per tensor, int8 weights per output channel, as onnxruntime recommends for CNNs),
calibrated by min-max on CALIBRATION uniform(-1, 1) images (seed 1) of the model's input shape at
batch 1, the bench's own input distribution.

    onnxruntime_quantize.py [--reduce-range] MODEL.onnx OUT.onnx [CALIBRATION]

--reduce-range quantizes the weights to 7 bits (quantize_static's reduce_range), as onnxruntime
advises for x86 CPUs without VNNI, where cortado's int8 kernels take 7-bit weights.

cortado compiles OUT.onnx with --precision int8 (its convolutions in int8 with the model's scales)
and onnxruntime runs the same file as the peer (tools/bench/onnxruntime_peer.py)."""
import logging
import sys

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static


def main(model_path, out_path, count, reduce_range):
    model = onnx.load(model_path, load_external_data=False)
    graph_input = model.graph.input[0]
    shape = [d.dim_value if d.dim_value > 0 else 1 for d in graph_input.type.tensor_type.shape.dim]
    rng = np.random.default_rng(1)
    images = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(count)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter({graph_input.name: image} for image in images)

        def get_next(self):
            return next(self.feeds, None)

    logging.getLogger().setLevel(logging.ERROR)  # its advice to pre-process is for other models
    quantize_static(model_path, out_path, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=reduce_range)


if __name__ == "__main__":
    args = sys.argv[1:]
    reduce_range = "--reduce-range" in args
    args = [a for a in args if a != "--reduce-range"]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    main(args[0], args[1], int(args[2]) if len(args) == 3 else 8, reduce_range)
