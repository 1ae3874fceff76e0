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
 * A periodic system of 1 or 2 rows wraps onto itself: its matrix is the
 * folded one (n = 1: [a + b + c]; n = 2: [b0, a0 + c0; a1 + c1, b1]),
 * as tl_solve solves it, and the residual ratio judges that matrix.
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

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/verify.h"

/* A quotient that overflows is the largest double: a ratio is +inf only
 * when the answer is not finite. */
static double finite_ratio(double r)
{
  return r > DBL_MAX ? DBL_MAX : r;
}

/* DGTT02's ratio from the (scaled) norms: 0 for a zero residual, 1/eps
 * when ||A|| = 0; xden is ||x||_1 + n DBL_MIN and dden n DBL_MIN in the
 * same scales as x and d. */
static double tl_ratio_residual(double rnorm, double anorm, double xden, double dden)
{
  if (rnorm == 0.0)
    return 0.0;
  if (!(anorm > 0.0))
    return isnan(anorm) || isnan(rnorm) ? NAN : 1.0 / TL_EPS;
  return finite_ratio((rnorm / (anorm * xden + dden)) / TL_EPS);
}

/* DGET04's ratio from the (scaled) norms; xden is ||xref||_inf + DBL_MIN
 * + n DBL_MIN / ||A||_1 in the same scale. */
static double tl_ratio_forward(double diff, double xden, double rcond)
{
  if (diff == 0.0)
    return 0.0;
  double resid = (diff / xden) * rcond;
  return finite_ratio(resid * TL_EPS < 1.0 ? resid / TL_EPS : resid);
}

/* fmax(v, w), inlined: the larger, and the other when one is a NaN
 * (the compiler calls the library's fmax out of line, which took a fifth
 * of the MPI verdict's time in the row loops below). */
static inline double max_num(double v, double w)
{
  return (w > v || v != v) ? w : v;
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

double tl_norm1_system(const tl_batch *one)
{
  if (one->dtype == TL_F64)
    return norm1_d(one->n, one->periodic, one->a, one->b, one->c, 1.0);
  return norm1_z(one->n, one->periodic, one->a, one->b, one->c, 1.0);
}

double tl_residual_ratio(const tl_batch *sys, const void *x)
{
  size_t es = tl_dtype_size(sys->dtype);
  double worst = 0.0;
  for (size_t s = 0; s < sys->nsys; s++) {
    tl_batch one = tl_batch_system(sys, s), folded;
    const void *xs = (const char *)x + s * sys->n * es;
    /* A periodic system of 1 or 2 rows wraps onto itself: its matrix is
     * the folded one (n = 1: [a + b + c]), as tl_solve and the domain
     * classes take it; A x from the three parts apart would lose what
     * their sum keeps when they cancel. An entry that overflows when
     * folded leaves the parts as they are (tl_solve rejects it). */
    void *storage = NULL;
    if (tl_batch_fold_periodic(&one, &folded, &storage, NULL) == TL_OK)
      one = folded;
    double r = sys->dtype == TL_F64 ? residual_ratio_one_d(&one, xs) : residual_ratio_one_z(&one, xs);
    free(storage);
    if (!(r <= worst)) /* NaN propagates as a failure */
      worst = isnan(r) ? INFINITY : r;
  }
  return worst;
}

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

int tl_residual_check(const char *name, tl_dtype dtype, size_t n, int periodic, const void *a,
                      const void *b, const void *c, const void *d, const void *x, const char *why,
                      tl_info *info)
{
  tl_batch one = {.dtype = dtype, .n = n, .nsys = 1, .periodic = periodic,
                  .a = a, .b = b, .c = c, .d = d};
  double r = dtype == TL_F64 ? residual_ratio_one_d(&one, x) : residual_ratio_one_z(&one, x);
  if (isnan(r)) /* the norms' scratch was not allocated: no verdict, not a bad one */
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the residual check", name);
  return tl_residual_verdict(name, r, why, info);
}

int tl_residual_verdict(const char *name, double ratio, const char *why, tl_info *info)
{
  if (ratio < TL_THRESH)
    return TL_OK;
  return TL_WARN(info, -1, "%s: residual ratio %.3g >= %g: %s", name, ratio, TL_THRESH, why);
}

void tl_residual_slice_max(tl_dtype dtype, size_t n, int periodic, size_t begin, size_t m,
                           const void *a, const void *b, const void *c, const void *x,
                           double max[2])
{
  if (dtype == TL_F64)
    slice_max_d(n, periodic, begin, m, a, b, c, x, max);
  else
    slice_max_z(n, periodic, begin, m, a, b, c, x, max);
}

void tl_residual_slice_norms(tl_dtype dtype, size_t n, int periodic, size_t begin, size_t m,
                             const void *a, const void *b, const void *c, const void *d,
                             const void *x, const void *halo, const double max[2], double norms[3])
{
  if (dtype == TL_F64)
    slice_norms_d(n, periodic, begin, m, a, b, c, d, x, halo, max, norms);
  else
    slice_norms_z(n, periodic, begin, m, a, b, c, d, x, halo, max, norms);
}

double tl_residual_slice_ratio(size_t n, const double max[2], const double norms[3])
{
  if (max[0] == INFINITY)
    return INFINITY; /* x is not finite */
  int ex, ea;
  double fx = tl_pow2_scale(max[0], &ex), fa = tl_pow2_scale(max[1], &ea);
  double nmin = (double)n * DBL_MIN;
  return tl_ratio_residual(norms[1], norms[2], norms[0] + nmin * fx, nmin * fa * fx);
}

void tl_residual_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                   const double *d, const double *x, double *r)
{
  residual_d(n, periodic, a, b, c, d, x, 1.0, 0, r);
}

