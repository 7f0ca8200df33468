#!/usr/bin/env python3
"""Merges repeated `cortado bench` runs of the same cases into one report: per case, the median
over the runs of cortado's median time, of the peer's and of the untuned build's (each taken
apart, so a run where the machine slowed down for one side only does not decide the case).
Useful on machines whose speed changes between cases (docs/PERFORMANCE.md, "The machine's two
states"). The per-step times of `bench nets` are merged the same way. Writes the merged JSON,
which tools/bench/bench_plots.py, tools/bench/bench_compare.py and tools/bench/bench_layers.py read, and prints
the totals.

    tools/bench/bench_median.py OUT.json RUN.json RUN.json [RUN.json ...]
"""
import copy
import json
import statistics
import sys


def median_timing(timings):
    return {key: statistics.median(t[key] for t in timings) for key in ("median_ms", "min_ms", "max_ms")}


def median_layers(case, runs):
    """Each step's median time over the runs, and the peer's where it has the layer."""
    steps = [layer["layer"] for layer in runs[0]]
    if any([layer["layer"] for layer in run] != steps for run in runs):
        sys.exit(f"bench_median: {case}: the runs hold different steps")
    merged = []
    for i, first in enumerate(runs[0]):
        layer = {"layer": first["layer"], "kind": first["kind"],
                 "ms": statistics.median(run[i]["ms"] for run in runs)}
        if "peer_ms" in first:
            layer["peer_ms"] = statistics.median(run[i]["peer_ms"] for run in runs)
        merged.append(layer)
    return merged


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out_path, paths = argv[0], argv[1:]
    runs = [json.load(open(path)) for path in paths]
    names = [row["name"] for row in runs[0]["rows"]]
    by_name = [{row["name"]: row for row in run["rows"]} for run in runs]
    for path, rows in zip(paths[1:], by_name[1:]):
        if set(rows) != set(names):
            sys.exit(f"bench_median: {path} and {paths[0]} hold different cases")
    merged = copy.deepcopy(runs[0])
    merged["rows"] = []
    merged["merged_runs"] = len(runs)
    totals = {"cortado": 0.0, "peer": 0.0, "untuned": 0.0}
    for name in names:
        rows = [rows[name] for rows in by_name]
        if any(row["peer_timing"]["median_ms"] <= 0 for row in rows):
            sys.exit(f"bench_median: {name}: the check failed in a run")
        row = copy.deepcopy(rows[0])
        row["cortado"] = median_timing([r["cortado"] for r in rows])
        row["peer_timing"] = median_timing([r["peer_timing"] for r in rows])
        row["relative_error"] = max(r["relative_error"] for r in rows)
        row.pop("unstable", None)
        row.pop("layers", None)
        if all("layers" in r for r in rows):
            row["layers"] = median_layers(name, [r["layers"] for r in rows])
        totals["cortado"] += row["cortado"]["median_ms"]
        totals["peer"] += row["peer_timing"]["median_ms"]
        if all("untuned" in r for r in rows):
            row["untuned"] = median_timing([r["untuned"] for r in rows])
            totals["untuned"] += row["untuned"]["median_ms"]
        merged["rows"].append(row)
    merged["unstable_rows"] = 0
    with open(out_path, "w") as f:
        json.dump(merged, f, indent=1)
    line = f"{len(names)} cases, median of {len(runs)} runs: cortado {totals['cortado']:.2f} ms, "
    line += f"peer {totals['peer']:.2f} ms, ratio {totals['peer'] / totals['cortado']:.2f}"
    if totals["untuned"] > 0:
        line += f"; untuned {totals['untuned']:.2f} ms, ratio {totals['peer'] / totals['untuned']:.2f}"
    print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
