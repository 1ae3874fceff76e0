/* tests/test_rpdd.c -- the reduced PDD algorithm (reference/rpdd_ref.c).
 *
 * Against LAPACK (tl_lapack_solve) for P in {1, 2, 3, 4, 7, 16}, equal and
 * unequal partitions, from one row per partition to thousands of rows;
 * with J = m it is PDD bit for bit; the automatic J agrees with paper 003's
 * eq. (18) for Toeplitz matrices; the truncated spikes equal LAPACK solves
 * of the leading / trailing J x J blocks and `dropped` is the documented
 * estimate; rows between the spikes are untouched by the correction; the
 * phases one by one give the one-call solve bit for bit; the error never
 * exceeds the bound; J larger than a partition is a clear error; the whole
 * gallery is never silently wrong, with the automatic and with a short J.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_rpdd.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

extern const tl_algorithm tl_algo_rpdd_ref;
extern const tl_algorithm tl_algo_pdd_ref;
#define ALGO (&tl_algo_rpdd_ref)
#define SEED 0x4bdd5eed0badf00du

static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

/* J < 0: default. tol NULL: default. */
static int solve_with(const tl_algorithm *algo, th_sys *s, int P, const size_t *sizes, long J,
                      const char *tol, tl_info *info)
{
  char params[96] = "";
  if (J >= 0)
    snprintf(params, sizeof params, "J=%ld", J);
  if (tol)
    snprintf(params + strlen(params), sizeof params - strlen(params), "%stol=%s", J >= 0 ? "," : "",
             tol);
  tl_options opt;
  th_options_parts(&opt, algo, P, sizes, params);
  return tl_solve(algo, &s->batch, s->x, &opt, info);
}

/* ---------------------------------------------------------------- */

Test(rpdd, registry_entry)
{
  cr_assert_str_eq(ALGO->name, "rpdd");
  cr_assert_str_eq(ALGO->family, "partition");
  cr_assert_eq(ALGO->partitioned, 1);
  cr_assert_eq(ALGO->exact, 0);
  cr_assert_eq(ALGO->min_rows_per_part, 1);
  cr_assert_eq(ALGO->classes, TL_CLASS_STRICT_DD);
  cr_assert_eq(tl_param_value(ALGO, NULL, "J"), 0.0);
  cr_assert_eq(tl_param_value(ALGO, NULL, "tol"), 2 * TL_EPS);
}

Test(rpdd, one_partition_is_thomas)
{
  for (size_t n = 1; n <= 300; n += 13) {
    th_sys s = th_sys_make(n, 0, 0.1, 1.0, SEED + n);
    double *xt = calloc(n, sizeof(double));
    tl_info info;
    cr_assert_eq(tl_thomas_ref_d(n, s.a, s.b, s.c, s.d, xt, &info), TL_OK);
    cr_assert_eq(solve_with(ALGO, &s, 1, NULL, -1, NULL, &info), TL_OK);
    cr_assert(memcmp(xt, s.x, n * sizeof(double)) == 0, "n=%zu", n);
    free(xt);
    th_sys_free(&s);
  }
}

/* Complete spikes (J = m): the same arithmetic as PDD, one exchange. */
Test(rpdd, full_spikes_are_pdd)
{
  for (size_t ip = 0; ip < NPARTS; ip++) {
    int P = parts_list[ip];
    for (size_t m = 1; m <= 40; m += 3) {
      size_t n = m * (size_t)P;
      th_sys s = th_sys_make(n, 0, 0.1, 1.0, SEED + n);
      double *xp = calloc(n, sizeof(double));
      tl_info ip_info, ir_info;
      int sp =
          tl_pdd_ref_solve_d(n, s.a, s.b, s.c, s.d, xp, P, NULL, 2 * TL_EPS, NULL, &ip_info);
      int sr = solve_with(ALGO, &s, P, NULL, (long)m, NULL, &ir_info);
      cr_assert_eq(sp, sr, "P=%d m=%zu", P, m);
      cr_assert(memcmp(xp, s.x, n * sizeof(double)) == 0, "P=%d m=%zu", P, m);
      cr_assert_eq(ip_info.dropped, ir_info.dropped);
      cr_assert_eq(ip_info.bound, ir_info.bound);
      free(xp);
      th_sys_free(&s);
    }
  }
}

