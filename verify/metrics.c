/* verify/metrics.c -- LAPACK-convention test ratios and the LAPACK oracle.
 *
 * residual ratio (LAPACK TESTING/LIN/dgtt02.f):
 *     max_j ||d_j - A x_j||_1 / ((||A||_1 (||x_j||_1 + n DBL_MIN) + n DBL_MIN) eps)
 * forward-error ratio (LAPACK TESTING/LIN/dget04.f):
 *     max_j ||x_j - xref_j||_inf / (||xref_j||_inf + DBL_MIN + n DBL_MIN / ||A||_1)
 *           * rcond_j / eps
 * with eps = 2^-53 and rcond the 1-norm reciprocal condition number from
 * DGTCON (non-periodic) or DGBCON (periodic, see below). A ratio >= 30
 * (THRESH) fails.
 *
 * Two departures from LAPACK's code, neither of which changes a ratio of
 * an answer of normal size:
 *  - Overflow. A x, x - xref and the norms are computed on A and x
 *    scaled by powers of two near their largest entries (d by both): the
 *    products A x stay of order 1 and the scalings cancel exactly in
 *    the quotients, so a ratio is finite whenever x is. LAPACK's test
 *    matrices never come near the overflow threshold; fuzzed ones do.
 *  - Underflow. With gradual underflow, every rounding leaves an absolute
 *    error up to eps DBL_MIN besides the relative eps (Higham, Accuracy
 *    and Stability of Numerical Algorithms, §2.1; Demmel, Underflow and
 *    the reliability of numerical software, 1984). Two consequences that
 *    no solver avoids: the double closest to the exact answer, x_rep, has
 *    ||d - A x_rep||_1 <= ||A||_1 (||x||_1 + n DBL_MIN) eps; and a solve
 *    whose products A x land in the subnormal range perturbs d by about
 *    eps DBL_MIN per row, a residual of n DBL_MIN eps. The n DBL_MIN
 *    terms (and their images in the forward ratio, DBL_MIN for rounding
 *    x, n DBL_MIN / ||A||_1 for the perturbed d) judge an answer against
 *    what floating point allows, so x = 0 for an answer that underflows
 *    (b = 1e300, d = 1e-300) passes instead of getting LAPACK's 1/eps.
 *
 * The residual ratio, with which solvers also judge their own answers,
 * is computed in the core (core/residual.c); this file adds the
 * forward-error ratio, rcond and the oracle.
 *
 * Periodic systems are not tridiagonal for LAPACK, but reordering the
 * unknowns as 0, n-1, 1, n-2, 2, ... puts every cyclic neighbour pair
 * within distance 2, so the cyclic matrix becomes a band matrix with two
 * sub- and two superdiagonals: DGBTRF / DGBCON / DGBTRS (partial
 * pivoting) then give the solution and the condition number in O(n).
 * A symmetric permutation changes neither the 1-norm nor the condition.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <float.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/residual_internal.h"
#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/verify.h"

/* DGET04's ratio from the (scaled) norms; xden is ||xref||_inf + DBL_MIN
 * + n DBL_MIN / ||A||_1 in the same scale. */
static double tl_ratio_forward(double diff, double xden, double rcond)
{
  if (diff == 0.0)
    return 0.0;
  double resid = (diff / xden) * rcond;
  return tl_finite_ratio(resid * TL_EPS < 1.0 ? resid / TL_EPS : resid);
}

/* Position of unknown i in the interleaved order 0, n-1, 1, n-2, ... */
static size_t interleaved_pos(size_t i, size_t n)
{
  return (i < (n + 1) / 2) ? 2 * i : 2 * (n - 1 - i) + 1;
}

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "metrics.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "metrics.c"
#undef TL_TEMPLATE_PASS

double tl_forward_ratio(const tl_batch *sys, const void *x, const void *xref, const double *rcond)
{
  size_t es = tl_dtype_size(sys->dtype);
  double worst = 0.0;
  for (size_t s = 0; s < sys->nsys; s++) {
    const void *xs = (const char *)x + s * sys->n * es;
    const void *rs = (const char *)xref + s * sys->n * es;
    tl_batch one = tl_batch_system(sys, s);
    double r = sys->dtype == TL_F64 ? forward_ratio_one_d(&one, xs, rs, rcond[s])
                                    : forward_ratio_one_z(&one, xs, rs, rcond[s]);
    if (isnan(r))
      return NAN;
    if (!(r <= worst))
      worst = r;
  }
  return worst;
}

int tl_rcond(const tl_batch *sys, double *rcond, tl_info *info)
{
  if (sys->n > (size_t)INT_MAX / 8)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "n", "n too large for LAPACK");
  for (size_t s = 0; s < sys->nsys; s++) {
    tl_batch one = tl_batch_system(sys, s);
    int st = sys->dtype == TL_F64 ? rcond_one_d(&one, &rcond[s], info)
                                  : rcond_one_z(&one, &rcond[s], info);
    if (st < 0)
      return st;
  }
  return TL_OK;
}

