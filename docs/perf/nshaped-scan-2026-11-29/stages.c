/* N-shaped's batched stages with and without the verdict's measure (docs/performance.md,
 * "N-shaped: the verdict's measure taken in RD and SS"): NSYS slices of 2048 rows (a rank's
 * share of the 4096 x 4096 bench at P = 2), one thread, REPS rounds, the median of each. Per
 * round: tl_cpu_nshaped_reduce_scan_d without and with scan, the substitution's extra for it,
 * and the verdict's pass over every slice (tl_cpu_nshaped_dd_max_slice_d) against the same
 * verdict finished from scan (tl_cpu_nshaped_dd_max_scan_d). Built from the repository root
 * after make: cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude
 * docs/perf/nshaped-scan-2026-11-29/stages.c build/libtridlab.a -fopenmp -llapacke -llapack
 * -lblas -lm -o stages && OMP_NUM_THREADS=1 ./stages NSYS REPS (8: in cache; 4096: from memory) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tridlab/cpu.h"
static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmpd(const void *x, const void *y)
{
  double a = *(double *)x, b = *(double *)y;
  return a < b ? -1 : a > b;
}
int main(int argc, char **argv)
{
  size_t m = 2048, nsys = atoi(argv[1]);
  int reps = atoi(argv[2]);
  size_t N = m * nsys, L = m - 1;
  double *a = aligned_alloc(64, N * 8), *b = aligned_alloc(64, N * 8),
         *c = aligned_alloc(64, N * 8), *d = aligned_alloc(64, N * 8),
         *rows = aligned_alloc(64, 4 * N * 8), *x = aligned_alloc(64, N * 8);
  double *ju = malloc(3 * nsys * 8), *sup = malloc(2 * nsys * 8);
  unsigned char *bad = calloc(nsys, 1), *tiny = calloc(nsys, 1), *bad2 = calloc(nsys, 1);
  tl_cpu_nshaped_scan *scan = calloc(nsys, sizeof *scan);
  srand(1);
  for (size_t i = 0; i < N; i++) {
    a[i] = rand() / (double)RAND_MAX;
    c[i] = rand() / (double)RAND_MAX;
    b[i] = 4 + a[i];
    d[i] = rand() / (double)RAND_MAX;
  }
  for (size_t s = 0; s < 2 * nsys; s++)
    sup[s] = 1.0;
  double *t[5];
  for (int k = 0; k < 5; k++)
    t[k] = malloc(reps * 8);
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    tl_cpu_nshaped_reduce_scan_d(m, L, nsys, a, b, c, d, rows, ju, bad, NULL);
    double t1 = now();
    tl_cpu_nshaped_reduce_scan_d(m, L, nsys, a, b, c, d, rows, ju, bad, scan);
    double t2 = now();
    tl_cpu_nshaped_substitute_scan_d(m, L, nsys, rows, sup, NULL, x, tiny, bad2, NULL);
    double t3 = now();
    tl_cpu_nshaped_substitute_scan_d(m, L, nsys, rows, sup, NULL, x, tiny, bad2, scan);
    double t4 = now();
    int fl[3];
    double rel, mx[2];
    long row;
    for (size_t s = 0; s < nsys; s++)
      tl_cpu_nshaped_dd_max_slice_d(4 * m, 0, m, m, a + s * m, b + s * m, c + s * m, x + s * m, 1,
                                    1, fl, &rel, &row, mx);
    double t5 = now();
    for (size_t s = 0; s < nsys; s++)
      tl_cpu_nshaped_dd_max_scan_d(4 * m, 0, m, m, L, a + s * m, b + s * m, c + s * m, x + s * m, 1,
                                   1, &scan[s], fl, &rel, &row, mx);
    double t6 = now();
    t[0][r] = t1 - t0;
    t[1][r] = t2 - t1;
    t[2][r] = t4 - t3 - (t3 - t2);
    t[3][r] = t5 - t4;
    t[4][r] = t6 - t5;
  }
  const char *nm[5] = {"reduce", "reduce+scan", "ss scan extra", "verdict pass",
                       "verdict with scan"};
  printf("nsys %zu (ns per unknown, median of %d):", nsys, reps);
  for (int k = 0; k < 5; k++) {
    qsort(t[k], reps, 8, cmpd);
    printf("  %s %.2f", nm[k], 1e9 * t[k][reps / 2] / N);
  }
  printf("\n");
}
