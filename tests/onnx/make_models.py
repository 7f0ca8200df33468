#!/usr/bin/env python3
"""Builds the ONNX test models with onnx's helpers, from a seed, and their expected outputs from
onnxruntime: for each model OUT/NAME.onnx, OUT/NAME.input.npy and OUT/NAME.expected.npy.

    make_models.py OUT_DIR [SEED]

Each model exercises ops and attributes of cortado's ONNX frontend (frontend/import_onnx.cc) at
an opset from 1 to the newest the onnx package defines. onnxruntime runs opsets from 7; a model
of an older opset gets its expected output from its twin written at opset 13 (the same network in
the newer ops' terms, as the ONNX changelog describes the changes)."""
import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

import quantized_models


class Model:
    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.initializers = [], []

    def weight(self, name, shape, scale=0.3):
        self.initializers.append(numpy_helper.from_array(
            (self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def constant(self, name, values):
        self.initializers.append(numpy_helper.from_array(np.asarray(values, dtype=np.float32), name))
        return name

    def node(self, op, inputs, output, **attributes):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output + "_node", **attributes))
        return output

    def integers(self, name, values):
        self.initializers.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
        return name

    def build(self, input_shape, output, output_shape, opset, ir_version=7):
        inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)]
        if ir_version < 4:  # IR 3 lists every initializer among the graph's inputs too
            inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in self.initializers]
        graph = helper.make_graph(
            self.nodes, "test", inputs, [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)],
            self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = ir_version
        return model


