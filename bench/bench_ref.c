/* bench/bench_ref.c -- throughput of the reference algorithms
 * (tl_bench_reference; the program tridlab-bench-ref prints it).
 *
 * The reference files are the readable oracle, not the fast path; this
 * says how far they are from the memory-bandwidth limit so the optimized
 * backends have a baseline. Protocol (docs/design.md §7), timed by the
 * library's one driver (tl_bench_time):
 *  - byte model: a plain-system solve reads a, b, c, d and writes x:
 *    5 words of 8 bytes per unknown (GB = 1e9 bytes);
 *  - a STREAM-style copy of the same number of bytes is timed in the same
 *    run, and copy_ratio = achieved GB/s / copy GB/s;
 *  - one warm-up run is discarded; the median of REPS runs is reported;
 *    inputs are never modified by tridlab solvers, so nothing needs to be
 *    restored between runs (x is overwritten).
 * Output: CSV, header
 *   algo,n,nsys,ns_per_unknown,gbs,copy_gbs,copy_ratio
 */
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/bench.h"
#include "tridlab/verify.h"

#define REPS 7
#define UNKNOWNS (1u << 21) /* per batch: 2M unknowns, 80 MB moved per solve */

/* The copy reads `half` words and writes `half`: 5 words per unknown. */
typedef struct copy_arg {
  double *src, *dst;
  size_t words;
} copy_arg;

static int copy_step(void *arg)
{
  copy_arg *c = arg;
  memcpy(c->dst, c->src, c->words * sizeof *c->src);
  return 0;
}

typedef struct solve_arg {
  const tl_algorithm *al;
  const tl_batch *sys;
  double *x;
} solve_arg;

static int solve_step(void *arg)
{
  solve_arg *s = arg;
  tl_info info;
  tl_solve(s->al, s->sys, s->x, NULL, &info); /* its status: verify's business */
  return 0;
}

/* Every plain-system algorithm of the registry at one n. */
static int bench_size(FILE *f, const char *only, size_t n, tl_info *info)
{
  size_t nsys = UNKNOWNS / n, total = n * nsys, count;
  const tl_algorithm *const *reg = tl_registry(&count);
  tl_problem p;
  int st = tl_gallery_make(20, n, nsys, 1, &p, info);
  if (st != TL_OK)
    return st;
  size_t half = (5 * total) / 2;
  double *x = malloc(total * sizeof *x), *buf = malloc(2 * half * sizeof *buf);
  if (!x || !buf) {
    free(x), free(buf);
    tl_problem_free(&p);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "out of memory");
  }
  memset(buf, 0, 2 * half * sizeof *buf);
  copy_arg ca = {buf, buf + half, half};
  tl_bench_timing tm;
  tl_bench_time(NULL, NULL, copy_step, &ca, REPS, &tm, info);
  double copy_gbs = 2.0 * (double)half * 8.0 / tm.t / 1e9;
  for (size_t a = 0; a < count; a++) {
    const tl_algorithm *al = reg[a];
    if (!(al->layouts & TL_NONPERIODIC) || (only && strcmp(only, al->name)))
      continue;
    solve_arg sa = {al, &p.sys, x};
    tl_bench_time(NULL, NULL, solve_step, &sa, REPS, &tm, info);
    double gbs = 5.0 * 8.0 * (double)total / tm.t / 1e9;
    fprintf(f, "%s,%zu,%zu,%.3f,%.3f,%.3f,%.3f\n", al->name, n, nsys, 1e9 * tm.t / (double)total,
            gbs, copy_gbs, gbs / copy_gbs);
    fflush(f);
  }
  free(x);
  free(buf);
  tl_problem_free(&p);
  return TL_OK;
}

int tl_bench_reference(FILE *f, const char *only, tl_info *info)
{
  static const size_t sizes[] = {64, 512, 4096};
  fprintf(f, "algo,n,nsys,ns_per_unknown,gbs,copy_gbs,copy_ratio\n");
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    int st = bench_size(f, only, sizes[k], info);
    if (st != TL_OK)
      return st;
  }
  return TL_OK;
}
