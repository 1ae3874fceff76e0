/* tests/test_spike_dp.c -- SPIKE with 1x1/2x2 diagonal pivoting in the
 * local solves (reference/spike_dp_ref.c).
 *
 * Its answers agree with LAPACK's gtsv (both ratios below 30) on dominant
 * and indefinite matrices, real and complex, at P in {1, 2, 3, 4, 7, 16},
 * with spike's statuses (ok only on a strictly row-dominant A); a zero
 * diagonal entry, where Thomas breaks down, takes a 2x2 pivot; the pivot
 * sizes are the rule's, computed by hand, and switch at kappa; a
 * strictly row-dominant block takes only 1x1 pivots (Thomas); the block
 * solve keeps the band and is LAPACK's answer; the ledger is spike's
 * model; bad input is a bad argument.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/part_spike_dp.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

static const tl_algorithm *spike_dp(void)
{
  const tl_algorithm *a = tl_find("spike_dp");
  cr_assert_not_null(a);
  return a;
}

/* Dominant (sdd-random, toeplitz-4, complex tdse-cn: ok) and indefinite
 * (toeplitz-1.5, gt07-random, complex-random, helmholtz-damped:
 * outside-domain, the answer written) matrices: LAPACK's ratios < 30 at
 * every P. */
Test(spike_dp, agrees_with_gtsv)
{
  th_expect_spike_agrees_with_gtsv("spike_dp");
}

/* b0 = b5 = 0 in an otherwise dominant matrix: Thomas divides by b0 and
 * breaks down at row 0; spike_dp pivots on the 2x2 block of rows 0, 1
 * (and of rows 5, 6 where partition 1 begins at row 5) and answers as
 * gtsv does. */
Test(spike_dp, a_zero_diagonal_takes_a_2x2_pivot)
{
  enum { N = 12 };
  double a[N], b[N], c[N], d[N], x[N];
  for (int i = 0; i < N; i++) {
    a[i] = i > 0 ? 1 : 0;
    c[i] = i + 1 < N ? 1 : 0;
    b[i] = i == 0 || i == 5 ? 0 : 3;
    d[i] = 1 + i % 3;
  }
  tl_batch sys = {TL_F64, N, 1, 0, a, b, c, d};
  tl_info info;
  int st = tl_solve(tl_find("thomas"), &sys, x, NULL, &info);
  cr_expect_eq(st, TL_ERR_BREAKDOWN, "thomas: %s", info.msg);
  cr_expect_eq(info.row, 0);

  size_t sizes[2] = {5, 7};
  for (int P = 1; P <= 2; P++) {
    tl_options opt;
    th_options_parts(&opt, spike_dp(), P, P == 2 ? sizes : NULL, NULL);
    st = tl_solve(spike_dp(), &sys, x, &opt, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "P=%d (not dominant): %s", P, info.msg);
    double resid, ferr;
    cr_assert_eq(th_ratios(&sys, x, &resid, &ferr), 0);
    cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "P=%d: %g %g", P, resid, ferr);
  }
  /* Partition 1 of the 5 + 7 split starts at the zero diagonal. */
  double beta[7];
  unsigned char piv[7];
  cr_assert_eq(tl_spike_dp_factor_d(5, 7, 1, a + 5, b + 5, c + 5, beta, piv, &info), TL_OK, "%s",
               info.msg);
  cr_expect_eq(piv[0], TL_SPIKE_DP_2X2);
  cr_expect_eq(piv[1], TL_SPIKE_DP_SECOND);
}

/* The rule by hand, m = 6, a = c = 1, b = (2, b1, 0.1, 3, 3, 3):
 *   k = 0: beta0 = 2, sigma = max(1, 1, |b1|, 1, 1) = 1: 2 >= kappa: 1x1;
 *          beta1 = b1 - 1/2.
 *   k = 1: sigma = max(1, 1, 0.1, 1, 1) = 1: 1x1 iff |beta1| >= kappa.
 *     b1 = -0.12: beta1 = -0.62, 1x1; beta2 = 0.1 + 1/0.62, 1x1 after it.
 *     b1 = -0.11: beta1 = -0.61 < kappa: a 2x2 pivot on rows 1, 2, Delta
 *          = -0.61 * 0.1 - 1, and beta3 = 3 - beta1 / Delta.
 *   k >= 3: sigma = 3 and |beta_k| > 2: 1x1 to the end. */
