/* tests/test_ptdma.c -- the CaNS P-TDMA (paper 001 §2.2.4) against LAPACK.
 *
 * Both flavours (Algorithm 1, one pass; Algorithm 2, a plan reused over
 * many right-hand sides) solve diagonally dominant systems to LAPACK's
 * residual and forward-error tests for P = 1..16, equal and unequal
 * partitions of 2 rows up to thousands, plain and periodic. The phases
 * called one by one give the one-call solve bit for bit; a plan reused
 * over several right-hand sides agrees with the one-pass path. Bad
 * partitions and parameters are clear errors, zero pivots breakdowns at
 * the right row, non-dominant matrices are reported, and every gallery
 * type either passes or is reported. Non-periodic systems carry NaN in
 * the corners, which must never be read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/algorithms.h"
#include "tridlab/part_ptdma.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"
#include "underflow_helpers.h"

extern const tl_algorithm tl_algo_ptdma_ref;
static const tl_algorithm *const algo = &tl_algo_ptdma_ref;

static const int part_counts[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof part_counts / sizeof part_counts[0])
static const char *const flavours[] = {"split", "combined"};

static int solve_reg(const tl_problem *p, int parts, const size_t *sizes, const char *flavour,
                     double *x, tl_info *info)
{
  return th_solve_param(algo, &p->sys, x, parts, sizes, "flavour", flavour, info);
}

/* Dominant types (weakly dominant M-matrices included), plain and periodic. */
Test(ptdma, matches_lapack)
{
  static const int types[] = {2, 20, 23, 34, 35, 36, 5, 6, 50, 51, 55};
  static const size_t sizes[] = {2, 3, 4, 5, 7, 16, 17, 33, 100, 1000, 5003};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t k = 0; k < NPARTS; k++) {
        int P = part_counts[k];
        size_t n = sizes[s];
        if (n < 2 * (size_t)P)
          continue;
        tl_problem p;
        tl_info info;
        cr_assert_eq(tl_gallery_make(types[t], n, 2, 13, &p, &info), TL_OK);
        double *x = calloc(2 * n, sizeof *x);
        size_t psz[16];
        th_unequal_sizes(n, P, 2, psz);
        for (int f = 0; f < 2; f++)
          for (int uneq = 0; uneq < 2; uneq++) {
            int st = solve_reg(&p, P, uneq ? psz : NULL, flavours[f], x, &info);
            cr_expect_eq(st, TL_OK, "type %d n=%zu P=%d %s: %s", types[t], n, P, flavours[f],
                         info.msg);
            double r, fe;
            cr_assert_eq(th_ratios(&p.sys, x, &r, &fe), 0);
            cr_expect_lt(r, TL_THRESH, "type %d n=%zu P=%d %s uneq=%d resid %g", types[t], n, P,
                         flavours[f], uneq, r);
            cr_expect_lt(fe, TL_THRESH, "type %d n=%zu P=%d %s uneq=%d ferr %g", types[t], n, P,
                         flavours[f], uneq, fe);
          }
        free(x);
        tl_problem_free(&p);
      }
}

/* The default flavour is the split one, and it equals flavour=split. */
Test(ptdma, default_parameter_is_split)
{
  cr_expect_eq(tl_param_value(algo, NULL, "flavour"), 0.0);
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, 300, 1, 2, &p, &info), TL_OK);
  double x1[300], x2[300];
  cr_expect_eq(solve_reg(&p, 4, NULL, NULL, x1, &info), TL_OK);
  cr_expect_eq(solve_reg(&p, 4, NULL, "split", x2, &info), TL_OK);
  cr_expect_eq(memcmp(x1, x2, sizeof x1), 0);
  tl_problem_free(&p);
}

/* A plan, made once, reused over several right-hand sides: each solution
 * equals the one-pass Algorithm 1 solution to rounding, and equals bit
 * for bit the solve with a fresh plan. */