int tl_singular_to_working_precision(const double *rcond, size_t nsys, double *smallest)
{
  double worst = INFINITY;
  int singular = 0;
  for (size_t s = 0; rcond && s < nsys; s++)
    if (rcond[s] < TL_EPS && rcond[s] < worst) {
      worst = rcond[s];
      singular = 1;
    }
  if (smallest)
    *smallest = singular ? worst : 0.0;
  return singular;
}

int tl_lapack_solve(const tl_batch *sys, void *x, tl_info *info)
{
  size_t es = tl_dtype_size(sys->dtype);
  if (sys->n > (size_t)INT_MAX / 8)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "n", "n too large for LAPACK");
  for (size_t s = 0; s < sys->nsys; s++) {
    tl_batch one = tl_batch_system(sys, s);
    void *xs = (char *)x + s * sys->n * es;
    int st;
    if (!sys->periodic)
      st = sys->dtype == TL_F64
               ? tl_gtsv_ref_d(one.n, one.a, one.b, one.c, one.d, xs, info)
               : tl_gtsv_ref_z(one.n, one.a, one.b, one.c, one.d, xs, info);
    else
      st = sys->dtype == TL_F64 ? band_solve_d(&one, xs, info) : band_solve_z(&one, xs, info);
    if (st < 0) {
      if (info)
        info->system = (long)s;
      return st;
    }
  }
  return TL_OK;
}
#else /* ---- once for S = double and S = double complex ---- */

/* ||x - xref||_inf / (||xref||_inf + DBL_MIN + n DBL_MIN / ||A||_1) *
 * rcond / eps, on x and xref scaled by one power of two so that x - xref
 * cannot overflow. */
static double FN(forward_ratio_one)(const tl_batch *one, const S *x, const S *xref, double rcond)
{
  size_t n = one->n;
  if (isnan(rcond))
    return NAN; /* DGTCON overflowed: no ratio */
  if (rcond < 0)
    return 1.0 / TL_EPS;
  double m = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!ISFINITE(x[i]))
      return INFINITY;
    m = fmax(m, fmax(PART_MAX(x[i]), PART_MAX(xref[i])));
  }
  int e;
  double f = tl_pow2_scale(m, &e);
  double xnorm = 0.0, diff = 0.0;
  for (size_t i = 0; i < n; i++) {
    diff = fmax(diff, ABS(f * x[i] - f * xref[i]));
    xnorm = fmax(xnorm, ABS(f * xref[i]));
  }
  /* n DBL_MIN / ||A||_1 = n DBL_MIN fa / ||fa A||_1, at most n 2^52 */
  double fa, anorm = tl_norm1_scaled(one, &fa);
  double dterm = anorm > 0.0 ? (double)n * DBL_MIN * f * fa / anorm : 0.0;
  return tl_ratio_forward(diff, xnorm + DBL_MIN * f + dterm, rcond);
}

static lapack_int FN(lapack_gttrf)(lapack_int n, S *dl, S *d, S *du, S *du2, lapack_int *ipiv)
{
#if TL_IS_COMPLEX
  return LAPACKE_zgttrf(n, dl, d, du, du2, ipiv);
#else
  return LAPACKE_dgttrf(n, dl, d, du, du2, ipiv);
#endif
}

static lapack_int FN(lapack_gtcon)(lapack_int n, const S *dl, const S *d, const S *du,
                                   const S *du2, const lapack_int *ipiv, double anorm,
                                   double *rcond)
{
#if TL_IS_COMPLEX
  return LAPACKE_zgtcon('1', n, dl, d, du, du2, ipiv, anorm, rcond);
#else
  return LAPACKE_dgtcon('1', n, dl, d, du, du2, ipiv, anorm, rcond);
#endif
}

static lapack_int FN(lapack_gbtrf)(lapack_int n, S *ab, lapack_int *ipiv)
{
#if TL_IS_COMPLEX
  return LAPACKE_zgbtrf(LAPACK_COL_MAJOR, n, n, 2, 2, ab, 7, ipiv);
#else
  return LAPACKE_dgbtrf(LAPACK_COL_MAJOR, n, n, 2, 2, ab, 7, ipiv);
#endif
}

static lapack_int FN(lapack_gbcon)(lapack_int n, const S *ab, const lapack_int *ipiv,
                                   double anorm, double *rcond)
{
#if TL_IS_COMPLEX
  return LAPACKE_zgbcon(LAPACK_COL_MAJOR, '1', n, 2, 2, ab, 7, ipiv, anorm, rcond);
#else
  return LAPACKE_dgbcon(LAPACK_COL_MAJOR, '1', n, 2, 2, ab, 7, ipiv, anorm, rcond);
#endif
}

