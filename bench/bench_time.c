/* bench/bench_time.c -- the one timing driver of the benchmark library
 * (docs/design.md §7): BabelStream's shape.
 *
 *   for i = -1 .. reps-1:            i = -1: the warm-up, discarded
 *     restore, sync                  untimed: the inputs as they were
 *     [ t0  limit  t1 ]              the same-traffic stream, paired
 *     restore, sync                  untimed
 *     [ t2  run    t3 ]              the kernel
 *     combine                        e.g. the slowest process's times
 *   medians of t3 - t2, of t1 - t0 and of the paired (t1 - t0) / (t3 - t2),
 *   and the spread (smallest, largest) of each time. sync and combine are
 *   for runs over several processes (the MPI bench); NULL otherwise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/backend.h"
#include "tridlab/bench.h"

double tl_bench_now(void)
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

double tl_bench_median(const double *v, size_t k)
{
  double t[4 * TL_BENCH_MAX_REPS];
  if (!k || k > sizeof t / sizeof t[0])
    return NAN;
  memcpy(t, v, k * sizeof *t);
  qsort(t, k, sizeof *t, cmp_double);
  return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

static void spread(const double *v, long k, double *lo, double *hi)
{
  *lo = *hi = v[0];
  for (long i = 1; i < k; i++) {
    *lo = v[i] < *lo ? v[i] : *lo;
    *hi = v[i] > *hi ? v[i] : *hi;
  }
}

int tl_bench_time(tl_bench_fn restore, tl_bench_fn limit, tl_bench_fn run, void *arg, long reps,
                  tl_bench_timing *out, tl_info *info)
{
  tl_bench_steps steps = {.restore = restore, .limit = limit, .run = run};
  return tl_bench_time_steps(&steps, arg, reps, out, info);
}

int tl_bench_time_steps(const tl_bench_steps *sp, void *arg, long reps, tl_bench_timing *out,
                        tl_info *info)
{
  memset(out, 0, sizeof *out);
  if (!sp || !sp->run)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "run", "bench: no kernel to time");
  if (reps < 1 || reps > TL_BENCH_MAX_REPS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "reps", "bench: reps must be in 1..%d, got %ld",
                   TL_BENCH_MAX_REPS, reps);
  double t[TL_BENCH_MAX_REPS], tl[TL_BENCH_MAX_REPS], q[TL_BENCH_MAX_REPS], part[TL_BENCH_MAX_REPS];
  for (long i = -1; i < reps; i++) {
    double t0 = 0, t1 = 0;
    if (sp->limit) {
      if (sp->restore)
        sp->restore(arg);
      if (sp->sync)
        sp->sync(arg);
      t0 = tl_bench_now();
      sp->limit(arg);
      t1 = tl_bench_now();
    }
    if (sp->restore)
      sp->restore(arg);
    if (sp->part)
      *sp->part = 0;
    if (sp->sync)
      sp->sync(arg);
    double t2 = tl_bench_now();
    int st = sp->run(arg);
    double t3 = tl_bench_now();
    if (st < 0)
      out->failed = 1;
    double pair[3] = {t3 - t2, t1 - t0, sp->part ? *sp->part : 0};
    if (sp->combine)
      sp->combine(arg, pair);
    if (i >= 0) {
      t[i] = pair[0];
      tl[i] = pair[1];
      part[i] = pair[2];
      q[i] = tl[i] / t[i];
    }
  }
  out->t = tl_bench_median(t, (size_t)reps);
  spread(t, reps, &out->t_min, &out->t_max);
  out->t_part = tl_bench_median(part, (size_t)reps);
  if (sp->limit) {
    out->t_limit = tl_bench_median(tl, (size_t)reps);
    spread(tl, reps, &out->t_limit_min, &out->t_limit_max);
    out->ratio = tl_bench_median(q, (size_t)reps);
  }
  return TL_OK;
}
