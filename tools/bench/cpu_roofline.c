/* Measures the two roofline figures a CPU target description needs (targets/README.md):
 * peak_gflops, from twelve independent chains of FMAs per thread in the widest vectors the build
 * enables (512-bit with AVX-512, else 256-bit; enough chains to cover the FMA latency on two
 * pipes), and bandwidth_gbs, from a STREAM-style triad over 256 MiB arrays. Best of three runs
 * each, on all cores (OpenMP). x86-64 with AVX2 + FMA at least.
 *     cc -O2 -march=native -fopenmp tools/bench/cpu_roofline.c -o cpu_roofline && ./cpu_roofline */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
enum { kLanes = 16 };
#else
enum { kLanes = 8 };
#endif
typedef float vfloat __attribute__((vector_size(kLanes * sizeof(float))));

static vfloat splat(float v) {
    vfloat r;
    for (int i = 0; i < kLanes; i++) r[i] = v;
    return r;
}

static double fma_gflops(void) {
    const long iterations = 20000000;
    double best = 0;
    for (int run = 0; run < 3; run++) {
        float sink = 0;
        int threads = 1;
        const double start = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
        {
#pragma omp single
            threads = omp_get_num_threads();
            /* Twelve named accumulators (an array here is not always kept in registers), enough to
             * cover a 4-5 cycle FMA latency on two pipes. Each starts from its own value and all go
             * through the barrier: chains that start equal are one chain to the compiler, which
             * then runs fewer FMAs than are counted. */
            vfloat a0 = splat(1.0f), a1 = splat(1.01f), a2 = splat(1.02f), a3 = splat(1.03f), a4 = splat(1.04f);
            vfloat a5 = splat(1.05f), a6 = splat(1.06f), a7 = splat(1.07f), a8 = splat(1.08f), a9 = splat(1.09f);
            vfloat a10 = splat(1.10f), a11 = splat(1.11f);
            const vfloat m = splat(0.999999f), c = splat(1e-7f);
            for (long i = 0; i < iterations; i++) {
                a0 = a0 * m + c, a1 = a1 * m + c, a2 = a2 * m + c, a3 = a3 * m + c, a4 = a4 * m + c, a5 = a5 * m + c;
                a6 = a6 * m + c, a7 = a7 * m + c, a8 = a8 * m + c, a9 = a9 * m + c, a10 = a10 * m + c, a11 = a11 * m + c;
                __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5));
                __asm__ volatile("" : "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));
            }
            a0 = (a0 + a1) + (a2 + a3) + (a4 + a5) + (a6 + a7) + (a8 + a9) + (a10 + a11);
            float lanes[kLanes];
            __builtin_memcpy(lanes, &a0, sizeof lanes);
            sink += lanes[0];
        }
        const double seconds = omp_get_wtime() - start;
        const double gflops = 2.0 * kLanes * 12 * iterations * threads / seconds / 1e9;
        if (gflops > best && sink != 0) best = gflops;
    }
    return best;
}

static double triad_gbs(void) {
    const long n = 64L * 1024 * 1024;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) return 0;
#pragma omp parallel for
    for (long i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
    double best = 0;
    for (int run = 0; run < 3; run++) {
        const double start = omp_get_wtime();
#pragma omp parallel for
        for (long i = 0; i < n; i++) a[i] = b[i] + 1.5f * c[i];
        const double gbs = 3.0 * n * sizeof(float) / (omp_get_wtime() - start) / 1e9;
        if (gbs > best) best = gbs;
    }
    const int ok = a[n / 2] == 4.0f;
    free(a), free(b), free(c);
    return ok ? best : 0;
}

int main(void) {
    printf("peak_gflops = %.1f\nbandwidth_gbs = %.1f\n# %d threads, %d-bit FMAs\n", fma_gflops(), triad_gbs(),
           omp_get_max_threads(), kLanes * 32);
    return 0;
}
