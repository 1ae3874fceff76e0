/* tests/test_distd2.c -- DistD2 (paper 000 §4.2) against LAPACK.
 *
 * Strongly dominant systems with partitions long enough that the dropped
 * couplings are below rounding are solved to LAPACK's residual test for
 * P = 1..16, equal and unequal partitions, plain and periodic; P = 1 is
 * exact whatever n. With short partitions the dropped coupling is reported
 * (TL_OUTSIDE_DOMAIN) and the stated bound holds. The phases called one
 * by one give the one-call solve bit for bit; the fused compact-scheme
 * right-hand side gives the same solution as d computed first, and
 * Lele's scheme keeps its sixth order. Every gallery type either passes
 * or is reported. Non-periodic systems carry NaN in the corners, which
 * must never be read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/algorithms.h"
#include "tridlab/part_distd2.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

extern const tl_algorithm tl_algo_distd2_ref;
static const tl_algorithm *const algo = &tl_algo_distd2_ref;

#define PI 3.14159265358979323846

static const int part_counts[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof part_counts / sizeof part_counts[0])

/* Solve p's batch through tl_solve; returns the status, x filled. */
static int solve_reg(const tl_problem *p, int parts, const size_t *sizes, const char *tol,
                     double *x, tl_info *info)
{
  return th_solve_param(algo, &p->sys, x, parts, sizes, "tol", tol, info);
}

/* max |x - xref| / max |xref| over the batch. */
static double rel_err(const tl_problem *p, const double *x)
{
  size_t len = p->sys.n * p->sys.nsys;
  double *xref = malloc(len * sizeof *xref);
  tl_info info;
  cr_assert(xref);
  cr_assert_eq(tl_lapack_solve(&p->sys, xref, &info), TL_OK, "%s", info.msg);
  double num = 0, den = 0;
  for (size_t i = 0; i < len; i++) {
    num = fmax(num, fabs(x[i] - xref[i]));
    den = fmax(den, fabs(xref[i]));
  }
  free(xref);
  return num / den;
}

/* toeplitz-4 (id 23) and its periodic relative: with partitions of at
 * least 40 rows the spikes (2 - sqrt 3)^40 ~ 1e-23 are far below eps. */
Test(distd2, matches_lapack_for_long_partitions)
{
  static const int types[] = {23, 20, 34, 53};
  static const size_t sizes[] = {80, 100, 1000, 5003};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t k = 0; k < NPARTS; k++) {
        int P = part_counts[k];
        size_t n = sizes[s];
        size_t minrows = (types[t] == 20 || types[t] == 34) ? 60 : 40;
        if (n / (size_t)P < 2 * minrows)
          continue;
        tl_problem p;
        tl_info info;
        cr_assert_eq(tl_gallery_make(types[t], n, 2, 11, &p, &info), TL_OK);
        double *x = calloc(2 * n, sizeof *x);
        size_t psz[16];
        for (int uneq = 0; uneq < 2; uneq++) {
          if (uneq)
            th_unequal_sizes(n, P, minrows, psz);
          int st = solve_reg(&p, P, uneq ? psz : NULL, NULL, x, &info);
          cr_expect_eq(st, TL_OK, "type %d n=%zu P=%d uneq=%d: %s", types[t], n, P, uneq,
                       info.msg);
          double r, f;
          cr_assert_eq(th_ratios(&p.sys, x, &r, &f), 0);
          cr_expect_lt(r, TL_THRESH, "type %d n=%zu P=%d resid %g", types[t], n, P, r);
          cr_expect_lt(f, TL_THRESH, "type %d n=%zu P=%d ferr %g", types[t], n, P, f);
          cr_expect_leq(info.dropped, info.tol);
          cr_expect_eq(info.tol, TL_DISTD2_DEFAULT_TOL);
        }
        free(x);
        tl_problem_free(&p);
      }
}