def classifier(rng):
    """Opset 11: Conv with pads and stride, Relu, MaxPool, Flatten, Gemm (transB, alpha, beta, a
    bias broadcast from 1 x N) and the pre-13 Softmax."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w1", (8, 3, 3, 3)), m.weight("b1", (8,))], "c1", pads=[1, 1, 1, 1])
    x = m.node("Relu", [x], "r1")
    x = m.node("Conv", [x, m.weight("w2", (6, 8, 3, 3)), m.weight("b2", (6,))], "c2", strides=[2, 2], pads=[1, 1, 1, 1])
    x = m.node("MaxPool", [x], "p1", kernel_shape=[2, 2], strides=[2, 2])
    x = m.node("Flatten", [x], "f", axis=1)
    x = m.node("Gemm", [x, m.weight("fc", (10, 6 * 4 * 4)), m.weight("fcb", (1, 10))], "g", transB=1, alpha=0.5,
               beta=2.0)
    x = m.node("Softmax", [x], "prob", axis=1)
    return m.build([2, 3, 16, 16], x, [2, 10], 11), (2, 3, 16, 16)


def normalised(rng):
    """Opset 13: grouped and dilated Conv without bias, BatchNormalization, LeakyRelu,
    AveragePool with count_include_pad, a ceil-mode MaxPool, GlobalAveragePool, MatMul, Softmax
    along the last axis."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w1", (8, 2, 3, 3))], "c1", group=2, dilations=[2, 2], pads=[2, 2, 2, 2])
    m.initializers.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "var"))
    x = m.node("BatchNormalization", [x, m.weight("gamma", (8,)), m.weight("beta", (8,)), m.weight("mean", (8,)),
                                      "var"], "bn", epsilon=1e-3)
    x = m.node("LeakyRelu", [x], "lr", alpha=0.2)
    x = m.node("AveragePool", [x], "ap", kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=1)
    x = m.node("MaxPool", [x], "mp", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    x = m.node("Conv", [x, m.weight("w2", (16, 8, 1, 1)), m.weight("b2", (16,))], "c2")
    x = m.node("GlobalAveragePool", [x], "gap")
    x = m.node("Flatten", [x], "f")
    x = m.node("MatMul", [x, m.weight("mm", (16, 5))], "mm_out")
    x = m.node("Softmax", [x], "prob", axis=-1)
    return m.build([1, 4, 13, 13], x, [1, 5], 13), (1, 4, 13, 13)


def branches(rng):
    """Opset 9: residual Add, Concat, LRN, Dropout, Identity, Reshape by a Constant shape (0 and
    -1), GlobalMaxPool, Gemm with B not transposed and a scalar C; weights in an external file."""
    m = Model(rng)
    a = m.node("Conv", ["x", m.weight("w1", (6, 3, 3, 3)), m.weight("b1", (6,))], "c1", pads=[1, 1, 1, 1])
    a = m.node("Relu", [a], "r1")
    b = m.node("Conv", [a, m.weight("w2", (6, 6, 3, 3)), m.weight("b2", (6,))], "c2", pads=[1, 1, 1, 1])
    s = m.node("Add", [a, b], "sum")
    c = m.node("Concat", [s, a], "cat", axis=1)
    c = m.node("LRN", [c], "lrn", size=3, alpha=1e-3, beta=0.75, bias=2.0)
    c = m.node("Dropout", [c], "drop")
    c = m.node("Identity", [c], "same")
    g = m.node("GlobalMaxPool", [c], "gmp")
    shape = m.node("Constant", [], "shape", value=numpy_helper.from_array(np.array([0, -1], dtype=np.int64)))
    r = m.node("Reshape", [g, shape], "flat")
    m.initializers.append(numpy_helper.from_array(np.array(0.25, dtype=np.float32), "scalar_c"))
    y = m.node("Gemm", [r, m.weight("fc", (12, 7)), "scalar_c"], "y")
    return m.build([2, 3, 9, 11], y, [2, 7], 9), (2, 3, 9, 11)


def same_padding(rng):
    """Opset 11: auto_pad SAME_UPPER and SAME_LOWER on Conv and MaxPool (even totals, so both
    ends alike), and the pre-13 Softmax over C x H x W of a 4-D tensor, which keeps its shape."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w1", (5, 3, 3, 3)), m.weight("b1", (5,))], "c1", auto_pad="SAME_UPPER")
    x = m.node("Conv", [x, m.weight("w2", (4, 5, 3, 3))], "c2", auto_pad="SAME_LOWER", strides=[2, 2])
    x = m.node("MaxPool", [x], "p", kernel_shape=[3, 3], auto_pad="SAME_UPPER")
    x = m.node("Softmax", [x], "prob", axis=1)
    return m.build([1, 3, 7, 7], x, [1, 4, 4, 4], 11), (1, 3, 7, 7)


def reshapes(rng):
    """Opset 13: Flatten at axis 2 (ONNX's result is always 2-D), MatMul on a 2-D and on a 3-D
    input (it multiplies the last axis), a Reshape whose constant shape spells out the batch."""
    m = Model(rng)
    x = m.node("Flatten", ["x"], "f", axis=2)
    x = m.node("MatMul", [x, m.weight("w1", (16, 5))], "m1")
    shape = m.node("Constant", [], "shape", value=numpy_helper.from_array(np.array([2, 3, 5], dtype=np.int64)))
    x = m.node("Reshape", [x, shape], "r")
    x = m.node("MatMul", [x, m.weight("w2", (5, 4))], "m2")
    return m.build([2, 3, 4, 4], x, [2, 3, 4], 13), (2, 3, 4, 4)


def arithmetic(rng):
    """Opset 13: Sigmoid, Tanh, Clip with min and max as inputs (and with max alone), and Add, Sub,
    Mul and Div by a scalar, per channel ([C,1,1] and [1,C,1,1]), along the last axis ([W]), over
    [H,W], with the constant first, and between two computed tensors."""
    m = Model(rng)
    a = m.node("Conv", ["x", m.weight("w1", (4, 3, 3, 3)), m.weight("b1", (4,))], "c1", pads=[1, 1, 1, 1])
    s = m.node("Sigmoid", [a], "sig")
    t = m.node("Tanh", [a], "tanh")
    per_channel = m.node("Mul", [s, m.weight("gain", (4, 1, 1), 1.0)], "per_channel")
    shifted = m.node("Add", [per_channel, m.constant("half", 0.5)], "shifted")
    flipped = m.node("Sub", [m.weight("offset", (1, 4, 1, 1), 1.0), t], "flipped")
    along_w = m.node("Div", [flipped, m.constant("divisors", rng.uniform(0.5, 2.0, 5))], "along_w")
    over_hw = m.node("Mul", [along_w, m.weight("plane", (6, 5), 1.0)], "over_hw")
    product = m.node("Mul", [shifted, over_hw], "product")
    difference = m.node("Sub", [product, t], "difference")
    denominator = m.node("Add", [s, m.constant("quarter", [0.25])], "denominator")
    quotient = m.node("Div", [difference, denominator], "quotient")
    clipped = m.node("Clip", [quotient, m.constant("low", -1.0), m.constant("high", 1.5)], "clipped")
    capped = m.node("Clip", [clipped, "", m.constant("cap", 1.25)], "capped")
    y = m.node("Conv", [capped, m.weight("w2", (3, 4, 3, 3)), m.weight("b2", (3,))], "y")
    return m.build([2, 3, 6, 5], y, [2, 3, 4, 3], 13), (2, 3, 6, 5)


def clip_attributes(rng):
    """Opset 10: Clip with min and max as attributes (ReLU6 after a Conv, as MobileNetV2 exports
    it), Clip with max alone, Sigmoid on a computed tensor, a Sub of two computed tensors, Pad
    with its pads and value as attributes."""
    m = Model(rng)
    a = m.node("Conv", ["x", m.weight("w1", (6, 3, 3, 3), 1.0), m.weight("b1", (6,))], "c1", pads=[1, 1, 1, 1])
    six = m.node("Clip", [a], "relu6", min=0.0, max=6.0)
    b = m.node("Conv", [six, m.weight("w2", (6, 6, 1, 1)), m.weight("b2", (6,))], "c2")
    capped = m.node("Clip", [b], "capped", max=0.5)
    gate = m.node("Sigmoid", [capped], "gate")
    difference = m.node("Sub", [six, gate], "difference")
    y = m.node("Pad", [difference], "y", mode="constant", pads=[0, 0, 1, 0, 0, 0, 0, 2], value=-0.25)
    return m.build([1, 3, 7, 9], y, [1, 6, 8, 11], 10), (1, 3, 7, 9)


def fused_activations(rng):
    """Opset 20: activations that fusion folds into the op before them: HardSwish after a Conv
    and its BatchNormalization (MobileNetV3), ReLU6 as Clip after a depthwise Conv (MobileNetV2),
    Sigmoid after a 1x1 Conv (a squeeze-and-excitation gate), Clip after a sum, Tanh after a
    Gemm, SiLU and HardSwish as x times its gate; and a Clip whose input is read twice, which
    stays."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w1", (8, 3, 3, 3)), m.weight("b1", (8,))], "c1", pads=[1, 1, 1, 1])
    m.initializers.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "var"))
    x = m.node("BatchNormalization", [x, m.weight("gamma", (8,)), m.weight("beta", (8,)), m.weight("mean", (8,)),
                                      "var"], "bn")
    x = m.node("HardSwish", [x], "hswish")
    x = m.node("Conv", [x, m.weight("wd", (8, 1, 3, 3), 1.5), m.weight("bd", (8,))], "dw", group=8, pads=[1, 1, 1, 1])
    x = m.node("Clip", [x, m.constant("zero", 0.0), m.constant("six", 6.0)], "relu6")
    gate = m.node("Sigmoid", [m.node("Conv", [x, m.weight("w2", (8, 8, 1, 1))], "c2")], "gate")
    x = m.node("Add", [x, gate], "sum")
    x = m.node("Clip", [x, m.constant("low", -0.5), m.constant("high", 1.5)], "clipped")
    read_twice = m.node("Conv", [x, m.weight("w3", (8, 8, 1, 1))], "c3")
    x = m.node("Mul", [read_twice, m.node("Clip", [read_twice, m.constant("cap", 0.0)], "capped")], "product")
    silu = m.node("Conv", [x, m.weight("w4", (8, 8, 1, 1))], "c4")
    x = m.node("Mul", [silu, m.node("Sigmoid", [silu], "silu_gate")], "silu")
    hswish = m.node("Conv", [x, m.weight("w5", (8, 8, 1, 1)), m.weight("b5", (8,))], "c5")
    x = m.node("Mul", [m.node("HardSigmoid", [hswish], "hswish_gate", alpha=1 / 6, beta=0.5), hswish], "hswish2")
    x = m.node("Flatten", [x], "f")
    x = m.node("Gemm", [x, m.weight("fc", (10, 8 * 6 * 7)), m.weight("fcb", (10,))], "g", transB=1)
    y = m.node("Tanh", [x], "t")
    y = m.node("Neg", [y], "y")
    return m.build([2, 3, 6, 7], y, [2, 10], 20), (2, 3, 6, 7)


