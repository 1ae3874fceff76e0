/* The ITS decay-rate pass alone (docs/performance.md, "ITS: the rate's rows passed over"):
 * tl_cpu_its_rate_d on NSYS slices of M rows, the MPI bench's distribution (a, c in [-0.5, 0.5), b
 * in [2, 2.5)) or, with CONST set in the environment, constant coefficients; built from the
 * repository root after make: cc -O2 -std=c11 -Iinclude docs/perf/its-rate-2026-11-29/rate.c
 * build/libtridlab.a -fopenmp -llapacke -llapack -lblas -lm -o rate && ./rate M NSYS */
#define _POSIX_C_SOURCE 200809L
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
int main(int argc, char **argv)
{
  size_t m = atol(argv[1]), nsys = atol(argv[2]);
  size_t cnt = m * nsys;
  double *a = malloc(cnt * 8), *b = malloc(cnt * 8), *c = malloc(cnt * 8), *r = malloc(nsys * 8);
  srand(3);
  int cst = getenv("CONST") != NULL;
  for (size_t k = 0; k < cnt; k++) {
    a[k] = cst ? 0.25 : rand() / (double)RAND_MAX - .5;
    b[k] = cst ? 2 : 2 + .5 * rand() / (double)RAND_MAX;
    c[k] = cst ? 0.25 : rand() / (double)RAND_MAX - .5;
  }
  double best = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    tl_cpu_its_rate_d(3 * m, 0, m, m, nsys, a, b, c, r);
    double t = now() - t0;
    if (t < best)
      best = t;
  }
  printf("m=%zu nsys=%zu: %.3f ns per row (r0 %.17g)\n", m, nsys, 1e9 * best / cnt, r[0]);
  return 0;
}