Test(ptdma, plan_reused_over_many_rhs_matches_algorithm_1)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t k = 0; k < NPARTS; k++) {
      int P = part_counts[k];
      size_t n = 40 * (size_t)P + 3, nrhs = 5;
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(periodic ? 50 : 20, n, nrhs, 21, &p, &info), TL_OK);
      const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      double rcond;
      tl_batch one = tl_batch_system(&p.sys, 0);
      cr_assert_eq(tl_rcond(&one, &rcond, &info), TL_OK);
      tl_ptdma_plan plan;
      cr_assert_eq(tl_ptdma_plan_create_d(&plan, n, periodic, P, NULL, a, b, c, &info), TL_OK,
                   "%s", info.msg);
      double *x1 = calloc(n, 8), *x2 = calloc(n, 8), *x3 = calloc(n, 8);
      /* every system of the batch has its own matrix: use system 0's matrix
       * with the right-hand sides of all of them */
      for (size_t r = 0; r < nrhs; r++) {
        const double *dr = d + r * n;
        cr_expect_eq(tl_ptdma_plan_solve_d(&plan, dr, x1, &info), TL_OK, "%s", info.msg);
        cr_expect_eq(tl_ptdma_solve_d(n, periodic, P, NULL, a, b, c, dr, x2, &info), TL_OK);
        tl_batch sys = one;
        sys.d = dr;
        cr_expect_lt(tl_forward_ratio(&sys, x1, x2, &rcond), TL_THRESH, "P=%d rhs %zu", P, r);
        cr_expect_lt(tl_residual_ratio(&sys, x1), TL_THRESH);
        tl_ptdma_plan fresh;
        cr_assert_eq(tl_ptdma_plan_create_d(&fresh, n, periodic, P, NULL, a, b, c, &info),
                     TL_OK);
        cr_expect_eq(tl_ptdma_plan_solve_d(&fresh, dr, x3, &info), TL_OK);
        cr_expect_eq(memcmp(x1, x3, n * 8), 0);
        tl_ptdma_plan_destroy(&fresh);
      }
      tl_ptdma_plan_destroy(&plan);
      tl_ptdma_plan_destroy(&plan);
      free(x1);
      free(x2);
      free(x3);
      tl_problem_free(&p);
    }
}

/* Algorithm 1 phases one by one == tl_ptdma_solve_d, bit for bit; the
 * Algorithm 2 phases == tl_ptdma_plan_solve_d and the registry solve. */
Test(ptdma, phases_one_by_one_equal_one_call)
{
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t k = 0; k < NPARTS; k++) {
      int P = part_counts[k];
      size_t n = 9 * (size_t)P + 2, rows = 2 * (size_t)P;
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(periodic ? 55 : 34, n, 1, 4, &p, &info), TL_OK);
      const double *A = p.a, *B = p.b, *C = p.c, *D = p.d;
      double *x1 = calloc(n, 8), *x2 = calloc(n, 8);
      double *a = calloc(n, 8), *b = calloc(n, 8), *c = calloc(n, 8), *d = calloc(n, 8);
      double ra[32], rb[32], rc[32], rd[32], rx[32];
      size_t begin[17];
      for (int q = 0; q < P; q++)
        tl_partition_bounds(n, P, NULL, q, &begin[q], &begin[q + 1]);

      /* Algorithm 1 */
      cr_assert_eq(tl_ptdma_solve_d(n, periodic, P, NULL, A, B, C, D, x1, &info), TL_OK);
      for (int q = 0; q < P; q++) {
        cr_assert_eq(tl_ptdma_reduce_d(n, periodic, begin[q], begin[q + 1], A + begin[q],
                                       B + begin[q], C + begin[q], D + begin[q], a + begin[q],
                                       c + begin[q], d + begin[q], &info),
                     TL_OK);
        tl_ptdma_pack_d(begin[q], begin[q + 1], q, a + begin[q], NULL, c + begin[q], d + begin[q],
                        ra, rb, rc, rd);
      }
      cr_assert_eq(tl_ptdma_reduced_solve_d(rows, periodic, ra, rb, rc, rd, rx, &info), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_ptdma_reconstruct_d(begin[q], begin[q + 1], a + begin[q], NULL,
                                            c + begin[q], d + begin[q], rx[2 * q], rx[2 * q + 1],
                                            x2 + begin[q], &info),
                     TL_OK);
      cr_expect_eq(memcmp(x1, x2, n * 8), 0, "Algorithm 1 P=%d periodic=%d", P, periodic);

      /* Algorithm 2 */
      cr_assert_eq(solve_reg(&p, P, NULL, "split", x1, &info), TL_OK);
      for (int q = 0; q < P; q++) {
        cr_assert_eq(tl_ptdma_init_d(n, periodic, begin[q], begin[q + 1], A + begin[q],
                                     B + begin[q], C + begin[q], a + begin[q], b + begin[q],
                                     c + begin[q], &info),
                     TL_OK);
        tl_ptdma_runtime_d(begin[q], begin[q + 1], A + begin[q], C + begin[q], b + begin[q],
                           D + begin[q], d + begin[q]);
        tl_ptdma_pack_d(begin[q], begin[q + 1], q, a + begin[q], b + begin[q], c + begin[q],
                        d + begin[q], ra, rb, rc, rd);
      }
      cr_assert_eq(tl_ptdma_reduced_solve_d(rows, periodic, ra, rb, rc, rd, rx, &info), TL_OK);
      for (int q = 0; q < P; q++)
        cr_assert_eq(tl_ptdma_reconstruct_d(begin[q], begin[q + 1], a + begin[q], b + begin[q],
                                            c + begin[q], d + begin[q], rx[2 * q], rx[2 * q + 1],
                                            x2 + begin[q], &info),
                     TL_OK);
      cr_expect_eq(memcmp(x1, x2, n * 8), 0, "Algorithm 2 P=%d periodic=%d", P, periodic);
      free(x1);
      free(x2);
      free(a);
      free(b);
      free(c);
      free(d);
      tl_problem_free(&p);
    }
}

