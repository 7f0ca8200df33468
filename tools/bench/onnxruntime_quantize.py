#!/usr/bin/env python3
"""The int8 model of `cortado bench exported --precision int8`: a float ONNX model as
onnxruntime's quantize_static writes it, in QDQ form (QuantizeLinear/DequantizeLinear pairs; uint8
activations per tensor, int8 weights per output channel, as onnxruntime recommends for CNNs),
calibrated by min-max on CALIBRATION uniform(-1, 1) images (seed 1) of the model's input shape at
batch 1, the bench's own input distribution.

    onnxruntime_quantize.py MODEL.onnx OUT.onnx [CALIBRATION]

cortado compiles OUT.onnx with --precision int8 (its convolutions in int8 with the model's scales)
and onnxruntime runs the same file as the peer (tools/bench/onnxruntime_peer.py)."""
import logging
import sys

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static


def main(model_path, out_path, count):
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
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 8)
