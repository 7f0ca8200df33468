"""Quantized ONNX test models, for make_models.py: linear quantization written by hand (QDQ pairs
and the QLinear ops) and as onnxruntime's quantize_static writes it. Each maker returns the
model, its input shape and the scale of its output's last quantization: the step that cortado's
output must be within of onnxruntime's (tests/onnx_test.cc)."""
import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _add(m, name, values, dtype):
    m.initializers.append(numpy_helper.from_array(np.asarray(values, dtype=dtype), name))
    return name


def _qdq(m, x, name, scale, zero_point, dtype=np.uint8):
    """A QuantizeLinear then DequantizeLinear of x, per tensor."""
    s, z = _add(m, name + "_s", scale, np.float32), _add(m, name + "_z", zero_point, dtype)
    return m.node("DequantizeLinear", [m.node("QuantizeLinear", [x, s, z], name + "_q"), s, z], name + "_dq")


# Weights in 7 bits (|q| <= 63). On x86 CPUs without VNNI, onnxruntime's u8 x s8 kernels add pairs
# of products in 16 bits (vpmaddubsw), which saturate on full-range weights: there the peer, not
# cortado, would move the outputs (docs/precision.md). onnxruntime's quantize_static does the
# same with reduce_range.
WEIGHT_LEVELS = 63


def _int8_weights(m, name, shape, per_channel):
    """Symmetric int8 weights, per output channel (axis 0) or per tensor: the integers and scales."""
    w = m.rng.standard_normal(shape) * 0.3
    flat = np.abs(w).reshape(shape[0], -1).max(axis=1)
    scale = (flat if per_channel else np.full(1, flat.max())) / WEIGHT_LEVELS
    broadcast = scale.reshape((-1,) + (1,) * (len(shape) - 1))
    q = np.clip(np.round(w / broadcast), -WEIGHT_LEVELS, WEIGHT_LEVELS).astype(np.int8)
    scale = scale.astype(np.float32)
    _add(m, name + "_q", q, np.int8)
    _add(m, name + "_s", scale if per_channel else scale[0], np.float32)
    _add(m, name + "_z", np.zeros(shape[0] if per_channel else (), np.int8), np.int8)
    return scale


def _dq_weights(m, name, shape, per_channel):
    _int8_weights(m, name, shape, per_channel)
    return m.node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], name + "_dq", axis=0)


def _dq_bias(m, name, count, input_scale, weight_scale):
    """An int32 bias dequantized by the input's scale times each channel's weight scale."""
    scale = (np.float32(input_scale) * np.broadcast_to(weight_scale, (count,))).astype(np.float32)
    _add(m, name + "_q", np.round(m.rng.standard_normal(count) * 0.1 / scale), np.int32)
    _add(m, name + "_s", scale, np.float32)
    _add(m, name + "_z", np.zeros(count), np.int32)
    return m.node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], name + "_dq", axis=0)


def qdq(model_class, rng):
    """Opset 13, QDQ pairs as quantizers write them: the input quantized to uint8, a Conv of
    per-channel int8 weights and an int32 bias, Relu; a Conv of per-tensor weights whose output is
    quantized to int8 and read by both a Conv and an Add (so its quantization stays a step of its
    own); MaxPool, Flatten and a Gemm of int8 weights, its output quantized last."""
    m = model_class(rng)
    x = _qdq(m, "x", "xq", 2.0 / 255, 128)
    w1_scale = _int8_weights(m, "w1", (8, 3, 3, 3), True)
    w1 = m.node("DequantizeLinear", ["w1_q", "w1_s", "w1_z"], "w1_dq", axis=0)
    x = m.node("Conv", [x, w1, _dq_bias(m, "b1", 8, 2.0 / 255, w1_scale)], "c1", pads=[1, 1, 1, 1])
    x = _qdq(m, m.node("Relu", [x], "r1"), "r1q", 3.0 / 255, 0)
    x = m.node("Conv", [x, _dq_weights(m, "w2", (8, 8, 3, 3), False)], "c2", pads=[1, 1, 1, 1])
    y = _qdq(m, x, "c2q", 4.0 / 127, 0, np.int8)
    z = m.node("Conv", [y, _dq_weights(m, "w3", (8, 8, 1, 1), True)], "c3")
    z = _qdq(m, z, "c3q", 4.0 / 127, 3, np.int8)
    x = _qdq(m, m.node("Add", [y, z], "sum"), "sumq", 6.0 / 255, 100)
    x = m.node("MaxPool", [x], "p1", kernel_shape=[2, 2], strides=[2, 2])
    x = m.node("Flatten", [x], "f", axis=1)
    x = m.node("Gemm", [x, _dq_weights(m, "fc", (10, 8 * 6 * 6), False)], "g", transB=1)
    x = _qdq(m, x, "gq", 8.0 / 255, 128)
    return m.build([2, 3, 12, 12], x, [2, 10], 13), (2, 3, 12, 12), 8.0 / 255


