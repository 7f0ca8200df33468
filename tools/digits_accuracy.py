#!/usr/bin/env python3
"""Scores the digits network's output against the held-out labels and the trainer's record:

    digits_accuracy.py SCORES.npy [models/digits/trainer.json]

SCORES.npy holds N x 10 class scores for models/digits/heldout_images.npy, as `cortado run
--output` writes them."""
import json
import os
import sys

import numpy as np


def main(scores_path, record_path):
    scores = np.load(scores_path)
    with open(record_path) as f:
        record = json.load(f)
    labels, trainer = np.array(record["labels"]), np.array(record["predictions"])
    if scores.shape != (len(labels), 10):
        sys.exit("%s: shape %s, expected %d x 10" % (scores_path, scores.shape, len(labels)))
    predicted = scores.argmax(1)
    print("digits: %d held-out images, accuracy %.4f (the trainer's %.4f); %d predictions differ from the trainer's"
          % (len(labels), (predicted == labels).mean(), record["accuracy"], int((predicted != trainer).sum())))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "digits", "trainer.json")
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else default)
