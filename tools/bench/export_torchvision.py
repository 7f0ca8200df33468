#!/usr/bin/python3
"""Builds torchvision networks with random initialisation from a seed (nothing is downloaded),
exports each to ONNX as PyTorch's TorchScript-based exporter writes it (a symbolic batch), and
writes an input for it:

    export_torchvision.py OUT_DIR [SEED [--opsets 13,17] [NAME ...]]

OUT_DIR/NAME.onnx (opset 13), OUT_DIR/NAME-opsetK.onnx for each other opset K asked for, and
OUT_DIR/NAME.input.npy (1 x 3 x 224 x 224, uniform(-1, 1)). Runs with Debian's python3 and its
python3-torch and python3-torchvision (CPU builds, whose exporter writes opsets up to 17), which
tools/bootstrap.sh installs; tests/onnx/convert_opset.py converts to newer opsets and
tests/onnx/run_onnxruntime.py writes the expected outputs."""
import inspect
import os
import sys

import numpy as np
import torch
import torchvision

CLASSIFIERS = ["alexnet", "resnet18", "resnet50", "squeezenet1_1", "mobilenet_v2", "mobilenet_v3_small",
               "mobilenet_v3_large", "efficientnet_b0", "regnet_y_400mf", "shufflenet_v2_x1_0", "densenet121",
               "resnext50_32x4d", "vgg11_bn"]
# Segmentation networks return a dict of outputs; without auxiliary heads it holds one, "out".
SEGMENTERS = ["fcn_resnet50", "lraspp_mobilenet_v3_large"]
NETWORKS = CLASSIFIERS + SEGMENTERS


class OnlyOutput(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build(name):
    if name in SEGMENTERS:
        return OnlyOutput(getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None,
                                                                         aux_loss=False)).eval()
    return getattr(torchvision.models, name)(weights=None).eval()


def main(out_dir, seed, opsets, names):
    os.makedirs(out_dir, exist_ok=True)
    # PyTorch 2.9 and later export through torch.export unless told otherwise; the GPU machine's
    # PyTorch must write the same TorchScript-exported graph as the CI machine's 1.13.
    exporter = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    for name in names:
        torch.manual_seed(seed)
        model = build(name)
        x = np.random.default_rng(seed).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
        for opset in opsets:
            path = os.path.join(out_dir, name + (".onnx" if opset == 13 else "-opset%d.onnx" % opset))
            torch.onnx.export(model, torch.from_numpy(x), path, opset_version=opset, input_names=["data"],
                              output_names=["logits"], dynamic_axes={"data": {0: "batch"}, "logits": {0: "batch"}},
                              **exporter)
        np.save(os.path.join(out_dir, name + ".input.npy"), x)
        print(name)


if __name__ == "__main__":
    args = sys.argv[1:]
    opsets = [13]
    if "--opsets" in args:
        at = args.index("--opsets")
        opsets = [int(v) for v in args[at + 1].split(",")]
        del args[at:at + 2]
    if not args:
        sys.exit(__doc__)
    names = args[2:] or NETWORKS
    unknown = [n for n in names if n not in NETWORKS]
    if unknown:
        sys.exit("unknown network(s) %s; these are built: %s" % (", ".join(unknown), ", ".join(NETWORKS)))
    main(args[0], int(args[1]) if len(args) > 1 else 1, opsets, names)
