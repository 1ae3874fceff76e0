/* tests/test_spike_truncated.c -- truncated SPIKE (truncate=1) of both
 * variants, spike and spike_dp.
 *
 * Where the spikes decay (a strictly dominant A, partitions large enough)
 * the truncated answer is exact SPIKE's to round-off and ok; where they
 * have not decayed (small partitions) it is outside-domain with the
 * dropped entry above tol; the dropped entry and the bound are PDD's on
 * the same matrix and partition; a matrix that is not dominant is
 * outside-domain; P <= 2 drops nothing; the ledger is exact SPIKE's; a
 * singular interface system is a breakdown naming its rows; any value of
 * truncate but 0 and 1 is a bad argument.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

static const char *const variants[] = {"spike", "spike_dp"};
#define NVARIANTS (sizeof variants / sizeof variants[0])

static const tl_algorithm *algo_named(const char *name)
{
  const tl_algorithm *a = tl_find(name);
  cr_assert_not_null(a, "%s", name);
  return a;
}

/* One solve of problem p by `name` with P partitions and truncate = t;
 * x: n nsys scalars of p's dtype. */
static int solve_with(const char *name, const tl_problem *p, int P, int t, void *x, tl_info *info)
{
  const tl_algorithm *algo = algo_named(name);
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  if (t >= 0)
    cr_assert_eq(tl_options_set_param(&opt, algo, "truncate", t ? "1" : "0", info), TL_OK);
  return tl_solve(algo, &p->sys, x, &opt, info);
}

/* max |x - y| / max |y| over n scalars of dtype dt. */
static double rel_diff(tl_dtype dt, size_t n, const void *x, const void *y)
{
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    double e, s;
    if (dt == TL_F64) {
      e = fabs(((const double *)x)[i] - ((const double *)y)[i]);
      s = fabs(((const double *)y)[i]);
    } else {
      e = cabs(((const double complex *)x)[i] - ((const double complex *)y)[i]);
      s = cabs(((const double complex *)y)[i]);
    }
    num = fmax(num, e);
    den = fmax(den, s);
  }
  return den > 0 ? num / den : num;
}

/* Dominant matrices with n = 1000: even at P = 16 (62 rows a block) the
 * spikes have decayed far below 2 eps, and the truncated answer is exact
 * SPIKE's to round-off, real (tridiag(1,4,1), sdd-random) and complex. */
Test(spike_truncated, agrees_with_exact_where_spikes_decay)
{
  static const int ids[] = {23, 20, 62};
  static const int parts[] = {1, 2, 3, 4, 7, 16};
  for (size_t v = 0; v < NVARIANTS; v++)
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
      for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        tl_problem p;
        tl_info info;
        cr_assert_eq(tl_gallery_make(ids[i], 1000, 2, 7, &p, &info), TL_OK, "%s", info.msg);
        size_t sz = tl_dtype_size(p.sys.dtype), N = 2000;
        void *xt = calloc(N, sz), *xe = calloc(N, sz);
        int st = solve_with(variants[v], &p, parts[k], 1, xt, &info);
        cr_expect_eq(st, TL_OK, "%s type %d P=%d: %s", variants[v], ids[i], parts[k], info.msg);
        cr_expect(info.dropped <= info.tol && info.tol == 2.0 * TL_EPS, "dropped %g tol %g",
                  info.dropped, info.tol);
        cr_assert_eq(solve_with(variants[v], &p, parts[k], 0, xe, &info), TL_OK, "%s", info.msg);
        double e = rel_diff(p.sys.dtype, N, xt, xe);
        cr_expect(e < 1e-14, "%s type %d P=%d: truncated differs from exact by %g", variants[v],
                  ids[i], parts[k], e);
        free(xt);
        free(xe);
        tl_problem_free(&p);
      }
}

/* tridiag(1,4,1) in blocks of 4 rows: the far spike entries are about
 * 0.27^4, far above tol: outside-domain, the answer written, the dropped
 * entry named. P = 2 has no far entry: nothing dropped, ok and exact. */
Test(spike_truncated, small_blocks_are_outside_domain)
{
  for (size_t v = 0; v < NVARIANTS; v++) {
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(23, 16, 1, 3, &p, &info), TL_OK);
    double x[16];
    int st = solve_with(variants[v], &p, 4, 1, x, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s: %s", variants[v], info.msg);
    cr_expect(info.dropped > info.tol && info.dropped > 1e-3, "dropped %g", info.dropped);
    cr_expect(info.bound > 0, "bound %g", info.bound);
    cr_expect(strstr(info.msg, "exceed tol") != NULL, "%s", info.msg);
    st = solve_with(variants[v], &p, 2, 1, x, &info);
    cr_expect_eq(st, TL_OK, "%s P=2: %s", variants[v], info.msg);
    cr_expect_eq(info.dropped, 0.0, "P=2 dropped %g", info.dropped);
    tl_problem_free(&p);
  }
}

/* The entries dropped are PDD's (the spikes of the exact block inverse do
 * not depend on the pivoting): the same dropped entry, bound and status
 * as pdd's on the same matrix and partition, to rounding. */
