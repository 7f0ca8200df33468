#!/usr/bin/env python3
"""The GPU half of `cortado bench`, run on the GPU machine: cortado's libraries against cuDNN and
cuBLAS (through PyTorch) in the same process, on the same inputs.

    python3 gpu_bench.py BENCH_DIR SUITE OUT.json [ITERATIONS]

BENCH_DIR holds SUITE.json and the libraries written by
`cortado bench SUITE --target cuda-h100 --prepare BENCH_DIR` (tools/gpu-check.sh does this).
For every case: random input, weights and bias are written as a .caffemodel and loaded into
cortado's library; its output is checked against the peer's fp32 output before either is timed;
then cortado's step (per-layer profiling, synchronised) and the peer (CUDA events) are timed,
medians and spread over ITERATIONS runs. Peers: cuDNN with cudnn.benchmark (cudnnFind picks the
fastest algorithm) and cuBLAS, fp32 with TF32 off; a second column with TF32 allowed. Writes the
same JSON as `cortado bench --json` (tools/bench_plots.py plots it) plus a markdown table.
"""
import ctypes
import json
import os
import statistics
import struct
import sys
import tempfile

import torch
import torch.nn.functional as F


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number, payload):  # length-delimited protobuf field
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def write_caffemodel(path, layer, blobs):
    """NetParameter{layer(100): LayerParameter{name(1), blobs(7): BlobProto{shape(7){dim(1)}, data(5)}}}"""
    encoded = field(1, layer.encode())
    for blob in blobs:
        dims = b"".join(varint(d) for d in blob.shape)
        data = blob.detach().cpu().contiguous().numpy().astype("<f4").tobytes()
        encoded += field(7, field(7, field(1, dims)) + field(5, data))
    with open(path, "wb") as f:
        f.write(field(100, encoded))


class Library:
    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        lib.net_create.restype = ctypes.c_void_p
        lib.net_create.argtypes = [ctypes.c_char_p, ctypes.c_uint64]
        lib.net_destroy.argtypes = [ctypes.c_void_p]
        lib.net_forward.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.net_set_profiling.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.net_layer_time_ms.restype = ctypes.c_double
        lib.net_layer_time_ms.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.net_last_error.restype = ctypes.c_char_p

    def run(self, weights_path, x, out_shape, iterations):
        lib = self.lib
        ctx = lib.net_create(weights_path.encode(), 0)
        if not ctx:
            raise RuntimeError(lib.net_last_error().decode())
        try:
            host_in = x.detach().cpu().contiguous()
            host_out = torch.full(out_shape, float("nan"))
            if lib.net_forward(ctx, host_in.data_ptr(), host_out.data_ptr()) != 0:
                raise RuntimeError(lib.net_last_error().decode())
            lib.net_set_profiling(ctx, 1)
            times = []
            for _ in range(iterations):
                lib.net_forward(ctx, host_in.data_ptr(), host_out.data_ptr())
                times.append(lib.net_layer_time_ms(ctx, 0))
            return host_out, timing(times)
        finally:
            lib.net_destroy(ctx)
            # Each library carries its own Halide GPU runtime and context: release it, or 200
            # libraries would hold 200 contexts.
            for interface in ("halide_cuda_device_interface", "halide_opencl_device_interface"):
                if hasattr(lib, interface):
                    getattr(lib, interface).restype = ctypes.c_void_p
                    lib.halide_device_release.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
                    lib.halide_device_release(None, getattr(lib, interface)())


def timing(times):
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times)}


def time_peer(run, iterations):
    for _ in range(5):
        run()
    times = []
    for _ in range(iterations):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return timing(times)


def set_tf32(allowed):
    torch.backends.cudnn.allow_tf32 = allowed
    torch.backends.cuda.matmul.allow_tf32 = allowed