def squeeze_excitation(rng):
    """Opset 17: a squeeze-and-excitation block (global pooling, two 1x1 Convs, Sigmoid, x times
    the (N, C, 1, 1) gate: one Scale kernel, no broadcast copy), residual Adds after a Conv (with
    a Relu, and without), a product by a computed (1, 1, H, 1) tensor (a Scale along H) and one
    by an (N, 1, H, 1) tensor, which varies along axes that are not one run of x's and stays a
    broadcast and a product."""
    m = Model(rng)
    x = m.node("Relu", [m.node("Conv", ["x", m.weight("w1", (8, 3, 3, 3)), m.weight("b1", (8,))], "c1",
                                pads=[1, 1, 1, 1])], "r1")
    s = m.node("GlobalAveragePool", [x], "squeeze")
    s = m.node("Relu", [m.node("Conv", [s, m.weight("wfc1", (4, 8, 1, 1)), m.weight("fb1", (4,))], "fc1")], "fr")
    s = m.node("Sigmoid", [m.node("Conv", [s, m.weight("wfc2", (8, 4, 1, 1)), m.weight("fb2", (8,))], "fc2")], "gate")
    x = m.node("Mul", [x, s], "excited")
    c2 = m.node("Conv", [x, m.weight("w2", (8, 8, 3, 3)), m.weight("b2", (8,))], "c2", pads=[1, 1, 1, 1])
    x = m.node("Relu", [m.node("Add", [c2, x], "sum1")], "r2")
    x = m.node("Add", [x, m.node("Conv", [x, m.weight("w3", (8, 8, 1, 1))], "c3")], "sum2")
    rows = m.node("ReduceMean", [x], "rows", axes=[0, 1, 3], keepdims=1)
    x = m.node("Mul", [rows, x], "by_rows")
    images_rows = m.node("ReduceMean", [x], "images_rows", axes=[1, 3], keepdims=1)
    y = m.node("Mul", [x, images_rows], "y")
    return m.build([2, 3, 6, 7], y, [2, 8, 6, 7], 17), (2, 3, 6, 7)


def padding(rng):
    """Opset 13: Pad with pads and constant_value as inputs (and without the value), Conv with
    asymmetric pads, a depthwise Conv with auto_pad VALID, and SAME_UPPER and SAME_LOWER that pad
    unevenly."""
    m = Model(rng)
    pads = m.node("Constant", [], "pads", value=numpy_helper.from_array(np.array([0, 0, 1, 2, 0, 0, 0, 1], np.int64)))
    x = m.node("Pad", ["x", pads, m.constant("fill", 0.5)], "padded")
    x = m.node("Conv", [x, m.weight("w1", (4, 3, 3, 3)), m.weight("b1", (4,))], "c1", pads=[0, 1, 1, 0])
    x = m.node("Conv", [x, m.weight("depthwise", (4, 1, 3, 3)), m.weight("bd", (4,))], "dw", group=4,
               auto_pad="VALID")
    x = m.node("Conv", [x, m.weight("w2", (4, 4, 2, 2))], "c2", auto_pad="SAME_UPPER")
    x = m.node("Conv", [x, m.weight("w3", (5, 4, 3, 3)), m.weight("b3", (5,))], "c3", auto_pad="SAME_LOWER",
               strides=[2, 2])
    more = m.node("Constant", [], "more", value=numpy_helper.from_array(np.array([0, 0, 0, 0, 0, 0, 2, 1], np.int64)))
    y = m.node("Pad", [x, more], "y")
    return m.build([1, 3, 8, 7], y, [1, 5, 5, 5], 13), (1, 3, 8, 7)


def transposed_gemm(rng):
    """Opset 13: Gemm with transA (the input read transposed), with and without transB, a fused
    Relu, alpha and beta; 40 rows then 3, for the GPU GEMM's square and skinny forms; C of shape
    M x 1 and M x N."""
    m = Model(rng)
    x = m.node("Gemm", ["x", m.weight("b1", (6, 3)), m.weight("c1", (3,))], "g1", transA=1)
    x = m.node("Relu", [x], "r1")
    x = m.node("Gemm", [x, m.weight("b2", (4, 40)), m.weight("c2", (1, 4))], "g2", transA=1, transB=1, alpha=0.5,
               beta=2.0)
    x = m.node("Gemm", [x, m.weight("b3", (4, 5)), m.weight("c3", (3, 1))], "g3", beta=0.5)
    y = m.node("Gemm", [x, m.weight("b4", (5, 2)), m.weight("c4", (3, 2))], "y")
    return m.build([6, 40], y, [3, 2], 13), (6, 40)


