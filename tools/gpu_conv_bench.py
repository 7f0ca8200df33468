"""Times cortado's compiled convolutions against cuDNN in one process on the lent GPU.

For each network library (compiled by tools/gpu-check.sh) it loads the library with ctypes,
runs it with per-layer profiling (every kernel synchronised) and takes the median time of each
convolution step; then it runs the same convolution shape through PyTorch's cuDNN (benchmark
mode picks the fastest algorithm; TF32 off, so fp32 FFMA like ours) timed with CUDA events.
Prints one row per convolution and the sums, and writes them as JSON to argv[1].
"""
import ctypes
import json
import statistics
import sys

import torch
import torch.nn.functional as F

PEAK_FP32_TFLOPS = 64.4  # H100 SXM FFMA peak (DESIGN.md anchor)
ITERATIONS = 50


def ours(library, steps):
    lib = ctypes.CDLL(library)
    lib.net_create.restype = ctypes.c_void_p
    lib.net_create.argtypes = [ctypes.c_char_p, ctypes.c_uint64]
    lib.net_forward.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.net_set_profiling.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.net_layer_time_ms.restype = ctypes.c_double
    lib.net_layer_time_ms.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.net_layer_name.restype = ctypes.c_char_p
    lib.net_input_shape.argtypes = [ctypes.POINTER(ctypes.c_int64)]
    lib.net_output_shape.argtypes = [ctypes.POINTER(ctypes.c_int64)]
    ctx = lib.net_create(None, 1)
    if not ctx:
        raise RuntimeError(lib.net_last_error())
    dims = (ctypes.c_int64 * 4)()
    count = lambda rank: int(torch.tensor(list(dims)[:rank]).prod())
    inputs = (ctypes.c_float * count(lib.net_input_shape(dims)))()
    outputs = (ctypes.c_float * count(lib.net_output_shape(dims)))()
    names = [lib.net_layer_name(i).decode() for i in range(lib.net_layer_count())]
    lib.net_set_profiling(ctx, 1)
    times = {name: [] for name in steps}
    for i in range(ITERATIONS + 3):
        if lib.net_forward(ctx, inputs, outputs) != 0:
            raise RuntimeError(lib.net_last_error())
        if i >= 3:
            for name in steps:
                times[name].append(lib.net_layer_time_ms(ctx, names.index(name)))
    return {name: statistics.median(t) for name, t in times.items()}


def cudnn(n, c, h, w, k, kernel, stride, pad, group):
    x = torch.randn(n, c, h, w, device="cuda")
    weight = torch.randn(k, c // group, kernel, kernel, device="cuda")
    bias = torch.randn(k, device="cuda")
    for _ in range(5):
        F.conv2d(x, weight, bias, stride, pad, 1, group)
    times = []
    for _ in range(ITERATIONS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        F.conv2d(x, weight, bias, stride, pad, 1, group)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    # (library, step name, N, C, H, W, K, kernel, stride, pad, group, output H, output W)
    cases = json.loads(sys.argv[2])
    rows = []
    by_library = {}
    for case in cases:
        by_library.setdefault(case[0], []).append(case[1])
    measured = {lib: ours(lib, steps) for lib, steps in by_library.items()}
    for lib, step, n, c, h, w, k, kernel, stride, pad, group, oh, ow in cases:
        flops = 2 * n * k * oh * ow * (c // group) * kernel * kernel
        mine = measured[lib][step]
        theirs = cudnn(n, c, h, w, k, kernel, stride, pad, group)
        rows.append(dict(library=lib, step=step, flops=flops, cortado_ms=mine, cudnn_ms=theirs,
                         cortado_tflops=flops / mine / 1e9, cudnn_tflops=flops / theirs / 1e9,
                         cortado_fraction_of_peak=flops / mine / 1e9 / PEAK_FP32_TFLOPS))
        r = rows[-1]
        print(f"{step:28s} {flops/1e9:7.3f} GFLOP  cortado {mine:8.4f} ms {r['cortado_tflops']:6.2f} TFLOP/s "
              f"({100*r['cortado_fraction_of_peak']:4.1f}% of FFMA peak)  cuDNN {theirs:8.4f} ms "
              f"{r['cudnn_tflops']:6.2f} TFLOP/s  ratio cortado/cuDNN {mine/theirs:5.2f}")
    for lib in by_library:
        mine = sum(r["cortado_ms"] for r in rows if r["library"] == lib)
        theirs = sum(r["cudnn_ms"] for r in rows if r["library"] == lib)
        print(f"sum over {lib}: cortado {mine:.4f} ms, cuDNN {theirs:.4f} ms, ratio {mine/theirs:.2f}")
    with open(sys.argv[1], "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
