/* Measures the two roofline figures a CPU target description needs (targets/README.md):
 * peak_gflops, from ten independent chains of 256-bit FMAs per thread (enough to cover the FMA
 * latency on two pipes), and bandwidth_gbs, from a STREAM-style triad over 256 MiB arrays.
 * Best of three runs each, on all cores (OpenMP). x86-64 with AVX2 + FMA.
 *     cc -O2 -mavx2 -mfma -fopenmp tools/cpu_roofline.c -o cpu_roofline && ./cpu_roofline */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

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
            /* Ten named accumulators: an array here is not always kept in registers. */
            __m256 a0 = _mm256_set1_ps(1.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0,
                   a8 = a0, a9 = a0;
            const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
            for (long i = 0; i < iterations; i++) {
                a0 = _mm256_fmadd_ps(a0, m, c), a1 = _mm256_fmadd_ps(a1, m, c), a2 = _mm256_fmadd_ps(a2, m, c);
                a3 = _mm256_fmadd_ps(a3, m, c), a4 = _mm256_fmadd_ps(a4, m, c), a5 = _mm256_fmadd_ps(a5, m, c);
                a6 = _mm256_fmadd_ps(a6, m, c), a7 = _mm256_fmadd_ps(a7, m, c), a8 = _mm256_fmadd_ps(a8, m, c);
                a9 = _mm256_fmadd_ps(a9, m, c);
            }
            float lanes[8];
            a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                               _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(_mm256_add_ps(a6, a7), _mm256_add_ps(a8, a9))));
            _mm256_storeu_ps(lanes, a0);
            sink += lanes[0];
        }
        const double seconds = omp_get_wtime() - start;
        const double gflops = 2.0 * 8 * 10 * iterations * threads / seconds / 1e9;
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
    printf("peak_gflops = %.1f\nbandwidth_gbs = %.1f\n# %d threads\n", fma_gflops(), triad_gbs(),
           omp_get_max_threads());
    return 0;
}
