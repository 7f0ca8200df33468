#!/usr/bin/env python3
"""The GPU half of `cortado bench`, run on the GPU machine: cortado's libraries against cuDNN and
cuBLAS (through PyTorch), and whole networks against PyTorch eager and torch.compile, in the same
process, on the same inputs.

    python3 gpu_bench.py BENCH_DIR SUITE OUT.json [ITERATIONS [BATCH]]

BENCH_DIR holds SUITE.json and the libraries written by
`cortado bench SUITE --target cuda-h100 --prepare BENCH_DIR` (tools/bench/gpu-check.sh does this).
For every case: random input, weights and bias are written as a .caffemodel and loaded into
cortado's library; its output is checked against the peer's fp32 output before either is timed;
then cortado's step (per-layer profiling, synchronised) and the peer (CUDA events) are timed,
medians and spread over ITERATIONS runs. Peers: cuDNN with cudnn.benchmark (cudnnFind picks the
fastest algorithm) and cuBLAS, fp32 with TF32 off; a second column with TF32 allowed. Suite
`nets`: each network is rebuilt in PyTorch from the graph JSON cortado wrote (`cortado info
--json` form) with the same weights; the whole forward pass is timed on both sides including the
input's copy to the GPU and the output's copy back; peers are PyTorch eager and torch.compile
(mode $GPU_BENCH_COMPILE_MODE, default "reduce-overhead"). Suite `exported`: torchvision's networks
as tools/bench/export_torchvision.py writes them, regenerated in BENCH_DIR on this machine from the
same seed (tools/bench/gpu-exported.sh), checked against onnxruntime and PyTorch eager fp32, and
timed against PyTorch eager, copies included; CUDA libraries that replay a graph also kernel by
kernel (CORTADO_CUDA_GRAPHS=0), and torch.compile(mode="reduce-overhead") for the networks named in
$GPU_BENCH_REDUCE_OVERHEAD (comma-separated). In `nets` and `exported`, the energy of a forward
pass (the board's, through NVML's energy counter, over at least a second of forwards) gives
images per joule for cortado and for PyTorch eager. Conv cases
also report the GPU's kernel time alone (CUPTI, through PyTorch's profiler), from which a
memory-bound kernel's share of the bandwidth roofline is read. Writes the same JSON as `cortado
bench --json` (tools/bench/bench_plots.py plots it) plus a markdown table.
"""
import ctypes
import json
import math
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.nn.functional as F


def caffe_pb2_module():
    """caffe_pb2, which protoc generates from frontend/caffe.proto into <build>/python: on the
    Python path (PYTHONPATH), beside this script where the GPU scripts copy it, or in the build tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (here, os.path.join(here, "..", "..", "build", "python")):
        if folder not in sys.path:
            sys.path.append(folder)
    try:
        import caffe_pb2
    except ImportError:
        sys.exit("caffe_pb2.py is neither on PYTHONPATH, beside gpu_bench.py nor in build/python "
                 "(cmake --build build writes it)")
    return caffe_pb2


def write_caffemodel(path, weights):
    """weights: {layer name: [tensor, ...]}, written as a NetParameter whose layers hold only their
    name and blobs (shape and data), which is what cortado's libraries read."""
    caffe_pb2 = caffe_pb2_module()
    net = caffe_pb2.NetParameter()
    for name, blobs in weights.items():
        layer = net.layer.add()
        layer.name = name
        for blob in blobs:
            proto = layer.blobs.add()
            proto.shape.dim.extend(blob.shape)
            proto.data.extend(blob.detach().cpu().contiguous().flatten().tolist())
    with open(path, "wb") as f:
        f.write(net.SerializeToString())


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
        if hasattr(lib, "net_launch_mode"):  # libraries from before CUDA graphs lack it
            lib.net_launch_mode.restype = ctypes.c_char_p
            lib.net_launch_mode.argtypes = [ctypes.c_void_p]

    def create(self, weights_path):
        ctx = self.lib.net_create(weights_path.encode(), 0)
        if not ctx:
            raise RuntimeError(self.lib.net_last_error().decode())
        return ctx

    def forward(self, ctx, host_in, host_out):
        if self.lib.net_forward(ctx, host_in.data_ptr(), host_out.data_ptr()) != 0:
            raise RuntimeError(self.lib.net_last_error().decode())

    def launch_mode(self, ctx):
        return self.lib.net_launch_mode(ctx).decode() if hasattr(self.lib, "net_launch_mode") else "kernel by kernel"

    def run(self, weights_path, x, out_shape, iterations, kernel_times=None):
        lib = self.lib
        ctx = self.create(weights_path)
        try:
            host_in = x.detach().cpu().contiguous()
            host_out = torch.full(out_shape, float("nan"))
            self.forward(ctx, host_in, host_out)
            lib.net_set_profiling(ctx, 1)
            times = []
            for _ in range(iterations):
                self.forward(ctx, host_in, host_out)
                times.append(lib.net_layer_time_ms(ctx, 0))
            if kernel_times is not None:
                lib.net_set_profiling(ctx, 0)
                kernel_times.append(kernel_ms(lambda: self.forward(ctx, host_in, host_out), iterations))
            return host_out, timing(times)
        finally:
            lib.net_destroy(ctx)
            self.release()

    def release(self):
        # Each library carries its own Halide GPU runtime and context: release it, or 200
        # libraries would hold 200 contexts.
        lib = self.lib
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