def pooling_pads(rng):
    """Opset 11: pooling with asymmetric pads (given, and from an uneven auto_pad),
    count_include_pad 0 and 1, and ceil_mode where the last window would start in the padding."""
    m = Model(rng)
    x = m.node("AveragePool", ["x"], "exclusive", kernel_shape=[3, 3], pads=[1, 0, 0, 1], count_include_pad=0)
    x = m.node("AveragePool", [x], "inclusive", kernel_shape=[3, 2], strides=[2, 2], pads=[0, 1, 1, 0],
               count_include_pad=1, ceil_mode=1)
    a = m.node("MaxPool", [x], "max_ceil", kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)
    b = m.node("MaxPool", [x], "max_lower", kernel_shape=[2, 2], auto_pad="SAME_LOWER")
    b = m.node("AveragePool", [b], "ave_upper", kernel_shape=[2, 2], auto_pad="SAME_UPPER", count_include_pad=0)
    b = m.node("AveragePool", [b], "ave_down", kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1],
               count_include_pad=1, ceil_mode=1)
    y = m.node("Concat", [a, b], "y", axis=1)
    return m.build([2, 3, 9, 9], y, [2, 6, 3, 3], 11), (2, 3, 9, 9)


def far_pads(rng):
    """Opset 11: pads only at the far end with ceil_mode, where the rounded-up last window would
    start in the padding: onnxruntime drops it (onnx's static shape inference keeps it, so the
    declared output shape is onnxruntime's)."""
    m = Model(rng)
    x = m.node("AveragePool", ["x"], "average", kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1],
               count_include_pad=0, ceil_mode=1)
    y = m.node("MaxPool", [x], "y", kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1)
    return m.build([2, 3, 8, 8], y, [2, 3, 2, 2], 11), (2, 3, 8, 8)


def legacy(rng, opset=1):
    """Opset 1 (IR 3): Add with the legacy broadcast (a per-channel B at axis 1), Relu and
    BatchNormalization with consumed_inputs and is_test, Concat without an axis (1 by default),
    Reshape with its shape as an attribute, the pre-13 Softmax. At opset 13: its twin."""
    m = Model(rng)
    modern = opset >= 7
    x = m.node("Conv", ["x", m.weight("w1", (4, 3, 3, 3))], "c1", pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    if modern:
        x = m.node("Add", [x, m.weight("b1", (1, 4, 1, 1))], "a1")
    else:
        x = m.node("Add", [x, m.weight("b1", (4,))], "a1", broadcast=1, axis=1)
    m.initializers.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(np.float32), "var"))
    bn_inputs = [x, m.weight("gamma", (4,)), m.weight("beta", (4,)), m.weight("mean", (4,)), "var"]
    if modern:
        x = m.node("BatchNormalization", bn_inputs, "bn", epsilon=1e-3)
        x = m.node("Relu", [x], "r1")
    else:
        x = m.node("BatchNormalization", bn_inputs, "bn", epsilon=1e-3, is_test=1, consumed_inputs=[0, 0, 0, 1, 1])
        x = m.node("Relu", [x], "r1", consumed_inputs=[0])
    x = m.node("MaxPool", [x], "p1", kernel_shape=[2, 2], strides=[2, 2])
    x = m.node("Concat", [x, x], "cat", **({"axis": 1} if modern else {}))
    if modern:
        x = m.node("Reshape", [x, m.integers("shape", [2, -1])], "flat")
    else:
        x = m.node("Reshape", [x], "flat", shape=[2, -1])
    y = m.node("Softmax", [x], "prob")
    return m.build([2, 3, 6, 6], y, [2, 72], opset, 3 if opset < 7 else 7), (2, 3, 6, 6)