static lapack_int FN(lapack_gbtrs)(lapack_int n, const S *ab, const lapack_int *ipiv, S *x)
{
#if TL_IS_COMPLEX
  return LAPACKE_zgbtrs(LAPACK_COL_MAJOR, 'N', n, 2, 2, 1, ab, 7, ipiv, x, n);
#else
  return LAPACKE_dgbtrs(LAPACK_COL_MAJOR, 'N', n, 2, 2, 1, ab, 7, ipiv, x, n);
#endif
}

/* The cyclic matrix in interleaved order as a LAPACK band matrix with
 * kl = ku = 2 (ldab = 2 kl + ku + 1 = 7), factored by DGBTRF. Returns
 * LAPACK's INFO (> 0: exactly singular). */
static lapack_int FN(band_factor)(const tl_batch *one, double fa, S *ab, lapack_int *ipiv)
{
  size_t n = one->n;
  const S *a = one->a, *b = one->b, *c = one->c;
  memset(ab, 0, 7 * n * sizeof(S));
  if (n == 1) { /* the 1x1 entry, AB(kl+ku, 0) */
    ab[4] = PERIODIC1(fa * a[0], fa * b[0], fa * c[0]);
    return FN(lapack_gbtrf)(1, ab, ipiv);
  }
  for (size_t i = 0; i < n; i++) {
    size_t cols[3] = {(i + n - 1) % n, i, (i + 1) % n};
    S vals[3] = {fa * a[i], fa * b[i], fa * c[i]};
    size_t pi = interleaved_pos(i, n);
    for (int k = 0; k < 3; k++) {
      size_t pj = interleaved_pos(cols[k], n);
      ab[(4 + pi - pj) + pj * 7] += vals[k]; /* AB(kl+ku+i-j, j), 0-based */
    }
  }
  return FN(lapack_gbtrf)((lapack_int)n, ab, ipiv);
}

static int FN(band_solve)(const tl_batch *one, S *x, tl_info *info)
{
  size_t n = one->n;
  S *ab = tl_alloc(7 * n, sizeof(S));
  S *rhs = tl_alloc(n, sizeof(S));
  lapack_int *ipiv = tl_alloc(n, sizeof(lapack_int));
  int status = TL_OK;
  if (!ab || !rhs || !ipiv) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "lapack: no memory");
    goto cleanup;
  }
  lapack_int linfo = FN(band_factor)(one, 1.0, ab, ipiv);
  if (linfo > 0) {
    status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)linfo - 1, "",
                     "lapack: the cyclic matrix is exactly singular");
    goto cleanup;
  }
  const S *d = one->d;
  for (size_t i = 0; i < n; i++)
    rhs[interleaved_pos(i, n)] = d[i];
  FN(lapack_gbtrs)((lapack_int)n, ab, ipiv, rhs);
  for (size_t i = 0; i < n; i++)
    x[i] = rhs[interleaved_pos(i, n)];
cleanup:
  free(ab);
  free(rhs);
  free(ipiv);
  return status;
}

static int FN(rcond_one)(const tl_batch *one, double *rcond, tl_info *info)
{
  size_t n = one->n;
  lapack_int ln = (lapack_int)n, linfo;
  /* rcond does not change when A is scaled: scale it by a power of two
   * near its largest entry, so that the norm and the estimate do not
   * overflow. */
  double fa, anorm = tl_norm1_scaled(one, &fa);
  S *work = tl_alloc(7 * n + 4, sizeof(S));
  lapack_int *ipiv = tl_alloc(n, sizeof(lapack_int));
  int status = TL_OK;
  if (!work || !ipiv) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "rcond: no memory");
    goto cleanup;
  }
  *rcond = 0.0;
  if (one->periodic) {
    linfo = FN(band_factor)(one, fa, work, ipiv);
    if (linfo == 0)
      FN(lapack_gbcon)(ln, work, ipiv, anorm, rcond);
  } else {
    S *dl = work, *dd = work + n, *du = work + 2 * n, *du2 = work + 3 * n;
    const S *a = one->a, *b = one->b, *c = one->c;
    for (size_t i = 0; i < n; i++) {
      dd[i] = fa * b[i];
      if (i + 1 < n) {
        dl[i] = fa * a[i + 1];
        du[i] = fa * c[i];
      }
    }
    linfo = FN(lapack_gttrf)(ln, dl, dd, du, du2, ipiv);
    if (linfo == 0)
      FN(lapack_gtcon)(ln, dl, dd, du, du2, ipiv, anorm, rcond);
  }
cleanup:
  free(work);
  free(ipiv);
  return status;
}

#endif