def kernel_ms(run, iterations):
    """Milliseconds the GPU spent in kernels per call of `run` (copies and memsets left out), from
    CUPTI's activity records through PyTorch's profiler: the device time without the launch and
    synchronisation that host-timed steps include, which is what a memory-bound kernel's share of
    the bandwidth roofline is read from. CUPTI sees CUDA kernels only: 0 for an OpenCL library."""
    run()
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        for _ in range(iterations):
            run()
        torch.cuda.synchronize()
    total_us = sum(e.self_device_time_total for e in profile.key_averages()
                   if not e.key.startswith(("Memcpy", "Memset")))
    return total_us / 1e3 / iterations


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
    write_caffemodel(model, {layer: blobs})
    kernel_times = []
    ours, ours_timing = Library(os.path.join(bench_dir, case["library"])).run(model, x, out_shape, iterations,
                                                                           kernel_times)
    set_tf32(False)
    expected = peer().float().cpu()
    error = float((ours - expected).norm() / expected.norm())
    row = {key: case[key] for key in ("name", "gflop", "megabytes")}
    row.update(cortado=ours_timing, cortado_kernel_ms=kernel_times[0], peer=peer_name + " fp32",
               relative_error=error)
    if "untuned_library" in case:  # tuning records changed the kernel: the default build too
        plain, row["untuned"] = Library(os.path.join(bench_dir, case["untuned_library"])).run(model, x, out_shape, iterations)
        row["untuned_relative_error"] = float((plain - expected).norm() / expected.norm())
    if not error <= 1e-4:
        print(f"{case['name']}: cortado differs from {peer_name} (relative L2 {error:.2e}); not timed", flush=True)
        row.update(peer_timing={"median_ms": 0, "min_ms": 0, "max_ms": 0})
        return row
    row["peer_timing"] = time_peer(peer, iterations)
    row["peer_kernel_ms"] = kernel_ms(peer, iterations)
    set_tf32(True)
    row["peer_tf32_timing"] = time_peer(peer, iterations)
    set_tf32(False)
    return row


