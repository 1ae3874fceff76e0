/* docs/perf/tridsolver-sweep-2026-11-30/ts-sweeps.c -- Tridsolver's rank
 * kernels (or the hybrid's, -DENDS=tl_cpu_hybrid_pcr_ends_d
 * -DFINISH=tl_cpu_hybrid_pcr_finish_d) on NSYS slices of M rows (default
 * 2048: a rank at P = 2 with a right neighbour), one thread, ns per unknown,
 * the best of R runs: ends (phase 1), finish without and with the verdict's
 * pass. ./ts-sweeps 4096 5 (from memory), ./ts-sweeps 16 200 (in cache).
 *   cc -O2 -fopenmp -I. -Iinclude docs/perf/tridsolver-sweep-2026-11-30/ts-sweeps.c
 * build/libtridlab.a \ -llapacke -llapack -lblas -lm -o ts-sweeps */
#ifndef ENDS
#define ENDS tl_cpu_tridsolver_ends_d
#define FINISH tl_cpu_tridsolver_finish_d
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tridlab/cpu.h"
#include "docs/perf/harness.h"
#include "tridlab/backend.h"
int main(int argc, char **argv)
{
  size_t m = argc > 3 ? (size_t)atoi(argv[3]) : 2048, nsys = atoi(argv[1]), N = m * nsys;
  int reps = atoi(argv[2]);
  double *a = aligned_alloc(64, N * 8), *b = aligned_alloc(64, N * 8),
         *c = aligned_alloc(64, N * 8), *d = aligned_alloc(64, N * 8),
         *x = aligned_alloc(64, N * 8);
  double *e = malloc(6 * nsys * 8), *F = calloc(2 * nsys, 8), *halo = calloc(4 * nsys, 8);
  unsigned char *bad = calloc(nsys, 1), *skip = calloc(nsys, 1), *redo = calloc(nsys, 1);
  tl_residual_pass *passes = calloc(nsys, sizeof *passes);
  fill_dominant(N, a, b, c, d, x);
  for (size_t s = 0; s < 2 * nsys; s++)
    F[s] = 0.1;
  double t0 = 1e9, t1 = 1e9, t2 = 1e9;
  for (int r = 0; r < reps; r++) {
    double t = now();
    ENDS(m, nsys, 0, 1, a, b, c, d, e, bad);
    t = now() - t;
    t0 = t < t0 ? t : t0;
    t = now();
    FINISH(2 * m, 0, m, nsys, 0, 1, a, b, c, d, F, skip, x, redo, halo, NULL);
    t = now() - t;
    t1 = t < t1 ? t : t1;
    t = now();
    FINISH(2 * m, 0, m, nsys, 0, 1, a, b, c, d, F, skip, x, redo, halo, passes);
    t = now() - t;
    t2 = t < t2 ? t : t2;
  }
  double cs = 0;
  for (size_t i = 0; i < N; i += 97)
    cs += x[i];
  printf("m %zu nsys %zu: ends %.3f  finish %.3f  finish+pass %.3f ns/unknown (x sum %.6g, bad %d "
         "%d)\n",
         m, nsys, t0 / N * 1e9, t1 / N * 1e9, t2 / N * 1e9, cs, bad[0], redo[0]);
  return 0;
}
