/* tests/test_spike_givens.c -- SPIKE with blocks factored by Givens
 * rotations and a singular block modified (reference/spike_givens_ref.c).
 *
 * Its answers agree with LAPACK's gtsv (both ratios below 30) on dominant
 * and indefinite matrices, real and complex, at P in {1, 2, 3, 4, 7, 16},
 * with spike's statuses; where a partition makes a diagonal block
 * singular (gallery types 39 and 40 for some P only, and blocks built by
 * hand in the middle and at the end), spike and spike_dp report the
 * singular block naming the partition and spike_givens solves it; Q R is
 * the block, R has two superdiagonals; a singular block's K is its null
 * vector and S_pp = A_p'^-1 A_p = I - K e_pin^T; the threshold; a
 * singular A is a breakdown; the ledger is its model, 8 words of tips;
 * truncate=1 refuses a modified block; bad input is a bad argument.
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/part_spike_givens.h"
#include "tridlab/registry.h"
#include "tridlab/verify.h"

static const int parts_list[] = {1, 2, 3, 4, 7, 16};
#define NPARTS (sizeof parts_list / sizeof parts_list[0])

static const tl_algorithm *algo(const char *name)
{
  const tl_algorithm *a = tl_find(name);
  cr_assert_not_null(a, "%s", name);
  return a;
}

static const tl_algorithm *givens(void)
{
  return algo("spike_givens");
}

/* Dominant (ok) and indefinite (outside-domain, the answer written)
 * matrices: LAPACK's ratios < 30 at every P, as spike's. */
Test(spike_givens, agrees_with_gtsv)
{
  th_expect_spike_agrees_with_gtsv("spike_givens");
}

/* Gallery types 39 ([1 1; 1 1 c1] in rows 0, 1) and 40 (Lele's closure,
 * 2x2 blocks [1 3; 1/3 1] at both ends): nonsingular matrices whose first
 * or last block is singular for some P only. Wherever spike reports the
 * singular block (naming its partition), spike_dp does too, and
 * spike_givens solves it with LAPACK's ratios below 30. */
Test(spike_givens, solves_where_a_block_is_singular)
{
  static const char *const types[] = {"zero-pivot-interior", "lele6-alpha3-closure"};
  static const size_t sizes[] = {4, 5, 6, 8, 17, 64};
  int singular = 0;
  for (size_t t = 0; t < 2; t++)
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
      for (size_t k = 0; k < NPARTS; k++) {
        int id = th_gallery_id(types[t]), P = parts_list[k];
        size_t n = sizes[j];
        if ((size_t)P > n || n < tl_gallery_find(id)->min_n)
          continue;
        double resid, ferr;
        tl_info info;
        int st = th_measure_parts("spike", id, n, P, NULL, &resid, &ferr, &info);
        if (st != TL_ERR_BREAKDOWN)
          continue;
        singular++;
        cr_expect(strstr(info.msg, "spike: the diagonal block of partition ") != NULL, "%s",
                  info.msg);
        st = th_measure_parts("spike_dp", id, n, P, NULL, &resid, &ferr, &info);
        cr_expect_eq(st, TL_ERR_BREAKDOWN, "spike_dp %s n=%zu P=%d: %s", types[t], n, P, info.msg);
        cr_expect(strstr(info.msg, "spike_dp: the diagonal block of partition ") != NULL, "%s",
                  info.msg);
        st = th_measure_parts("spike_givens", id, n, P, NULL, &resid, &ferr, &info);
        cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s n=%zu P=%d: %s", types[t], n, P, info.msg);
        cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "%s n=%zu P=%d: ratios %g %g", types[t], n,
                  P, resid, ferr);
      }
  cr_expect_geq(singular, 10, "only %d (type, n, P) with a singular block", singular);

  /* The tutorial's split: type 39 at n = 4 on 2 + 2 rows. */
  size_t two[2] = {2, 2};
  double resid, ferr;
  tl_info info;
  int id = th_gallery_id("zero-pivot-interior");
  cr_expect_eq(th_measure_parts("spike", id, 4, 2, two, &resid, &ferr, &info), TL_ERR_BREAKDOWN);
  cr_expect_eq(info.row, 1, "%s", info.msg);
  cr_expect_eq(th_measure_parts("spike_givens", id, 4, 2, two, &resid, &ferr, &info),
               TL_OUTSIDE_DOMAIN, "%s", info.msg);
  cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "ratios %g %g", resid, ferr);
}

