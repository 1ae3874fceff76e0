/* tests/test_pdd.c -- Sun's PDD algorithm (reference/pdd_ref.c).
 *
 * Against LAPACK (tl_lapack_solve) for P in {1, 2, 3, 4, 7, 16}, equal and
 * unequal partitions, from one row per partition to thousands of rows;
 * P = 1 is Thomas bit for bit and P = 2 drops nothing; the phases called
 * one by one give the one-call solve bit for bit; the spikes and the
 * reported dropped entries agree with an independent LAPACK solve of each
 * local block; the error never exceeds the reported bound; too-small
 * partitions and non-dominant matrices are reported, never silently
 * wrong (the whole gallery); bad arguments are clear errors.
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
#include "tridlab/registry.h"
#include "tridlab/verify.h"

extern const tl_algorithm tl_algo_pdd_ref;
#define ALGO (&tl_algo_pdd_ref)
#define SEED 0x5dd0c0ffee123457u

static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

static int solve_with(th_sys *s, int P, const size_t *sizes, const char *tol, tl_info *info)
{
  return th_solve_param(ALGO, &s->batch, s->x, P, sizes, "tol", tol, info);
}

/* ---------------------------------------------------------------- */

Test(pdd, registry_entry)
{
  cr_assert_str_eq(ALGO->name, "pdd");
  cr_assert_str_eq(ALGO->family, "partition");
  cr_assert_eq(ALGO->partitioned, 1);
  cr_assert_eq(ALGO->exact, 0);
  cr_assert_eq(ALGO->min_rows_per_part, 1);
  cr_assert_eq(ALGO->classes, TL_CLASS_STRICT_DD);
  cr_assert_eq(tl_param_value(ALGO, NULL, "tol"), 2 * TL_EPS);
}

Test(pdd, one_partition_is_thomas)
{
  for (size_t n = 1; n <= 300; n += 13) {
    th_sys s = th_sys_make(n, 0, 0.1, 1.0, SEED + n);
    double *xt = calloc(n, sizeof(double));
    tl_info info;
    cr_assert_eq(tl_thomas_ref_d(n, s.a, s.b, s.c, s.d, xt, &info), TL_OK);
    cr_assert_eq(solve_with(&s, 1, NULL, NULL, &info), TL_OK);
    cr_assert(memcmp(xt, s.x, n * sizeof(double)) == 0, "n=%zu", n);
    cr_assert_eq(info.dropped, 0.0);
    cr_assert_eq(info.bound, 0.0);
    free(xt);
    th_sys_free(&s);
  }
}

/* P = 2: the reduced system is one exact 2x2 system, whatever m. */
Test(pdd, two_partitions_drop_nothing)
{
  static const size_t sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {2, 3}, {40, 3}, {500, 700}};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k][0] + sizes[k][1];
    th_sys s = th_sys_make(n, 1, 2.05, 0, SEED + k); /* weak dominance: slow decay */
    tl_info info;
    cr_assert_eq(solve_with(&s, 2, sizes[k], NULL, &info), TL_OK, "%s", info.msg);
    cr_assert_eq(info.dropped, 0.0);
    th_sys_assert_accurate(&s, "toeplitz-2.05", 2);
    th_sys_free(&s);
  }
}

/* Strongly dominant systems, every P, equal and unequal partitions, from the
 * smallest partitions that decay below eps to thousands of rows. */
static int solve_default(th_sys *s, int P, const size_t *sizes, tl_info *info)
{
  return solve_with(s, P, sizes, NULL, info);
}

Test(pdd, matches_lapack)
{
  th_expect_spikes_match_lapack(solve_default, parts_list, NPARTS, SEED);
}

Test(pdd, unequal_partitions)
{
  th_expect_unequal_partitions(solve_default, "exceed tol");
}

