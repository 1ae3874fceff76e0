/* docs/perf/harness.h -- what the one-thread timing programs beside it
 * share (pdd-minibatch-2026-11-30/pdd-ends-sweeps.c and x-lines-chunks.c,
 * tridsolver-sweep-2026-11-30/ts-sweeps.c): a monotonic clock, and the
 * seeded batch they time. Each includes it from the repository's root,
 * "docs/perf/harness.h": built there with -I. (their own comments say
 * how). */
#ifndef TL_PERF_HARNESS_H
#define TL_PERF_HARNESS_H

#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* N rows of strictly dominant systems, rand() seeded with 1: a and c in
 * [-0.5, 0.5], b = 4 + a, d in [0, 1]; x (may be NULL) zeroed. */
static void fill_dominant(size_t N, double *a, double *b, double *c, double *d, double *x)
{
  srand(1);
  for (size_t i = 0; i < N; i++) {
    a[i] = rand() / (double)RAND_MAX - 0.5;
    c[i] = rand() / (double)RAND_MAX - 0.5;
    b[i] = 4 + a[i];
    d[i] = rand() / (double)RAND_MAX;
    if (x)
      x[i] = 0;
  }
}

#endif