def legacy_six(rng, opset=6):
    """Opset 6 (IR 3): Dropout with is_test, Mul by a scalar with broadcast=1, Sum of three
    tensors, Clip with attributes, Pad with `pads` as an attribute, Gemm with broadcast=1. At
    opset 13: its twin."""
    m = Model(rng)
    modern = opset >= 7
    a = m.node("Conv", ["x", m.weight("w1", (4, 3, 3, 3))], "c1", pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    a = m.node("Dropout", [a], "drop", **({} if modern else {"is_test": 1}))
    b = m.node("Mul", [a, m.constant("half", [0.5])], "half_a", **({} if modern else {"broadcast": 1}))
    c = m.node("Sigmoid", [a], "gate")
    s = m.node("Sum", [a, b, c], "sum")
    if modern:
        s = m.node("Clip", [s, m.constant("low", -0.5), m.constant("high", 1.0)], "clip")
        s = m.node("Pad", [s, m.integers("pads", [0, 0, 1, 0, 0, 0, 0, 1]), m.constant("fill", 0.25)], "pad")
    else:
        s = m.node("Clip", [s], "clip", min=-0.5, max=1.0)
        s = m.node("Pad", [s], "pad", pads=[0, 0, 1, 0, 0, 0, 0, 1], value=0.25)
    s = m.node("GlobalAveragePool", [s], "gap")
    s = m.node("Flatten", [s], "flat")
    y = m.node("Gemm", [s, m.weight("fc", (4, 5)), m.weight("fcb", (5,))], "y",
               **({} if modern else {"broadcast": 1}))
    return m.build([2, 3, 5, 5], y, [2, 5], opset, 3 if opset < 7 else 7), (2, 3, 5, 5)


def folded(rng):
    """Opset 13: what exporters write that cortado evaluates at import. A flatten by Shape ->
    Gather -> Unsqueeze -> Concat -> Reshape; a weight made by Mul of two initializers and a
    Transpose; a bias made by ConstantOfShape; per-channel scales picked by Gather with a Range
    of indices and shaped by Unsqueeze; a Cast of an integer bound; Dropout with its mask output
    listed and a ratio input; an Identity chain."""
    m = Model(rng)
    stored = m.weight("stored", (3, 3, 3, 6))  # kept as (kh, kw, ci, co): transposed below
    w = m.node("Transpose", [stored], "w_t", perm=[3, 2, 0, 1])
    w = m.node("Mul", [w, m.constant("w_scale", 0.5)], "w_scaled")
    bias = m.node("ConstantOfShape", [m.integers("bias_shape", [6])], "bias",
                  value=numpy_helper.from_array(np.array([0.125], dtype=np.float32)))
    x = m.node("Conv", ["x", w, bias], "c1", pads=[1, 1, 1, 1])
    indices = m.node("Range", [m.integers("r_start", 0), m.integers("r_limit", 12), m.integers("r_step", 2)],
                     "indices")
    scales = m.node("Gather", [m.weight("table", (12,), 1.0), indices], "scales", axis=0)
    scales = m.node("Unsqueeze", [scales, m.integers("unsqueeze_axes", [1, 2])], "scales_c11")
    x = m.node("Mul", [x, scales], "scaled")
    bound = m.node("Cast", [m.integers("int_bound", 2)], "bound", to=TensorProto.FLOAT)
    x = m.node("Clip", [x, "", bound], "clipped")
    m.nodes.append(helper.make_node("Dropout", [x, m.constant("ratio", 0.25)], ["dropped", "mask"], name="dropout"))
    x = m.node("Identity", ["dropped"], "same")
    x = m.node("Identity", [x], "same_again")
    shape = m.node("Shape", [x], "shape")
    batch = m.node("Gather", [shape, m.integers("zero", 0)], "batch", axis=0)
    batch = m.node("Unsqueeze", [batch, m.integers("axis0", [0])], "batch_1")
    target = m.node("Concat", [batch, m.integers("minus_one", [-1])], "target", axis=0)
    x = m.node("Reshape", [x, target], "flat")
    y = m.node("MatMul", [x, m.weight("fc", (6 * 5 * 5, 4))], "y")
    return m.build([2, 3, 5, 5], y, [2, 4], 13), (2, 3, 5, 5)


def newest(rng, opset=28):
    """The newest opset the onnx package defines (and 18): Pad with an axes input, Conv, Relu,
    MaxPool, Flatten, Gemm, Softmax."""
    m = Model(rng)
    x = m.node("Pad", ["x", m.integers("pads", [1, 2, 0, 1]), m.constant("fill", 0.0), m.integers("axes", [2, 3])],
               "padded")
    x = m.node("Conv", [x, m.weight("w1", (5, 3, 3, 3)), m.weight("b1", (5,))], "c1")
    x = m.node("Relu", [x], "r1")
    x = m.node("MaxPool", [x], "p1", kernel_shape=[2, 2], strides=[2, 2])
    x = m.node("Flatten", [x], "f")
    x = m.node("Gemm", [x, m.weight("fc", (3, 5 * 2 * 3)), m.weight("fcb", (3,))], "g", transB=1)
    y = m.node("Softmax", [x], "prob", axis=-1)
    return m.build([1, 3, 5, 6], y, [1, 3], opset), (1, 3, 5, 6)


def activations(rng, opset=20):
    """Opset 20: every element-wise activation and PRelu (per channel and shared), each on the
    input or on values in its domain, summed by one Sum."""
    m = Model(rng)
    ex = m.node("Exp", ["x"], "ex")
    soft = m.node("Softplus", ["x"], "soft")
    terms = [
        m.node("HardSigmoid", ["x"], "hsig", alpha=0.3, beta=0.4),
        m.node("HardSwish", ["x"], "hswish"),
        m.node("Elu", ["x"], "elu", alpha=0.7),
        m.node("Selu", ["x"], "selu"),
        soft,
        m.node("Log", [ex], "log"),
        m.node("Sqrt", [soft], "sqrt"),
        m.node("Reciprocal", [ex], "recip"),
        m.node("Neg", ["x"], "neg"),
        m.node("Pow", [soft, m.constant("exponent", 1.5)], "pow"),
        m.node("Abs", ["x"], "abs"),
        m.node("Erf", ["x"], "erf"),
        m.node("Gelu", ["x"], "gelu"),
        m.node("Gelu", ["x"], "gelu_tanh", approximate="tanh"),
        m.node("PRelu", ["x", m.weight("slope", (3, 1, 1))], "prelu"),
        m.node("PRelu", ["x", m.constant("shared", [0.2])], "prelu_shared"),
        m.node("LeakyRelu", ["x"], "leaky", alpha=0.3),
    ]
    y = m.node("Sum", terms, "y")
    return m.build([2, 3, 4, 5], y, [2, 3, 4, 5], opset), (2, 3, 4, 5)


def hvx_sample(rng, opset=13):
    """One node of each HVX schedule that activations and resized use (an activation, Pad,
    Resize linear and nearest, a reduction, broadcasting, ConvTranspose): the HVX compile test
    compiles this rather than those, since each HVX kernel takes seconds to compile."""
    m = Model(rng)
    p = m.node("Pad", ["x", m.integers("pads", [0, 0, 1, 2, 0, 0, 2, 1])], "reflected", mode="reflect")  # 1x3x8x9
    r1 = m.node("Resize", [p, "", "", m.integers("size", [1, 3, 11, 13])], "linear", mode="linear")
    r2 = m.node("Resize", [p, "", "", m.integers("size2", [1, 3, 11, 13])], "nearest", mode="nearest")
    s = m.node("Add", [m.node("Erf", [r1], "erf"), r2], "s")
    t = m.node("Mul", [s, m.node("ReduceMean", [s], "rows", axes=[2])], "t")  # 1x3x1x13, broadcast
    y = m.node("ConvTranspose", [t, m.weight("t1", (3, 2, 3, 3))], "y", strides=[2, 2])
    return m.build([1, 3, 5, 6], y, [1, 2, 23, 27], opset), (1, 3, 5, 6)


def rearranged(rng, opset=13):
    """Data movement and broadcasting between computed tensors: a squeeze-and-excitation block
    (GlobalAveragePool, 1x1 Convs, HardSigmoid, Mul of N x C x 1 x 1 by N x C x H x W), ShuffleNet's
    channel shuffle (Reshape, Transpose, Reshape), PixelShuffle through 6-D, Split (sizes; equal
    pieces by num_outputs from 18), Slice with negative and positive steps, Expand, variadic Max
    and Mean with broadcasting, and Concat along the width."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w0", (8, 4, 3, 3)), m.weight("b0", (8,))], "c0", pads=[1, 1, 1, 1])
    squeeze = m.node("GlobalAveragePool", [x], "squeeze")
    s = m.node("Conv", [squeeze, m.weight("w1", (2, 8, 1, 1)), m.weight("b1", (2,))], "se1")
    s = m.node("Relu", [s], "se_relu")
    s = m.node("Conv", [s, m.weight("w2", (8, 2, 1, 1)), m.weight("b2", (8,))], "se2")
    s = m.node("HardSigmoid", [s], "se_gate")
    x = m.node("Mul", [x, s], "excited")                                   # 1x8x6x6 * 1x8x1x1
    x = m.node("Reshape", [x, m.integers("groups", [1, 2, 4, 6, 6])], "grouped")
    x = m.node("Transpose", [x], "shuffled", perm=[0, 2, 1, 3, 4])
    x = m.node("Reshape", [x, m.integers("flat", [1, 8, 6, 6])], "shuffle")
    # PixelShuffle by 2: 1x8x6x6 -> 1x2x2x2x6x6 -> 1x2x6x2x6x2 -> 1x2x12x12
    p = m.node("Reshape", [x, m.integers("six", [1, 2, 2, 2, 6, 6])], "six_d")
    p = m.node("Transpose", [p], "pixel_perm", perm=[0, 1, 4, 2, 5, 3])
    p = m.node("Reshape", [p, m.integers("pixels", [1, 2, 12, 12])], "pixel_shuffle")
    if opset >= 18:
        m.nodes.append(onnx.helper.make_node("Split", [p], ["a", "b"], name="split_node", axis=2, num_outputs=2))
    else:
        m.nodes.append(onnx.helper.make_node("Split", [p, m.integers("sizes", [6, 6])], ["a", "b"],
                                             name="split_node", axis=2))
    r = m.node("Slice", ["a", m.integers("rstarts", [-1, 11]), m.integers("rends", [-100, -100]),
                         m.integers("raxes", [2, 3]), m.integers("rsteps", [-1, -1])], "reversed")
    t = m.node("Slice", ["b", m.integers("tstarts", [0]), m.integers("tends", [12]), m.integers("taxes", [3]),
                         m.integers("tsteps", [2])], "strided")
    t = m.node("Concat", [t, t], "strided_twice", axis=3)
    row = m.node("GlobalAveragePool", [p], "row")
    e = m.node("Expand", [row, m.integers("wide", [1, 1, 1, 12])], "expanded")
    mx = m.node("Max", [r, t, e], "most")
    mean = m.node("Mean", [mx, row], "mean")
    y = m.node("Concat", [mean, "b"], "y", axis=3)
    return m.build([1, 4, 6, 6], y, [1, 2, 6, 24], opset), (1, 4, 6, 6)


def resized(rng, opset=13):
    """Resize (linear and nearest, through sizes and scales, four coordinate transformations and
    two roundings), Pad in reflect and edge modes, ReduceMean, ReduceMax, ReduceSum and ReduceL2
    over several axes, broadcasting, a constant divided by data, Concat with a constant, and
    ConvTranspose (asymmetric pads, output_padding, dilation, SAME_UPPER)."""
    m = Model(rng)
    p1 = m.node("Pad", ["x", m.integers("pads1", [0, 0, 1, 2, 0, 0, 2, 1])], "reflected", mode="reflect")
    p2 = m.node("Pad", ["x", m.integers("pads2", [0, 0, 2, 0, 0, 0, 0, 3])], "edged", mode="edge")
    size = m.integers("size", [1, 3, 11, 13])
    r1 = m.node("Resize", [p1, "", "", size], "linear", mode="linear")
    r2 = m.node("Resize", [p2, "", m.constant("scales", [1, 1, 2, 1.5])], "nearest", mode="nearest",
                coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    r3 = m.node("Resize", ["x", "", "", size], "corners", mode="linear", coordinate_transformation_mode="align_corners")
    r4 = m.node("Resize", ["x", "", "", size], "nearest_ceil", mode="nearest", nearest_mode="round_prefer_ceil")
    r5 = m.node("Resize", ["x", "", "", size], "torch", mode="linear",
                coordinate_transformation_mode="pytorch_half_pixel")
    total = m.node("Sum", [r1, r3, r4, r5], "total")
    rows = m.node("ReduceMean", [r2], "rows", axes=[2])                    # 1x3x1x13
    t = m.node("Add", [total, rows], "t")
    l2 = m.node("ReduceL2", [t], "l2", axes=[2, 3])                        # 1x3x1x1
    u = m.node("Mul", [t, l2], "u")
    most = m.node("ReduceMax", [u], "most", axes=[1])                      # 1x1x11x13
    denominator = m.node("Add", [m.node("Abs", [most], "magnitude"), m.constant("one", 1.0)], "denominator")
    q = m.node("Div", [m.weight("numerator", (1, 1, 11, 13)), denominator], "q")
    sums = m.node("ReduceSum", [u, m.integers("channel", [1])], "sums")    # 1x1x11x13
    x = m.node("Concat", [q, sums, m.weight("extra", (1, 2, 11, 13))], "joined", axis=1)
    x = m.node("ConvTranspose", [x, m.weight("t1", (4, 3, 3, 3)), m.weight("tb1", (3,))], "up1", strides=[2, 2],
               pads=[1, 0, 0, 1], output_padding=[1, 0])
    y = m.node("ConvTranspose", [x, m.weight("t2", (3, 2, 2, 2))], "up2", group=1, dilations=[2, 1],
               auto_pad="SAME_UPPER", strides=[1, 2])
    return m.build([1, 3, 5, 6], y, [1, 2, 23, 52], opset), (1, 3, 5, 6)


def one_dimensional(rng, opset=13):
    """A 1-D Conv (pads, stride), Relu, MaxPool, AveragePool (count_include_pad=0) and ConvTranspose
    (stride, output_padding), as 2-D with a unit height."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w", (4, 3, 3)), m.weight("b", (4,))], "c", pads=[1, 1], strides=[2])
    x = m.node("Relu", [x], "r")
    x = m.node("MaxPool", [x], "p", kernel_shape=[2], strides=[2])
    x = m.node("AveragePool", [x], "a", kernel_shape=[3], pads=[1, 1])
    y = m.node("ConvTranspose", [x, m.weight("t", (4, 2, 3)), m.weight("tb", (2,))], "up", strides=[2],
               output_padding=[1])
    return m.build([2, 3, 20], y, [2, 2, 12], opset), (2, 3, 20)