/* The automatic J: for tridiag(1, lambda, 1) within a few rows of paper
 * 003's eq. (18), J = -ln(tol) / ln((lambda + sqrt(lambda^2 - 4)) / 2). */
Test(rpdd, automatic_J_matches_eq18)
{
  static const double lambdas[] = {2.05, 2.5, 3.0, 4.0, 8.0};
  for (size_t l = 0; l < 5; l++) {
    double lam = lambdas[l];
    th_sys s = th_sys_make(4000, 1, lam, 0, 0);
    tl_pdd_part_d pt;
    tl_info info;
    cr_assert_eq(tl_pdd_part_init_d(&pt, s.n, 4, NULL, 1, &info), TL_OK);
    size_t o = pt.begin;
    cr_assert_eq(tl_rpdd_ref_local_d(&pt, s.a + o, s.b + o, s.c + o, s.d + o, s.x + o, 0,
                                     2 * TL_EPS, &info),
                 TL_OK);
    double j18 = -log(2 * TL_EPS) / log(0.5 * (lam + sqrt(lam * lam - 4.0)));
    cr_assert(pt.kv >= j18 - 6 && pt.kv <= j18 + 2, "lambda %g: J = %zu, eq. (18) %g", lam,
              pt.kv, j18);
    cr_assert_eq(pt.kv, pt.kw); /* symmetric matrix */
    cr_assert(pt.drop_v <= 2 * TL_EPS && pt.drop_w <= 2 * TL_EPS);
    tl_pdd_part_free_d(&pt);
    th_sys_free(&s);
  }
}

static int solve_default(th_sys *s, int P, const size_t *sizes, tl_info *info)
{
  return solve_with(ALGO, s, P, sizes, -1, NULL, info);
}

Test(rpdd, matches_lapack)
{
  th_expect_spikes_match_lapack(solve_default, parts_list, NPARTS, SEED);
}

Test(rpdd, unequal_partitions)
{
  th_expect_unequal_partitions(solve_default, "rpdd: dropped");
}

/* The phases one by one, as part_rpdd.h lists them; the rows between the
 * spikes keep the local solution y. */
Test(rpdd, phases_equal_one_call)
{
  static const size_t sizes[] = {70, 5, 90, 120, 3, 212};
  const int P = 6;
  size_t n = 500;
  for (long J = 0; J <= 3; J += 3) {
    th_sys s = th_sys_make(n, 0, 1.0, 2.0, SEED + (uint64_t)J);
    tl_info info;
    int st1 = solve_with(ALGO, &s, P, sizes, J, NULL, &info);
    double *x = calloc(n, sizeof(double));
    tl_pdd_part_d pt[6];
    tl_pdd_edge_d first[6], last[6];
    for (int p = 0; p < P; p++)
      cr_assert_eq(tl_pdd_part_init_d(&pt[p], n, P, sizes, p, &info), TL_OK);
    for (int p = 0; p < P; p++)
      cr_assert_eq(tl_rpdd_ref_local_d(&pt[p], s.a + pt[p].begin, s.b + pt[p].begin,
                                       s.c + pt[p].begin, s.d + pt[p].begin, x + pt[p].begin,
                                       (size_t)J, 2 * TL_EPS, &info),
                   TL_OK);
    double *y = malloc(n * sizeof(double));
    memcpy(y, x, n * sizeof(double));
    for (int p = 0; p < P; p++)
      tl_rpdd_ref_send_d(&pt[p], s.a + pt[p].begin, s.c + pt[p].begin, x + pt[p].begin,
                         &first[p], &last[p]);
    for (int p = 0; p < P; p++)
      cr_assert_eq(tl_rpdd_ref_interfaces_d(&pt[p], s.a + pt[p].begin, s.c + pt[p].begin,
                                            x + pt[p].begin, p > 0 ? &last[p - 1] : NULL,
                                            p + 1 < P ? &first[p + 1] : NULL, &info),
                   TL_OK);
    for (int p = 0; p < P; p++)
      cr_assert_eq(tl_pdd_ref_correct_d(&pt[p], x + pt[p].begin, &info), TL_OK);
    tl_info info2;
    tl_info_clear(&info2);
    int st2 = tl_pdd_ref_reduce_d(pt, P, 2 * TL_EPS, "rpdd", NULL, &info2);
    cr_assert_eq(st1, st2);
    cr_assert(memcmp(x, s.x, n * sizeof(double)) == 0, "J=%ld", J);
    cr_assert_eq(info.dropped, info2.dropped);
    cr_assert_eq(info.bound, info2.bound);
    for (int p = 0; p < P; p++) {
      if (J == 3 && pt[p].m >= 2 * (size_t)J) {
        cr_assert_eq(pt[p].kv, p > 0 ? 3u : 0u);
        cr_assert_eq(pt[p].kw, p + 1 < P ? 3u : 0u);
      }
      for (size_t k = pt[p].kv; k + pt[p].kw < pt[p].m; k++)
        cr_assert_eq(x[pt[p].begin + k], y[pt[p].begin + k]);
      tl_pdd_part_free_d(&pt[p]);
    }
    free(y);
    free(x);
    th_sys_free(&s);
  }
}