/* The reduced system has 2P rows with partition p's first and last rows. */
Test(ptdma, reduced_system_holds_the_boundary_rows)
{
  size_t n = 12;
  double A[12], B[12], C[12], a[12], c[12], d[12], D[12];
  for (size_t i = 0; i < n; i++) {
    A[i] = i ? 1.0 : 0.0;
    B[i] = 4.0;
    C[i] = i + 1 < n ? 1.0 : 0.0;
    D[i] = (double)i;
  }
  tl_info info;
  /* m = 2: the rows are only scaled. */
  cr_assert_eq(
      tl_ptdma_reduce_d(n, 0, 4, 6, A + 4, B + 4, C + 4, D + 4, a + 4, c + 4, d + 4, &info), TL_OK);
  cr_expect_eq(a[4], 0.25);
  cr_expect_eq(c[4], 0.25);
  cr_expect_eq(d[5], 5.0 / 4.0);
  /* The first row of a plain system has no left neighbour. */
  cr_assert_eq(tl_ptdma_reduce_d(n, 0, 0, 4, A, B, C, D, a, c, d, &info), TL_OK);
  cr_expect_eq(a[0], 0.0); /* the plain system's first row has no left neighbour */
}

/* Non-periodic corners are never read. */
Test(ptdma, corners_of_a_plain_system_are_not_read)
{
  size_t n = 100;
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(20, n, 1, 1, &p, &info), TL_OK);
  double *a = malloc(n * 8), *c = malloc(n * 8), *x1 = calloc(n, 8), *x2 = calloc(n, 8);
  memcpy(a, p.a, n * 8);
  memcpy(c, p.c, n * 8);
  a[0] = NAN;
  c[n - 1] = NAN;
  for (int P = 1; P <= 5; P++) {
    cr_expect_eq(tl_ptdma_solve_d(n, 0, P, NULL, a, p.b, c, p.d, x1, &info), TL_OK, "%s",
                 info.msg);
    cr_expect_eq(solve_reg(&p, P, NULL, "combined", x2, &info), TL_OK);
    cr_expect_eq(memcmp(x1, x2, n * 8), 0);
    tl_ptdma_plan plan;
    cr_assert_eq(tl_ptdma_plan_create_d(&plan, n, 0, P, NULL, a, p.b, c, &info), TL_OK);
    cr_expect_eq(tl_ptdma_plan_solve_d(&plan, p.d, x1, &info), TL_OK, "%s", info.msg);
    cr_expect_eq(solve_reg(&p, P, NULL, "split", x2, &info), TL_OK);
    cr_expect_eq(memcmp(x1, x2, n * 8), 0);
    tl_ptdma_plan_destroy(&plan);
  }
  free(a);
  free(c);
  free(x1);
  free(x2);
  tl_problem_free(&p);
}