def normalisations(rng, opset=17):
    """InstanceNormalization (per-channel scale and bias) and LayerNormalization over the last
    two axes (opset 17), after a convolution."""
    m = Model(rng)
    x = m.node("Conv", ["x", m.weight("w", (4, 3, 3, 3)), m.weight("b", (4,))], "c", pads=[1, 1, 1, 1])
    # The instance scale is kept away from 0: a channel whose scale is 1/100 of its bias reaches
    # the LayerNormalization as an offset with little spread, and centring it in float loses
    # |bias| / |scale| of float's precision, past the 1e-5 every blob is held to, as any fp32
    # implementation does.
    scale = rng.choice([-1.0, 1.0], 4) * rng.uniform(0.15, 0.45, 4)
    x = m.node("InstanceNormalization", [x, m.constant("s1", scale), m.weight("b1", (4,))], "instance", epsilon=1e-3)
    y = m.node("LayerNormalization", [x, m.weight("s2", (5, 6)), m.weight("b2", (5, 6))], "layer", axis=-2)
    return m.build([2, 3, 5, 6], y, [2, 4, 5, 6], opset), (2, 3, 5, 6)


def log_softmaxes(rng, opset=13):
    """LogSoftmax along a middle axis of logits of +-100 (a Log of a Softmax gives -inf there), and
    along the default axis (from opset 13 the last; before it the flattened axes from 1 on), then
    a variadic Min with a broadcast constant."""
    m = Model(rng)
    big = m.node("Mul", ["x", m.constant("hundred", [100.0])], "big")
    a = m.node("LogSoftmax", [big], "a", axis=1)
    b = m.node("LogSoftmax", ["x"], "b")
    y = m.node("Min", [a, b, m.weight("floor", (5,), scale=3.0)], "y")
    return m.build([2, 3, 4, 5], y, [2, 3, 4, 5], opset), (2, 3, 4, 5)


