#!/usr/bin/env python3
"""Writes the non-finite cases of ONNX ops that no Caffe layer expresses, one per file, next to
this script (the .onnx files here are its output, kept so that every suite can run them without
Python):

    .venv/bin/python tests/non_finite/make_onnx_cases.py"""
import os

import onnx
from onnx import TensorProto, helper

SHAPE = [2, 8, 9, 19]
CASES = {
    "hard_sigmoid": ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}),
    "hard_swish": ("HardSwish", {}),
    "selu": ("Selu", {}),
    "softplus": ("Softplus", {}),
    "sqrt": ("Sqrt", {}),
    "reciprocal": ("Reciprocal", {}),
    "erf": ("Erf", {}),
    "gelu": ("Gelu", {}),
    "gelu_tanh": ("Gelu", {"approximate": "tanh"}),
}


# Data movement and broadcasting between computed tensors, several nodes each.
GRAPHS = {
    "transpose": [helper.make_node("Transpose", ["data"], ["a"], name="a", perm=[0, 2, 3, 1])],
    "broadcast_mul": [helper.make_node("GlobalAveragePool", ["data"], ["g"], name="g"),
                      helper.make_node("Mul", ["data", "g"], ["a"], name="a")],
    "resize_linear": [helper.make_node("Resize", ["data", "", "scales"], ["a"], name="a", mode="linear")],
    "resize_nearest": [helper.make_node("Resize", ["data", "", "scales"], ["a"], name="a", mode="nearest")],
    "pad_reflect": [helper.make_node("Pad", ["data", "pads"], ["a"], name="a", mode="reflect")],
    # A sum with its activation fused (the importer makes the HardSwish, which the output does not
    # name, act in place).
    "eltwise_sum_hard_swish": [helper.make_node("Neg", ["data"], ["n"], name="n"),
                               helper.make_node("Add", ["data", "n"], ["s"], name="s"),
                               helper.make_node("HardSwish", ["s"], ["h"], name="h"),
                               helper.make_node("Neg", ["h"], ["a"], name="a")],
    # SiLU as exporters write it, x times its Sigmoid: one Silu kernel, and one fused into a sum.
    "silu": [helper.make_node("Neg", ["data"], ["n"], name="n"),
             helper.make_node("Sigmoid", ["n"], ["g"], name="g"),
             helper.make_node("Mul", ["n", "g"], ["a"], name="a")],
    "eltwise_sum_silu": [helper.make_node("Neg", ["data"], ["n"], name="n"),
                         helper.make_node("Add", ["data", "n"], ["s"], name="s"),
                         helper.make_node("Sigmoid", ["s"], ["g"], name="g"),
                         helper.make_node("Mul", ["g", "s"], ["m"], name="m"),
                         helper.make_node("Neg", ["m"], ["a"], name="a")],
    # QuantizeLinear then DequantizeLinear: one Quantize kernel, unsigned and signed (NaN stays NaN,
    # an infinity saturates to the type's end).
    "quantize": [helper.make_node("QuantizeLinear", ["data", "scale", "zero_u8"], ["q"], name="q"),
                 helper.make_node("DequantizeLinear", ["q", "scale", "zero_u8"], ["a"], name="a")],
    "quantize_signed": [helper.make_node("QuantizeLinear", ["data", "scale", "zero_s8"], ["q"], name="q"),
                        helper.make_node("DequantizeLinear", ["q", "scale", "zero_s8"], ["a"], name="a")],
}
# Constant inputs of the cases above.
INITIALIZERS = [helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 2, 1.5]),
                helper.make_tensor("pads", TensorProto.INT64, [8], [0, 0, 1, 2, 0, 0, 1, 1]),
                helper.make_tensor("scale", TensorProto.FLOAT, [], [0.01]),
                helper.make_tensor("zero_u8", TensorProto.UINT8, [], [100]),
                helper.make_tensor("zero_s8", TensorProto.INT8, [], [-20])]

OUTPUT_SHAPES = {"transpose": [SHAPE[0], SHAPE[2], SHAPE[3], SHAPE[1]],
                 "resize_linear": [SHAPE[0], SHAPE[1], SHAPE[2] * 2, SHAPE[3] * 3 // 2],
                 "resize_nearest": [SHAPE[0], SHAPE[1], SHAPE[2] * 2, SHAPE[3] * 3 // 2],
                 "pad_reflect": [SHAPE[0], SHAPE[1], SHAPE[2] + 2, SHAPE[3] + 3]}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    cases = {name: [helper.make_node(op, ["data"], ["a"], name="a", **attributes)]
             for name, (op, attributes) in CASES.items()}
    cases.update(GRAPHS)
    for name, nodes in cases.items():
        graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("data", TensorProto.FLOAT, SHAPE)],
                                  [helper.make_tensor_value_info("a", TensorProto.FLOAT, OUTPUT_SHAPES.get(name, SHAPE))],
                                  [t for t in INITIALIZERS if any(t.name in n.input for n in nodes)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="cortado tests")
        model.ir_version = 9
        onnx.checker.check_model(model)
        onnx.save_model(model, os.path.join(here, name + ".onnx"))


if __name__ == "__main__":
    main()