/* n = 7 on 3 + 2 + 2 rows: rows 0-2 dominant, then two singular 2x2
 * blocks, the middle one (pinned at its bottom row) and the last one
 * (factored bottom up, pinned at its top row), coupled by 0.5. A is
 * nonsingular (rows 5, 6 give x4, rows 3, 4 tie x5 to x2). Real: both
 * blocks [1 1; 1 1]; complex: [i 1; 1 -i] and [1+i 1+i; 1 1]. */
static void two_singular_blocks(int complex_case, double complex *a, double complex *b,
                                double complex *c, double complex *d)
{
  static const double sub[7] = {0, 1, 1, 0.5, 1, 0.5, 1}, sup[7] = {1, 1, 0.5, 1, 0.5, 1, 0};
  for (int i = 0; i < 7; i++) {
    a[i] = sub[i], c[i] = sup[i], b[i] = i < 3 ? 4 : 1;
    d[i] = 1 + i % 3 - 0.25 * i;
  }
  if (complex_case) {
    b[3] = I, b[4] = -I;
    b[5] = 1 + I, c[5] = 1 + I;
  }
}

Test(spike_givens, singular_blocks_in_the_middle_and_at_the_end)
{
  size_t sizes[3] = {3, 2, 2};
  double complex a[7], b[7], c[7], d[7], x[7];
  for (int cx = 0; cx < 2; cx++) {
    two_singular_blocks(cx, a, b, c, d);
    double ra[7], rb[7], rc[7], rd[7], rx[7];
    for (int i = 0; i < 7; i++)
      ra[i] = creal(a[i]), rb[i] = creal(b[i]), rc[i] = creal(c[i]), rd[i] = creal(d[i]);
    tl_batch sys =
        cx ? (tl_batch){TL_C128, 7, 1, 0, a, b, c, d} : (tl_batch){TL_F64, 7, 1, 0, ra, rb, rc, rd};
    void *out = cx ? (void *)x : (void *)rx;
    tl_options opt;
    tl_info info;
    th_options_parts(&opt, algo("spike"), 3, sizes, NULL);
    int st = tl_solve(algo("spike"), &sys, out, &opt, &info);
    cr_expect_eq(st, TL_ERR_BREAKDOWN, "complex=%d: %s", cx, info.msg);
    cr_expect(strstr(info.msg, "partition 1 (rows 3..4) is singular") != NULL, "%s", info.msg);
    th_options_parts(&opt, givens(), 3, sizes, NULL);
    st = tl_solve(givens(), &sys, out, &opt, &info);
    cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "complex=%d: %s", cx, info.msg);
    double resid, ferr;
    cr_assert_eq(th_ratios(&sys, out, &resid, &ferr), 0, "complex=%d: A is singular", cx);
    cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "complex=%d: ratios %g %g", cx, resid, ferr);
  }
}

/* The block as a dense m x m matrix, column-major. */
static void dense_block(size_t m, const double *a, const double *b, const double *c, double *A)
{
  memset(A, 0, m * m * sizeof *A);
  for (size_t i = 0; i < m; i++) {
    A[i + i * m] = b[i];
    if (i + 1 < m) {
      A[i + 1 + i * m] = a[i + 1]; /* (i+1, i) */
      A[i + (i + 1) * m] = c[i];   /* (i, i+1) */
    }
  }
}

/* Q R is the block (and J A_p J when flipped): R from its three stored
 * diagonals, Q = G_0^H ... G_m-2^H applied to it from the last rotation
 * back; the second superdiagonal is the rotations' fill-in. */