def batched_matmul(rng, opset=13):
    """MatMul by constants with batch axes, numpy's way: one matrix per channel (B 3 x 5 x 6), B
    with a leading 1 (a 2-D B), a matrix per batch and channel (B 2 x 3 x 2 x 3), one per batch
    repeated along the channels (B 2 x 1 x 3 x 2), and a vector."""
    m = Model(rng)
    y = m.node("MatMul", ["x", m.weight("per_channel", (3, 5, 6))], "per_channel_product")
    y = m.node("MatMul", [y, m.weight("shared", (1, 6, 2))], "shared_product")
    y = m.node("MatMul", [y, m.weight("per_plane", (2, 3, 2, 3))], "per_plane_product")
    y = m.node("MatMul", [y, m.weight("repeated", (2, 1, 3, 2))], "repeated_product")
    y = m.node("MatMul", [y, m.weight("vector", (2,))], "y")
    return m.build([2, 3, 4, 5], y, [2, 3, 4], opset), (2, 3, 4, 5)


def bad_models(out_dir, rng):
    """Models cortado must refuse with a message naming the node: an op it lacks, an opset beyond
    the newest, a Dropout whose mask is used, a constant Gather out of range, a Gather of computed
    data, two graph inputs, a dimension left open, an initializer of the wrong size, reflect pads
    larger than the plane, a Conv bias of the wrong size, a constant that does not broadcast
    against the data, a cubic Resize, a MatMul whose batch axes do not broadcast, two ops it lacks
    (named at once); and the quantized ones of quantized_models.bad_quantized_models."""
    m = Model(rng)
    m.node("Sin", ["x"], "y")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 13), os.path.join(out_dir, "bad_op.onnx"))
    m = Model(rng)
    m.node("Relu", ["x"], "y")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 29), os.path.join(out_dir, "bad_opset.onnx"))
    m = Model(rng)
    m.nodes.append(helper.make_node("Dropout", ["x"], ["d", "mask"], name="y_node"))
    m.node("Add", ["d", "mask"], "y")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 9), os.path.join(out_dir, "bad_mask.onnx"))
    m = Model(rng)
    picked = m.node("Gather", [m.weight("table", (4,)), m.integers("index", [5])], "picked")
    m.node("Mul", ["x", picked], "y")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 13), os.path.join(out_dir, "bad_gather.onnx"))
    m = Model(rng)
    m.node("Gather", ["x", m.integers("index", [0])], "y", axis=1)
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 1, 3, 3], 13), os.path.join(out_dir, "bad_computed_gather.onnx"))
    m = Model(rng)
    m.node("Add", ["x", "x2"], "y")
    model = m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 13)
    model.graph.input.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, [1, 2, 3, 3]))
    onnx.save_model(model, os.path.join(out_dir, "bad_two_inputs.onnx"))
    m = Model(rng)
    m.node("Relu", ["x"], "y")
    onnx.save_model(m.build([1, 2, "height", 3], "y", [1, 2, "height", 3], 13), os.path.join(out_dir, "bad_open.onnx"))
    m = Model(rng)
    m.node("Conv", ["x", m.weight("w", (4, 2, 3, 3))], "y")
    model = m.build([1, 2, 5, 5], "y", [1, 4, 3, 3], 13)
    model.graph.initializer[0].raw_data = model.graph.initializer[0].raw_data[:-8]
    onnx.save_model(model, os.path.join(out_dir, "bad_weights.onnx"))
    m = Model(rng)
    pads = m.node("Constant", [], "pads", value=numpy_helper.from_array(np.array([0, 0, 5, 1, 0, 0, 1, 1], np.int64)))
    m.node("Pad", ["x", pads], "y", mode="reflect")
    onnx.save_model(m.build([1, 2, 5, 5], "y", [1, 2, 11, 7], 13), os.path.join(out_dir, "bad_reflect.onnx"))
    m = Model(rng)
    m.node("Mul", ["x", m.weight("w", (4, 1, 3))], "y")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 13), os.path.join(out_dir, "bad_broadcast.onnx"))
    m = Model(rng)
    m.node("Resize", ["x", "", m.constant("scales", [1, 1, 2, 2])], "y", mode="cubic")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 6, 6], 13), os.path.join(out_dir, "bad_cubic.onnx"))
    m = Model(rng)
    m.node("MatMul", ["x", m.weight("w", (3, 5, 6))], "y")
    onnx.save_model(m.build([1, 4, 3, 5], "y", [1, 4, 3, 6], 13), os.path.join(out_dir, "bad_matmul.onnx"))
    m = Model(rng)
    m.node("Conv", ["x", m.weight("w", (4, 2, 3, 3)), m.weight("b", (5,))], "y")
    onnx.save_model(m.build([1, 2, 5, 5], "y", [1, 4, 3, 3], 13), os.path.join(out_dir, "bad_bias.onnx"))
    m = Model(rng)
    m.node("Relu", [m.node("Sin", ["x"], "s")], "r")
    m.node("Add", ["r", m.node("Cos", ["x"], "c")], "y")
    onnx.save_model(m.build([1, 2, 3, 3], "y", [1, 2, 3, 3], 13), os.path.join(out_dir, "bad_two_ops.onnx"))
    quantized_models.bad_quantized_models(Model, rng, out_dir)


