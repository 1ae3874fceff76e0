/* tests/test_metrics.c -- the test ratios at the edges of the double
 * range (issue 9, found by fuzzing): they are computed on operands scaled
 * by powers of two, so an accurate answer near 1e308 gets a finite ratio
 * that agrees with a long double computation; an answer that underflows
 * is judged against the representable answer (the n DBL_MIN allowance),
 * not given LAPACK's 1/eps for x = 0; the conventions for a zero
 * residual, a zero matrix and a non-finite x stay LAPACK's. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/registry.h"
#include "tridlab/verify.h"

/* ||d - A x||_1 / (||A||_1 ||x||_1 eps) of a plain real system in long
 * double, whose exponent range makes scaling unnecessary on x86. */
static double ratio_long_double(size_t n, const double *a, const double *b, const double *c,
                                const double *d, const double *x)
{
  long double rn = 0, xn = 0, an = 0;
  for (size_t i = 0; i < n; i++) {
    long double ax = (long double)b[i] * x[i];
    if (i > 0)
      ax += (long double)a[i] * x[i - 1];
    if (i + 1 < n)
      ax += (long double)c[i] * x[i + 1];
    rn += fabsl(d[i] - ax);
    xn += fabsl((long double)x[i]);
    long double col = fabsl((long double)b[i]) + (i > 0 ? fabsl((long double)c[i - 1]) : 0) +
                      (i + 1 < n ? fabsl((long double)a[i + 1]) : 0);
    an = col > an ? col : an;
  }
  return (double)(rn / (an * xn * TL_EPS));
}

/* tridiag(1, 3, 1) x = d with |x| near 6e307: b x alone overflows. */
#define N 5
static const double A5[N] = {0, 1, 1, 1, 1}, B5[N] = {3, 3, 3, 3, 3}, C5[N] = {1, 1, 1, 1, 0};
static const double xt[N] = {6e307, -6e307, 5.9e307, -5.8e307, 6e307};

static void solve_big(double *d, double *x)
{
  for (size_t i = 0; i < N; i++) /* b x alone overflows a double */
    d[i] = (double)((long double)B5[i] * xt[i] + (i > 0 ? (long double)A5[i] * xt[i - 1] : 0) +
                    (i + 1 < N ? (long double)C5[i] * xt[i + 1] : 0));
  tl_batch sys = {.dtype = TL_F64, .n = N, .nsys = 1, .a = A5, .b = B5, .c = C5, .d = d};
  tl_info info;
  cr_assert_eq(tl_solve(tl_find("thomas"), &sys, x, NULL, &info), TL_OK, "%s", info.msg);
}