class TorchNetwork:
    """The graph JSON interpreted with torch.nn.functional, following Caffe's definitions."""

    def __init__(self, graph, weights):
        self.graph, self.weights = graph, weights

    def __call__(self, x):
        values = {self.graph["inputs"][0]["value"]: x}
        for layer in self.graph["layers"]:
            ins = [values[v] for v in layer["bottoms"]]
            outs = self.layer(layer, ins, self.weights.get(layer["name"], []))
            for top, out in zip(layer["tops"], outs):
                values[top["value"]] = out.reshape(top["shape"])
        return values[self.graph["outputs"][0]["value"]]

    @staticmethod
    def layer(layer, ins, blobs):
        p, kind, x = layer["params"], layer["type"], ins[0] if ins else None
        if kind == "Convolution":
            y = F.conv2d(x, blobs[0], blobs[1] if p["bias_term"] else None, p["stride"], p["pad"], p["dilation"], p["group"])
            return [F.leaky_relu(y, p["relu_negative_slope"]) if p.get("fused_relu") else y]
        if kind == "InnerProduct":
            weight = blobs[0].t() if p["transpose"] else blobs[0]
            y = F.linear(x.reshape(math.prod(x.shape[:p["axis"]]), -1), weight,
                         blobs[1] if p["bias_term"] else None)
            return [F.leaky_relu(y, p["relu_negative_slope"]) if p.get("fused_relu") else y]
        if kind == "ReLU":
            return [F.leaky_relu(x, p["negative_slope"])]
        if kind == "Pooling":
            kernel = list(x.shape[2:]) if p["global_pooling"] else p["kernel"]
            pad = [0, 0] if p["global_pooling"] else p["pad"]
            stride = [1, 1] if p["global_pooling"] else p["stride"]
            if p["pool"] == "MAX":
                return [F.max_pool2d(x, kernel, stride, pad, ceil_mode=bool(p["round_up"]))]
            return [F.avg_pool2d(x, kernel, stride, pad, ceil_mode=bool(p["round_up"]), count_include_pad=True)]
        if kind == "LRN":
            if p["norm_region"] == "ACROSS_CHANNELS":
                return [F.local_response_norm(x, p["local_size"], p["alpha"], p["beta"], p["k"])]
            half = (p["local_size"] - 1) // 2
            mean = F.avg_pool2d(x * x, p["local_size"], 1, half, count_include_pad=True)
            return [x * (1 + p["alpha"] * mean) ** -p["beta"]]
        if kind == "Softmax":
            return [F.softmax(x, dim=p["axis"])]
        if kind == "Concat":
            return [torch.cat(ins, dim=p["axis"])]
        if kind == "Eltwise":
            if p["operation"] == "SUM":
                coeff = p["coeff"] or [1.0] * len(ins)
                return [sum(c * t for c, t in zip(coeff, ins))]
            out = ins[0]
            for t in ins[1:]:
                out = out * t if p["operation"] == "PROD" else torch.maximum(out, t)
            return [out]
        if kind == "BatchNorm":
            factor = 0 if float(blobs[2][0]) == 0 else 1 / float(blobs[2][0])
            shape = (1, -1) + (1,) * (x.dim() - 2)
            return [(x - (blobs[0] * factor).reshape(shape)) / torch.sqrt((blobs[1] * factor).reshape(shape) + p["eps"])]
        if kind == "Scale":
            if len(ins) == 2:  # Caffe's two-bottom form: the scale covers x's axes from `axis` on
                axis = p["axis"] % x.dim()
                shape = (1,) * axis + tuple(ins[1].shape) + (1,) * (x.dim() - axis - ins[1].dim())
                y = x * ins[1].reshape(shape)
                return [y + blobs[0].reshape(shape) if p["bias_term"] else y]
            shape = (1, -1) + (1,) * (x.dim() - 2)
            y = x * blobs[0].reshape(shape)
            return [y + blobs[1].reshape(shape) if p["bias_term"] else y]
        if kind in ("Dropout", "Split", "Flatten", "Reshape"):
            return [x] * len(layer["tops"])
        raise ValueError(f"layer {layer['name']}: type {kind} is not rebuilt in PyTorch")


def random_weights(graph, generator):
    weights = {}
    for layer in graph["layers"]:
        blobs = []
        for i, shape in enumerate(layer["weight_shapes"]):
            if layer["type"] in ("Convolution", "InnerProduct") and i == 0:
                fan_in = math.prod(shape[1:]) if layer["type"] == "Convolution" else \
                    (shape[0] if layer["params"]["transpose"] else shape[1])
                blobs.append(torch.randn(shape, generator=generator) * (1.0 / fan_in) ** 0.5)
            elif layer["type"] == "BatchNorm":
                blobs.append([torch.randn(shape, generator=generator) * 0.1, torch.rand(shape, generator=generator) + 0.5,
                              torch.ones(shape)][i])
            else:
                blobs.append(torch.rand(shape, generator=generator) * 0.2 - 0.1)
        if blobs:
            weights[layer["name"]] = blobs
    return weights