def main(out_dir, seed):
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    makers = [(f.__name__, f) for f in (classifier, normalised, branches, same_padding, reshapes, arithmetic,
                                         clip_attributes, padding, pooling_pads, far_pads, transposed_gemm, legacy,
                                         legacy_six, folded, newest, activations)]
    makers.append(("newest_18", lambda rng: newest(rng, 18)))
    makers.append(("rearranged", rearranged))
    makers.append(("resized", resized))
    makers.append(("one_dimensional", one_dimensional))
    makers.append(("normalisations", normalisations))
    makers.append(("rearranged_18", lambda rng: rearranged(rng, 18)))
    makers.append(("log_softmaxes", log_softmaxes))
    makers.append(("log_softmaxes_11", lambda rng: log_softmaxes(rng, 11)))
    makers.append(("batched_matmul", batched_matmul))
    makers.append(("fused_activations", fused_activations))
    makers.append(("squeeze_excitation", squeeze_excitation))
    makers.append(("qdq", lambda rng: quantized_models.qdq(Model, rng)))
    makers.append(("qlinear", lambda rng: quantized_models.qlinear(Model, rng)))
    makers.append(("quantize_static", lambda rng: quantized_models.quantize_static(Model, rng, False)))
    makers.append(("quantize_static_per_channel", lambda rng: quantized_models.quantize_static(Model, rng, True)))
    makers.append(("hvx_sample", hvx_sample))
    for name, make in makers:
        state = rng.bit_generator.state
        model, input_shape, *step = make(rng)
        if step:  # a quantized model: the scale of its output's last quantization
            with open(os.path.join(out_dir, name + ".step"), "w") as f:
                f.write(repr(step[0]) + "\n")
        onnx.checker.check_model(model)
        peer = model
        if model.opset_import[0].version < 7:  # onnxruntime runs its twin at opset 13
            twin_rng = np.random.default_rng()
            twin_rng.bit_generator.state = state
            peer, _ = make(twin_rng, 13)
            onnx.checker.check_model(peer)
        path = os.path.join(out_dir, name + ".onnx")
        if name == "branches":  # weights in a file beside the model, as large exports keep them
            onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                            location=name + ".weights", size_threshold=0)
        else:
            onnx.save_model(model, path)
        x = rng.uniform(-1, 1, input_shape).astype(np.float32)
        session = onnxruntime.InferenceSession(path if peer is model else peer.SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        (expected,) = session.run(None, {"x": x})
        np.save(os.path.join(out_dir, name + ".input.npy"), x)
        np.save(os.path.join(out_dir, name + ".expected.npy"), expected.astype(np.float32))
        print(name, expected.shape)
    bad_models(out_dir, rng)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 1)
