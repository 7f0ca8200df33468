#!/usr/bin/env python3
"""Writes the record each op signature would use from a tuning database, one line each: what
targets/tuning/TARGET.jsonl ships.

    python3 tools/bench/tuning_best.py DB.jsonl OUT.jsonl

The rule is compiler/tuning_db.h's for measured records: the latest record of each choice (variant
and knobs) counts, rejected ones never do, and of the rest the least median wins (ties by
variant, then knob text). Stale schedule versions are not checked here: run it on records
measured with the current sources.
"""
import json
import sys


def main():
    source, destination = sys.argv[1], sys.argv[2]
    records = []
    with open(source) as f:
        for number, line in enumerate(f, 1):
            try:
                r = json.loads(line)
                if r.get("variant") and isinstance(r.get("knobs"), dict) and "op_signature" in r:
                    records.append(r)
            except ValueError:
                if line.strip():
                    print(f"{source}:{number}: skipped: not a JSON object", file=sys.stderr)
    latest = {}
    for r in records:
        latest[(r["op_signature"], r["variant"], tuple(sorted(r["knobs"].items())))] = r
    best = {}
    for r in latest.values():
        if r.get("rejected") or r.get("median_ms") is None or r["median_ms"] < 0:
            continue
        rank = (r["median_ms"], r["variant"], " ".join(f"{k}={v}" for k, v in sorted(r["knobs"].items())))
        if r["op_signature"] not in best or rank < best[r["op_signature"]][0]:
            best[r["op_signature"]] = (rank, r)
    with open(destination, "w") as f:
        for signature in sorted(best, key=lambda s: best[s][1].get("layer", s)):
            f.write(json.dumps(best[signature][1], separators=(",", ":")) + "\n")
    print(f"{len(best)} op signatures from {len(records)} records into {destination}")


if __name__ == "__main__":
    main()