def qlinear(model_class, rng):
    """Opset 13, the QLinear ops: the input quantized to uint8, a QLinearConv of per-channel
    weights with an int32 bias, MaxPool and Reshape on the integers, a QLinearConv of per-tensor
    weights, a QLinearMatMul of per-column weights, and the output dequantized."""
    m = model_class(rng)
    _add(m, "xs", 2.0 / 255, np.float32), _add(m, "xz", 128, np.uint8)
    x = m.node("QuantizeLinear", ["x", "xs", "xz"], "xq")
    w1 = _int8_weights(m, "w1", (8, 3, 3, 3), True)
    _add(m, "b1", np.round(m.rng.standard_normal(8) * 0.1 / (2.0 / 255 * w1)), np.int32)
    _add(m, "y1s", 3.0 / 255, np.float32), _add(m, "y1z", 10, np.uint8)
    x = m.node("QLinearConv", [x, "xs", "xz", "w1_q", "w1_s", "w1_z", "y1s", "y1z", "b1"], "c1", pads=[1, 1, 1, 1])
    x = m.node("MaxPool", [x], "p1", kernel_shape=[2, 2], strides=[2, 2])
    _int8_weights(m, "w2", (6, 8, 3, 3), False)
    _add(m, "y2s", 5.0 / 255, np.float32), _add(m, "y2z", 100, np.uint8)
    x = m.node("QLinearConv", [x, "y1s", "y1z", "w2_q", "w2_s", "w2_z", "y2s", "y2z"], "c2", pads=[1, 1, 1, 1])
    x = m.node("Reshape", [x, m.integers("flat", [2, 6 * 6 * 6])], "f")
    k = m.rng.standard_normal((6 * 6 * 6, 10)) * 0.1
    scale = (np.abs(k).max(axis=0) / WEIGHT_LEVELS).astype(np.float32)
    _add(m, "fc_q", np.clip(np.round(k / scale), -WEIGHT_LEVELS, WEIGHT_LEVELS), np.int8)
    _add(m, "fc_s", scale, np.float32), _add(m, "fc_z", np.zeros(10), np.int8)
    _add(m, "ys", 8.0 / 255, np.float32), _add(m, "yz", 128, np.uint8)
    x = m.node("QLinearMatMul", [x, "y2s", "y2z", "fc_q", "fc_s", "fc_z", "ys", "yz"], "g")
    x = m.node("DequantizeLinear", [x, "ys", "yz"], "y")
    return m.build([2, 3, 12, 12], x, [2, 10], 13), (2, 3, 12, 12), 8.0 / 255