/* The phases, called one by one as part_pdd.h lists them. */
Test(pdd, phases_equal_one_call)
{
  static const size_t sizes[] = {7, 1, 30, 12, 2, 48};
  const int P = 6;
  size_t n = 100;
  th_sys s = th_sys_make(n, 0, 0.2, 1.0, SEED);
  tl_info info;
  int st1 = solve_with(&s, P, sizes, NULL, &info);
  double *x = calloc(n, sizeof(double));
  tl_pdd_part_d pt[6];
  tl_pdd_edge_d up[6];
  tl_pdd_iface_d down[6];
  for (int p = 0; p < P; p++)
    cr_assert_eq(tl_pdd_part_init_d(&pt[p], n, P, sizes, p, &info), TL_OK);
  for (int p = 0; p < P; p++)
    cr_assert_eq(tl_pdd_ref_local_d(&pt[p], s.a + pt[p].begin, s.b + pt[p].begin,
                                    s.c + pt[p].begin, s.d + pt[p].begin, x + pt[p].begin,
                                    &info),
                 TL_OK);
  for (int p = 1; p < P; p++)
    tl_pdd_ref_send_first_d(&pt[p], s.a + pt[p].begin, x + pt[p].begin, &up[p]);
  for (int p = 0; p + 1 < P; p++)
    cr_assert_eq(tl_pdd_ref_interface_d(&pt[p], s.c + pt[p].begin, x + pt[p].begin, &up[p + 1],
                                        &down[p], &info),
                 TL_OK);
  for (int p = 1; p < P; p++)
    tl_pdd_ref_receive_d(&pt[p], &down[p - 1]);
  for (int p = 0; p < P; p++)
    cr_assert_eq(tl_pdd_ref_correct_d(&pt[p], x + pt[p].begin, &info), TL_OK);
  tl_info info2;
  tl_info_clear(&info2);
  int st2 = tl_pdd_ref_reduce_d(pt, P, 2 * TL_EPS, "pdd", NULL, &info2);
  cr_assert_eq(st1, st2);
  cr_assert(memcmp(x, s.x, n * sizeof(double)) == 0);
  cr_assert_eq(info.dropped, info2.dropped);
  cr_assert_eq(info.bound, info2.bound);
  for (int p = 0; p < P; p++)
    tl_pdd_part_free_d(&pt[p]);
  free(x);
  th_sys_free(&s);
}

/* The spikes equal LAPACK solves of the local blocks, and `dropped` is the
 * largest far entry of the partitions with two neighbours. */
Test(pdd, spikes_and_dropped_against_lapack)
{
  static const size_t sizes[] = {9, 4, 11, 6, 10};
  const int P = 5;
  size_t n = 40;
  th_sys s = th_sys_make(n, 0, 0.1, 0.5, SEED + 7);
  tl_info info;
  double expect = 0.0;
  for (int p = 0; p < P; p++) {
    tl_pdd_part_d pt;
    cr_assert_eq(tl_pdd_part_init_d(&pt, n, P, sizes, p, &info), TL_OK);
    size_t m = pt.m, o = pt.begin;
    cr_assert_eq(tl_pdd_ref_local_d(&pt, s.a + o, s.b + o, s.c + o, s.d + o, s.x + o, &info),
                 TL_OK);
    double la[16], lb[16], lc[16], rv[16], rw[16], sv[16], sw[16];
    for (size_t k = 0; k < m; k++) {
      la[k] = k ? s.a[o + k] : 0.0;
      lb[k] = s.b[o + k];
      lc[k] = k + 1 < m ? s.c[o + k] : 0.0;
      rv[k] = k == 0 && p > 0 ? s.a[o] : 0.0;
      rw[k] = k + 1 == m && p + 1 < P ? s.c[o + m - 1] : 0.0;
    }
    tl_batch bv = {TL_F64, m, 1, 0, la, lb, lc, rv}, bw = {TL_F64, m, 1, 0, la, lb, lc, rw};
    cr_assert_eq(tl_lapack_solve(&bv, sv, &info), TL_OK);
    cr_assert_eq(tl_lapack_solve(&bw, sw, &info), TL_OK);
    double scale = th_max_abs(m, sv) + th_max_abs(m, sw);
    for (size_t k = 0; k < m; k++) {
      cr_assert(fabs(pt.v[k] - sv[k]) <= 64 * TL_EPS * scale, "p=%d k=%zu", p, k);
      cr_assert(fabs(pt.w[k] - sw[k]) <= 64 * TL_EPS * scale, "p=%d k=%zu", p, k);
    }
    if (p > 0 && p + 1 < P) {
      expect = fmax(expect, fabs(pt.v[m - 1]));
      expect = fmax(expect, fabs(pt.w[0]));
    }
    tl_pdd_part_free_d(&pt);
  }
  int st = solve_with(&s, P, sizes, NULL, &info);
  cr_assert_eq(st, TL_OUTSIDE_DOMAIN);
  cr_assert_eq(info.dropped, expect);
  cr_assert_eq(info.tol, 2 * TL_EPS);
  th_sys_free(&s);
}