def bench_case(case, suite, bench_dir, scratch, iterations, generator):
    if suite == "conv":
        n, c, h, w, k, kh, kw, sh, sw, ph, pw, oh, ow, group = case["conv"]
        x = torch.rand(n, c, h, w, generator=generator) * 2 - 1
        weight = torch.randn(k, c // group, kh, kw, generator=generator) * (group / (c * kh * kw)) ** 0.5
        bias = torch.rand(k, generator=generator) - 0.5
        blobs, layer, out_shape = [weight, bias], "conv", (n, k, oh, ow)
        xg, wg, bg = x.cuda(), weight.cuda(), bias.cuda()
        peer = lambda: F.conv2d(xg, wg, bg, (sh, sw), (ph, pw), 1, group)  # noqa: E731
        peer_name = "cuDNN"
    else:
        size = case["n"]
        x = torch.rand(size, size, generator=generator) * 2 - 1
        weight = torch.randn(size, size, generator=generator)
        blobs, layer, out_shape = [weight], "gemm", (size, size)
        xg, wg = x.cuda(), weight.cuda()
        peer = lambda: torch.mm(xg, wg.t())  # noqa: E731
        peer_name = "cuBLAS sgemm"
    model = os.path.join(scratch, "weights.caffemodel")
    write_caffemodel(model, layer, blobs)
    ours, ours_timing = Library(os.path.join(bench_dir, case["library"])).run(model, x, out_shape, iterations)
    set_tf32(False)
    expected = peer().float().cpu()
    error = float((ours - expected).norm() / expected.norm())
    row = {key: case[key] for key in ("name", "gflop", "megabytes")}
    row.update(cortado=ours_timing, peer=peer_name + " fp32", relative_error=error)
    if not error <= 1e-4:
        print(f"{case['name']}: cortado differs from {peer_name} (relative L2 {error:.2e}); not timed", flush=True)
        row.update(peer_timing={"median_ms": 0, "min_ms": 0, "max_ms": 0})
        return row
    row["peer_timing"] = time_peer(peer, iterations)
    set_tf32(True)
    row["peer_tf32_timing"] = time_peer(peer, iterations)
    set_tf32(False)
    return row


def markdown(results):
    lines = [f"| {results['suite']} | GFLOP | cortado ms (min-max) | TFLOP/s | % of roofline | peer | peer ms (min-max) "
             "| speed-up over peer | peer TF32 ms | rel. error |", "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    ours_total = theirs_total = 0.0
    for r in results["rows"]:
        o, p, t = r["cortado"], r["peer_timing"], r.get("peer_tf32_timing", {"median_ms": 0})
        if p["median_ms"] <= 0:
            continue
        ours_total += o["median_ms"]
        theirs_total += p["median_ms"]
        achieved = r["gflop"] / o["median_ms"]
        roof = min(results["peak_gflops"], r["gflop"] * 1e3 / r["megabytes"] * results["bandwidth_gbs"])
        roof_text = f"{100 * achieved * 1e3 / roof:.1f}%" if roof > 0 else "-"  # no roofline: a raw Halide target
        lines.append(f"| {r['name']} | {r['gflop']:.3f} | {o['median_ms']:.4f} ({o['min_ms']:.4f}-{o['max_ms']:.4f}) "
                     f"| {achieved:.2f} | {roof_text} | {r['peer']} "
                     f"| {p['median_ms']:.4f} ({p['min_ms']:.4f}-{p['max_ms']:.4f}) | {p['median_ms'] / o['median_ms']:.2f} "
                     f"| {t['median_ms']:.4f} | {r['relative_error']:.1e} |")
    ratios = sorted(r["peer_timing"]["median_ms"] / r["cortado"]["median_ms"] for r in results["rows"]
                    if r["peer_timing"]["median_ms"] > 0)
    lines.append("")
    if ratios:
        lines.append(f"{len(ratios)} cases: cortado {ours_total:.2f} ms in total, peers {theirs_total:.2f} ms "
                     f"(speed-up {theirs_total / ours_total:.2f}); median per-case speed-up "
                     f"{ratios[len(ratios) // 2]:.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f})")
    return "\n".join(lines) + "\n"


def main():
    bench_dir, suite, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    with open(os.path.join(bench_dir, suite + ".json")) as f:
        spec = json.load(f)
    torch.backends.cudnn.benchmark = True
    generator = torch.Generator().manual_seed(1)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for i, case in enumerate(spec["cases"]):
            rows.append(bench_case(case, suite, bench_dir, scratch, iterations, generator))
            print(f"{i + 1}/{len(spec['cases'])} {case['name']}", file=sys.stderr, flush=True)
    results = {key: spec[key] for key in ("suite", "target", "halide_target", "peak_gflops", "bandwidth_gbs")}
    results.update(device=torch.cuda.get_device_name(), torch=torch.__version__,
                   cudnn=torch.backends.cudnn.version(), rows=rows)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)
    table = markdown(results)
    with open(out_path.replace(".json", ".md"), "w") as f:
        f.write(table)
    print(table)
    sys.exit(0 if all(r["relative_error"] <= 1e-4 for r in rows) else 1)


if __name__ == "__main__":
    main()
