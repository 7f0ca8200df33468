#!/usr/bin/env python3
"""Compares `cortado bench` JSON files of the same cases (CPU or GPU runs, e.g. one per forced
variant): per case each file's median time, the peer's (from the first file) and which file was
fastest; then totals per file, per batch, and for the fastest file per case. A case whose check
failed in any file (no peer time: the outputs disagreed) is listed and left out of every total.

    tools/bench/bench_compare.py LABEL=FILE.json [LABEL=FILE.json ...] [--cases]
"""
import json
import sys


def main(argv):
    show_cases = "--cases" in argv
    pairs = [a.split("=", 1) for a in argv if a != "--cases"]
    if not pairs or any(len(p) != 2 for p in pairs):
        sys.exit(__doc__)
    labels = [label for label, _ in pairs]
    if len(set(labels)) != len(labels):
        sys.exit("bench_compare: each LABEL once")
    runs = {label: {row["name"]: row for row in json.load(open(path))["rows"]} for label, path in pairs}
    first = runs[labels[0]]
    for label in labels[1:]:
        if set(runs[label]) != set(first):
            sys.exit(f"bench_compare: {label} and {labels[0]} hold different cases")
    totals = {}  # group -> {label or "peer" or "fastest": ms}
    for name, row in first.items():
        failed = [label for label in labels if runs[label][name]["peer_timing"]["median_ms"] <= 0]
        if failed:
            print(f"{name}: check failed in {', '.join(failed)}; left out of the totals")
            continue
        times = {label: runs[label][name]["cortado"]["median_ms"] for label in labels}
        fastest = min(times, key=times.get)
        if show_cases:
            print(f"{name:40s} " + " ".join(f"{l} {t:9.4f}" for l, t in times.items()) +
                  f"  peer {row['peer_timing']['median_ms']:9.4f}  fastest {fastest}")
        for group in ("all", name.split()[0]):
            sums = totals.setdefault(group, {})
            for label, t in times.items():
                sums[label] = sums.get(label, 0) + t
            sums["fastest"] = sums.get("fastest", 0) + times[fastest]
            sums["peer"] = sums.get("peer", 0) + row["peer_timing"]["median_ms"]
    for group, sums in totals.items():
        print(f"{group:6s} " + "  ".join(f"{label} {ms:.3f} ms ({sums['peer'] / ms:.2f}x peer)"
                                         for label, ms in sums.items() if label != "peer") +
              f"  peer {sums['peer']:.3f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
