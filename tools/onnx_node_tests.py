#!/usr/bin/env python3
"""Runs ONNX's own node tests (onnx.backend.test.case.node, from the installed onnx package) of
every op that docs/onnx-support.md lists as converted (not the "_expanded" tests, which run an
op's function body), through `cortado run` on one target, and
compares each output with the test's expected one within the test's own rtol and atol (NaN where
NaN is expected).

    .venv/bin/python tools/onnx_node_tests.py CORTADO [--target T] [--op OP] [--per-op N] [--verbose]

--per-op N runs at most N of each op's tests, spread evenly over its list (its attributes and
shapes): the host runs every test, the other targets a spread, since the import is the same on
every target and only the kernels differ.

A node test's first float input is the network's input; its other inputs (weights, slopes,
bounds, shapes) become initializers holding the test's data, since a cortado network takes one
input. A test with several outputs runs once per output. Every outcome is printed; the exit
status is 1 if any test fails or is refused without being listed, with its reason, under
"Node tests cortado refuses" in docs/onnx-support.md."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "onnx-support.md")


def claimed_ops():
    """The ops of the doc's table of ops that become layers (first column, comma-separated)."""
    ops, in_table = [], False
    for line in open(DOC):
        if line.startswith("## "):
            in_table = line.strip() == "## Ops that become layers"
        elif in_table and line.startswith("| ") and not line.startswith("| op ") and not line.startswith("|---"):
            ops += [op.strip() for op in line.split("|")[1].split(",")]
    return ops


def listed_refusals():
    """The doc's list of node tests cortado refuses: "test_x" for every run of a test, or
    "test_x (output K)" for the outputs a line names ("- `test_x` outputs 1 and 2: reason")."""
    refusals, in_list = set(), False
    for line in open(DOC):
        if line.startswith("## "):
            in_list = line.strip() == "## Node tests cortado refuses"
        elif in_list:
            m = re.match(r"- `(test_\w+)`(?: outputs? ([\d, and]+))?: .+", line.strip())
            if m and m.group(2):
                refusals.update(f"{m.group(1)} (output {k})" for k in re.findall(r"\d+", m.group(2)))
            elif m:
                refusals.add(m.group(1))
    return refusals


def variants(case):
    """(name, model, input, expected, rtol, atol) per output of each data set, the other inputs
    made initializers. None for the input when the test has no float input to feed."""
    graph = case.model.graph
    for inputs, outputs in case.data_sets:
        first = next((i for i, x in enumerate(inputs) if isinstance(x, np.ndarray) and x.dtype == np.float32), None)
        for k, expected in enumerate(outputs):
            name = case.name + ("" if len(outputs) == 1 else f" (output {k})")
            if first is None or not isinstance(expected, np.ndarray) or expected.dtype != np.float32:
                yield name, None, None, None
                continue
            model = onnx.ModelProto()
            model.CopyFrom(case.model)
            g = model.graph
            feeds = list(g.input)
            del g.input[:]
            for i, value in enumerate(feeds):
                if i == first:
                    g.input.append(value)
                elif i < len(inputs) and inputs[i] is not None:
                    g.initializer.append(numpy_helper.from_array(np.asarray(inputs[i]), value.name))
            kept = g.output[k]
            del g.output[:]
            g.output.append(kept)
            yield name, model, inputs[first], expected


def run(cortado, target, model, x, scratch):
    path = os.path.join(scratch, "model.onnx")
    onnx.save_model(model, path)
    np.save(os.path.join(scratch, "in.npy"), x)
    out = os.path.join(scratch, "out.npy")
    if os.path.exists(out):
        os.remove(out)
    command = [cortado, "run", path, "--target", target, "--input", os.path.join(scratch, "in.npy"), "--output",
               out, "--iterations", "1"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        lines = [l for l in (result.stdout + result.stderr).splitlines() if "error" in l.lower()]
        text = lines[-1] if lines else (result.stdout + result.stderr)[-300:]
        return None, text.split("model.onnx: ")[-1].split("error: ")[-1].strip()
    return np.load(out), None


def compare(got, expected, rtol, atol):
    if got.size != expected.size:
        return f"{got.size} values, expected {expected.size}"
    got = got.reshape(expected.shape).astype(np.float64)
    want = expected.astype(np.float64)
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return "NaN in other places"
    finite = ~nan
    same_inf = np.isinf(want[finite]) & (got[finite] == want[finite])
    bad = ~same_inf & (np.abs(got[finite] - want[finite]) > atol + rtol * np.abs(want[finite]))
    if bad.any():
        worst = np.max(np.abs(got[finite] - want[finite]))
        return f"{int(bad.sum())} of {want.size} values outside rtol {rtol:g}, atol {atol:g} (largest error {worst:.3g})"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cortado")
    parser.add_argument("--target", default="host")
    parser.add_argument("--op", action="append", help="only these ops")
    parser.add_argument("--per-op", type=int, help="at most this many runs per op, spread over its tests")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    from onnx.backend.test.case.node import collect_testcases

    refusals = listed_refusals()

    def listed(name):  # the run, or every run of its test, is on the doc's list
        return name in refusals or name.split(" ")[0] in refusals

    scratch = tempfile.mkdtemp(prefix="cortado-node-tests-")
    counts = {"passed": 0, "refused as listed": 0, "FAILED": 0, "no float input or output": 0}
    ops = args.op or claimed_ops()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        everything = collect_testcases()  # the package collects once; filtering by op_type misses later calls
    # A test belongs to the op of its node; the "_expanded" tests run an op's function body (other
    # ops) and are left to those ops.
    cases = {op: [c for c in everything if c.kind == "node" and "_expanded" not in c.name and
                  any(n.op_type == op for n in c.model.graph.node)] for op in ops}
    for op in ops:
        if not cases[op]:
            print(f"{op}: ONNX has no node test of this op")
        runs = [(case, *variant) for case in cases[op] for variant in variants(case)]
        if args.per_op:  # a spread of the runs that compute something here; refusals are the import's
            runs = [r for r in runs if r[2] is not None and not listed(r[1])]
            runs = [runs[i * len(runs) // args.per_op] for i in range(min(args.per_op, len(runs)))]
        for case, name, model, x, expected in runs:
            if model is None:
                outcome, status = "no float input or output", "no float input or output"
            else:
                got, refused = run(args.cortado, args.target, model, x, scratch)
                if refused is not None:
                    status = "refused as listed" if listed(name) else "FAILED"
                    outcome = ("refused (listed): " if listed(name) else "refused, not listed in the doc: ") + refused
                else:
                    problem = compare(got, expected, case.rtol, case.atol)
                    status = "passed" if problem is None else "FAILED"
                    outcome = "passed" if problem is None else "wrong: " + problem
                    if problem is None and listed(name):
                        outcome += " (listed as refused in the doc: take it off the list)"
                        status = "FAILED"
            counts[status] += 1
            if args.verbose or status == "FAILED":
                print(f"{op} {name}: {outcome}")
    print(f"node tests on {args.target}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    sys.exit(1 if counts["FAILED"] else 0)


if __name__ == "__main__":
    main()