/* One partition: nothing is dropped, the 2x2 corner system is exact. */
Test(distd2, one_partition_is_exact_for_every_size)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t n = 2; n <= 70; n++) {
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(periodic ? 50 : 20, n, 1, 5, &p, &info), TL_OK);
      double *x = calloc(n, sizeof *x);
      cr_expect_eq(solve_reg(&p, 1, NULL, NULL, x, &info), TL_OK, "n=%zu: %s", n, info.msg);
      cr_expect_eq(info.dropped, 0.0);
      cr_expect_eq(info.bound, 0.0);
      double r, f;
      cr_assert_eq(th_ratios(&p.sys, x, &r, &f), 0);
      cr_expect_lt(r, TL_THRESH, "n=%zu periodic=%d resid %g", n, periodic, r);
      cr_expect_lt(f, TL_THRESH, "n=%zu periodic=%d ferr %g", n, periodic, f);
      free(x);
      tl_problem_free(&p);
    }
}

/* Short partitions on a weakly dominant Toeplitz matrix: the dropped
 * coupling is reported, and the measured error respects the bound. */
Test(distd2, dropped_coupling_is_reported_and_bounded)
{
  static const int types[] = {21, 22, 32, 51, 53};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t k = 1; k < NPARTS; k++) {
      int P = part_counts[k];
      size_t n = 8 * (size_t)P + 3;
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(types[t], n, 1, 3, &p, &info), TL_OK);
      double *x = calloc(n, sizeof *x);
      int st = solve_reg(&p, P, NULL, NULL, x, &info);
      cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "type %d P=%d", types[t], P);
      cr_expect_gt(info.dropped, info.tol);
      cr_expect(strstr(info.msg, "dropped") != NULL, "%s", info.msg);
      double err = rel_err(&p, x);
      cr_expect_leq(err, info.bound * (1 + 1e-6) + 64 * TL_EPS, "type %d P=%d err %g bound %g",
                    types[t], P, err, info.bound);
      cr_expect_gt(err, 0.0);
      /* A looser tolerance accepts the same solution. */
      char tol[32];
      snprintf(tol, sizeof tol, "%.17g", fmin(1.0, 2 * info.dropped));
      cr_expect_eq(solve_reg(&p, P, NULL, tol, x, &info), TL_OK, "%s", info.msg);
      cr_expect_leq(rel_err(&p, x), info.bound * (1 + 1e-6) + 64 * TL_EPS);
      free(x);
      tl_problem_free(&p);
    }
}

/* The tolerance 0 accepts only P = 1. */
Test(distd2, zero_tolerance)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(24, 400, 1, 3, &p, &info), TL_OK);
  double *x = calloc(400, sizeof *x);
  cr_expect_eq(solve_reg(&p, 1, NULL, "0", x, &info), TL_OK, "%s", info.msg);
  /* toeplitz-8 spikes: (4 - sqrt 15)^100 underflows to exactly 0 in far rows,
   * but not the last row of 100-row partitions: reported. */
  int st = solve_reg(&p, 4, NULL, "0", x, &info);
  cr_expect(st == TL_OK || st == TL_OUTSIDE_DOMAIN);
  cr_expect(st == TL_OK ? info.dropped == 0 : info.dropped > 0);
  free(x);
  tl_problem_free(&p);
}

