/* tests/test_bench.c -- the benchmark library (tridlab/bench.h) through
 * its C API: the kernel table, the timing driver and its restore, a tiny
 * sweep. What is checked is the shape of the measurements, never their
 * values: tests never time. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/bench.h"
#include "tridlab/cpu.h"
#include "tridlab/tridlab.h"

Test(bench, every_kernel_has_a_byte_model_and_a_limit)
{
  size_t count;
  const tl_bench_kernel *ks = tl_bench_kernels(&count);
  cr_assert_geq(count, 10);
  for (size_t k = 0; k < count; k++) {
    cr_expect(ks[k].words > 0, "%s: words %g", ks[k].name, ks[k].words);
    cr_expect(ks[k].run && ks[k].limit && ks[k].restore, "%s: functions", ks[k].name);
    cr_expect(ks[k].limit_name && *ks[k].limit_name, "%s: names its limit", ks[k].name);
    cr_expect(ks[k].summary && *ks[k].summary && ks[k].moves && *ks[k].moves);
    cr_expect_eq(tl_bench_kernel_find(ks[k].name), &ks[k]);
  }
  cr_expect_eq(tl_bench_kernel_find("compact_sz")->words, 2);
  cr_expect_null(tl_bench_kernel_find("no_such_kernel"));
}

/* Every kernel's restore gives each timed run the original input: its
 * answer after the warm-up and the timed runs is that of one run. */
Test(bench, restore_gives_every_run_the_original_input, .timeout = 60)
{
  size_t count;
  const tl_bench_kernel *ks = tl_bench_kernels(&count);
  for (size_t k = 0; k < count; k++)
    for (int fl = 0; fl <= !ks[k].double_only; fl++) {
      double diff;
      tl_info info;
      cr_expect_eq(tl_bench_check_restore(&ks[k], 48, fl, &diff, &info), TL_OK, "%s: %s",
                   ks[k].name, info.msg);
      cr_expect_eq(diff, 0.0, "%s %s: %g", ks[k].name, fl ? "float" : "double", diff);
    }
}

/* The driver on a kernel of the test's own: an in-place solve of a
 * batch, restored from a pristine copy before every run. */
typedef struct inplace {
  size_t n, nsys;
  double *a, *b, *c, *d, *d0;
  long restores, runs, limits;
} inplace;

static int inplace_restore(void *arg)
{
  inplace *s = arg;
  memcpy(s->d, s->d0, s->n * s->nsys * sizeof *s->d);
  s->restores++;
  return 0;
}

static int inplace_limit(void *arg)
{
  inplace *s = arg;
  tl_cpu_stream_abcd_d(s->n * s->nsys, s->a, s->b, s->c, s->d);
  s->limits++;
  return 0;
}

static int inplace_run(void *arg)
{
  inplace *s = arg;
  tl_info info;
  s->runs++;
  return tl_cpu_thomas_sz_d(s->n, s->nsys, 8, s->a, s->b, s->c, s->d, &info);
}

Test(bench, driver_restores_times_and_reports_the_spread)
{
  enum { N = 32, NSYS = 16, R = 5 };
  inplace s = {N, NSYS, NULL, NULL, NULL, NULL, NULL, 0, 0, 0};
  double *all = malloc(6 * N * NSYS * sizeof *all), *once = all + 5 * N * NSYS;
  cr_assert_not_null(all);
  s.a = all, s.b = all + N * NSYS, s.c = all + 2 * N * NSYS, s.d = all + 3 * N * NSYS;
  s.d0 = all + 4 * N * NSYS;
  for (size_t k = 0; k < N * NSYS; k++) {
    s.a[k] = 0.25 + 0.001 * (double)(k % 7), s.c[k] = 0.3, s.b[k] = 2.0 + 0.01 * (double)(k % 5);
    s.d0[k] = (double)(k % 11) - 5.0;
  }
  /* One solve of the original input. */
  inplace_restore(&s);
  cr_assert_eq(inplace_run(&s), TL_OK);
  memcpy(once, s.d, N * NSYS * sizeof *once);
  s.restores = s.runs = 0;

  tl_bench_timing tm;
  tl_info info;
  cr_assert_eq(tl_bench_time(inplace_restore, inplace_limit, inplace_run, &s, R, &tm, &info),
               TL_OK);
  cr_expect_eq(s.runs, R + 1, "the warm-up and R timed runs");
  cr_expect_eq(s.limits, R + 1);
  cr_expect_eq(s.restores, 2 * (R + 1), "before every limit and every run");
  cr_expect_arr_eq(s.d, once, N * NSYS * sizeof *once, "the runs solved the original input");
  cr_expect(!tm.failed);
  cr_expect(tm.t_min > 0 && tm.t_min <= tm.t && tm.t <= tm.t_max, "%g %g %g", tm.t_min, tm.t,
            tm.t_max);
  cr_expect(tm.t_limit_min > 0 && tm.t_limit_min <= tm.t_limit && tm.t_limit <= tm.t_limit_max);
  cr_expect(tm.ratio > 0 && isfinite(tm.ratio));
  /* No limit: only the runs; a bad reps count is a bad argument. */
  cr_assert_eq(tl_bench_time(inplace_restore, NULL, inplace_run, &s, 1, &tm, &info), TL_OK);
  cr_expect_eq(tm.t_limit, 0);
  cr_expect_eq(tl_bench_time(NULL, NULL, inplace_run, &s, 0, &tm, &info), TL_ERR_ARG);
  cr_expect_eq(tl_bench_time(NULL, NULL, inplace_run, &s, TL_BENCH_MAX_REPS + 1, &tm, &info),
               TL_ERR_ARG);
  free(all);
}

