#!/usr/bin/env python3
"""Converts exported models to a newer opset with onnx.version_converter, as a user with a model
from an older exporter would:

    convert_opset.py DIR FROM TO NAME ...

reads DIR/NAME-opsetFROM.onnx (DIR/NAME.onnx when FROM is 13), writes DIR/NAME-opsetTO.onnx."""
import os
import sys

import onnx
import onnx.version_converter


def main(directory, source, target, names):
    for name in names:
        path = os.path.join(directory, name + (".onnx" if source == 13 else "-opset%d.onnx" % source))
        model = onnx.version_converter.convert_version(onnx.load(path), target)
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(directory, "%s-opset%d.onnx" % (name, target)))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