Test(spike_dp, pivot_sizes_are_the_rule)
{
  enum { M = 6 };
  double a[M] = {0, 1, 1, 1, 1, 1}, c[M] = {1, 1, 1, 1, 1, 0};
  double b[M] = {2, -0.11, 0.1, 3, 3, 3}, beta[M];
  unsigned char piv[M];
  tl_info info;
  cr_assert_eq(tl_spike_dp_factor_d(0, M, 0, a, b, c, beta, piv, &info), TL_OK, "%s", info.msg);
  static const unsigned char two[M] = {1, 2, 0, 1, 1, 1}, one[M] = {1, 1, 1, 1, 1, 1};
  cr_expect_arr_eq(piv, two, M, "b1 = -0.11: 1 2 0 1 1 1, got %d %d %d %d %d %d", piv[0], piv[1],
                   piv[2], piv[3], piv[4], piv[5]);
  cr_expect_float_eq(beta[1], -0.61, 1e-15);
  cr_expect_eq(beta[2], 0.1, "the second row of a 2x2 block keeps b");
  double delta = -0.61 * 0.1 - 1;
  cr_expect_float_eq(beta[3], 3 - (-0.61) / delta, 1e-14);

  b[1] = -0.12;
  cr_assert_eq(tl_spike_dp_factor_d(0, M, 0, a, b, c, beta, piv, &info), TL_OK, "%s", info.msg);
  cr_expect_arr_eq(piv, one, M, "b1 = -0.12: all 1x1, got %d %d %d %d %d %d", piv[0], piv[1],
                   piv[2], piv[3], piv[4], piv[5]);
  cr_expect_float_eq(beta[1], -0.62, 1e-15);
  cr_expect_float_eq(beta[2], 0.1 + 1 / 0.62, 1e-14);
  cr_expect_float_eq(TL_SPIKE_DP_KAPPA, (sqrt(5.0) - 1) / 2, 1e-16);
}

/* Strictly row-dominant blocks take only 1x1 pivots (there it is Thomas),
 * and any block's solve is LAPACK's answer (dgtsv) within a few eps. */
Test(spike_dp, the_block_solve_is_lapacks_answer)
{
  static const int ids[] = {20, 7, 25};
  static const size_t sizes[] = {1, 2, 3, 4, 9, 33, 100};
  for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++)
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
      size_t m = sizes[z];
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(ids[t], m, 1, 5 + m, &p, &info), TL_OK);
      const double *a = p.a, *b = p.b, *c = p.c, *d = p.d;
      double *beta = calloc(3 * m, sizeof *beta), *y = beta + m, *xl = y + m;
      unsigned char *piv = calloc(m, 1);
      cr_assert_eq(tl_spike_dp_factor_d(0, m, 0, a, b, c, beta, piv, &info), TL_OK, "%s",
                   info.msg);
      int twos = 0;
      for (size_t i = 0; i < m; i++)
        twos += piv[i] == TL_SPIKE_DP_2X2;
      if (ids[t] == 20)
        cr_expect_eq(twos, 0, "sdd-random m=%zu: %d 2x2 pivots", m, twos);
      memcpy(y, d, m * sizeof *y);
      tl_spike_dp_solve_block_d(m, a, c, beta, piv, y);
      tl_batch one = p.sys;
      cr_assert_eq(tl_solve(tl_find("gtsv"), &one, xl, NULL, &info) >= 0, 1, "%s", info.msg);
      double err = 0, size = 0;
      for (size_t i = 0; i < m; i++) {
        err = fmax(err, fabs(y[i] - xl[i]));
        size = fmax(size, fabs(xl[i]));
      }
      double rcond = 0;
      cr_assert_eq(tl_rcond(&one, &rcond, &info), 0);
      cr_expect(err <= 30 * TL_EPS * size / fmax(rcond, TL_EPS), "type %d m=%zu: %g (rcond %g)",
                ids[t], m, err / size, rcond);
      free(beta);
      free(piv);
      tl_problem_free(&p);
    }
}

/* The same messages as spike's under its own name: a singular block. */
Test(spike_dp, a_singular_block_names_its_partition)
{
  enum { N = 6 };
  /* Partition 0 = rows 0..1 = [1 1; 0 0]-like: b1 = 0 and c0 a1 = 0
   * (a1 = 0): row 1 of the block is zero, a 1x1 pivot of 0. */
  double a[N] = {0, 0, 1, 1, 1, 1}, b[N] = {1, 0, 4, 4, 4, 4}, c[N] = {1, 1, 1, 1, 1, 0};
  double d[N] = {1, 2, 3, 4, 5, 6}, x[N];
  tl_batch sys = {TL_F64, N, 1, 0, a, b, c, d};
  size_t sizes[2] = {2, 4};
  tl_options opt;
  th_options_parts(&opt, spike_dp(), 2, sizes, NULL);
  tl_info info;
  int st = tl_solve(spike_dp(), &sys, x, &opt, &info);
  cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s", tl_status_name(st));
  cr_expect(strstr(info.msg, "spike_dp: the diagonal block of partition 0 (rows 0..1) is "
                             "singular: its 1x1 pivot at row 1 is zero") != NULL,
            "%s", info.msg);
  cr_expect_eq(info.row, 1);
}

/* spike's ledger model is spike_dp's, and the simulated partitions record it. */
Test(spike_dp, ledger_is_spikes_model)
{
  static const int ids[] = {25, 60};
  cr_expect_eq(spike_dp()->ledger_model, tl_find("spike")->ledger_model);
  th_expect_ledger_is_model("spike_dp", ids, sizeof ids / sizeof ids[0]);
}

/* Bad input: more partitions than rows, NULL arrays, no x, n = 0. */
Test(spike_dp, bad_input_is_a_bad_argument)
{
  th_expect_spike_bad_input("spike_dp", tl_spike_dp_ref_ledger_d);
}