/* The steps a run over several processes adds: sync before each timed
 * step, combine after each pair (here it doubles the times, as a
 * reduction could replace them), and the run's own part. */
typedef struct spread_run {
  int syncs, combines;
  double part;
} spread_run;

static int spread_limit(void *arg)
{
  (void)arg;
  return TL_OK;
}

static int spread_work(void *arg)
{
  spread_run *r = arg;
  r->part = 0.25;
  return TL_OK;
}

static void spread_sync(void *arg)
{
  ((spread_run *)arg)->syncs++;
}

static void spread_combine(void *arg, double t[3])
{
  ((spread_run *)arg)->combines++;
  t[0] = 2.0, t[1] = 1.0, t[2] *= 2;
}

Test(bench, steps_sync_and_combine_every_pair)
{
  spread_run r = {0, 0, 0};
  tl_bench_steps steps = {.limit = spread_limit, .run = spread_work, .sync = spread_sync,
                          .combine = spread_combine, .part = &r.part};
  tl_bench_timing tm;
  tl_info info;
  cr_assert_eq(tl_bench_time_steps(&steps, &r, 5, &tm, &info), TL_OK);
  cr_expect_eq(r.syncs, 2 * 6, "before the limit and the run of each of 1 + 5 pairs");
  cr_expect_eq(r.combines, 6);
  cr_expect_eq(tm.t, 2.0, "the combined times are the ones reported");
  cr_expect_eq(tm.t_limit, 1.0);
  cr_expect_eq(tm.ratio, 0.5);
  cr_expect_eq(tm.t_part, 0.5, "the run's part, combined");
}

Test(bench, median_of_odd_and_even_counts)
{
  double v[] = {3, 1, 2, 10};
  cr_expect_eq(tl_bench_median(v, 3), 2);
  cr_expect_eq(tl_bench_median(v, 4), 2.5);
  cr_expect_eq(v[0], 3, "the input is not sorted in place");
  cr_expect(isnan(tl_bench_median(v, 0)));
}

Test(bench, config_check_names_what_is_wrong)
{
  tl_bench_config c;
  tl_info info;
  tl_bench_config_init(&c, 1);
  cr_expect_eq(tl_bench_config_check(&c, &info), TL_OK);
  c.kernels = "thomas_sz,nope";
  cr_expect_eq(tl_bench_config_check(&c, &info), TL_ERR_ARG);
  cr_expect_not_null(strstr(info.msg, "'nope'"), "%s", info.msg);
  c.kernels = "thomas_sz,compact_sz";
  cr_expect(tl_bench_selected(&c, "compact_sz") && !tl_bench_selected(&c, "thomas"));
  c.szs[0] = 12, c.nszs = 1;
  cr_expect_eq(tl_bench_config_check(&c, &info), TL_ERR_ARG);
  c.nszs = 0, c.sizes[0] = 2;
  cr_expect_eq(tl_bench_config_check(&c, &info), TL_ERR_ARG);
  cr_expect_eq(tl_bench_run(&c, NULL, NULL, NULL, NULL, &info), TL_ERR_ARG);
}

/* A tiny sweep: one row per kernel and direction, sane medians. */
Test(bench, a_tiny_sweep_lists_every_kernel, .timeout = 60)
{
  tl_bench_config c;
  tl_bench_config_init(&c, 0);
  c.sizes[0] = 64, c.nsizes = 1;
  c.threads[0] = 1, c.nthreads = 1;
  c.unknowns = 4096;
  c.reps = 3;
  c.precisions = TL_BENCH_DOUBLE;
  int threads = tl_cpu_threads();
  tl_bench_results res = {NULL, 0, 0};
  tl_info info;
  cr_assert_eq(tl_bench_run(&c, NULL, NULL, NULL, &res, &info), TL_OK, "%s", info.msg);
  cr_expect_eq(tl_cpu_threads(), threads, "the thread count is restored");
  size_t count;
  const tl_bench_kernel *ks = tl_bench_kernels(&count);
  size_t want = 0;
  for (size_t k = 0; k < count; k++)
    want += ks[k].per_dir ? 3 : 1;
  cr_expect_eq(res.count, want);
  for (size_t i = 0; i < res.count; i++) {
    const tl_bench_row *w = &res.rows[i];
    cr_expect(w->t_min > 0 && w->t_min <= w->t && w->t <= w->t_max, "%s", w->kernel);
    cr_expect(w->t_limit > 0 && w->limit_ratio > 0 && w->gbs > 0 && w->copy > 0, "%s", w->kernel);
    cr_expect_eq(w->words, tl_bench_kernel_find(w->kernel)->words);
    cr_expect_eq(w->nsys, 64);
    int general = !strcmp(w->kernel, "thomas_sz") || !strcmp(w->kernel, "thomas_cpu");
    if (general)
      cr_expect(w->speedup_ref > 0 && w->speedup_gtsv > 0, "%s: speed-ups", w->kernel);
    if (!strcmp(w->kernel, "compact_sz"))
      cr_expect(isnan(w->speedup_ref), "compact: no speed-up over Thomas");
  }
  char buf[4096];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  cr_assert_not_null(f);
  tl_bench_summary(f, &res, &c);
  fclose(f);
  cr_expect_not_null(strstr(buf, "thomas_sz limit_ratio"));
  tl_bench_results_free(&res);
}