/* Whatever the partitions, the measured error stays inside the bound
 * (plus LAPACK's own rounding), and the status follows dropped vs tol. */
Test(pdd, error_within_bound)
{
  static const double lambdas[] = {2.05, 2.5, 3.0, 4.0, 8.0};
  static const size_t ms[] = {2, 3, 5, 8, 13, 21};
  static const int Ps[] = {3, 4, 7, 16};
  for (size_t il = 0; il < 5; il++)
    for (size_t im = 0; im < 6; im++)
      for (size_t iP = 0; iP < 4; iP++) {
        int P = Ps[iP];
        size_t n = ms[im] * (size_t)P;
        for (int kind = 0; kind < 2; kind++) {
          th_sys s = kind ? th_sys_make(n, 0, lambdas[il] - 2.0, lambdas[il] - 1.9, SEED + n)
                         : th_sys_make(n, 1, lambdas[il], 0, 0);
          tl_info info;
          int st = solve_with(&s, P, NULL, NULL, &info);
          double err = th_sys_rel_err(&s);
          double slack = TL_THRESH * TL_EPS / s.rcond;
          cr_assert(err <= 1.0001 * info.bound + slack,
                    "lambda=%g m=%zu P=%d: error %g > bound %g (+%g)", lambdas[il], ms[im], P,
                    err, info.bound, slack);
          cr_assert_eq(st, info.dropped > 2 * TL_EPS ? TL_OUTSIDE_DOMAIN : TL_OK);
          cr_assert(info.bound > 0.0 || info.dropped == 0.0);
          th_sys_free(&s);
        }
      }
}

Test(pdd, tol_parameter)
{
  th_sys s = th_sys_make(64, 1, 3.0, 0, 0);
  tl_info info;
  cr_assert_eq(solve_with(&s, 8, NULL, NULL, &info), TL_OUTSIDE_DOMAIN);
  double dropped = info.dropped;
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", dropped);
  cr_assert_eq(solve_with(&s, 8, NULL, buf, &info), TL_OK); /* dropped <= tol */
  cr_assert_eq(info.tol, dropped);
  snprintf(buf, sizeof buf, "%.17g", dropped * 0.999);
  cr_assert_eq(solve_with(&s, 8, NULL, buf, &info), TL_OUTSIDE_DOMAIN);
  cr_assert(strstr(info.msg, "pdd: dropped spike entries") != NULL, "%s", info.msg);
  tl_options opt;
  tl_options_init(&opt);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "-1", &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "param");
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "tol", "2", &info), TL_ERR_ARG);
  cr_assert_eq(tl_options_set_param(&opt, ALGO, "J", "3", &info), TL_ERR_ARG);
  th_sys_free(&s);
}

Test(pdd, outside_domain_and_breakdown)
{
  tl_info info;
  /* weakly dominant: solved, reported */
  th_sys s = th_sys_make(50, 1, 2.0, 0, 0);
  cr_assert_eq(solve_with(&s, 2, NULL, "1", &info), TL_OUTSIDE_DOMAIN);
  cr_assert(strstr(info.msg, "not strictly diagonally dominant") != NULL, "%s", info.msg);
  cr_assert_eq(info.bound, 0.0);
  th_sys_free(&s);
  /* a zero pivot in partition 2 (rows 20..29): breakdown at its global row */
  s = th_sys_make(40, 0, 0.1, 1.0, SEED);
  s.b[20] = 0.0;
  cr_assert_eq(solve_with(&s, 4, NULL, NULL, &info), TL_ERR_BREAKDOWN);
  cr_assert_eq(info.row, 20);
  s.b[20] = 1e300;
  s.b[21] = 0.0;
  s.a[21] = 1.0;
  s.c[21] = 0.0; /* row 21 = [1 0 0]: second pivot 0 - 1*c20/b20 stays finite, not zero */
  cr_assert(solve_with(&s, 4, NULL, NULL, &info) != TL_OK);
  th_sys_free(&s);
}