/* Calling the phases one by one gives the one-call solve bit for bit. */
Test(distd2, phases_one_by_one_equal_one_call)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t k = 0; k < NPARTS; k++) {
      int P = part_counts[k];
      size_t n = 50 * (size_t)P + 7;
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(periodic ? 50 : 20, n, 1, 9, &p, &info), TL_OK);
      const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      double *x1 = calloc(n, sizeof *x1), *x2 = calloc(n, sizeof *x2);
      double *dt = calloc(n, sizeof *dt);
      int st1 = tl_distd2_solve_d(n, periodic, P, NULL, a, b, c, d, x1, 1e-3, &info);
      cr_assert_geq(st1, 0, "%s", info.msg);

      tl_distd2_plan plan;
      cr_assert_eq(tl_distd2_plan_create_d(&plan, n, periodic, P, NULL, a, b, c, &info), TL_OK);
      tl_distd2_edge edge[16];
      double xs[16], xe[16];
      for (int q = 0; q < P; q++) {
        cr_assert_eq(tl_distd2_decouple_d(&plan, q, d, dt, &info), TL_OK);
        tl_distd2_pack_d(&plan, q, dt, &edge[q]);
      }
      for (int q = 0; q < P; q++) {
        double dr, kp;
        cr_assert_eq(tl_distd2_interface_d(&edge[q], &edge[(q + 1) % P], P == 1, &xe[q],
                                           &xs[(q + 1) % P], &dr, &kp, 0, &info),
                     TL_OK);
      }
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_distd2_substitute_d(&plan, q, xs[q], xe[q], dt, x2, &info), TL_OK);
      cr_expect_eq(memcmp(x1, x2, n * sizeof *x1), 0, "P=%d periodic=%d", P, periodic);
      /* The plan reused for a second right-hand side. */
      cr_expect_geq(tl_distd2_plan_solve_d(&plan, d, x2, 1e-3, &info), 0);
      cr_expect_eq(memcmp(x1, x2, n * sizeof *x1), 0);
      tl_distd2_plan_destroy(&plan);
      tl_distd2_plan_destroy(&plan); /* safe twice */
      free(x1);
      free(x2);
      free(dt);
      tl_problem_free(&p);
    }
}

/* Fused right-hand side == d computed first, then solved; both periodic
 * and not, for several P and unequal partitions. */
Test(distd2, fused_stencil_equals_rhs_then_solve)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t k = 0; k < NPARTS; k++) {
      int P = part_counts[k];
      size_t n = 45 * (size_t)P + 5;
      double h = 2 * PI / (double)n;
      double *a = calloc(n, 8), *b = calloc(n, 8), *c = calloc(n, 8), *u = calloc(n, 8);
      double *d = calloc(n, 8), *x1 = calloc(n, 8), *x2 = calloc(n, 8);
      double st[5];
      th_lele6(n, 1, a, b, c, st, h);
      if (!periodic) {
        a[0] = NAN; /* never read */
        c[n - 1] = NAN;
      }
      for (size_t i = 0; i < n; i++)
        u[i] = sin(3 * h * (double)i) + 0.5 * cos(7 * h * (double)i);
      size_t psz[16];
      th_unequal_sizes(n, P, 40, psz);
      for (int uneq = 0; uneq < 2; uneq++) {
        tl_info i1, i2;
        int s1 = tl_distd2_solve_stencil_d(n, periodic, P, uneq ? psz : NULL, a, b, c, st, u, x1,
                                           TL_DISTD2_DEFAULT_TOL, &i1);
        tl_distd2_stencil_rhs_d(n, periodic, st, u, d);
        int s2 = tl_distd2_solve_d(n, periodic, P, uneq ? psz : NULL, a, b, c, d, x2,
                                   TL_DISTD2_DEFAULT_TOL, &i2);
        cr_expect_eq(s1, TL_OK, "%s", i1.msg);
        cr_expect_eq(s2, TL_OK, "%s", i2.msg);
        double num = 0, den = 0;
        for (size_t i = 0; i < n; i++) {
          num = fmax(num, fabs(x1[i] - x2[i]));
          den = fmax(den, fabs(x2[i]));
        }
        cr_expect_leq(num, 4 * TL_EPS * den, "P=%d periodic=%d diff %g", P, periodic, num / den);
        cr_expect_eq(i1.dropped, i2.dropped);
      }
      free(a);
      free(b);
      free(c);
      free(u);
      free(d);
      free(x1);
      free(x2);
    }
}

/* Paper 000 Figure 10: DistD2 keeps the sixth order of Lele's scheme and
 * agrees with periodic Thomas. u = sin(4x) on [0, 2 pi), u' = 4 cos(4x). */
