#!/usr/bin/env python3
"""The GPU half of `cortado tune --prepare`, run on the GPU machine (no libHalide needed):

    python3 tune_runner.py BUNDLE OUT.jsonl [ITERATIONS]

BUNDLE is one DIR/bundle-N written by `cortado tune ... --target GPU --prepare DIR`. For each op
signature in its tune.json, the layer is rebuilt in PyTorch from its graph JSON with random
weights (written as a .caffemodel for cortado's library too) and run in float64 as the reference.
Each candidate library is then loaded, checked against the reference within its variant's
tolerance (relative L2), and timed with its per-layer profile (a warm-up, then ITERATIONS runs,
default 10: median and spread). One record per candidate is appended to OUT.jsonl in the tuning
database format (compiler/tuning_db.h), flushed at once; `cortado tune --import OUT.jsonl` merges them.

A rerun skips the choices OUT.jsonl already holds (the same signature, variant, knobs and
schedule version, whichever round or bundle measured them). A candidate that takes the process down
(a crash in the driver) is recorded as rejected by the next run, which finds it named in
OUT.jsonl.running; so `until python3 tune_runner.py B OUT.jsonl; do :; done` finishes a bundle.
"""
import datetime
import json
import math
import os
import sys
import tempfile

import torch

from gpu_bench import Library, TorchNetwork, random_weights, write_caffemodel


def measurement_id(signature, variant, knobs, version):
    """What a record measures: the same in every round and bundle for the same choice."""
    return "|".join([signature, variant, " ".join(f"{k}={v}" for k, v in sorted(knobs.items())), version])


def record(signature, candidate, **outcome):
    r = {"op_signature": signature["signature"], "op": signature["op"], "layer": signature["layer"],
         "variant": candidate["variant"], "knobs": candidate["knobs"]}
    r.update(outcome)
    r.update(tolerance=candidate["tolerance"], shape=signature["shape"], target=signature["target"],
             family=signature["family"], schedule_version=candidate["schedule_version"],
             date=datetime.date.today().isoformat())
    return r


def main():
    bundle, out_path = sys.argv[1], sys.argv[2]
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with open(os.path.join(bundle, "tune.json")) as f:
        manifest = json.load(f)
    name = os.path.basename(os.path.normpath(bundle))
    done = set()
    if os.path.exists(out_path):
        with open(out_path) as f:
            for line in f:
                try:  # a line cut short by a kill is measured again
                    r = json.loads(line)
                    done.add(measurement_id(r["op_signature"], r["variant"], r["knobs"], r["schedule_version"]))
                except (ValueError, KeyError, TypeError):
                    pass
    running_path = out_path + ".running"
    crashed = None
    if os.path.exists(running_path):
        with open(running_path) as f:
            crashed = f.read().strip()
    out = open(out_path, "a")

    def write(r):
        out.write(json.dumps(r, allow_nan=False) + "\n")
        out.flush()
        os.fsync(out.fileno())

    scratch = tempfile.mkdtemp(prefix="cortado-tune-")
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    measured = rejected = 0
    for signature in manifest["signatures"]:
        for candidate in signature["candidates"]:
            candidate["id"] = measurement_id(signature["signature"], candidate["variant"], candidate["knobs"],
                                             candidate["schedule_version"])
        todo = [c for c in signature["candidates"] if c["id"] not in done]
        if not todo:
            continue
        with open(os.path.join(bundle, signature["graph"])) as f:
            graph = json.load(f)
        generator = torch.Generator().manual_seed(int(signature["signature"], 16) % (1 << 62))
        weights = random_weights(graph, generator)
        model = os.path.join(scratch, "weights.caffemodel")
        write_caffemodel(model, weights)
        x = torch.rand(signature["input_shape"], generator=generator) * 2 - 1
        reference = TorchNetwork(graph, {k: [b.double().cuda() for b in v] for k, v in weights.items()})
        with torch.no_grad():
            expected = reference(x.double().cuda()).cpu()
        for candidate in todo:
            if candidate["id"] == crashed:
                write(record(signature, candidate, rejected=True, reason="the runner's process died while running it"))
                rejected += 1
                continue
            with open(running_path, "w") as f:
                f.write(candidate["id"])
            try:
                ours, timing = Library(os.path.join(bundle, candidate["library"])).run(
                    model, x, signature["output_shape"], iterations)
                error = float((ours.double() - expected).norm() / expected.norm())
                if not error <= candidate["tolerance"]:
                    r = record(signature, candidate, rejected=True, error=error if math.isfinite(error) else -1,
                               reason=f"relative L2 error {error:.3g} above the variant's tolerance "
                                      f"{candidate['tolerance']:.3g}")
                else:
                    r = record(signature, candidate, median_ms=timing["median_ms"], min_ms=timing["min_ms"],
                               max_ms=timing["max_ms"], repetitions=iterations, error=error)
                    if not all(math.isfinite(r[k]) for k in ("median_ms", "min_ms", "max_ms")):
                        r = record(signature, candidate, rejected=True, reason=f"its profile read {timing}")
            except Exception as e:  # a load or launch failure: rejected, with the driver's words
                r = record(signature, candidate, rejected=True, reason=f"{type(e).__name__}: {e}"[:400])
            write(r)
            if r.get("rejected"):
                rejected += 1
            else:
                measured += 1
        print(f"{signature['layer']}: {len(todo)} candidates", flush=True)
    if os.path.exists(running_path):
        os.remove(running_path)
    print(f"{name}: {measured} measured, {rejected} rejected, records in {out_path}", flush=True)


if __name__ == "__main__":
    main()
