/* docs/perf/distd2-pdd-2026-11-29/d2-phases.c -- DistD2's batched phases
 * on one thread, time per unknown (the best of R runs): Algorithm 5
 * (tl_cpu_distd2_preprocess_lines_d), Algorithm 6 from its plans
 * (tl_cpu_distd2_decouple_lines_d), Algorithm 7 (tl_cpu_two_spike_rows_d,
 * system by system), and Algorithms 5 and 6 in one pass
 * (tl_cpu_distd2_plan_decouple_lines_d). NSYS slices of 2048 rows, a
 * dominant batch; NSYS = 8 stays in L2, 2048 does not.
 *
 *   make && cc -O2 -fopenmp -Iinclude docs/perf/distd2-pdd-2026-11-29/d2-phases.c \
 *     build/libtridlab.a -llapacke -llapack -lblas -lm -o d2-phases
 *   ./d2-phases 8 300; ./d2-phases 2048 5
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tridlab/cpu.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void best(double *t, double t0)
{
  double dt = now() - t0;
  if (dt < *t)
    *t = dt;
}

int main(int argc, char **argv)
{
  if (argc < 3)
    return fprintf(stderr, "usage: d2-phases NSYS R\n"), 2;
  size_t m = 2048, nsys = (size_t)atol(argv[1]), cnt = m * nsys;
  int reps = atoi(argv[2]);
  double *a = malloc(cnt * sizeof *a), *b = malloc(cnt * sizeof *b), *c = malloc(cnt * sizeof *c);
  double *d = malloc(cnt * sizeof *d), *x = malloc(cnt * sizeof *x);
  double *rows = malloc(5 * cnt * sizeof *rows), *fix = malloc(2 * nsys * sizeof *fix);
  unsigned char *bad = malloc(2 * nsys);
  if (!a || !b || !c || !d || !x || !rows || !fix || !bad)
    return fprintf(stderr, "no memory\n"), 1;
  srand(1);
  for (size_t i = 0; i < cnt; i++) {
    a[i] = rand() / (double)RAND_MAX - 0.5, c[i] = rand() / (double)RAND_MAX - 0.5;
    b[i] = 4 + a[i], d[i] = rand() / (double)RAND_MAX;
  }
  double t5 = 1e9, t6 = 1e9, t7 = 1e9, t56 = 1e9;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    tl_cpu_distd2_preprocess_lines_d(2 * m, 0, 0, m, nsys, a, b, c, rows, fix, fix + nsys, bad,
                                     bad + nsys);
    best(&t5, t0);
    t0 = now();
    tl_cpu_distd2_decouple_lines_d(m, nsys, rows, fix, d, x, bad);
    best(&t6, t0);
    t0 = now();
    tl_cpu_distd2_plan_decouple_lines_d(2 * m, 0, 0, m, nsys, a, b, c, d, rows, x, fix, fix + nsys,
                                        bad, bad + nsys);
    best(&t56, t0);
    t0 = now();
    for (size_t s = 0; s < nsys; s++)
      tl_cpu_two_spike_rows_d(m, rows + 5 * m * s, NULL, rows + 5 * m * s + m, x + s * m, 1.0, 2.0,
                              x + s * m, NULL);
    best(&t7, t0);
  }
  double ns = 1e9 / (double)cnt;
  printf("nsys %zu, ns per unknown: algorithm 5 %.2f, 6 %.2f, 7 %.2f; 5 and 6 in one pass %.2f\n",
         nsys, t5 * ns, t6 * ns, t7 * ns, t56 * ns);
  return 0;
}
