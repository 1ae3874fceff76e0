/* docs/perf/pdd-minibatch-2026-11-30/pdd-ends-sweeps.c -- PDD's ends sweeps
 * (tl_cpu_pdd_ends_d) on NSYS slices of 2048 rows, one thread, ns per
 * unknown (the best of R runs): ./pdd-ends-sweeps NSYS R DOWN UP STRICT [M], e.g.
 *   ./pdd-ends-sweeps 64 200 1 0 1     in cache, down with the strictness test (rank 0 at P = 2)
 *   ./pdd-ends-sweeps 4096 5 0 1 0     from memory, up (rank 1 at P = 2)
 *   ./pdd-ends-sweeps 4096 5 1 1 0     from memory, both (an inner rank)
 * Built against the library before and after the change:
 *   cc -O2 -fopenmp -I. -Iinclude docs/perf/pdd-minibatch-2026-11-30/pdd-ends-sweeps.c
 * build/libtridlab.a \ -llapacke -llapack -lblas -lm -o pdd-ends-sweeps */
#include <stdio.h>
#include <stdlib.h>
#include "tridlab/cpu.h"
#include "docs/perf/harness.h"
int main(int argc, char **argv)
{
  if (argc < 6)
    return 2;
  size_t m = argc > 6 ? (size_t)atoi(argv[6]) : 2048, nsys = atoi(argv[1]), N = m * nsys;
  int reps = atoi(argv[2]), down = atoi(argv[3]), up = atoi(argv[4]), strict = atoi(argv[5]);
  double *a = malloc(N * 8), *b = malloc(N * 8), *c = malloc(N * 8), *d = malloc(N * 8);
  double *e = malloc(6 * nsys * 8);
  unsigned char *bad = malloc(nsys), *st = malloc(nsys);
  fill_dominant(N, a, b, c, d, NULL);
  double best = 1e9;
  for (int r = 0; r < reps; r++) {
    double t = now();
    tl_cpu_pdd_ends_d(m, nsys, down, up, a, b, c, d, e, bad, strict ? st : NULL);
    t = now() - t;
    best = t < best ? t : best;
  }
  printf("m %zu down %d up %d strict %d: %.3f ns/unknown\n", m, down, up, strict, best / N * 1e9);
  return 0;
}
