#!/usr/bin/env python3
"""Where the networks of a `cortado bench nets` report gain or lose against the peer, layer by
layer: each step's time inside the whole network (from profiled runs) beside the peer's time for
the same layer alone, summed by kind of layer (convolutions by kernel, stride and groups; inner
products; the layers the peer's sum leaves out: pooling, LRN, concatenation, softmax ...), then
the steps that lose the most. Reads one report, or the merge of several by tools/bench/bench_median.py.

    tools/bench/bench_layers.py NETS.json [--batch N] [--top K]

Profiling synchronises after every step, so on small networks the steps add up to more than the
unprofiled run; the kinds' ratios are meant for the large layers that decide the totals.
"""
import argparse
import collections
import json
import sys


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report")
    parser.add_argument("--batch", type=int, help="only the cases of this batch size")
    parser.add_argument("--top", type=int, default=10, help="how many losing steps to list")
    args = parser.parse_args(argv)
    report = json.load(open(args.report))
    rows = [r for r in report["rows"] if args.batch is None or r["name"].endswith(f" b{args.batch}")]
    if not rows:
        sys.exit("bench_layers: no cases" + (f" at batch {args.batch}" if args.batch else ""))
    if any("layers" not in r for r in rows):
        sys.exit("bench_layers: the report has no per-layer times (written by `cortado bench nets --json`)")

    kinds = collections.defaultdict(lambda: {"steps": 0, "ms": 0.0, "peer_ms": 0.0})
    steps = []
    for row in rows:
        for layer in row["layers"]:
            kind = layer["kind"] if "peer_ms" in layer else "no peer: " + layer["kind"]
            k = kinds[kind]
            k["steps"] += 1
            k["ms"] += layer["ms"]
            k["peer_ms"] += layer.get("peer_ms", 0.0)
            if "peer_ms" in layer:
                steps.append((layer["ms"] - layer["peer_ms"], row["name"], layer))

    print(f"{len(rows)} cases; per kind of layer, cortado's steps against the peer's layers alone (ms):")
    print(f"{'kind':<26} {'steps':>5} {'cortado':>10} {'peer':>10} {'peer/cortado':>12} {'cortado-peer':>12}")
    totals = {"ms": 0.0, "peer_ms": 0.0}
    for kind, k in sorted(kinds.items(), key=lambda item: item[1]["peer_ms"] - item[1]["ms"]):
        ratio = f"{k['peer_ms'] / k['ms']:.2f}" if k["peer_ms"] > 0 and k["ms"] > 0 else "-"
        print(f"{kind:<26} {k['steps']:>5} {k['ms']:>10.2f} {k['peer_ms']:>10.2f} {ratio:>12} "
              f"{k['ms'] - k['peer_ms']:>12.2f}")
        totals["ms"] += k["ms"]
        totals["peer_ms"] += k["peer_ms"]
    print(f"{'all steps':<26} {'':>5} {totals['ms']:>10.2f} {totals['peer_ms']:>10.2f} "
          f"{totals['peer_ms'] / totals['ms']:>12.2f} {totals['ms'] - totals['peer_ms']:>12.2f}")
    print(f"the {min(args.top, len(steps))} steps that lose the most:")
    for lost, case, layer in sorted(steps, key=lambda s: s[0], reverse=True)[:args.top]:
        print(f"  {case:<34} {layer['layer']:<40} {layer['kind']:<14} {layer['ms']:>9.3f} {layer['peer_ms']:>9.3f} "
              f"{lost:>+8.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
