/* docs/perf/pdd-minibatch-2026-11-30/x-lines-chunks.c -- the x-line kernel as
 * pdd_mpi's second solve calls it (tl_cpu_thomas_lines_more_d with the row
 * margins, the largest |x|, the end rows' products and x streamed), NSYS
 * slices of M rows CHUNK systems a call, arrays 16 bytes past a cache line
 * (as calloc's), ns per unknown (the best of R runs):
 *   OMP_NUM_THREADS=1 ./x-lines-chunks NSYS CHUNK R M
 *   cc -O2 -fopenmp -I. -Iinclude docs/perf/pdd-minibatch-2026-11-30/x-lines-chunks.c
 * build/libtridlab.a \ -llapacke -llapack -lblas -lm -o x-lines-chunks */
#include <stdio.h>
#include <stdlib.h>
#include "tridlab/cpu.h"
#include "docs/perf/harness.h"
int main(int argc, char **argv)
{
  if (argc < 5)
    return 2;
  size_t nsys = atoi(argv[1]), chunk = atoi(argv[2]), m = atoi(argv[4]), N = m * nsys;
  int reps = atoi(argv[3]);
  double *arr[5];
  for (int k = 0; k < 5; k++)
    arr[k] = (double *)aligned_alloc(64, N * 8 + 64) + 2;
  double *a = arr[0], *b = arr[1], *c = arr[2], *d = arr[3], *x = arr[4];
  unsigned char *flag = malloc(nsys);
  double *rm = malloc(4 * chunk * 8);
  fill_dominant(N, a, b, c, d, x);
  for (size_t k = 0; k < 2 * chunk; k++)
    rm[2 * chunk + k] = 0.01;
  double best = 1e9;
  for (int r = 0; r < reps; r++) {
    double t = now();
    for (size_t s0 = 0; s0 < nsys; s0 += chunk) {
      size_t k = nsys - s0 < chunk ? nsys - s0 : chunk, o = s0 * m;
      tl_info ti;
      tl_cpu_lines_more more = {rm, rm + chunk, rm + 2 * chunk, N * 8, NULL, NULL};
      tl_cpu_thomas_lines_more_d(m, k, a + o, b + o, c + o, d + o, x + o, flag, &more, &ti);
    }
    t = now() - t;
    best = t < best ? t : best;
  }
  printf("m %zu nsys %zu chunk %zu: %.3f ns/unknown\n", m, nsys, chunk, best / N * 1e9);
  return 0;
}