def wall_times(run, iterations):
    for _ in range(3):
        run()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return timing(times)


class BoardEnergy:
    """The GPU's energy counter through NVML (nvmlDeviceGetTotalEnergyConsumption: millijoules since
    the driver loaded, Volta and later), for the first GPU: the bench runs on a one-GPU machine.
    `available` is False where NVML or the counter is missing; the rows then carry no energy."""

    def __init__(self):
        self.available = False
        try:
            self.nvml = ctypes.CDLL("libnvidia-ml.so.1")
            self.handle = ctypes.c_void_p()
            if self.nvml.nvmlInit_v2() != 0 or self.nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.handle)):
                return
            self.available = self.millijoules() is not None
        except OSError:
            pass

    def millijoules(self):
        value = ctypes.c_ulonglong()
        if self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle, ctypes.byref(value)) != 0:
            return None
        return value.value


BOARD_ENERGY = None


def joules_per_run(run, seconds=1.0):
    """The board's energy per call of `run` (which synchronises, as the copies back do), over whole
    calls filling at least `seconds`: the counter ticks in millijoules, every few milliseconds."""
    global BOARD_ENERGY
    if BOARD_ENERGY is None:
        BOARD_ENERGY = BoardEnergy()
    if not BOARD_ENERGY.available:
        return None
    run()
    start_mj, start, runs = BOARD_ENERGY.millijoules(), time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        run()
        runs += 1
    return (BOARD_ENERGY.millijoules() - start_mj) / 1e3 / runs


def add_energy(row, batch, ours, peer):
    """Images per joule of cortado's forward and the peer's, into `row` (nothing without NVML)."""
    ours_j, peer_j = joules_per_run(ours), joules_per_run(peer)
    if ours_j and peer_j:
        row["images_per_joule"] = batch / ours_j
        row["peer_images_per_joule"] = batch / peer_j


def bench_network(case, bench_dir, scratch, iterations, generator):
    with open(os.path.join(bench_dir, case["graph"])) as f:
        graph = json.load(f)
    weights = random_weights(graph, generator)
    model = os.path.join(scratch, "weights.caffemodel")
    write_caffemodel(model, weights)
    x = torch.rand(graph["inputs"][0]["shape"], generator=generator) * 2 - 1
    out_shape = graph["outputs"][0]["shape"]

    lib = Library(os.path.join(bench_dir, case["library"]))
    ctx = lib.create(model)
    host_in, ours = x.contiguous(), torch.full(out_shape, float("nan"))
    forward = lambda: lib.forward(ctx, host_in, ours)  # noqa: E731
    try:
        forward()
        row = bench_network_forward(case, graph, weights, x, ours, forward, iterations)
    finally:
        lib.lib.net_destroy(ctx)
        lib.release()
    # The default build where tuning records changed some kernel; the unfused build (`bench nets
    # --no-fusion --prepare`): each timed on the same input, its output compared with the library's.
    for key in ("untuned", "unfused"):
        if key + "_library" in case:
            time_other_build(row, key, os.path.join(bench_dir, case[key + "_library"]), model, host_in, ours,
                             iterations)
    return row


def time_other_build(row, key, library_path, weights_path, host_in, ours, iterations):
    """Another build of the same network (untuned, unfused), timed as the library was, into row[key]."""
    other = Library(library_path)
    ctx = other.create(weights_path)
    out = torch.full(ours.shape, float("nan"))
    try:
        row[key] = wall_times(lambda: other.forward(ctx, host_in, out), iterations)
        row[key + "_relative_error"] = float((out - ours).norm() / ours.norm())
    finally:
        other.lib.net_destroy(ctx)
        other.release()