Test(spike_truncated, dropped_and_bound_are_pdds)
{
  static const int ids[] = {23, 20};
  static const int parts[] = {3, 4, 7, 16};
  for (size_t v = 0; v < NVARIANTS; v++)
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
      for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        tl_problem p;
        tl_info ti, pi;
        cr_assert_eq(tl_gallery_make(ids[i], 64, 1, 9, &p, &ti), TL_OK);
        double xt[64], xp[64];
        int st = solve_with(variants[v], &p, parts[k], 1, xt, &ti);
        int sp = solve_with("pdd", &p, parts[k], -1, xp, &pi);
        cr_expect_eq(st, sp, "%s type %d P=%d: %s / pdd: %s", variants[v], ids[i], parts[k],
                     ti.msg, pi.msg);
        cr_expect(fabs(ti.dropped - pi.dropped) <= 1e-12 * pi.dropped,
                  "%s type %d P=%d: dropped %.17g, pdd's %.17g", variants[v], ids[i], parts[k],
                  ti.dropped, pi.dropped);
        cr_expect(fabs(ti.bound - pi.bound) <= 1e-10 * pi.bound,
                  "%s type %d P=%d: bound %.17g, pdd's %.17g", variants[v], ids[i], parts[k],
                  ti.bound, pi.bound);
        cr_expect_eq(ti.tol, pi.tol);
        tl_problem_free(&p);
      }
}

/* Not dominant (tridiag(1, 1.5, 1)): no guarantee that the spikes decay,
 * outside-domain at every P, the answer written. */
Test(spike_truncated, not_dominant_is_outside_domain)
{
  static const int parts[] = {1, 2, 4, 7};
  for (size_t v = 0; v < NVARIANTS; v++)
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(25, 100, 1, 5, &p, &info), TL_OK);
      double x[100];
      int st = solve_with(variants[v], &p, parts[k], 1, x, &info);
      cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s P=%d: %s", variants[v], parts[k], info.msg);
      cr_expect(strstr(info.msg, "not strictly diagonally dominant") != NULL, "%s", info.msg);
      tl_problem_free(&p);
    }
}

/* The truncated solve sends what exact SPIKE sends: the ledger model. */
Test(spike_truncated, ledger_is_the_model)
{
  static const int parts[] = {1, 2, 3, 4, 7, 16};
  for (size_t v = 0; v < NVARIANTS; v++)
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
      const tl_algorithm *algo = algo_named(variants[v]);
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(23, 100, 3, 5, &p, &info), TL_OK);
      double x[300];
      tl_ledger rec, model;
      tl_ledger_init(&rec);
      tl_ledger_init(&model);
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = parts[k];
      opt.ledger = &rec;
      cr_assert_eq(tl_options_set_param(&opt, algo, "truncate", "1", &info), TL_OK);
      int st = tl_solve(algo, &p.sys, x, &opt, &info);
      cr_expect(tl_status_has_solution(st), "%s P=%d: %s", variants[v], parts[k], info.msg);
      opt.ledger = NULL;
      cr_assert_eq(algo->ledger_model(algo, &p.sys, &opt, &info, &model), TL_OK);
      char why[256];
      cr_expect(tl_ledger_equal(&rec, &model, why, sizeof why), "%s P=%d: %s", variants[v],
                parts[k], why);
      tl_ledger_free(&rec);
      tl_ledger_free(&model);
      tl_problem_free(&p);
    }
}

/* [1 1; 1 1] in two partitions of one row: the interface's 2x2 system
 * 1 - V_0[bottom] W_1[top] = 0 is singular, a breakdown naming rows 0, 1. */
Test(spike_truncated, a_singular_interface_names_its_rows)
{
  double a[2] = {0, 1}, b[2] = {1, 1}, c[2] = {1, 0}, d[2] = {1, 2}, x[2];
  tl_batch sys = {TL_F64, 2, 1, 0, a, b, c, d};
  for (size_t v = 0; v < NVARIANTS; v++) {
    tl_problem p = {.sys = sys};
    tl_info info;
    int st = solve_with(variants[v], &p, 2, 1, x, &info);
    cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s: %s", variants[v], info.msg);
    cr_expect(strstr(info.msg, "rows 0, 1") != NULL, "%s", info.msg);
    cr_expect(strncmp(info.msg, variants[v], strlen(variants[v])) == 0, "%s", info.msg);
  }
}

/* truncate takes 0 or 1, nothing else: through the parameter parser and
 * written into the options directly. */
Test(spike_truncated, other_values_are_bad_arguments)
{
  static const char *const bad[] = {"2", "-1", "0.5", "yes"};
  for (size_t v = 0; v < NVARIANTS; v++) {
    const tl_algorithm *algo = algo_named(variants[v]);
    tl_options opt;
    tl_options_init(&opt);
    tl_info info;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      cr_expect_eq(tl_options_set_param(&opt, algo, "truncate", bad[k], &info), TL_ERR_ARG,
                   "%s truncate=%s", variants[v], bad[k]);
      cr_expect(strstr(info.msg, "truncate") != NULL, "%s", info.msg);
    }
    tl_problem p;
    cr_assert_eq(tl_gallery_make(23, 8, 1, 1, &p, &info), TL_OK);
    double x[8];
    cr_assert_eq(tl_options_set_param(&opt, algo, "truncate", "1", &info), TL_OK);
    for (int k = 0; k < algo->nparams; k++)
      if (strcmp(algo->params[k].name, "truncate") == 0)
        opt.value[k] = 3; /* past the parser */
    cr_expect_eq(tl_solve(algo, &p.sys, x, &opt, &info), TL_ERR_ARG, "%s", info.msg);
    tl_problem_free(&p);
  }
}
