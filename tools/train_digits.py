#!/usr/bin/python3
"""Trains cortado's LeNet-style digits network (models/digits/lenet.prototxt) on scikit-learn's
bundled 8x8 digits, from a seed, and writes what the tests and tools/demo.sh read:

    tools/train_digits.py [CORTADO_BINARY]

models/digits/
  lenet.onnx            the trained network, exported by PyTorch (opset 13, symbolic batch),
                        its nodes named after the prototxt's layers
  lenet.caffemodel      the same weights for the prototxt (written by `cortado run
                        --save-weights` from the ONNX model: cortado's one caffemodel encoder)
  heldout_images.npy    the held-out images, float32 N x 1 x 8 x 8, scaled to [0, 1]
  trainer.json          the trainer's held-out labels, predictions, top-2 margins and accuracy

Runs with Debian's python3 and its python3-torch, python3-sklearn and python3-onnx (CPU builds;
training takes seconds). The outputs are committed, so the tests need none of these."""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from sklearn.datasets import load_digits

SEED = 1
HELD_OUT = 397  # of 1797 images; the rest train
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "digits")


class LeNet(nn.Module):
    """The layers of models/digits/lenet.prototxt, in its order."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool2 = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool1(torch.relu(self.conv1(x)))
        x = self.pool2(torch.relu(self.conv2(x)))
        return self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))


# The exporter's node names ("/conv1/Conv", "/Relu_1") become the prototxt's layer names.
LAYER_NAMES = {"Conv": ["conv1", "conv2"], "Relu": ["relu1", "relu2", "relu3"], "MaxPool": ["pool1", "pool2"],
               "Flatten": ["flatten"], "Gemm": ["fc1", "fc2"]}


def main(cortado):
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    order = rng.permutation(len(images))
    train, held_out = order[HELD_OUT:], order[:HELD_OUT]

    model = LeNet()
    optimiser = torch.optim.Adam(model.parameters(), 1e-2)
    x, y = torch.from_numpy(images[train]), torch.from_numpy(digits.target[train])
    for _ in range(30):
        permutation = torch.randperm(len(x))
        for i in range(0, len(x), 64):
            batch = permutation[i:i + 64]
            optimiser.zero_grad()
            nn.functional.cross_entropy(model(x[batch]), y[batch]).backward()
            optimiser.step()
    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(images[held_out])).numpy()

    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "lenet.onnx")
    torch.onnx.export(model, torch.from_numpy(images[held_out][:1]), path, opset_version=13,
                      input_names=["data"], output_names=["fc2"], dynamic_axes={"data": {0: "batch"}, "fc2": {0: "batch"}})
    exported = onnx.load(path)
    seen = {op: 0 for op in LAYER_NAMES}
    for node in exported.graph.node:
        node.name = LAYER_NAMES[node.op_type][seen[node.op_type]]
        seen[node.op_type] += 1
    exported.producer_name = "cortado tools/train_digits.py"
    onnx.save(exported, path)

    np.save(os.path.join(OUT, "heldout_images.npy"), images[held_out])
    predictions = logits.argmax(1)
    ranked = np.sort(logits, 1)
    labels = digits.target[held_out]
    record = {"seed": SEED, "held_out": int(len(held_out)), "accuracy": float((predictions == labels).mean()),
              "labels": labels.tolist(), "predictions": predictions.tolist(),
              "top2_margins": (ranked[:, -1] - ranked[:, -2]).astype(float).tolist()}
    with open(os.path.join(OUT, "trainer.json"), "w") as f:
        json.dump(record, f)
        f.write("\n")
    print("held-out accuracy %.4f (%d images), smallest top-2 margin %.3g" %
          (record["accuracy"], len(held_out), min(record["top2_margins"])))
    subprocess.run([cortado, "run", path, "--batch", "1", "--iterations", "1", "--save-weights",
                    os.path.join(OUT, "lenet.caffemodel")], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit(__doc__)
    main(sys.argv[1] if len(sys.argv) == 2 else os.path.join(OUT, "..", "..", "build", "tools", "cortado"))
