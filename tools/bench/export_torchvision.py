#!/usr/bin/python3
"""Builds torchvision's AlexNet, ResNet-18, ResNet-50, SqueezeNet 1.1, MobileNetV2, MobileNetV3-Small,
EfficientNet-B0, RegNetY-400MF and ShuffleNetV2 x1.0 with random
initialisation from a seed (nothing is downloaded), exports each to ONNX as PyTorch's
TorchScript-based exporter writes it (opset 13, a symbolic batch), and writes an input for it:

    export_torchvision.py OUT_DIR [SEED [NAME ...]]

OUT_DIR/NAME.onnx and OUT_DIR/NAME.input.npy (1 x 3 x 224 x 224, uniform(-1, 1)). Runs with
Debian's python3 and its python3-torch and python3-torchvision (CPU builds), which
tools/bootstrap.sh installs; tests/onnx/run_onnxruntime.py then writes the expected outputs."""
import inspect
import os
import sys

import numpy as np
import torch
import torchvision

NETWORKS = ["alexnet", "resnet18", "resnet50", "squeezenet1_1", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
            "regnet_y_400mf", "shufflenet_v2_x1_0"]


def main(out_dir, seed, names):
    os.makedirs(out_dir, exist_ok=True)
    # PyTorch 2.9 and later export through torch.export unless told otherwise; the GPU machine's
    # PyTorch must write the same TorchScript-exported graph as the CI machine's 1.13.
    exporter = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    for name in names:
        torch.manual_seed(seed)
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = np.random.default_rng(seed).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
        torch.onnx.export(model, torch.from_numpy(x), os.path.join(out_dir, name + ".onnx"), opset_version=13,
                          input_names=["data"], output_names=["logits"],
                          dynamic_axes={"data": {0: "batch"}, "logits": {0: "batch"}}, **exporter)
        np.save(os.path.join(out_dir, name + ".input.npy"), x)
        print(name)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    names = sys.argv[3:] or NETWORKS
    unknown = [n for n in names if n not in NETWORKS]
    if unknown:
        sys.exit("unknown network(s) %s; these are built: %s" % (", ".join(unknown), ", ".join(NETWORKS)))
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1, names)
