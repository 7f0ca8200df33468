#!/usr/bin/env python3
"""Plots `cortado bench --json` results (and tools/bench/gpu_bench.py's JSON, same format).

    tools/bench/bench_plots.py RESULTS.json OUT_PREFIX

writes OUT_PREFIX-roofline.png (each case as a point at its arithmetic intensity, cortado and
the peer, under the target's roofline) and OUT_PREFIX-speedup.png (per-case speed-up of
cortado over the peer, sorted, the slowest and fastest cases named, one shade per batch size).
Uses the .venv's matplotlib (installed by tools/bootstrap.sh).
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402


def batch_of(name):
    """The batch size a case name starts or ends with ("b20 1024>1000 ...", "alexnet b5"), else None."""
    words = name.split(" ")
    for word in (words[0], words[-1]):
        if word[:1] == "b" and word[1:].isdigit():
            return int(word[1:])
    return None


def main(results_path, prefix):
    with open(results_path) as f:
        results = json.load(f)
    rows = [r for r in results["rows"] if r["cortado"]["median_ms"] > 0 and r["peer_timing"]["median_ms"] > 0]
    if not rows:
        sys.exit(f"{results_path}: no rows to plot")
    title = f'{results["suite"]} on {results["target"]}'
    peer_names = sorted({r["peer"].split(" ")[0] for r in rows})

    # Roofline: attainable GFLOP/s = min(peak, intensity x bandwidth).
    with_traffic = [r for r in rows if r.get("megabytes", 0) > 0]
    if with_traffic and results.get("peak_gflops", 0) > 0 and results.get("bandwidth_gbs", 0) > 0:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        intensity = [r["gflop"] * 1e3 / r["megabytes"] for r in with_traffic]
        ours = [r["gflop"] / r["cortado"]["median_ms"] * 1e3 for r in with_traffic]
        theirs = [r["gflop"] / r["peer_timing"]["median_ms"] * 1e3 for r in with_traffic]
        peak, bandwidth = results["peak_gflops"], results["bandwidth_gbs"]
        lo, hi = min(intensity) / 2, max(intensity) * 2
        ridge = peak / bandwidth
        xs = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
        ax.plot(xs, [min(peak, x * bandwidth) for x in xs], "k-", lw=1.5,
                label=f"roofline: {peak:g} GFLOP/s, {bandwidth:g} GB/s")
        ax.scatter(intensity, theirs, s=14, marker="x", color="tab:gray", label="/".join(peer_names))
        ax.scatter(intensity, ours, s=14, color="tab:red", label="cortado")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity (flop per byte of compulsory traffic)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"{title}: roofline")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(f"{prefix}-roofline.png", dpi=110)
        plt.close(fig)

    # Sorted speed-ups; each batch size in its own shade when the cases carry one ("b20 ...").
    cases = sorted(((r["peer_timing"]["median_ms"] / r["cortado"]["median_ms"], r["name"]) for r in rows))
    speedups = [s for s, _ in cases]
    batches = sorted({batch_of(name) for _, name in cases} - {None})
    fig, ax = plt.subplots(figsize=(9, 4.8))
    for faster in (True, False):
        for shade, batch in enumerate(batches or [None]):
            picked = [i for i, (s, name) in enumerate(cases) if (s >= 1) == faster and batch_of(name) == batch]
            if not picked:
                continue
            colour = plt.get_cmap("Reds" if faster else "Blues")(0.9 - 0.5 * shade / max(1, len(batches) - 1))
            label = ("cortado faster" if faster else "peer faster") + (f", batch {batch}" if batch else "")
            # Bars grow from 1x, up for faster cases and down for slower ones.
            ax.bar(picked, [speedups[i] - 1 for i in picked], bottom=1, width=1.0, color=colour, label=label)
    ax.axhline(1.0, color="k", lw=1)
    ax.set_yscale("log")
    powers = [2.0 ** k for k in range(-10, 11)]  # 1/1024x to 1024x
    ticks = [t for t in powers if min(speedups[0], 1) / 1.5 <= t <= max(speedups[-1], 1) * 1.5]
    if len(ticks) > 9:  # every other power of two, 1x kept
        ticks = [t for t in ticks if round(abs(math.log2(t))) % 2 == 0]
    # Room above the fastest bar and below the slowest for their names.
    ax.set_ylim(min(speedups[0], 1) / 1.8, max(speedups[-1], 1) * 2.2)
    ax.yaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda t, _: f"{t:g}x"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    for index in (0, len(cases) - 1):  # name the slowest and the fastest case
        ax.annotate(cases[index][1], (index, speedups[index]), textcoords="offset points",
                    xytext=(6 if index == 0 else -6, -12 if speedups[index] < 1 else 6),
                    ha="left" if index == 0 else "right", fontsize=8)
    ax.set_xlabel(f"case (sorted), {len(speedups)} in all")
    ax.set_ylabel("speed-up of cortado over " + "/".join(peer_names))
    ax.set_title(f"{title}: median {speedups[len(speedups) // 2]:.2f}x, "
                 f"min {speedups[0]:.2f}x, max {speedups[-1]:.2f}x")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{prefix}-speedup.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