Test(distd2, lele_sixth_order_on_a_periodic_grid)
{
  static const size_t ns[] = {80, 160, 320};
  static const int ps[] = {2, 4, 8};
  double err[3];
  for (int k = 0; k < 3; k++) {
    size_t n = ns[k];
    double h = 2 * PI / (double)n;
    double *a = calloc(n, 8), *b = calloc(n, 8), *c = calloc(n, 8), *u = calloc(n, 8);
    double *d = calloc(n, 8), *x = calloc(n, 8), *xt = calloc(n, 8);
    double st[5];
    th_lele6(n, 1, a, b, c, st, h);
    for (size_t i = 0; i < n; i++)
      u[i] = sin(4 * h * (double)i);
    tl_info info;
    cr_assert_eq(tl_distd2_solve_stencil_d(n, 1, ps[k], NULL, a, b, c, st, u, x,
                                           TL_DISTD2_DEFAULT_TOL, &info),
                 TL_OK, "%s", info.msg);
    tl_distd2_stencil_rhs_d(n, 1, st, u, d);
    cr_assert_eq(tl_thomas_periodic_ref_d(n, a, b, c, d, xt, &info), TL_OK);
    err[k] = 0;
    double diff = 0;
    for (size_t i = 0; i < n; i++) {
      err[k] = fmax(err[k], fabs(x[i] - 4 * cos(4 * h * (double)i)));
      diff = fmax(diff, fabs(x[i] - xt[i]));
    }
    cr_expect_leq(diff, 64 * TL_EPS * 4 / h, "n=%zu DistD2 vs periodic Thomas %g", n, diff);
    free(a);
    free(b);
    free(c);
    free(u);
    free(d);
    free(x);
    free(xt);
  }
  for (int k = 0; k + 1 < 3; k++) {
    double order = log(err[k] / err[k + 1]) / log(2.0);
    cr_expect(order > 5.8 && order < 6.3, "order %g between n=%zu and %zu", order, ns[k],
              ns[k + 1]);
  }
}

/* Non-periodic corners are never read by the direct API. */
Test(distd2, corners_of_a_plain_system_are_not_read)
{
  size_t n = 200;
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(23, n, 1, 1, &p, &info), TL_OK);
  double *a = malloc(n * 8), *c = malloc(n * 8), *x1 = calloc(n, 8), *x2 = calloc(n, 8);
  memcpy(a, p.a, n * 8);
  memcpy(c, p.c, n * 8);
  a[0] = NAN;
  c[n - 1] = NAN;
  for (int P = 1; P <= 4; P++) {
    cr_expect_eq(tl_distd2_solve_d(n, 0, P, NULL, a, p.b, c, p.d, x1, TL_DISTD2_DEFAULT_TOL,
                                   &info),
                 TL_OK, "%s", info.msg);
    cr_expect_eq(solve_reg(&p, P, NULL, NULL, x2, &info), TL_OK);
    cr_expect_eq(memcmp(x1, x2, n * 8), 0);
  }
  free(a);
  free(c);
  free(x1);
  free(x2);
  tl_problem_free(&p);
}

