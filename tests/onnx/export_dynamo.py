#!/usr/bin/env python3
"""Exports a small network of today's CNN ops with PyTorch's current exporter
(`torch.onnx.export(..., dynamo=True)`, torch.export-based, opset 18 and above), as a user with a
recent PyTorch writes models, with an input and onnxruntime's output for it:

    export_dynamo.py OUT_DIR [NAME ...]

OUT_DIR/todays_ops.onnx, .input.npy and .expected.npy (the network below, seeded), and the same
for each torchvision NAME given (random weights, seed 1, input 1 x 3 x 224 x 224). Needs PyTorch
2.6 or later with onnxscript, and onnxruntime; Debian's PyTorch 1.13 has no such exporter, so the
GPU machine runs it and tests/onnx/dynamo/ keeps what it wrote."""
import os
import sys

import numpy as np
import onnx
import onnxruntime
import torch
from torch import nn
import torch.nn.functional as F


class TodaysOps(nn.Module):
    """Stem with hard-swish, squeeze-and-excitation, channel shuffle, depthwise convolution,
    transposed convolution, bilinear resizing, layer normalisation, GELU, SiLU, a classifier and
    log-softmax."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.Hardswish())
        self.squeeze = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(16, 4, 1), nn.ReLU(), nn.Conv2d(4, 16, 1),
                                     nn.Hardsigmoid())
        self.depthwise = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.norm = nn.LayerNorm(16)
        self.classifier = nn.Linear(8, 10)
        self.stem[1].running_mean.uniform_(-0.5, 0.5)  # statistics a trained network would have
        self.stem[1].running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        x = self.stem(x)
        x = x * self.squeeze(x)
        n, c, h, w = x.shape
        x = x.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)
        x = F.silu(self.depthwise(x))
        x = self.up(x)
        x = F.interpolate(x, scale_factor=0.5, mode="bilinear", align_corners=False)
        x = F.gelu(self.norm(x))
        x = x.mean(dim=(2, 3))
        return F.log_softmax(self.classifier(x), dim=1)


def export(model, x, out_dir, name):
    path = os.path.join(out_dir, name + ".onnx")
    program = torch.onnx.export(model, (torch.from_numpy(x),), dynamo=True, input_names=["data"],
                                output_names=["output"])
    onnx.save_model(program.model_proto, path)  # the weights inside the file, not beside it
    np.save(os.path.join(out_dir, name + ".input.npy"), x)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {session.get_inputs()[0].name: x})
    np.save(os.path.join(out_dir, name + ".expected.npy"), y.astype(np.float32))
    model_proto = onnx.load(path)
    print(name, "opset", [o.version for o in model_proto.opset_import if o.domain in ("", "ai.onnx")],
          "IR", model_proto.ir_version, "torch", torch.__version__, flush=True)


def main(out_dir, names):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(1)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    export(TodaysOps().eval(), x, out_dir, "todays_ops")
    if names:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "bench"))
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from export_torchvision import build
        for name in names:
            torch.manual_seed(1)
            x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
            export(build(name), x, out_dir, name)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