#else /* ---- once for S = double and S = double complex ---- */

/* The largest part of the entries of rows [begin, begin + m) of a system
 * of n rows (the corners of a plain system are not read); a, b, c point
 * at row begin. */
static double FN(rows_entry_max)(size_t n, int periodic, size_t begin, size_t m, const S *a,
                                 const S *b, const S *c)
{
  double mx = 0.0;
  for (size_t i = 0; i < m; i++) {
    size_t g = begin + i;
    double v = PART_MAX(b[i]);
    if (g > 0 || periodic)
      v = max_num(v, PART_MAX(a[i]));
    if (g + 1 < n || periodic)
      v = max_num(v, PART_MAX(c[i]));
    if (!(v <= mx))
      mx = v; /* a NaN sticks */
  }
  return mx;
}

static double FN(entry_max)(size_t n, int periodic, const S *a, const S *b, const S *c)
{
  return FN(rows_entry_max)(n, periodic, 0, n, a, b, c);
}

/* r = 2^kd d - (fa A) x on rows [begin, begin + m) of a system of n rows
 * (x already scaled; arrays point at row begin); xl, xr are the unknowns
 * just outside the rows (x[begin-1], x[begin+m], wrapping when periodic;
 * not read at the ends of a plain system). */
static void FN(rows_residual)(size_t n, int periodic, size_t begin, size_t m, const S *a,
                              const S *b, const S *c, const S *d, const S *x, S xl, S xr, double fa,
                              int kd, S *r)
{
  /* 2^kd as one factor when it is a normal double, else ldexp per entry */
  double fd = (kd >= DBL_MIN_EXP - 1 && kd < DBL_MAX_EXP) ? ldexp(1.0, kd) : 0.0;
  for (size_t i = 0; i < m; i++) {
    size_t g = begin + i;
    S ax = (fa * b[i]) * x[i];
    if (g > 0 || periodic)
      ax += (fa * a[i]) * (i > 0 ? x[i - 1] : xl);
    if (g + 1 < n || periodic)
      ax += (fa * c[i]) * (i + 1 < m ? x[i + 1] : xr);
    r[i] = (fd > 0.0 ? fd * d[i] : LDEXP(d[i], kd)) - ax;
  }
}

/* r = 2^kd d - (fa A) x for one system (x already scaled); periodic
 * rows wrap, and for n = 1, 2 entries on the same column add before they
 * multiply (tridlab/system.h). fa = 1, kd = 0: the plain d - A x. */
static void FN(residual)(size_t n, int periodic, const S *a, const S *b, const S *c, const S *d,
                         const S *x, double fa, int kd, S *r)
{
  /* 2^kd as one factor when it is a normal double, else ldexp per entry */
  double fd = (kd >= DBL_MIN_EXP - 1 && kd < DBL_MAX_EXP) ? ldexp(1.0, kd) : 0.0;
  if (!(periodic && n <= 2)) {
    FN(rows_residual)(n, periodic, 0, n, a, b, c, d, x, x[n - 1], x[0], fa, kd, r);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    S ax;
    if (n == 1) /* the entry of the 1x1 matrix */
      ax = PERIODIC1(fa * a[0], fa * b[0], fa * c[0]) * x[0];
    else /* n = 2: a_i and c_i both multiply the other unknown */
      ax = (fa * b[i]) * x[i] + (fa * a[i] + fa * c[i]) * x[1 - i];
    r[i] = (fd > 0.0 ? fd * d[i] : LDEXP(d[i], kd)) - ax;
  }
}

/* The largest column sum of fa A over columns [begin, begin + m); cl =
 * c[begin-1] and ar = a[begin+m] are the entries of those columns held by
 * the rows just outside (wrapping when periodic). */
static double FN(rows_norm1)(size_t n, int periodic, size_t begin, size_t m, const S *a, const S *b,
                             const S *c, S cl, S ar, double fa)
{
  double best = 0.0;
  for (size_t j = 0; j < m; j++) {
    size_t g = begin + j;
    double col = ABS(fa * b[j]);
    if (g > 0 || periodic)
      col += ABS(fa * (j > 0 ? c[j - 1] : cl));
    if (g + 1 < n || periodic)
      col += ABS(fa * (j + 1 < m ? a[j + 1] : ar));
    if (col > best || isnan(col))
      best = col;
  }
  return best;
}