/* Truncated spikes = LAPACK solves of the leading / trailing J x J blocks;
 * dropped = the largest estimate |a_J v_{J-1}| / (|b_J| - |c_J|). */
Test(rpdd, truncated_spikes_against_lapack)
{
  const int P = 3;
  size_t n = 60;
  th_sys s = th_sys_make(n, 0, 0.3, 0.8, SEED + 3);
  for (size_t J = 1; J <= 20; J++) { /* m = 20: J = 20 is complete */
    double expect = 0.0;
    tl_info info;
    for (int p = 0; p < P; p++) {
      tl_pdd_part_d pt;
      cr_assert_eq(tl_pdd_part_init_d(&pt, n, P, NULL, p, &info), TL_OK);
      size_t o = pt.begin, m = pt.m;
      cr_assert_eq(
          tl_rpdd_ref_local_d(&pt, s.a + o, s.b + o, s.c + o, s.d + o, s.x + o, J, 0.0, &info),
          TL_OK);
      double la[20], lb[20], lc[20], rv[20], rw[20], sv[20], sw[20];
      /* leading block for v */
      for (size_t k = 0; k < J; k++) {
        la[k] = k ? s.a[o + k] : 0.0;
        lb[k] = s.b[o + k];
        lc[k] = k + 1 < J ? s.c[o + k] : 0.0;
        rv[k] = k == 0 ? s.a[o] : 0.0;
      }
      tl_batch bv = {TL_F64, J, 1, 0, la, lb, lc, rv};
      cr_assert_eq(tl_lapack_solve(&bv, sv, &info), TL_OK);
      if (p > 0) {
        for (size_t k = 0; k < m; k++) {
          double want = k < J ? sv[k] : 0.0;
          cr_assert(fabs(pt.v[k] - want) <= 16 * TL_EPS * th_max_abs(J, sv), "J=%zu p=%d", J, p);
        }
        if (J < m) {
          size_t r = o + J;
          double eta = fabs(s.a[r]) * fabs(sv[J - 1]) /
                       (fabs(s.b[r]) - (J + 1 < m ? fabs(s.c[r]) : 0.0));
          cr_assert(fabs(pt.drop_v - eta) <= 16 * TL_EPS * eta, "J=%zu p=%d", J, p);
          expect = fmax(expect, pt.drop_v);
        } else if (p + 1 < P) { /* complete: its far entry is dropped */
          cr_assert_eq(pt.drop_v, fabs(pt.v[m - 1]));
          expect = fmax(expect, pt.drop_v);
        }
      }
      /* trailing block for w */
      size_t t = m - J;
      for (size_t k = 0; k < J; k++) {
        la[k] = k ? s.a[o + t + k] : 0.0;
        lb[k] = s.b[o + t + k];
        lc[k] = k + 1 < J ? s.c[o + t + k] : 0.0;
        rw[k] = k + 1 == J ? s.c[o + m - 1] : 0.0;
      }
      tl_batch bw = {TL_F64, J, 1, 0, la, lb, lc, rw};
      cr_assert_eq(tl_lapack_solve(&bw, sw, &info), TL_OK);
      if (p + 1 < P) {
        for (size_t k = 0; k < m; k++) {
          double want = k >= t ? sw[k - t] : 0.0;
          cr_assert(fabs(pt.w[k] - want) <= 16 * TL_EPS * th_max_abs(J, sw), "J=%zu p=%d", J, p);
        }
        if (J < m || p > 0)
          expect = fmax(expect, pt.drop_w);
        if (J == m)
          cr_assert_eq(pt.drop_w, p > 0 ? fabs(pt.w[0]) : 0.0);
      }
      tl_pdd_part_free_d(&pt);
    }
    int st = solve_with(ALGO, &s, P, NULL, (long)J, NULL, &info);
    cr_assert_eq(info.dropped, expect, "J=%zu", J);
    cr_assert_eq(st, expect > 2 * TL_EPS ? TL_OUTSIDE_DOMAIN : TL_OK);
  }
  th_sys_free(&s);
}

