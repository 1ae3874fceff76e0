/* docs/perf/periodic-lines-2026-11-29/solve-time.c -- the time per
 * unknown of one registry backend through tl_solve, the best of R calls:
 * nsys systems of n rows, a strictly dominant batch (periodic corners
 * for a periodic backend, zero corners otherwise), arrays 64-byte
 * aligned plus `past` doubles. 8 systems of 1024 rows stay in L2;
 * 16384 do not.
 *
 *   make && cc -O2 -fopenmp -Iinclude docs/perf/periodic-lines-2026-11-29/solve-time.c \
 *     build/libtridlab.a -llapacke -llapack -lblas -lm -o solve-time
 *   OMP_NUM_THREADS=1 ./solve-time thomas_periodic_cpu 1024 8 3000
 *   OMP_NUM_THREADS=1 ./solve-time thomas_periodic_cpu 1024 16384 5
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/tridlab.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double *block(size_t count, size_t past)
{
  double *p = aligned_alloc(64, ((count + 8) * sizeof(double) + 63) / 64 * 64);
  if (!p)
    exit(1);
  return p + past;
}

int main(int argc, char **argv)
{
  if (argc < 5) {
    fprintf(stderr, "usage: %s BACKEND N NSYS REPS [PAST]\n", argv[0]);
    return 2;
  }
  const char *name = argv[1];
  size_t n = strtoul(argv[2], NULL, 10), nsys = strtoul(argv[3], NULL, 10);
  int reps = atoi(argv[4]);
  size_t past = argc > 5 ? strtoul(argv[5], NULL, 10) : 0, count = n * nsys;
  double *a = block(count, past), *b = block(count, past), *c = block(count, past);
  double *d = block(count, past), *x = block(count, past);
  srand(1);
  for (size_t q = 0; q < count; q++) {
    a[q] = -1 + 0.1 * rand() / RAND_MAX, c[q] = -1 + 0.1 * rand() / RAND_MAX;
    b[q] = 4 + rand() / (double)RAND_MAX, d[q] = rand() / (double)RAND_MAX;
  }
  const tl_algorithm *algo = tl_find(name);
  if (!algo) {
    fprintf(stderr, "no backend %s\n", name);
    return 2;
  }
  tl_batch sys = {.dtype = TL_F64, .n = n, .nsys = nsys, .a = a, .b = b, .c = c, .d = d};
  sys.periodic = strstr(name, "periodic") != NULL;
  if (!sys.periodic)
    for (size_t s = 0; s < nsys; s++)
      a[s * n] = 0, c[s * n + n - 1] = 0;
  tl_info info;
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    int st = tl_solve(algo, &sys, x, NULL, &info);
    double t = now() - t0;
    if (st != TL_OK) {
      printf("status %d: %s\n", st, info.msg);
      return 1;
    }
    best = t < best ? t : best;
  }
  printf("%s n %zu nsys %zu: %.3f ns per unknown\n", name, n, nsys, best / (double)count * 1e9);
  return 0;
}