/* ||fa A||_1, the largest column sum. Periodic n <= 2 entries fold onto
 * the same column position and add before the modulus is taken. */
static double FN(norm1)(size_t n, int periodic, const S *a, const S *b, const S *c, double fa)
{
  if (periodic && n == 1)
    return ABS(PERIODIC1(fa * a[0], fa * b[0], fa * c[0]));
  if (periodic && n == 2) {
    double c0 = ABS(fa * b[0]) + ABS(fa * a[1] + fa * c[1]);
    double c1 = ABS(fa * a[0] + fa * c[0]) + ABS(fa * b[1]);
    return c0 > c1 ? c0 : c1;
  }
  return FN(rows_norm1)(n, periodic, 0, n, a, b, c, c[n - 1], a[0], fa);
}

/* The residual ratio of a system in slices (tl_residual_slice_*): the
 * largest parts of x (inf when x is not finite) and of A's entries in
 * rows [begin, begin + m). */
static void FN(slice_max)(size_t n, int periodic, size_t begin, size_t m, const S *a, const S *b,
                          const S *c, const S *x, double out[2])
{
  double xmax = 0.0;
  for (size_t i = 0; i < m && xmax < INFINITY; i++)
    xmax = ISFINITE(x[i]) ? max_num(xmax, PART_MAX(x[i])) : INFINITY;
  out[0] = xmax;
  out[1] = FN(rows_entry_max)(n, periodic, begin, m, a, b, c);
}

/* With the maxima of the whole system: ||x||_1 and ||d - A x||_1 of the
 * rows, and the largest column sum of their columns, on A and x scaled by
 * powers of two (d by both) so that nothing overflows. halo: x[begin-1],
 * x[begin+m], c[begin-1], a[begin+m]; not read when the slice is the whole
 * system (m = n), which also covers the folded periodic n <= 2. */
static void FN(slice_norms)(size_t n, int periodic, size_t begin, size_t m, const S *a, const S *b,
                            const S *c, const S *d, const S *x, const S *halo, const double max[2],
                            double out[3])
{
  int ex, ea;
  double fx = tl_pow2_scale(max[0], &ex), fa = tl_pow2_scale(max[1], &ea);
  S *w = tl_alloc(2 * m, sizeof(S));
  if (!w) {
    out[0] = out[1] = out[2] = NAN;
    return;
  }
  S *xs = w, *r = w + m;
  double xnorm = 0.0;
  for (size_t i = 0; i < m; i++) {
    xs[i] = fx * x[i];
    xnorm += ABS(xs[i]);
  }
  if (m == n)
    FN(residual)(n, periodic, a, b, c, d, xs, fa, -(ea + ex), r);
  else
    FN(rows_residual)
    (n, periodic, begin, m, a, b, c, d, xs, fx * halo[0], fx * halo[1], fa, -(ea + ex), r);
  double rnorm = 0.0;
  for (size_t i = 0; i < m; i++)
    rnorm += ABS(r[i]);
  free(w);
  out[0] = xnorm;
  out[1] = rnorm;
  out[2] = m == n ? FN(norm1)(n, periodic, a, b, c, fa)
                  : FN(rows_norm1)(n, periodic, begin, m, a, b, c, halo[2], halo[3], fa);
}

/* ||d - A x||_1 / ((||A||_1 (||x||_1 + n DBL_MIN) + n DBL_MIN) eps),
 * computed on A and x scaled by powers of two (d by both), so that nothing
 * overflows: the scalings cancel exactly in the quotient. */
static double FN(residual_ratio_one)(const tl_batch *one, const S *x)
{
  double max[2], norms[3];
  FN(slice_max)(one->n, one->periodic, 0, one->n, one->a, one->b, one->c, x, max);
  if (max[0] == INFINITY)
    return INFINITY;
  FN(slice_norms)
  (one->n, one->periodic, 0, one->n, one->a, one->b, one->c, one->d, x, NULL, max, norms);
  return tl_residual_slice_ratio(one->n, max, norms);
}

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
  int e, ea;
  double f = tl_pow2_scale(m, &e);
  double xnorm = 0.0, diff = 0.0;
  for (size_t i = 0; i < n; i++) {
    diff = fmax(diff, ABS(f * x[i] - f * xref[i]));
    xnorm = fmax(xnorm, ABS(f * xref[i]));
  }
  /* n DBL_MIN / ||A||_1 = n DBL_MIN fa / ||fa A||_1, at most n 2^52 */
  double fa = tl_pow2_scale(FN(entry_max)(n, one->periodic, one->a, one->b, one->c), &ea);
  double anorm = FN(norm1)(n, one->periodic, one->a, one->b, one->c, fa);
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
  int ea;
  double fa = tl_pow2_scale(FN(entry_max)(n, one->periodic, one->a, one->b, one->c), &ea);
  double anorm = FN(norm1)(n, one->periodic, one->a, one->b, one->c, fa);
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