def bench_network_forward(case, graph, weights, x, ours, forward, iterations):
    """Checks cortado's output (`ours`, from `forward`) against PyTorch eager, then times both and
    torch.compile."""
    host_in = x.contiguous()
    set_tf32(False)
    network = TorchNetwork(graph, {k: [b.cuda() for b in v] for k, v in weights.items()})
    eager = lambda: network(host_in.cuda()).cpu()  # noqa: E731  (both sides copy in and out)
    # fp16 cases (`bench nets --precision fp16 --prepare`): cortado's convolutions in half
    # precision against eager under fp16 autocast, both checked against eager in fp32.
    fp16 = case.get("precision") == "fp16"
    with torch.no_grad():
        expected = eager()
        error = float((ours - expected).norm() / expected.norm())
        row = {"name": case["name"], "gflop": case["gflop"], "megabytes": 0,
               "peer": "PyTorch eager fp16 autocast" if fp16 else "PyTorch eager fp32", "relative_error": error}
        row["cortado"] = wall_times(forward, iterations)
        if fp16:
            def eager_fp16():
                with torch.autocast("cuda", dtype=torch.float16):
                    return network(host_in.cuda()).float().cpu()
            row["peer_relative_error"] = float((eager_fp16() - expected).norm() / expected.norm())
            if not error <= 2e-2:
                print(f"{case['name']}: cortado fp16 differs from eager fp32 (relative L2 {error:.2e}); not timed",
                      flush=True)
                row["peer_timing"] = {"median_ms": 0, "min_ms": 0, "max_ms": 0}
                return row
            row["peer_timing"] = wall_times(eager_fp16, iterations)
            add_energy(row, x.shape[0], forward, eager_fp16)
            return row
        if not error <= 1e-4:
            print(f"{case['name']}: cortado differs from PyTorch (relative L2 {error:.2e}); not timed", flush=True)
            row["peer_timing"] = {"median_ms": 0, "min_ms": 0, "max_ms": 0}
            return row
        row["peer_timing"] = wall_times(eager, iterations)
        add_energy(row, x.shape[0], forward, eager)
        # reduce-overhead (CUDA graphs) is the whole-network peer cortado's graphs compete with;
        # $GPU_BENCH_COMPILE_MODE=default gives torch.compile's default mode.
        time_compiled(row, network, host_in, expected, iterations,
                      os.environ.get("GPU_BENCH_COMPILE_MODE", "reduce-overhead"))
    return row


