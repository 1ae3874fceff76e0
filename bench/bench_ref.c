/* bench/bench_ref.c -- throughput of the reference algorithms.
 *
 * The reference files are the readable oracle, not the fast path; this
 * program says how far they are from the memory-bandwidth limit so the
 * optimized backends have a baseline. Protocol (docs/design.md §7):
 *  - byte model: a plain-system solve reads a, b, c, d and writes x:
 *    5 words of 8 bytes per unknown (GB = 1e9 bytes);
 *  - a STREAM-style copy of the same number of bytes is timed in the same
 *    run, and copy_ratio = achieved GB/s / copy GB/s;
 *  - one warm-up run is discarded; the median of REPS runs is reported;
 *    inputs are never modified by tridlab solvers, so nothing needs to be
 *    restored between runs (x is overwritten).
 * Output: CSV on stdout, header
 *   algo,n,nsys,ns_per_unknown,gbs,copy_gbs,copy_ratio
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/tridlab.h"

#define REPS 7
#define UNKNOWNS (1u << 21) /* per batch: 2M unknowns, 80 MB moved per solve */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *p, const void *q)
{
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

static double median(double *t, int k)
{
  qsort(t, (size_t)k, sizeof *t, cmp_double);
  return t[k / 2];
}

/* Median time of a STREAM-style copy of `words` doubles. */
static double copy_seconds(double *src, double *dst, size_t words)
{
  double t[REPS];
  memcpy(dst, src, words * sizeof *src); /* warm-up */
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    memcpy(dst, src, words * sizeof *src);
    t[r] = now() - t0;
  }
  return median(t, REPS);
}

int main(int argc, char **argv)
{
  static const size_t sizes[] = {64, 512, 4096};
  const char *only = argc > 1 ? argv[1] : NULL;
  tl_problem p;
  tl_info info;
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  printf("algo,n,nsys,ns_per_unknown,gbs,copy_gbs,copy_ratio\n");
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k], nsys = UNKNOWNS / n, total = n * nsys;
    if (tl_gallery_make(20, n, nsys, 1, &p, &info) != TL_OK) {
      fprintf(stderr, "bench: %s\n", info.msg);
      return 1;
    }
    /* The copy reads `half` words and writes `half`: 5 words per unknown. */
    size_t half = (5 * total) / 2;
    double *x = malloc(total * sizeof *x), *buf = malloc(2 * half * sizeof *buf);
    if (!x || !buf) {
      fprintf(stderr, "bench: out of memory\n");
      return 1;
    }
    memset(buf, 0, 2 * half * sizeof *buf);
    double copy_gbs = 2.0 * (double)half * 8.0 / copy_seconds(buf, buf + half, half) / 1e9;
    for (size_t a = 0; a < count; a++) {
      const tl_algorithm *al = reg[a];
      if (!(al->layouts & TL_NONPERIODIC) || (only && strcmp(only, al->name)))
        continue;
      double t[REPS];
      tl_solve(al, &p.sys, x, NULL, &info); /* warm-up */
      for (int r = 0; r < REPS; r++) {
        double t0 = now();
        tl_solve(al, &p.sys, x, NULL, &info);
        t[r] = now() - t0;
      }
      double tm = median(t, REPS), gbs = 5.0 * 8.0 * (double)total / tm / 1e9;
      printf("%s,%zu,%zu,%.3f,%.3f,%.3f,%.3f\n", al->name, n, nsys, 1e9 * tm / (double)total, gbs,
             copy_gbs, gbs / copy_gbs);
      fflush(stdout);
    }
    free(x);
    free(buf);
    tl_problem_free(&p);
  }
  return 0;
}