def _float_residual_net(model_class, rng):
    """Opset 13, float: Conv, Relu, a residual block (two Convs and an Add), GlobalAveragePool,
    Flatten and a Gemm: what quantize_static quantizes."""
    m = model_class(rng)
    x = m.node("Relu", [m.node("Conv", ["x", m.weight("w1", (16, 3, 3, 3)), m.weight("b1", (16,))], "c1",
                                       pads=[1, 1, 1, 1])], "r1")
    y = m.node("Relu", [m.node("Conv", [x, m.weight("w2", (16, 16, 3, 3), 0.1), m.weight("b2", (16,))], "c2",
                                       pads=[1, 1, 1, 1])], "r2")
    y = m.node("Conv", [y, m.weight("w3", (16, 16, 3, 3), 0.1), m.weight("b3", (16,))], "c3", pads=[1, 1, 1, 1])
    x = m.node("Relu", [m.node("Add", [x, y], "sum")], "r3")
    x = m.node("Flatten", [m.node("GlobalAveragePool", [x], "gap")], "f", axis=1)
    x = m.node("Gemm", [x, m.weight("fc", (10, 16)), m.weight("fcb", (10,))], "g", transB=1)
    return m.build([2, 3, 16, 16], x, [2, 10], 13)


def quantize_static(model_class, rng, per_channel):
    """_float_residual_net as onnxruntime's quantize_static writes it (QDQ, uint8 activations,
    int8 weights), calibrated by min-max on 8 random inputs."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType
    from onnxruntime.quantization import quantize_static as ort_quantize_static

    float_model = _float_residual_net(model_class, rng)
    images = [rng.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32) for _ in range(8)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter({"x": image} for image in images)

        def get_next(self):
            return next(self.feeds, None)

    with tempfile.TemporaryDirectory() as work:
        source, quantized = os.path.join(work, "float.onnx"), os.path.join(work, "quantized.onnx")
        onnx.save_model(float_model, source)
        ort_quantize_static(source, quantized, Reader(), quant_format=QuantFormat.QDQ, per_channel=per_channel,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=True)
        model = onnx.load(quantized)
    output = model.graph.output[0].name
    (last,) = [n for n in model.graph.node if output in n.output]
    if last.op_type != "DequantizeLinear":
        raise RuntimeError("quantize_static left the output unquantized (" + last.op_type + ")")
    (scale,) = [numpy_helper.to_array(t) for t in model.graph.initializer if t.name == last.input[1]]
    return model, (2, 3, 16, 16), float(scale)


def bad_quantized_models(model_class, rng, out_dir):
    """Quantized models cortado must refuse, naming the node: a Relu reading integers, a
    per-axis QuantizeLinear of computed data, a QuantizeLinear to int32, a scale of 0, a
    DequantizeLinear of float data and a graph whose output is integers."""
    def save(m, name, output_shape=(1, 2, 3, 3), opset=13):
        onnx.save_model(m.build([1, 2, 3, 3], "y", list(output_shape), opset), os.path.join(out_dir, name + ".onnx"))

    m = model_class(rng)
    _add(m, "s", 0.1, np.float32), _add(m, "z", 0, np.uint8)
    m.node("Relu", [m.node("QuantizeLinear", ["x", "s", "z"], "q")], "y")
    save(m, "bad_integer_relu")
    m = model_class(rng)
    _add(m, "s", [0.1, 0.2], np.float32), _add(m, "z", [0, 0], np.uint8)
    m.node("DequantizeLinear", [m.node("QuantizeLinear", ["x", "s", "z"], "q", axis=1), "s", "z"], "y", axis=1)
    save(m, "bad_axis_quantize")
    m = model_class(rng)
    _add(m, "s", 0.1, np.float32), _add(m, "z", 3, np.int32)
    m.node("DequantizeLinear", [m.node("QuantizeLinear", ["x", "s", "z"], "q"), "s", "z"], "y")
    save(m, "bad_quantize_type")
    m = model_class(rng)
    _add(m, "s", 0.0, np.float32), _add(m, "z", 0, np.uint8)
    m.node("DequantizeLinear", [m.node("QuantizeLinear", ["x", "s", "z"], "q"), "s", "z"], "y")
    save(m, "bad_scale")
    m = model_class(rng)
    _add(m, "s", 0.1, np.float32), _add(m, "z", 0, np.uint8)
    m.node("DequantizeLinear", ["x", "s", "z"], "y")
    save(m, "bad_float_dequantize")
    m = model_class(rng)
    _add(m, "s", 0.1, np.float32), _add(m, "z", 0, np.uint8)
    m.node("QuantizeLinear", ["x", "s", "z"], "y")
    save(m, "bad_integer_output")