Test(spike_givens, qr_is_the_block)
{
  enum { M = 9 };
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(th_gallery_id("gt07-random"), M, 1, 11, &p, &info), TL_OK);
  const double *a = p.a, *b = p.b, *c = p.c;
  for (int flip = 0; flip < 2; flip++) {
    double cs[M], sn[M], r0[M], r1[M], r2[M], QR[M * M], A[M * M];
    cr_assert_eq(tl_spike_givens_factor_d(0, M, 0, flip, a, b, c, cs, sn, r0, r1, r2, &info), TL_OK,
                 "%s", info.msg);
    memset(QR, 0, sizeof QR);
    for (size_t i = 0; i < M; i++) {
      QR[i + i * M] = r0[i];
      if (i + 1 < M)
        QR[i + (i + 1) * M] = r1[i];
      if (i + 2 < M)
        QR[i + (i + 2) * M] = r2[i];
    }
    double fill = 0;
    for (size_t i = 0; i + 2 < M; i++)
      fill = fmax(fill, fabs(r2[i]));
    cr_expect_gt(fill, 0.01, "no second superdiagonal");
    for (size_t k = M - 1; k-- > 0;) /* rows k, k+1 times G_k^H = [cs, -sn; sn, cs] */
      for (size_t j = 0; j < M; j++) {
        double t0 = QR[k + j * M], t1 = QR[k + 1 + j * M];
        QR[k + j * M] = cs[k] * t0 - sn[k] * t1;
        QR[k + 1 + j * M] = sn[k] * t0 + cs[k] * t1;
      }
    dense_block(M, a, b, c, A);
    for (size_t i = 0; i < M; i++)
      for (size_t j = 0; j < M; j++) {
        size_t fi = flip ? M - 1 - i : i, fj = flip ? M - 1 - j : j;
        cr_expect(fabs(QR[i + j * M] - A[fi + fj * M]) < 1e-14, "flip=%d (%zu,%zu): %g vs %g", flip,
                  i, j, QR[i + j * M], A[fi + fj * M]);
      }
  }
  tl_problem_free(&p);
}

/* A singular 6x6 block (b5 set from the continuant det = 0): QR meets it
 * as a rounding-size R(5,5), the modification replaces it, K is the null
 * vector (K_last = 1 to rounding, A_p K ~ 0), and the block solve with
 * the modified factors turns every column of A_p into that of I - K
 * e_last^T: S_pp = A_p'^-1 A_p. Flipped, the same with K pinned at the
 * first row. */
Test(spike_givens, a_singular_block_leaves_its_null_vector)
{
  enum { M = 6 };
  double a[M] = {0, 0.7, -0.4, 0.9, 0.3, -0.8}, c[M] = {0.5, -0.6, 0.2, 0.8, -0.3, 1.0};
  double b[M] = {0.9, -0.2, 0.6, 0.4, -0.7, 0};
  double D[M + 1] = {1, b[0]}; /* D[k + 1]: det of the leading k+1 rows */
  for (size_t k = 1; k + 1 < M; k++)
    D[k + 1] = b[k] * D[k] - a[k] * c[k - 1] * D[k - 1];
  b[M - 1] = a[M - 1] * c[M - 2] * D[M - 2] / D[M - 1];
  for (int flip = 0; flip < 2; flip++) {
    double f[6 * M], *cs = f, *sn = f + M, *r0 = f + 2 * M, *r1 = f + 3 * M, *r2 = f + 4 * M;
    double *k = f + 5 * M, A[M * M], y[M];
    tl_info info;
    cr_assert_eq(tl_spike_givens_factor_d(0, M, 0, flip, a, b, c, cs, sn, r0, r1, r2, &info), TL_OK,
                 "%s", info.msg);
    cr_expect(fabs(r0[M - 1]) < 1e-14, "R(5,5) = %g", r0[M - 1]);
    double shift = tl_spike_givens_shift_d(M, cs, sn, r0, 1, 1); /* coupled both ways */
    cr_expect_neq(shift, 0, "flip=%d: not modified", flip);
    tl_spike_givens_kernel_d(M, flip, r0, r1, r2, shift, k);
    size_t pin = flip ? 0 : M - 1;
    cr_expect_float_eq(k[pin], 1.0, 1e-14, "flip=%d: K_pin = %.17g", flip, k[pin]);
    dense_block(M, a, b, c, A);
    for (size_t i = 0; i < M; i++) {
      double s = 0;
      for (size_t j = 0; j < M; j++)
        s += A[i + j * M] * k[j];
      cr_expect(fabs(s) < 1e-13, "flip=%d: (A_p K)_%zu = %g", flip, i, s);
    }
    for (size_t j = 0; j < M; j++) { /* column j of A_p'^-1 A_p */
      memcpy(y, A + j * M, sizeof y);
      tl_spike_givens_solve_block_d(M, flip, cs, sn, r0, r1, r2, y);
      for (size_t i = 0; i < M; i++) {
        double want = (i == j) - (j == pin ? k[i] : 0);
        cr_expect(fabs(y[i] - want) < 1e-12, "flip=%d S(%zu,%zu) = %g, want %g", flip, i, j, y[i],
                  want);
      }
    }
  }
}