Test(pdd, argument_limits)
{
  th_sys s = th_sys_make(10, 1, 4.0, 0, 0);
  tl_info info;
  cr_assert_eq(solve_with(&s, 11, NULL, NULL, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "parts");
  static const size_t bad[] = {5, 4};
  cr_assert_eq(solve_with(&s, 2, bad, NULL, &info), TL_ERR_ARG);
  cr_assert_str_eq(info.arg, "parts");
  static const size_t zero[] = {10, 0};
  cr_assert_eq(solve_with(&s, 2, zero, NULL, &info), TL_ERR_ARG);
  cr_assert_eq(solve_with(&s, 10, NULL, NULL, &info), TL_OUTSIDE_DOMAIN); /* 1 row each */
  s.batch.periodic = 1;
  cr_assert_eq(solve_with(&s, 2, NULL, NULL, &info), TL_ERR_UNSUPPORTED);
  th_sys_free(&s);
  double complex z[4] = {0, 4, 4, 0};
  tl_batch zb = {TL_C128, 2, 1, 0, z, z + 1, z + 2, z + 1};
  double complex zx[2];
  cr_assert_eq(tl_solve(ALGO, &zb, zx, NULL, &info), TL_ERR_UNSUPPORTED);
  cr_assert_str_eq(info.arg, "dtype");
}

/* A batch: every system solved, dropped / bound are the largest. */
Test(pdd, batch)
{
  size_t n = 120, ns = 3;
  double *a = calloc(n * ns, sizeof(double)), *b = calloc(n * ns, sizeof(double));
  double *c = calloc(n * ns, sizeof(double)), *d = calloc(n * ns, sizeof(double));
  double *x = calloc(n * ns, sizeof(double));
  const double lam[] = {8.0, 3.0, 4.0};
  double worst = 0.0;
  for (size_t k = 0; k < ns; k++) {
    th_sys s = th_sys_make(n, 1, lam[k], 0, k);
    memcpy(a + k * n, s.a, n * sizeof(double));
    memcpy(b + k * n, s.b, n * sizeof(double));
    memcpy(c + k * n, s.c, n * sizeof(double));
    memcpy(d + k * n, s.d, n * sizeof(double));
    tl_info info;
    solve_with(&s, 6, NULL, NULL, &info);
    worst = fmax(worst, info.dropped);
    th_sys_free(&s);
  }
  tl_batch bt = {TL_F64, n, ns, 0, a, b, c, d};
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = 6;
  tl_info info;
  int st = tl_solve(ALGO, &bt, x, &opt, &info);
  cr_assert_eq(st, TL_OUTSIDE_DOMAIN); /* lambda = 3 with m = 20: 0.38^20 > eps */
  cr_assert_eq(info.dropped, worst);
  cr_assert_eq(info.system, 1);
  free(a), free(b), free(c), free(d), free(x);
}

/* The global promise over the whole gallery: never TL_OK with a wrong answer. */
Test(pdd, gallery_never_silent, .timeout = 60)
{
  static const size_t ns[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  size_t count = tl_gallery_count();
  long passed = 0;
  for (size_t k = 0; k < count; k++) {
    const tl_gallery_type *t = tl_gallery_get(k);
    for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++) {
      size_t n = ns[in];
      if (n < t->min_n)
        continue;
      tl_problem pr;
      tl_info info;
      cr_assert_eq(tl_gallery_make(t->id, n, 2, 99, &pr, &info), TL_OK);
      for (size_t ip = 0; ip < NPARTS; ip++) {
        if ((size_t)parts_list[ip] * ALGO->min_rows_per_part > n)
          continue;
        tl_options opt;
        tl_options_init(&opt);
        opt.parts = parts_list[ip];
        tl_verify_result r;
        tl_verify_pair(ALGO, &pr, &opt, &r);
        cr_assert(r.verdict != TL_VERDICT_SILENT, "%s n=%zu P=%d: resid %g ferr %g", t->name, n,
                  opt.parts, r.resid, r.ferr);
        passed += r.verdict == TL_VERDICT_PASSED;
      }
      tl_problem_free(&pr);
    }
  }
  cr_assert(passed > 100);
}