/* Every limit is a clear error. */
Test(distd2, limits_are_clear_errors)
{
  tl_problem p;
  tl_info info;
  double x[64];
  cr_assert_eq(tl_gallery_make(23, 9, 1, 1, &p, &info), TL_OK);
  cr_expect_eq(solve_reg(&p, 5, NULL, NULL, x, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cr_expect_eq(solve_reg(&p, 4, NULL, NULL, x, &info), TL_OUTSIDE_DOMAIN); /* 2 rows each */
  size_t bad[2] = {1, 8};
  cr_expect_eq(solve_reg(&p, 2, bad, NULL, x, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  tl_options opt;
  tl_options_init(&opt);
  cr_expect_eq(tl_options_set_param(&opt, algo, "tol", "-1", &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "param");
  cr_expect_eq(tl_options_set_param(&opt, algo, "tol", "2", &info), TL_ERR_ARG);
  cr_expect_eq(tl_options_set_param(&opt, algo, "J", "2", &info), TL_ERR_ARG);
  /* Direct API: the same checks. */
  cr_expect_eq(tl_distd2_solve_d(9, 0, 5, NULL, p.a, p.b, p.c, p.d, x, 0, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cr_expect_eq(tl_distd2_solve_d(9, 0, 0, NULL, p.a, p.b, p.c, p.d, x, 0, &info), TL_ERR_ARG);
  size_t sum_wrong[2] = {4, 4};
  cr_expect_eq(tl_distd2_solve_d(9, 0, 2, sum_wrong, p.a, p.b, p.c, p.d, x, 0, &info),
               TL_ERR_ARG);
  cr_expect_eq(tl_distd2_solve_d(9, 0, 1, NULL, NULL, p.b, p.c, p.d, x, 0, &info), TL_ERR_ARG);
  tl_problem_free(&p);
  /* Complex systems are not taken. */
  cr_assert_eq(tl_gallery_make(62, 10, 1, 1, &p, &info), TL_OK);
  cr_expect_eq(tl_solve(algo, &p.sys, x, NULL, &info), TL_ERR_UNSUPPORTED);
  tl_problem_free(&p);
  /* Zero diagonal: breakdown at its row. */
  cr_assert_eq(tl_gallery_make(37, 20, 1, 1, &p, &info), TL_OK);
  cr_expect_eq(solve_reg(&p, 1, NULL, NULL, x, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 0);
  tl_problem_free(&p);
  /* A diagonal entry zeroed inside the second partition. */
  cr_assert_eq(tl_gallery_make(20, 20, 1, 1, &p, &info), TL_OK);
  ((double *)p.b)[11] = 0.0;
  cr_expect_eq(solve_reg(&p, 2, NULL, NULL, x, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 11);
  tl_problem_free(&p);
}

/* Not strictly dominant, nothing dropped: reported. */
Test(distd2, weakly_dominant_is_outside_the_domain)
{
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(35, 30, 1, 1, &p, &info), TL_OK);
  double x[30];
  cr_expect_eq(solve_reg(&p, 1, NULL, NULL, x, &info), TL_OUTSIDE_DOMAIN);
  cr_expect(strstr(info.msg, "strictly") != NULL, "%s", info.msg);
  tl_problem_free(&p);
}

/* The registry entry says what the algorithm is. */
Test(distd2, descriptor)
{
  cr_expect_str_eq(algo->name, "distd2");
  cr_expect_str_eq(algo->family, "partition");
  cr_expect_eq(algo->exact, 0);
  cr_expect_eq(algo->partitioned, 1);
  cr_expect_eq(algo->min_rows_per_part, 2);
  cr_expect(algo->layouts & TL_PERIODIC);
  cr_expect(algo->layouts & TL_NONPERIODIC);
  cr_expect_eq(tl_param_value(algo, NULL, "tol"), 0x1p-52);
}

/* The promise over the whole gallery: no TL_OK with a wrong answer. */
Test(distd2, gallery_sweep_never_silently_wrong, .timeout = 120)
{
  static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  long ok = 0;
  for (size_t g = 0; g < tl_gallery_count(); g++) {
    const tl_gallery_type *type = tl_gallery_get(g);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t k = 0; k < NPARTS; k++) {
        size_t n = sizes[s];
        int P = part_counts[k];
        if (n < type->min_n || n < (size_t)P * algo->min_rows_per_part)
          continue;
        tl_problem p;
        tl_info info;
        cr_assert_eq(tl_gallery_make(type->id, n, 1, 17, &p, &info), TL_OK);
        double *x = calloc(n, sizeof *x);
        int st = solve_reg(&p, P, NULL, NULL, x, &info);
        if (st == TL_OK) {
          ok++;
          double r, f;
          cr_assert_eq(th_ratios(&p.sys, x, &r, &f), 0);
          cr_expect(r < TL_THRESH && f < TL_THRESH, "silent: type %d n=%zu P=%d resid %g ferr %g",
                    type->id, n, P, r, f);
        }
        free(x);
        tl_problem_free(&p);
      }
  }
  cr_expect_gt(ok, 100);
}
