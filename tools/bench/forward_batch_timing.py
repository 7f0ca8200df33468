#!/usr/bin/env python3
"""Times NAME_forward_batch of a compiled network library for several image counts, to show that
the time scales with the count below the compiled batch:
    cortado compile NET --batch B --shared -o DIR
    tools/bench/forward_batch_timing.py DIR/libNAME.so NAME [--iterations K] [COUNT ...]
Prints one line per count: the median milliseconds of K calls and the milliseconds per image.
The weights come from the prototxt's fillers (seed 1); the input is uniform(-1, 1)."""
import argparse
import ctypes
import random
import statistics
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("name")
    parser.add_argument("counts", nargs="*", type=int)
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()
    lib = ctypes.CDLL(args.library)
    fn = lambda suffix: getattr(lib, args.name + suffix)  # noqa: E731
    fn("_create").restype = ctypes.c_void_p
    fn("_create").argtypes = [ctypes.c_char_p, ctypes.c_uint64]
    fn("_forward_batch").argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    fn("_last_error").restype = ctypes.c_char_p
    dims = (ctypes.c_int64 * 4)()
    rank = fn("_input_shape")(dims)
    batch, image_in = dims[0], 1
    for d in range(1, rank):
        image_in *= dims[d]
    rank = fn("_output_shape")(dims)
    image_out = 1
    for d in range(1, rank):
        image_out *= dims[d]
    ctx = fn("_create")(None, 1)
    if not ctx:
        raise SystemExit(fn("_last_error")().decode())
    rng = random.Random(1)
    inputs = (ctypes.c_float * (batch * image_in))(*[rng.uniform(-1, 1) for _ in range(batch * image_in)])
    outputs = (ctypes.c_float * (batch * image_out))()
    for n in args.counts or [1, batch]:
        def call():
            if fn("_forward_batch")(ctx, n, inputs, outputs) != 0:
                raise SystemExit(fn("_last_error")().decode())
        call()  # the first smaller count creates the batch-1 network
        times = []
        for _ in range(args.iterations):
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1e3)
        median = statistics.median(times)
        print(f"{args.name} compiled for {batch}: {n} images {median:.3f} ms, {median / n:.3f} ms per image")


if __name__ == "__main__":
    main()