/* The threshold on a 1x1 block [e] coupled by c = 1 to the next one (w =
 * |q_last| |c| = 1): modified where |e| <= 1/8, and then R(0,0) = delta
 * = 1, shift = 1 - e; a 0 pivot too; above 1/8 untouched. */
Test(spike_givens, the_threshold)
{
  double cs = 1, sn = 0;
  double e[] = {0, 1e-17, -0.124, 0.125, 0.126, -0.5};
  for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
    double r = e[i];
    double shift = tl_spike_givens_shift_d(1, &cs, &sn, &r, 0, 1);
    if (fabs(e[i]) <= TL_SPIKE_GIVENS_TAU) {
      cr_expect_eq(r, 1, "e = %g: R = %g", e[i], r);
      cr_expect_eq(shift, 1 - e[i], "e = %g: shift %g", e[i], shift);
    } else {
      cr_expect_eq(r, e[i], "e = %g: R = %g", e[i], r);
      cr_expect_eq(shift, 0, "e = %g: shift %g", e[i], shift);
    }
  }
  cr_expect_eq(TL_SPIKE_GIVENS_TAU, 0.125);
}

/* A singular A is never answered: one partition of [1 1; 1 1] (R's last
 * entry 0), a zero subdiagonal splitting a block whose upper part is
 * singular, and the gallery's singular types at every P, where the
 * reduced system comes out singular. */
Test(spike_givens, a_singular_matrix_is_a_breakdown)
{
  double a[2] = {0, 1}, b[2] = {1, 1}, c[2] = {1, 0}, d[2] = {1, 2}, x[2];
  tl_batch sys = {TL_F64, 2, 1, 0, a, b, c, d};
  tl_options opt;
  tl_info info;
  th_options_parts(&opt, givens(), 1, NULL, NULL);
  cr_expect_eq(tl_solve(givens(), &sys, x, &opt, &info), TL_ERR_BREAKDOWN, "%s", info.msg);
  cr_expect(strstr(info.msg, "the matrix is singular") != NULL, "%s", info.msg);

  /* Partition 1 = rows 3..5 of 3 + 3 + 1 starts with a zero column (b3 =
   * a4 = 0): R(0,0) = 0, a null vector e_first that the pinned bottom row
   * cannot carry. (A itself is not singular: c2 reaches x3; this is the
   * one singular block spike_givens refuses. As the last partition,
   * factored bottom up and pinned at its top, the same block is taken.) */
  double a7[7] = {0, 1, 1, 1, 0, 1, 1}, b7[7] = {4, 4, 4, 0, 4, 4, 4};
  double c7[7] = {1, 1, 1, 1, 1, 1, 0}, d7[7] = {1, 2, 3, 4, 5, 6, 7}, x7[7];
  tl_batch seven = {TL_F64, 7, 1, 0, a7, b7, c7, d7};
  size_t split[3] = {3, 3, 1};
  th_options_parts(&opt, givens(), 3, split, NULL);
  cr_expect_eq(tl_solve(givens(), &seven, x7, &opt, &info), TL_ERR_BREAKDOWN, "%s", info.msg);
  cr_expect(strstr(info.msg, "partition 1 (rows 3..5) is singular inside") != NULL, "%s", info.msg);
  cr_expect_eq(info.row, 3);
  size_t last[2] = {3, 4};
  th_options_parts(&opt, givens(), 2, last, NULL);
  cr_expect_eq(tl_solve(givens(), &seven, x7, &opt, &info), TL_OUTSIDE_DOMAIN, "%s", info.msg);
  double resid, ferr;
  cr_assert_eq(th_ratios(&seven, x7, &resid, &ferr), 0);
  cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "ratios %g %g", resid, ferr);

  static const char *const types[] = {"gt08-zero-col-first", "gt09-zero-col-last",
                                      "gt10-zero-col-mid", "complex-zero-col-mid"};
  for (size_t t = 0; t < 4; t++)
    for (size_t k = 0; k < NPARTS; k++) {
      int st = th_measure_parts("spike_givens", th_gallery_id(types[t]), 64, parts_list[k], NULL,
                                &resid, &ferr, &info);
      cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s P=%d: %s", types[t], parts_list[k], info.msg);
    }
}

