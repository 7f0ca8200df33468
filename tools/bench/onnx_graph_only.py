#!/usr/bin/env python3
"""Moves an ONNX model's graph to another machine without its weights, and gives it the weights of
the same network exported there, so that a library compiled here from this graph is checked on
that machine against this graph (another PyTorch may export another graph: 2.11 writes DenseNet
without the Pad nodes 1.13 writes):

    onnx_graph_only.py strip MODEL OUT      OUT: MODEL with the data of every initializer of more
                                            than 4096 elements left out (small ones, which
                                            exporters name after the node that folded them, stay)
    onnx_graph_only.py fill GRAPH DONOR OUT OUT: GRAPH with each emptied initializer's data from
                                            DONOR's initializer of that name and shape; one
                                            without (a weight the other exporter named after
                                            another node) from the first of DONOR's unclaimed
                                            initializers of its shape, in graph order (both
                                            exports walk the same modules); one with neither gets
                                            uniform(-b, b) values, b = 1/sqrt(fan-in), seeded by
                                            its name"""
import sys
import zlib

import numpy as np
import onnx
from onnx import numpy_helper


def count(tensor):
    n = 1
    for d in tensor.dims:
        n *= d
    return n


def empty(tensor):
    return count(tensor) > 0 and not any(
        len(getattr(tensor, f)) for f in ("raw_data", "float_data", "int64_data", "int32_data", "double_data"))


def strip(model_path, out_path):
    model = onnx.load(model_path)
    for t in model.graph.initializer:
        if count(t) <= 4096:
            continue
        t.ClearField("raw_data")
        for field in ("float_data", "int64_data", "int32_data", "double_data"):
            t.ClearField(field)
    onnx.save_model(model, out_path)


def fill(graph_path, donor_path, out_path):
    graph = onnx.load(graph_path)
    donor_initializers = list(onnx.load(donor_path).graph.initializer)
    donor = {t.name: t for t in donor_initializers}
    emptied = [t for t in graph.graph.initializer if empty(t)]
    named = {t.name for t in emptied if t.name in donor and list(donor[t.name].dims) == list(t.dims)}
    unclaimed = {}  # shape -> DONOR's initializers no name claims, in graph order
    for d in donor_initializers:
        if d.name not in named:
            unclaimed.setdefault(tuple(d.dims), []).append(d)
    made = by_position = 0
    for t in emptied:
        if t.name in named:
            t.CopyFrom(donor[t.name])
            continue
        same_shape = unclaimed.get(tuple(t.dims))
        if same_shape:
            name = t.name
            t.CopyFrom(same_shape.pop(0))
            t.name = name
            by_position += 1
            continue
        if t.data_type != onnx.TensorProto.FLOAT:
            sys.exit("%s: initializer %s has no twin in %s and is not float" % (graph_path, t.name, donor_path))
        fan_in = max(1, count(t) // t.dims[0])
        rng = np.random.default_rng(zlib.crc32(t.name.encode()))
        values = rng.uniform(-1, 1, tuple(t.dims)).astype(np.float32) / np.float32(np.sqrt(fan_in))
        t.CopyFrom(numpy_helper.from_array(values, t.name))
        made += 1
    if by_position:
        print("%s: %d initializers named apart in %s took its data by shape and order" % (graph_path, by_position,
                                                                                        donor_path))
    if made:
        print("%s: %d initializers without a twin in %s took seeded values" % (graph_path, made, donor_path))
    onnx.save_model(graph, out_path)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "strip":
        strip(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "fill":
        fill(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
