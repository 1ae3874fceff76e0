/* The verdict's pass (tl_cpu_residual_slices_pass_d) against a plain read
 * of the same five arrays, per row, best of R calls: k systems of 4096
 * rows (k = 8 .. 64: in cache; k = 4096: 2^24 rows, from memory).
 *   cc -O2 -fopenmp -march=native -Iinclude pass-read.c build/libtridlab.a \
 *      -llapacke -llapack -lblas -lm -o pass-read && ./pass-read 4096 10 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tridlab/backend.h"
#include "tridlab/cpu.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
  size_t m = 4096, k = argc > 1 ? strtoul(argv[1], NULL, 10) : 8, N = m * k;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  double *a = malloc(N * 8), *b = malloc(N * 8), *c = malloc(N * 8), *d = malloc(N * 8),
         *x = malloc(N * 8), *h = calloc(4 * k, 8);
  tl_residual_pass *out = malloc(k * sizeof *out);
  srand(1);
  for (size_t i = 0; i < N; i++) {
    a[i] = rand() / (double)RAND_MAX - 0.5, c[i] = rand() / (double)RAND_MAX - 0.5;
    b[i] = 4 + a[i], d[i] = rand() / (double)RAND_MAX, x[i] = d[i] / 4;
  }
  double tp = 1e9, tr = 1e9, acc = 0;
  for (int r = 0; r < reps; r++) {
    double t = now();
    tl_cpu_residual_slices_pass_d(m, 0, 0, m, k, a, b, c, d, x, h, out);
    t = now() - t, tp = t < tp ? t : tp;
    t = now();
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4)
    for (size_t i = 0; i < N; i++)
      s0 += a[i], s1 += b[i], s2 += c[i], s3 += d[i], s4 += x[i];
    acc += s0 + s1 + s2 + s3 + s4;
    t = now() - t, tr = t < tr ? t : tr;
  }
  printf("k = %zu (%zu rows): pass %.2f ns per row, read of a, b, c, d, x %.2f (%g %g)\n", k, N,
         tp / N * 1e9, tr / N * 1e9, out[0].norms[1], acc);
  return 0;
}