/* The recorded messages are the model's: 8 scalars of tips per partition
 * (spike's 6 and K's two ends), 2 back; not spike's model from P = 2. */
Test(spike_givens, ledger_is_its_model)
{
  static const int ids[] = {25, 39, 60};
  th_expect_ledger_is_model("spike_givens", ids, sizeof ids / sizeof ids[0]);
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(25, 64, 2, 3, &p, &info), TL_OK);
  for (size_t k = 0; k < NPARTS; k++) {
    tl_ledger model, spike;
    tl_ledger_init(&model);
    tl_ledger_init(&spike);
    tl_options opt;
    th_options_parts(&opt, givens(), parts_list[k], NULL, NULL);
    cr_assert_eq(givens()->ledger_model(givens(), &p.sys, &opt, &info, &model), TL_OK);
    cr_assert_eq(algo("spike")->ledger_model(algo("spike"), &p.sys, &opt, &info, &spike), TL_OK);
    char why[256];
    cr_expect_eq(tl_ledger_equal(&model, &spike, why, sizeof why), parts_list[k] == 1, "P=%d: %s",
                 parts_list[k], why);
    tl_ledger_free(&model);
    tl_ledger_free(&spike);
  }
  tl_problem_free(&p);
}

/* truncate=1 on a dominant matrix is spike's; where a block was modified
 * it is a breakdown naming the partition, and truncate=0 solves it. */
Test(spike_givens, truncated_refuses_a_modified_block)
{
  double resid, ferr;
  tl_info info;
  tl_problem p;
  cr_assert_eq(tl_gallery_make(th_gallery_id("sdd-random"), 1000, 1, 5, &p, &info), TL_OK);
  double *xs = calloc(2000, sizeof *xs), *xg = xs + 1000;
  for (int P = 2; P <= 16; P *= 2) {
    tl_info is, ig;
    int ss = th_solve_param(algo("spike"), &p.sys, xs, P, NULL, "truncate", "1", &is);
    int sg = th_solve_param(givens(), &p.sys, xg, P, NULL, "truncate", "1", &ig);
    cr_expect_eq(sg, ss, "P=%d: %s / %s", P, ig.msg, is.msg);
    cr_expect(fabs(ig.dropped - is.dropped) <= 1e-8 * is.dropped, "P=%d: dropped %g, spike %g", P,
              ig.dropped, is.dropped);
  }
  free(xs);
  tl_problem_free(&p);

  int id = th_gallery_id("zero-pivot-interior");
  size_t split[2] = {2, 62};
  cr_assert_eq(tl_gallery_make(id, 64, 1, 1, &p, &info), TL_OK);
  double x[64];
  int st = th_solve_param(givens(), &p.sys, x, 2, split, "truncate", "1", &info);
  cr_expect_eq(st, TL_ERR_BREAKDOWN, "%s", info.msg);
  cr_expect(strstr(info.msg, "spike_givens: the diagonal block of partition 0 (rows 0..1) is "
                             "singular or nearly so") != NULL,
            "%s", info.msg);
  cr_expect(strstr(info.msg, "truncate=0") != NULL, "%s", info.msg);
  tl_problem_free(&p);
  cr_expect_eq(th_measure_parts("spike_givens", id, 64, 2, split, &resid, &ferr, &info),
               TL_OUTSIDE_DOMAIN, "%s", info.msg);
  cr_expect(resid < TL_THRESH && ferr < TL_THRESH, "ratios %g %g", resid, ferr);
}

/* Bad input: more partitions than rows, NULL arrays, no x, n = 0. */
Test(spike_givens, bad_input_is_a_bad_argument)
{
  th_expect_spike_bad_input("spike_givens", tl_spike_givens_ref_ledger_d);
}