def bench_exported(case, bench_dir, iterations, generator):
    """An exported torchvision network (tools/bench/export_torchvision.py, regenerated on this machine
    from the same seed into BENCH_DIR): cortado's library with the model's own weights (written
    from the .onnx file by `prebuilt_network_check --write-model-weights`), checked against
    onnxruntime on the CPU (where it is installed) and PyTorch eager fp32 on the GPU; then both
    timed, input and output copies included."""
    from export_torchvision import SEGMENTERS, build  # beside this script
    torch.manual_seed(case["seed"])
    model = build(case["network"]).cuda()
    onnx_path = os.path.join(bench_dir, case["network"] + ".onnx")
    x = (torch.rand(case["batch"], 3, 224, 224, generator=generator) * 2 - 1).contiguous()
    lib = Library(os.path.join(bench_dir, case["library"]))
    weights_path = os.path.join(bench_dir, case["network"] + ".caffemodel")
    ctx = lib.create(weights_path)
    ours = torch.full((case["batch"], 21, 224, 224) if case["network"] in SEGMENTERS else (case["batch"], 1000),
                      float("nan"))
    forward = lambda: lib.forward(ctx, x, ours)  # noqa: E731
    try:
        forward()
        set_tf32(False)
        eager = lambda: model(x.cuda()).cpu()  # noqa: E731  (both sides copy in and out)
        with torch.no_grad():
            expected = eager()
            row = {"name": case["name"], "gflop": case["gflop"], "megabytes": 0, "peer": "PyTorch eager fp32",
                   "relative_error": float((ours - expected).norm() / expected.norm())}
            try:
                import onnxruntime
                session = onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
                (reference,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
                reference = torch.from_numpy(reference)
                row["onnxruntime_relative_error"] = float((ours - reference).norm() / reference.norm())
                row["relative_error"] = max(row["relative_error"], row["onnxruntime_relative_error"])
            except ImportError:
                pass
            if not row["relative_error"] <= 1e-4:
                print(f"{case['name']}: cortado differs from its peers (relative L2 {row['relative_error']:.2e}); "
                      "not timed", flush=True)
                row["cortado"] = row["peer_timing"] = {"median_ms": 0, "min_ms": 0, "max_ms": 0}
                return row
            row["cortado"] = wall_times(forward, iterations)
            row["peer_timing"] = wall_times(eager, iterations)
            add_energy(row, x.shape[0], forward, eager)
            row["launch_mode"] = lib.launch_mode(ctx)
            if row["launch_mode"] == "one CUDA graph":
                row["kernel_by_kernel"] = kernel_by_kernel_times(lib, weights_path, x, ours.shape, iterations)
            if case["network"] in os.environ.get("GPU_BENCH_REDUCE_OVERHEAD", "").split(","):
                time_compiled(row, model, x, expected, iterations, "reduce-overhead")
            if "unfused_library" in case:  # every layer its own step, on the same input
                time_other_build(row, "unfused", os.path.join(bench_dir, case["unfused_library"]), weights_path,
                                 x, ours, iterations)
    finally:
        lib.lib.net_destroy(ctx)
        lib.release()
    return row


def time_compiled(row, module, host_in, expected, iterations, mode):
    """torch.compile(module, mode=mode), compiled fresh (no recompile limit, no dynamic shapes),
    checked against `expected` and timed as eager is, copies included, into `row`."""
    start = time.perf_counter()
    torch._dynamo.reset()
    compiled_module = torch.compile(module, dynamic=False, mode=mode)
    compiled = lambda: compiled_module(host_in.cuda()).cpu()  # noqa: E731
    row["compiled_relative_error"] = float((compiled() - expected).norm() / expected.norm())
    row["compile_seconds"] = time.perf_counter() - start
    row["compile_mode"] = mode
    row["peer_compiled_timing"] = wall_times(compiled, iterations)


def kernel_by_kernel_times(lib, weights_path, x, out_shape, iterations):
    """The same library's forward with CUDA graphs off (a second context, made and captured under
    CORTADO_CUDA_GRAPHS=0), input and output copies included."""
    os.environ["CORTADO_CUDA_GRAPHS"] = "0"
    ctx = None
    try:
        ctx = lib.create(weights_path)
        out = torch.full(out_shape, float("nan"))
        times = wall_times(lambda: lib.forward(ctx, x, out), iterations)
        if lib.launch_mode(ctx) == "one CUDA graph":
            raise RuntimeError("CORTADO_CUDA_GRAPHS=0 did not keep the forward kernel by kernel")
        return times
    finally:
        del os.environ["CORTADO_CUDA_GRAPHS"]
        if ctx:
            lib.lib.net_destroy(ctx)


def nets_markdown(results):
    compiled = any("peer_compiled_timing" in r for r in results["rows"])
    graphs = any("kernel_by_kernel" in r for r in results["rows"])  # CUDA libraries replaying a graph
    energy = any("images_per_joule" in r for r in results["rows"])
    none = {"median_ms": 0, "min_ms": 0, "max_ms": 0}
    lines = ["| network | GFLOP | cortado ms (min-max) | PyTorch eager ms (min-max) | speed-up over eager "
             + ("| torch.compile ms (min-max) | speed-up over torch.compile " if compiled else "")
             + ("| cortado kernel by kernel ms | CUDA graph speed-up " if graphs else "")
             + ("| cortado images/J | eager images/J " if energy else "") + "| rel. error |",
             "|---|---:|---:|---:|---:|" + ("---:|---:|" if compiled else "") + ("---:|---:|" if graphs else "")
             + ("---:|---:|" if energy else "") + "---:|"]
    for r in results["rows"]:
        o, e = r["cortado"], r["peer_timing"]
        c, k = r.get("peer_compiled_timing", none), r.get("kernel_by_kernel", none)
        if e["median_ms"] <= 0:
            continue
        span = lambda t: f"{t['median_ms']:.3f} ({t['min_ms']:.3f}-{t['max_ms']:.3f})"  # noqa: E731
        lines.append(f"| {r['name']} | {r['gflop']:.3f} | {span(o)} | {span(e)} | {e['median_ms'] / o['median_ms']:.2f} "
                     + (f"| {span(c)} | {c['median_ms'] / o['median_ms']:.2f} " if compiled else "")
                     + (f"| {span(k)} | {k['median_ms'] / o['median_ms']:.2f} " if graphs else "")
                     + (f"| {r.get('images_per_joule', 0):.1f} | {r.get('peer_images_per_joule', 0):.1f} "
                        if energy else "")
                     + f"| {r['relative_error']:.1e} |")
    for r in results["rows"]:
        if "untuned" in r:  # tuning records changed some kernel: the default build, same run
            u = r["untuned"]
            lines.append(f"\n{r['name']} untuned: {u['median_ms']:.3f} ({u['min_ms']:.3f}-{u['max_ms']:.3f}) ms, "
                         f"tuned speed-up {u['median_ms'] / r['cortado']['median_ms']:.2f}")
    unfused = [r for r in results["rows"] if "unfused" in r and r["cortado"]["median_ms"] > 0]
    if unfused:  # `--no-fusion --prepare`: the unfused build of each network, same run
        lines += ["", "| network | fused ms | --no-fusion ms | fusion speed-up | --no-fusion over eager | unfused vs fused rel. |",
                  "|---|---:|---:|---:|---:|---:|"]
        for r in unfused:
            f, u, e = r["cortado"]["median_ms"], r["unfused"]["median_ms"], r["peer_timing"]["median_ms"]
            lines.append(f"| {r['name']} | {f:.3f} | {u:.3f} | {u / f:.2f} | {e / u if e > 0 else 0:.2f} | "
                         f"{r['unfused_relative_error']:.1e} |")
        fused_total, unfused_total = (sum(r[k]["median_ms"] for r in unfused) for k in ("cortado", "unfused"))
        lines.append(f"\n{len(unfused)} networks: fused {fused_total:.2f} ms, --no-fusion {unfused_total:.2f} ms "
                     f"(fusion speed-up {unfused_total / fused_total:.2f})")
    return "\n".join(lines) + "\n"


def markdown(results):
    kernels = any(r.get("cortado_kernel_ms", 0) > 0 for r in results["rows"])
    lines = [f"| {results['suite']} | GFLOP | cortado ms (min-max) | TFLOP/s | % of roofline | peer | peer ms (min-max) "
             "| speed-up over peer | peer TF32 ms | speed-up over TF32 | rel. error |"
             + (" cortado kernel ms | kernel % of roofline | peer kernel ms | kernel speed-up |" if kernels else ""),
             "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|" + ("---:|---:|---:|---:|" if kernels else "")]
    ours_total = theirs_total = ours_kernels = theirs_kernels = roof_kernels = 0.0
    for r in results["rows"]:
        o, p, t = r["cortado"], r["peer_timing"], r.get("peer_tf32_timing", {"median_ms": 0})
        if p["median_ms"] <= 0:
            continue
        ours_total += o["median_ms"]
        theirs_total += p["median_ms"]
        achieved = r["gflop"] / o["median_ms"]
        roof = min(results["peak_gflops"], r["gflop"] * 1e3 / r["megabytes"] * results["bandwidth_gbs"])
        roof_text = f"{100 * achieved * 1e3 / roof:.1f}%" if roof > 0 else "-"  # no roofline: a raw Halide target
        line = (f"| {r['name']} | {r['gflop']:.3f} | {o['median_ms']:.4f} ({o['min_ms']:.4f}-{o['max_ms']:.4f}) "
                f"| {achieved:.2f} | {roof_text} | {r['peer']} "
                f"| {p['median_ms']:.4f} ({p['min_ms']:.4f}-{p['max_ms']:.4f}) | {p['median_ms'] / o['median_ms']:.2f} "
                f"| {t['median_ms']:.4f} | {t['median_ms'] / o['median_ms']:.2f} | {r['relative_error']:.1e} |")
        if kernels and r.get("cortado_kernel_ms", 0) > 0 and r.get("peer_kernel_ms", 0) > 0:
            ok, pk = r["cortado_kernel_ms"], r["peer_kernel_ms"]
            ours_kernels, theirs_kernels = ours_kernels + ok, theirs_kernels + pk
            roof_ms = r["gflop"] / roof * 1e3 if roof > 0 else 0
            roof_kernels += roof_ms
            line += f" {ok:.4f} | {100 * roof_ms / ok:.1f}% | {pk:.4f} | {pk / ok:.2f} |"
        lines.append(line)
    ratios = sorted(r["peer_timing"]["median_ms"] / r["cortado"]["median_ms"] for r in results["rows"]
                    if r["peer_timing"]["median_ms"] > 0)
    lines.append("")
    if ratios:
        lines.append(f"{len(ratios)} cases: cortado {ours_total:.2f} ms in total, peers {theirs_total:.2f} ms "
                     f"(speed-up {theirs_total / ours_total:.2f}); median per-case speed-up "
                     f"{ratios[len(ratios) // 2]:.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f})")
    if ours_kernels > 0:
        lines.append(f"GPU kernel time alone: cortado {ours_kernels:.3f} ms, peers {theirs_kernels:.3f} ms (speed-up "
                     f"{theirs_kernels / ours_kernels:.2f}); cortado's kernels at {100 * roof_kernels / ours_kernels:.1f}% "
                     "of the roofline in total")
    tuned = [r for r in results["rows"] if "untuned" in r and r["peer_timing"]["median_ms"] > 0]
    if tuned:  # tuning records changed these cases: the same run timed their default build
        with_records = sum(r["cortado"]["median_ms"] for r in results["rows"] if r["peer_timing"]["median_ms"] > 0)
        without = with_records + sum(r["untuned"]["median_ms"] - r["cortado"]["median_ms"] for r in tuned)
        lines.append(f"tuning records changed {len(tuned)} cases: cortado {with_records:.2f} ms tuned, {without:.2f} ms "
                     f"untuned (tuned speed-up {without / with_records:.2f}); against the peers: tuned "
                     f"{theirs_total / with_records:.2f}, untuned {theirs_total / without:.2f}")
    return "\n".join(lines) + "\n"


def write_results(spec, suite, rows, out_path):
    results = {key: spec[key] for key in ("suite", "target", "halide_target", "peak_gflops", "bandwidth_gbs")}
    results.update(device=torch.cuda.get_device_name(), torch=torch.__version__,
                   cudnn=torch.backends.cudnn.version(), rows=rows)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)
    table = nets_markdown(results) if suite in ("nets", "exported") else markdown(results)
    with open(os.path.splitext(out_path)[0] + ".md", "w") as f:
        f.write(table)
    return table