Test(ptdma, limits_are_clear_errors)
{
  tl_problem p;
  tl_info info;
  double x[64];
  cr_assert_eq(tl_gallery_make(23, 9, 1, 1, &p, &info), TL_OK);
  cr_expect_eq(solve_reg(&p, 5, NULL, NULL, x, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cr_expect_eq(solve_reg(&p, 4, NULL, NULL, x, &info), TL_OK); /* 2-3 rows each */
  size_t bad[2] = {1, 8};
  cr_expect_eq(solve_reg(&p, 2, bad, NULL, x, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  tl_options opt;
  tl_options_init(&opt);
  cr_expect_eq(tl_options_set_param(&opt, algo, "flavour", "fast", &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "param");
  cr_expect_eq(tl_options_set_param(&opt, algo, "tol", "1", &info), TL_ERR_ARG);
  /* Direct API: the same checks. */
  cr_expect_eq(tl_ptdma_solve_d(9, 0, 5, NULL, p.a, p.b, p.c, p.d, x, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "parts");
  cr_expect_eq(tl_ptdma_solve_d(9, 0, 0, NULL, p.a, p.b, p.c, p.d, x, &info), TL_ERR_ARG);
  size_t wrong_sum[2] = {4, 4};
  cr_expect_eq(tl_ptdma_solve_d(9, 0, 2, wrong_sum, p.a, p.b, p.c, p.d, x, &info), TL_ERR_ARG);
  tl_ptdma_plan plan;
  cr_expect_eq(tl_ptdma_plan_create_d(&plan, 9, 0, 5, NULL, p.a, p.b, p.c, &info), TL_ERR_ARG);
  tl_ptdma_plan_destroy(&plan);
  cr_expect_eq(tl_ptdma_plan_create_d(&plan, 9, 0, 2, wrong_sum, p.a, p.b, p.c, &info),
               TL_ERR_ARG);
  cr_expect_eq(tl_ptdma_plan_solve_d(&plan, p.d, x, &info), TL_ERR_ARG); /* empty plan */
  tl_problem_free(&p);
  cr_assert_eq(tl_gallery_make(62, 10, 1, 1, &p, &info), TL_OK);
  cr_expect_eq(tl_solve(algo, &p.sys, x, NULL, &info), TL_ERR_UNSUPPORTED);
  tl_problem_free(&p);
}

/* Zero pivots: breakdown at the global row, for both flavours. */
Test(ptdma, breakdown_reports_its_row)
{
  tl_problem p;
  tl_info info;
  double x[40];
  for (int f = 0; f < 2; f++) {
    cr_assert_eq(tl_gallery_make(37, 20, 1, 1, &p, &info), TL_OK); /* b[0] = 0 */
    cr_expect_eq(solve_reg(&p, 1, NULL, flavours[f], x, &info), TL_ERR_BREAKDOWN);
    cr_expect_eq(info.row, 0);
    tl_problem_free(&p);
    cr_assert_eq(tl_gallery_make(20, 20, 1, 1, &p, &info), TL_OK);
    ((double *)p.b)[11] = 0.0; /* second row of partition 1 (rows 10..19) */
    cr_expect_eq(solve_reg(&p, 2, NULL, flavours[f], x, &info), TL_ERR_BREAKDOWN);
    cr_expect_eq(info.row, 11);
    tl_problem_free(&p);
  }
}

/* Not dominant: solved, but reported. Periodic weakly dominant: reported. */
Test(ptdma, outside_the_domain_is_reported)
{
  tl_problem p;
  tl_info info;
  double x[64];
  for (int f = 0; f < 2; f++) {
    cr_assert_eq(tl_gallery_make(25, 40, 1, 1, &p, &info), TL_OK); /* toeplitz-1.5 */
    int st = solve_reg(&p, 3, NULL, flavours[f], x, &info);
    cr_expect(st == TL_OUTSIDE_DOMAIN || st == TL_ERR_BREAKDOWN, "%d", st);
    if (st == TL_OUTSIDE_DOMAIN)
      cr_expect(strstr(info.msg, "dominant") != NULL, "%s", info.msg);
    tl_problem_free(&p);
    cr_assert_eq(tl_gallery_make(56, 40, 1, 1, &p, &info), TL_OK); /* singular periodic */
    st = solve_reg(&p, 3, NULL, flavours[f], x, &info);
    cr_expect(st == TL_OUTSIDE_DOMAIN || st < 0, "%d", st);
    tl_problem_free(&p);
  }
}

/* Issue 22: on the Dorr matrix (theta = 1e-4, row dominant with zero
 * margin inside, singular to working precision) the local reductions'
 * boundary weights lose the maximum principle (|a| + |c| up to 14 |b|
 * in a reduced row); the split flavour returned ok at P = 3, n = 255
 * with a residual ratio of 3.7e12. The reduced rows are now checked:
 * outside-domain, and at every P an ok has a passing residual. */
Test(ptdma, dorr_reduced_rows_lose_dominance)
{
  enum { N = 255 };
  double x[N];
  tl_problem p; /* gallery type 43: MATLAB's gallery('dorr', n, 1e-4) */
  tl_info made;
  cr_assert_eq(tl_gallery_make(43, N, 1, 1, &p, &made), TL_OK, "%s", made.msg);
  const tl_batch sys = p.sys;
  for (int f = 0; f < 2; f++) {
    tl_info info;
    int st = solve_reg(&p, 3, NULL, flavours[f], x, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "P=3 %s: %d %s", flavours[f], st, info.msg);
    cr_expect(strstr(info.msg, "reduced row") != NULL, "%s", info.msg);
    for (int P = 1; P <= 16; P++) {
      st = solve_reg(&p, P, NULL, flavours[f], x, &info);
      if (st == TL_OK)
        cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH, "P=%d %s", P, flavours[f]);
    }
  }
  tl_problem_free(&p);
}

/* Found by fuzzing: Algorithm 2 (split, the default) reconstructs the
 * interior row 1 as (d - a x_first - c x_last) / b from terms in the
 * subnormal range; row 0, which eliminated row 1 exactly, sees their
 * error of eps DBL_MIN times c0 / b1 = 6e299: residual ratio 8e13 with
 * status ok. The plan now checks its residual then. */
Test(ptdma, reconstruction_near_underflow_is_checked)
{
  static const double a[3] = {0, 3.738e-162, 1e138}, b[3] = {6e138, 1e-161, 3e138};
  static const double c[3] = {-5.9399999999999995e+138, 0, 0}, d[3] = {0, 7 * 0x1p-1074, 0};
  expect_underflow_reported("ptdma", a, b, c, d);
}

Test(ptdma, descriptor)
{
  cr_expect_str_eq(algo->name, "ptdma");
  cr_expect_str_eq(algo->family, "partition");
  cr_expect_eq(algo->exact, 1);
  cr_expect_eq(algo->partitioned, 1);
  cr_expect_eq(algo->min_rows_per_part, 2);
  cr_expect(algo->classes & TL_CLASS_STRICT_DD); /* tries row-dd: a report there is no broken promise */
  cr_expect(algo->layouts & TL_PERIODIC);
}

/* The promise over the whole gallery, both flavours: no TL_OK with a
 * wrong answer, and every type the gallery expects to pass passes. */
Test(ptdma, gallery_sweep_never_silently_wrong, .timeout = 120)
{
  static const size_t sizes[] = {1, 2, 3, 5, 17, 100, 1000, 4096};
  long ok = 0;
  for (size_t g = 0; g < tl_gallery_count(); g++) {
    const tl_gallery_type *type = tl_gallery_get(g);
    if (type->dtype != TL_F64)
      continue;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t k = 0; k < NPARTS; k++)
        for (int f = 0; f < 2; f++) {
          size_t n = sizes[s];
          int P = part_counts[k];
          if (n < type->min_n || n < (size_t)P * algo->min_rows_per_part)
            continue;
          tl_problem p;
          tl_info info;
          cr_assert_eq(tl_gallery_make(type->id, n, 1, 17, &p, &info), TL_OK);
          double *x = calloc(n, sizeof *x);
          int st = solve_reg(&p, P, NULL, flavours[f], x, &info);
          if (tl_gallery_expects_pass(type, algo))
            cr_expect_eq(st, TL_OK, "unexpected: type %d n=%zu P=%d %s: %s", type->id, n, P,
                         flavours[f], info.msg);
          if (st == TL_OK) {
            ok++;
            double r, fe;
            cr_assert_eq(th_ratios(&p.sys, x, &r, &fe), 0);
            cr_expect(r < TL_THRESH && fe < TL_THRESH,
                      "silent: type %d n=%zu P=%d %s resid %g ferr %g", type->id, n, P,
                      flavours[f], r, fe);
          }
          free(x);
          tl_problem_free(&p);
        }
  }
  cr_expect_gt(ok, 500);
}