Test(metrics, residual_ratio_does_not_overflow)
{
  double d[N], x[N];
  solve_big(d, x);
  tl_batch sys = {.dtype = TL_F64, .n = N, .nsys = 1, .a = A5, .b = B5, .c = C5, .d = d};
  double r = tl_residual_ratio(&sys, x);
  cr_expect(isfinite(r) && r < TL_THRESH, "accurate answer: ratio %g", r);
  /* A visibly wrong answer: the ratio agrees with long double to 1e-6. */
  x[2] *= 1 + 1e-9;
  r = tl_residual_ratio(&sys, x);
  double ref = ratio_long_double(N, A5, B5, C5, d, x);
  cr_expect(fabs(r - ref) <= 1e-6 * ref, "ratio %.9g, long double %.9g", r, ref);
  /* A scaled by 2^1000 and x by 2^-1000: the same d, the same ratio. */
  double a[N], b[N], c[N];
  for (size_t i = 0; i < N; i++) {
    a[i] = ldexp(A5[i], 1000);
    b[i] = ldexp(B5[i], 1000);
    c[i] = ldexp(C5[i], 1000);
  }
  tl_batch big = {.dtype = TL_F64, .n = N, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  double xs[N];
  for (size_t i = 0; i < N; i++)
    xs[i] = ldexp(x[i], -1000);
  double rs = tl_residual_ratio(&big, xs);
  cr_expect(fabs(rs - r) <= 1e-12 * r, "scaled system: %.17g vs %.17g", rs, r);
}

/* A periodic system of one row is the 1x1 matrix [a + b + c]: when the
 * parts cancel (found by fuzzing: a = -1e16, b = 1e16, c = 7.5e-308),
 * the exact answer d / (a + b + c) must pass, and a wrong one fail. */
Test(metrics, periodic_one_row_is_judged_on_its_folded_matrix)
{
  double a[1] = {-1e16}, b[1] = {1e16}, c[1] = {7.5104985461888423e-308}, d[1] = {-4};
  double x[1] = {d[0] / (a[0] + b[0] + c[0])};
  tl_batch sys = {.dtype = TL_F64, .n = 1, .nsys = 1, .periodic = 1, .a = a, .b = b, .c = c,
                  .d = d};
  double r = tl_residual_ratio(&sys, x);
  cr_expect(r < TL_THRESH, "the exact answer: ratio %g", r);
  x[0] *= 1 + 1e-9;
  r = tl_residual_ratio(&sys, x);
  cr_expect(r >= TL_THRESH, "a wrong answer: ratio %g", r);
}

Test(metrics, complex_residual_ratio_does_not_overflow)
{
  double complex a[3] = {0, 1, 1}, b[3] = {3, 3 * I, 3}, c[3] = {1, 1, 0}, d[3], x[3];
  long double complex zt[3] = {6e307 + 2e307 * I, -6e307, 5e307 * I};
  for (size_t i = 0; i < 3; i++)
    d[i] = (double complex)(b[i] * zt[i] + (i > 0 ? a[i] * zt[i - 1] : 0) +
                            (i < 2 ? c[i] * zt[i + 1] : 0));
  for (size_t i = 0; i < 3; i++)
    cr_assert(isfinite(creal(d[i])) && isfinite(cimag(d[i])));
  tl_batch sys = {.dtype = TL_C128, .n = 3, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  tl_info info;
  cr_assert_eq(tl_solve(tl_find("thomas"), &sys, x, NULL, &info), TL_OK, "%s", info.msg);
  double r = tl_residual_ratio(&sys, x);
  cr_expect(isfinite(r) && r < TL_THRESH, "ratio %g", r);
}

/* ||A|| near overflow: the column sums used to be +inf, so any residual
 * divided by them gave a ratio of 0. */
Test(metrics, huge_matrix_norm_does_not_hide_a_wrong_answer)
{
  double a[2] = {0, 1e308}, b[2] = {1.5e308, 1.5e308}, c[2] = {1e308, 0}, d[2] = {1, 1};
  double x[2] = {1, -1}; /* wrong by far */
  tl_batch sys = {.dtype = TL_F64, .n = 2, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  cr_expect_geq(tl_residual_ratio(&sys, x), TL_THRESH);
  double rc[1];
  tl_info info;
  cr_assert_eq(tl_rcond(&sys, rc, &info), TL_OK);
  double a1[2] = {0, 1}, b1[2] = {1.5, 1.5}, c1[2] = {1, 0}, rc1[1];
  tl_batch unit = {.dtype = TL_F64, .n = 2, .nsys = 1, .a = a1, .b = b1, .c = c1, .d = d};
  cr_assert_eq(tl_rcond(&unit, rc1, &info), TL_OK);
  cr_expect(fabs(rc[0] - rc1[0]) <= 1e-14 * rc1[0], "rcond %.17g vs %.17g", rc[0], rc1[0]);
}

Test(metrics, forward_ratio_does_not_overflow)
{
  double d[N], x[N], rc[1];
  solve_big(d, x);
  tl_batch sys = {.dtype = TL_F64, .n = N, .nsys = 1, .a = A5, .b = B5, .c = C5, .d = d};
  tl_info info;
  cr_assert_eq(tl_rcond(&sys, rc, &info), TL_OK);
  cr_assert(rc[0] > 0.1, "%g", rc[0]);
  double r = tl_forward_ratio(&sys, x, xt, rc);
  cr_expect(isfinite(r) && r < TL_THRESH, "ratio %g", r);
  /* x - xref itself overflows: a large but finite ratio. */
  for (size_t i = 0; i < N; i++)
    x[i] = -2.5 * xt[i];
  r = tl_forward_ratio(&sys, x, xt, rc);
  cr_expect(isfinite(r) && r >= TL_THRESH, "ratio %g", r);
}

/* n = 1, b = 1e300, d = 1e-300: x = 1e-600 rounds to 0, the closest
 * double; its residual is below what rounding the exact answer leaves. */
Test(metrics, underflowing_answer_is_judged_against_the_representable_one)
{
  double a[1] = {0}, b[1] = {1e300}, c[1] = {0}, d[1] = {1e-300}, x[1] = {-1};
  tl_batch sys = {.dtype = TL_F64, .n = 1, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  tl_info info;
  cr_assert_eq(tl_solve(tl_find("thomas"), &sys, x, NULL, &info), TL_OK);
  cr_expect_eq(x[0], 0.0);
  cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH);
  /* x = 0 where the answer is 1e-300 (representable): a wrong answer. */
  double b1[1] = {1};
  tl_batch one = {.dtype = TL_F64, .n = 1, .nsys = 1, .a = a, .b = b1, .c = c, .d = d};
  double zero[1] = {0};
  cr_expect_geq(tl_residual_ratio(&one, zero), TL_THRESH);
  /* A subnormal answer off by one unit in the last place passes; off by
   * 2^20 units it fails. */
  double tiny[1] = {0x1p-1060}, dt[1] = {0x1p-1060}, near[1] = {0x1p-1060 + 0x1p-1074};
  tl_batch sub = {.dtype = TL_F64, .n = 1, .nsys = 1, .a = a, .b = b1, .c = c, .d = dt};
  cr_expect_lt(tl_residual_ratio(&sub, near), TL_THRESH);
  double far[1] = {0x1p-1060 + 0x1p-1054};
  cr_expect_geq(tl_residual_ratio(&sub, far), TL_THRESH);
  /* The forward ratio, the same way: xref subnormal, x one unit off. */
  double rc[1] = {1};
  cr_expect_lt(tl_forward_ratio(&sub, near, tiny, rc), TL_THRESH);
  cr_expect_geq(tl_forward_ratio(&sub, far, tiny, rc), TL_THRESH);
}

Test(metrics, lapack_conventions_hold)
{
  double a[2] = {0, 1}, b[2] = {4, 4}, c[2] = {1, 0}, d[2] = {5, 5}, x[2] = {1, 1};
  tl_batch sys = {.dtype = TL_F64, .n = 2, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  cr_expect_eq(tl_residual_ratio(&sys, x), 0.0, "zero residual");
  double z[2] = {0, 0};
  tl_batch zero = {.dtype = TL_F64, .n = 2, .nsys = 1, .a = z, .b = z, .c = z, .d = d};
  cr_expect_eq(tl_residual_ratio(&zero, x), 1 / TL_EPS, "||A|| = 0");
  double bad[2] = {1, NAN};
  cr_expect(isinf(tl_residual_ratio(&sys, bad)), "non-finite x");
  double huge[2] = {1, -1e300}; /* wrong beyond the largest double: still finite */
  double r = tl_residual_ratio(&sys, huge);
  cr_expect(isfinite(r) && r >= TL_THRESH, "%g", r);
  double rc[1] = {1};
  cr_expect(isinf(tl_forward_ratio(&sys, bad, x, rc)));
  cr_expect_eq(tl_forward_ratio(&sys, x, x, rc), 0.0);
}

/* Found by fuzzing: d near 1e-321 (subnormal), A near 1e-36. Thomas's
 * products a x land in the subnormal range and perturb d by about
 * eps DBL_MIN per row, which no solver without scaling avoids: LAPACK's
 * ratio was 3e12 for such an answer; the n DBL_MIN term of the residual
 * denominator allows it, and the forward ratio its image in x. */
Test(metrics, products_in_the_subnormal_range_are_allowed)
{
  enum { M = 64 };
  double a[M], b[M], c[M], d[M], x[M], rc[1];
  tl_rng r;
  tl_rng_seed(&r, 11);
  for (size_t i = 0; i < M; i++) {
    a[i] = i > 0 ? 1e-36 * tl_rng_uniform(&r, -1, 1) : 0;
    c[i] = i + 1 < M ? 1e-36 * tl_rng_uniform(&r, -1, 1) : 0;
    b[i] = 4e-36;
    d[i] = 1e-321 * tl_rng_uniform(&r, -4, 4);
  }
  tl_batch sys = {.dtype = TL_F64, .n = M, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  tl_info info;
  cr_assert_eq(tl_solve(tl_find("thomas"), &sys, x, NULL, &info), TL_OK, "%s", info.msg);
  cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH);
  /* against the answer of the same system scaled into the normal range */
  double as[M], bs[M], cs[M], ds[M], xs[M];
  for (size_t i = 0; i < M; i++) {
    as[i] = ldexp(a[i], 120);
    bs[i] = ldexp(b[i], 120);
    cs[i] = ldexp(c[i], 120);
    ds[i] = ldexp(d[i], 1000);
  }
  tl_batch scaled = {.dtype = TL_F64, .n = M, .nsys = 1, .a = as, .b = bs, .c = cs, .d = ds};
  cr_assert_eq(tl_solve(tl_find("thomas"), &scaled, xs, NULL, &info), TL_OK);
  for (size_t i = 0; i < M; i++)
    xs[i] = ldexp(xs[i], 120 - 1000);
  cr_assert_eq(tl_rcond(&sys, rc, &info), TL_OK);
  cr_expect_lt(tl_forward_ratio(&sys, x, xs, rc), TL_THRESH);
}