/* Measured error <= bound (+ LAPACK's own rounding), for short and
 * automatic J, weak and strong dominance, random and Toeplitz. */
Test(rpdd, error_within_bound)
{
  static const double lambdas[] = {2.05, 2.5, 3.0, 4.0, 8.0};
  static const long Js[] = {0, 1, 2, 4, 9};
  static const int Ps[] = {2, 3, 7, 16};
  for (size_t il = 0; il < 5; il++)
    for (size_t iJ = 0; iJ < 5; iJ++)
      for (size_t iP = 0; iP < 4; iP++) {
        int P = Ps[iP];
        size_t n = 24 * (size_t)P + 5;
        for (int kind = 0; kind < 2; kind++) {
          th_sys s = kind ? th_sys_make(n, 0, lambdas[il] - 2.0, lambdas[il] - 1.9, SEED + n)
                         : th_sys_make(n, 1, lambdas[il], 0, 0);
          tl_info info;
          int st = solve_with(ALGO, &s, P, NULL, Js[iJ], NULL, &info);
          double err = th_sys_rel_err(&s);
          double slack = TL_THRESH * TL_EPS / s.rcond;
          cr_assert(err <= 1.0001 * info.bound + slack,
                    "lambda=%g J=%ld P=%d: error %g > bound %g (+%g)", lambdas[il], Js[iJ], P,
                    err, info.bound, slack);
          cr_assert_eq(st, info.dropped > 2 * TL_EPS ? TL_OUTSIDE_DOMAIN : TL_OK);
          if (st == TL_OK)
            th_sys_assert_accurate(&s, "bound", P);
          th_sys_free(&s);
        }
      }
}