def main():
    bench_dir, suite, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
    iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    batch = sys.argv[5] if len(sys.argv) > 5 else None  # only the cases named "... bBATCH"
    with open(os.path.join(bench_dir, suite + ".json")) as f:
        spec = json.load(f)
    torch.backends.cudnn.benchmark = True
    generator = torch.Generator().manual_seed(1)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        cases = [c for c in spec["cases"] if batch is None or c["name"].endswith(" b" + batch)]
        if not cases:
            sys.exit(f"{suite}: no case matches batch {batch} (the batch filter is for nets)")
        for i, case in enumerate(cases):
            try:
                if suite == "nets":
                    rows.append(bench_network(case, bench_dir, scratch, iterations, generator))
                elif suite == "exported":
                    rows.append(bench_exported(case, bench_dir, iterations, generator))
                else:
                    rows.append(bench_case(case, suite, bench_dir, scratch, iterations, generator))
            except RuntimeError as error:  # a failing library fails its row, not the whole run
                print(f"{case['name']}: {error}", flush=True)
                rows.append({"name": case["name"], "gflop": case["gflop"], "megabytes": case["megabytes"],
                             "peer": "-", "relative_error": float("inf"), "error": str(error),
                             "cortado": {"median_ms": 0, "min_ms": 0, "max_ms": 0},
                             "peer_timing": {"median_ms": 0, "min_ms": 0, "max_ms": 0}})
            print(f"{i + 1}/{len(cases)} {case['name']}", file=sys.stderr, flush=True)
            table = write_results(spec, suite, rows, out_path)  # after each case: a cut-off run keeps its rows
    print(table)
    sys.exit(0 if all(r["relative_error"] <= 1e-4 for r in rows) else 1)


if __name__ == "__main__":
    main()
