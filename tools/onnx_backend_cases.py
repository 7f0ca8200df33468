#!/usr/bin/env python3
"""Runs the model cases that the installed onnx package ships (onnx/backend/test/data:
pytorch-converted, pytorch-operator, simple, and the light model zoo) through `cortado run`,
and prints one line per case and a count: what runs and matches the stored output, what is
refused (with cortado's reason), what is skipped (not one float32 input and output).

    .venv/bin/python tools/onnx_backend_cases.py build/tools/cortado [--check]

The light models carry constant-filled weights and no stored input: they are only imported and
run, on a uniform input (with --check, against the double-precision reference too)."""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")


def refusal(result):
    lines = [l for l in (result.stdout + result.stderr).splitlines() if "error" in l.lower()]
    text = lines[-1] if lines else (result.stdout + result.stderr)[-200:]
    return "refused: " + text.split(".onnx: ")[-1].strip()[:200]


def run_case(cortado, model, x, expected, scratch, check):
    np.save(os.path.join(scratch, "in.npy"), x)
    out = os.path.join(scratch, "out.npy")
    command = [cortado, "run", model, "--input", os.path.join(scratch, "in.npy"), "--output", out, "--iterations", "1"]
    if check:
        command.append("--check")
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        return refusal(result)
    if expected is None:
        return "ran"
    got = np.load(out).reshape(expected.shape)
    nan = np.isnan(expected)  # NaN where the stored output has NaN (a square root of a negative, say)
    if not np.array_equal(np.isnan(got), nan):
        return "ran, NaN in other places MISMATCH"
    got, expected = got[~nan], expected[~nan]
    error = np.linalg.norm(got - expected) / max(np.linalg.norm(expected), 1e-30)
    return f"ran, relative L2 error {error:.2e}" + ("" if error < 1e-4 else " MISMATCH")


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    cortado, check = sys.argv[1], len(sys.argv) == 3
    scratch = tempfile.mkdtemp()
    results = {}
    for suite in ("pytorch-converted", "pytorch-operator", "simple"):
        for case in sorted(glob.glob(os.path.join(ROOT, suite, "*"))):
            data = os.path.join(case, "test_data_set_0")
            if not os.path.isdir(data):
                continue
            inputs = [numpy_helper.to_array(onnx.load_tensor(p)) for p in sorted(glob.glob(data + "/input_*.pb"))]
            outputs = [numpy_helper.to_array(onnx.load_tensor(p)) for p in sorted(glob.glob(data + "/output_*.pb"))]
            name = f"{suite}/{os.path.basename(case)}"
            if len(inputs) != 1 or len(outputs) != 1 or inputs[0].dtype != np.float32:
                results[name] = "skipped: not one float32 input and output"
                continue
            results[name] = run_case(cortado, os.path.join(case, "model.onnx"), inputs[0], outputs[0], scratch, check)
    for model in sorted(glob.glob(os.path.join(ROOT, "light", "*.onnx"))):
        graph = onnx.load(model, load_external_data=False).graph
        weights = {t.name for t in graph.initializer}
        data = [i for i in graph.input if i.name not in weights][0]
        shape = [d.dim_value for d in data.type.tensor_type.shape.dim]
        x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
        results["light/" + os.path.basename(model)] = run_case(cortado, model, x, None, scratch, check)
    for name, outcome in results.items():
        print(f"{name}: {outcome}")
    ran = sum(o.startswith("ran") and "MISMATCH" not in o for o in results.values())
    skipped = sum(o.startswith("skipped") for o in results.values())
    print(f"{ran} of {len(results) - skipped} cases ran and matched ({skipped} more skipped: not one float32 input "
          f"and output)")


if __name__ == "__main__":
    main()