Test(rpdd, parameter_limits)
{
  th_sys s = th_sys_make(100, 1, 4.0, 0, 0);
  tl_info info;
  /* J = 26 fits four partitions of 25? no: a clear error naming the partition */
  cr_assert_eq(solve_with(ALGO, &s, 4, NULL, 26, NULL, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "param");
  cr_assert(strstr(info.msg, "J = 26 exceeds the 25 rows of partition 0") != NULL, "%s",
            info.msg);
  /* J = m: complete spikes, PDD's far entries (0.27^25 > eps: reported) */
  cr_assert_eq(solve_with(ALGO, &s, 4, NULL, 25, NULL, &info), TL_OUTSIDE_DOMAIN);
  static const size_t sizes[] = {40, 40, 5, 15};
  cr_assert_eq(solve_with(ALGO, &s, 4, sizes, 6, NULL, &info), TL_ERR_ARG);
  cr_assert(strstr(info.msg, "partition 2") != NULL, "%s", info.msg);
  /* the phase checks J too */
  tl_pdd_part_d pt;
  cr_assert_eq(tl_pdd_part_init_d(&pt, s.n, 4, sizes, 2, &info), TL_OK);
  cr_assert_eq(tl_rpdd_ref_local_d(&pt, s.a + pt.begin, s.b + pt.begin, s.c + pt.begin,
                                   s.d + pt.begin, s.x + pt.begin, 6, 0.0, &info),
               TL_ERR_ARG);
  tl_pdd_part_free_d(&pt);
  tl_options opt;
  tl_options_init(&opt);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "J", "-1", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "J", "2.5", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "-1e-3", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "1.5", &info), TL_ERR_ARG);
  /* tol: a looser tolerance turns the same short-J solve into TL_OK */
  cr_assert_eq(solve_with(ALGO, &s, 4, NULL, 5, NULL, &info), TL_OUTSIDE_DOMAIN);
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", info.dropped);
  cr_assert_eq(solve_with(ALGO, &s, 4, NULL, 5, buf, &info), TL_OK);
  /* the automatic J with a loose tolerance keeps fewer entries */
  cr_assert_eq(solve_with(ALGO, &s, 4, NULL, 0, "1e-6", &info), TL_OK);
  cr_assert(info.dropped <= 1e-6 && info.dropped > 1e-8);
  cr_assert(th_sys_rel_err(&s) <= info.bound + TL_THRESH * TL_EPS / s.rcond);
  s.batch.periodic = 1;
  cr_assert_eq(solve_with(ALGO, &s, 2, NULL, -1, NULL, &info), TL_ERR_UNSUPPORTED);
  th_sys_free(&s);
}

Test(rpdd, outside_domain_and_breakdown)
{
  tl_info info;
  th_sys s = th_sys_make(50, 1, 2.0, 0, 0);
  cr_assert_eq(solve_with(ALGO, &s, 2, NULL, -1, "1", &info), TL_OUTSIDE_DOMAIN);
  cr_assert(strstr(info.msg, "not strictly diagonally dominant") != NULL, "%s", info.msg);
  th_sys_free(&s);
  s = th_sys_make(40, 0, 0.1, 1.0, SEED);
  s.b[20] = 0.0;
  cr_assert_eq(solve_with(ALGO, &s, 4, NULL, -1, NULL, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 20);
  th_sys_free(&s);
}

static void sweep(long J)
{
  static const size_t ns[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  long passed = 0;
  for (size_t k = 0; k < tl_gallery_count(); k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
      size_t n = ns[in];
      if (n < t->min_n)
        continue;
      tl_problem pr;
      tl_info info;
      cr_assert_eq(tl_gallery_make(t->id, n, 2, 99, &pr, &info), TL_OK);
      for (size_t ip = 0; ip < NPARTS; ip++) {
        int P = parts_list[ip];
        if ((size_t)P * ALGO->min_rows_per_part > n || (size_t)P * (size_t)J > n)
          continue;
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = P;
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", J);
        cr_assert_eq(tl_options_set_param(&opt, ALGO, "J", buf, &info), TL_OK);
        tl_verify_result r;
        tl_verify_pair(ALGO, &pr, &opt, &r);
        cr_assert(r.verdict != TL_VERDICT_SILENT, "%s n=%zu P=%d J=%ld: resid %g ferr %g",
                  t->name, n, P, J, r.resid, r.ferr);
        passed += r.verdict == TL_VERDICT_PASSED;
      }
      tl_problem_free(&pr);
    }
  }
  cr_assert(passed > 30, "J=%ld: only %ld passed", J, passed);
}

Test(rpdd, gallery_never_silent_auto_J, .timeout = 60) { sweep(0); }
Test(rpdd, gallery_never_silent_short_J, .timeout = 60) { sweep(8); }
