/* core/residual.c -- LAPACK's residual ratio, with which a solver judges
 * its own answer (tl_residual_check, tridlab/backend.h) and the
 * verification judges every answer (tridlab/residual.h, verify/).
 *
 * residual ratio (LAPACK TESTING/LIN/dgtt02.f):
 *     max_j ||d_j - A x_j||_1 / ((||A||_1 (||x_j||_1 + n DBL_MIN) + n DBL_MIN) eps)
 * with eps = 2^-53. A ratio >= 30 (THRESH) fails. verify/metrics.c adds
 * the forward-error ratio, the condition number and the LAPACK oracle;
 * the overflow and underflow departures from LAPACK's code that both
 * ratios make are described there.
 *
 * A periodic system of 1 or 2 rows wraps onto itself: its matrix is the
 * folded one (n = 1: [a + b + c]; n = 2: [b0, a0 + c0; a1 + c1, b1]),
 * as tl_solve solves it, and the residual ratio judges that matrix.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/residual_internal.h"
#include "tridlab/backend.h"
#include "tridlab/residual.h"

/* DGTT02's ratio from the (scaled) norms: 0 for a zero residual, 1/eps
 * when ||A|| = 0; xden is ||x||_1 + n DBL_MIN and dden n DBL_MIN in the
 * same scales as x and d. */
static double tl_ratio_residual(double rnorm, double anorm, double xden, double dden)
{
  if (rnorm == 0.0)
    return 0.0;
  if (!(anorm > 0.0))
    return isnan(anorm) || isnan(rnorm) ? NAN : 1.0 / TL_EPS;
  return tl_finite_ratio((rnorm / (anorm * xden + dden)) / TL_EPS);
}

/* fmax(v, w), inlined: the larger, and the other when one is a NaN
 * (the compiler calls the library's fmax out of line, which took a fifth
 * of the MPI verdict's time in the row loops below). */
static inline double max_num(double v, double w)
{
  return (w > v || v != v) ? w : v;
}

/* A row's dominance from |b| and the moduli of its coupling entries (0
 * where a plain system has none): (|b| - left - right) / |b|, > 0 when
 * strict (DBL_MIN when the quotient underflowed), -inf when b = 0; the
 * weakest row has the smallest (tl_slice_weakest_row). */
static inline double row_margin(double b, double left, double right)
{
  double margin = b - (left + right);
  double rel = b > 0.0 ? margin / b : -INFINITY;
  if (margin > 0.0 && !(rel > 0.0))
    rel = DBL_MIN; /* strict, though the quotient underflowed */
  return rel;
}

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "residual.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "residual.c"
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

void tl_slice_weakest_row(tl_dtype dtype, size_t n, int periodic, size_t begin, size_t m,
                          const void *a, const void *b, const void *c, double *neg, long *row)
{
  if (dtype == TL_F64)
    rows_weakest_d(n, periodic, begin, m, a, b, c, neg, row);
  else
    rows_weakest_z(n, periodic, begin, m, a, b, c, neg, row);
}

/* ---- a double slice in one pass ------------------------------------
 *
 * tl_residual_slice_norms scales A and x by powers of two near the
 * global maxima, which a rank knows only after the reduction of
 * tl_residual_slice_max's numbers: a second pass over the slice. The
 * pass below computes the norms unscaled, together with the maxima and
 * the weakest row, and tl_residual_slice_rescale multiplies them by those
 * powers afterwards.
 *
 * Why that gives the same bits: a product or sum of doubles scaled by
 * 2^k rounds to 2^k times the rounded unscaled result, as long as both
 * results are normal doubles (or zero). Every value the two computations
 * meet is built from the entries by products and sums; when every
 * nonzero operand (an entry of A, x or d, scaled or not) lies in
 * [2^-400, 2^400], every value is a multiple of 2^-904 (an ulp of the
 * smallest operand, squared) and below 2^835 (m < 2^32 rows): normal.
 * The pass records what that check needs (the smallest nonzero entries,
 * the largest |d|); the largest |A| and |x| are the global maxima.
 *
 * The row loop is written for finite values (plain maxima, no NaN
 * rules). A value that is not finite, or a sum that overflows, shows in
 * the sums; then the maxima and the weakest row are measured again by
 * the general loops, and the norms are left to tl_residual_slice_norms. */
#define SAFE_LO 0x1p-400
#define SAFE_HI 0x1p400

/* The smallest nonzero of lo and v >= 0: zeros scale exactly, whatever
 * their size. */
static inline double min_nonzero(double lo, double v)
{
  return (v < lo && v > 0.0) ? v : lo;
}

/* What the pass sums up, row after row. */
typedef struct pass_acc {
  double amax, xmax, alo, xlo, dlo, dmax; /* see tl_residual_pass             */
  double xnorm, rnorm, col;               /* ||x||_1, ||d - A x||_1, max col sum */
  double weak;                            /* -rel of the weakest row           */
  long weak_row;
} pass_acc;

/* Row g: its entries a, b, c, d and unknown x; xm, xp the unknowns beside
 * it and cu, ad the entries above and below b in its column (c[g-1],
 * a[g+1]); an entry the row does not have (at an end of a plain system)
 * is passed as 0, which every sum and maximum below takes as absent. The
 * arithmetic, in its order, of rows_weakest, rows_entry_max, slice_max's
 * x loop, rows_residual and rows_norm1 with fa = fx = 1 on finite values:
 * the bits those give. */
static inline void pass_row(pass_acc *p, double a, double b, double c, double d, double x,
                            double xm, double xp, double cu, double ad, long g)
{
  double ma = fabs(a), mb = fabs(b), mc = fabs(c), mx = fabs(x), md = fabs(d);
  double big = mb > ma ? mb : ma;
  big = big > mc ? big : mc;
  p->amax = big > p->amax ? big : p->amax;
  p->alo = min_nonzero(min_nonzero(min_nonzero(p->alo, ma), mb), mc);
  p->xmax = mx > p->xmax ? mx : p->xmax;
  p->xlo = min_nonzero(p->xlo, mx);
  p->xnorm += mx;
  p->rnorm += fabs(d - ((b * x + a * xm) + c * xp));
  double col = (mb + fabs(cu)) + fabs(ad);
  p->col = col > p->col ? col : p->col;
  p->dlo = min_nonzero(p->dlo, md);
  p->dmax = md > p->dmax ? md : p->dmax;
  double neg = -row_margin(mb, ma, mc);
  if (neg > p->weak) { /* on a tie the first row stays */
    p->weak = neg;
    p->weak_row = g;
  }
}

/* A row at an end of the slice: the entries it does not have (left,
 * right: it has them) as 0; those it reads from the halo (xm and cu,
 * xp and ad) enter the smallest entries too (their largest are within
 * the global maxima). */
static pass_acc pass_end_row(pass_acc p, double a, double b, double c, double d, double x,
                             double xm, double xp, double cu, double ad, int left, int right,
                             long g)
{
  if (left) {
    p.xlo = min_nonzero(p.xlo, fabs(xm));
    p.alo = min_nonzero(p.alo, fabs(cu));
  } else {
    a = xm = cu = 0.0;
  }
  if (right) {
    p.xlo = min_nonzero(p.xlo, fabs(xp));
    p.alo = min_nonzero(p.alo, fabs(ad));
  } else {
    c = xp = ad = 0.0;
  }
  pass_row(&p, a, b, c, d, x, xm, xp, cu, ad, g);
  return p;
}

void tl_residual_slice_pass_d(size_t n, int periodic, size_t begin, size_t m, const double *a,
                              const double *b, const double *c, const double *d, const double *x,
                              const double *halo, tl_residual_pass *out)
{
  pass_acc p = {0};
  p.alo = p.xlo = p.dlo = INFINITY; /* no nonzero entry yet */
  p.weak = -INFINITY, p.weak_row = -1;
  /* the unknowns and entries just outside the rows (the whole system:
   * its other end) */
  double xl = 0.0, xr = 0.0, cl = 0.0, ar = 0.0;
  int left = begin > 0 || periodic, right = begin + m < n || periodic;
  if (m > 0) {
    xl = m == n ? x[n - 1] : halo[0], xr = m == n ? x[0] : halo[1];
    cl = m == n ? c[n - 1] : halo[2], ar = m == n ? a[0] : halo[3];
  }
  if (m == 1) {
    p = pass_end_row(p, a[0], b[0], c[0], d[0], x[0], xl, xr, cl, ar, left, right, (long)begin);
  } else if (m > 1) { /* the end rows read the halo; the rows between have both neighbours */
    size_t l = m - 1;
    p = pass_end_row(p, a[0], b[0], c[0], d[0], x[0], xl, x[1], cl, a[1], left, 1, (long)begin);
    for (size_t i = 1; i < l; i++)
      pass_row(&p, a[i], b[i], c[i], d[i], x[i], x[i - 1], x[i + 1], c[i - 1], a[i + 1],
               (long)(begin + i));
    p = pass_end_row(p, a[l], b[l], c[l], d[l], x[l], x[l - 1], xr, c[l - 1], ar, 1, right,
                     (long)(begin + l));
  }
  /* Every value read that is not finite shows in the sums, but for the
   * halo's two column entries: the column sums take them, and their
   * maximum drops a NaN. */
  int finite = isfinite(p.xnorm) && isfinite(p.rnorm) && isfinite(p.col) &&
               (m == 0 || ((!left || isfinite(cl)) && (!right || isfinite(ar))));
  /* slice_norms folds a whole periodic system of 1 or 2 rows: not these sums */
  int folded = periodic && n <= 2 && m == n;
  int usable = finite && !folded; /* else NaN: tl_residual_slice_rescale declines */
  double max[2] = {p.xmax, p.amax};
  if (!finite) { /* the general loops, with their rules for inf and NaN */
    slice_max_d(n, periodic, begin, m, a, b, c, x, max);
    rows_weakest_d(n, periodic, begin, m, a, b, c, &p.weak, &p.weak_row);
  }
  *out = (tl_residual_pass){
      .max = {max[0], max[1]},
      .weak = p.weak,
      .weak_row = p.weak_row,
      .norms = {usable ? p.xnorm : NAN, usable ? p.rnorm : NAN, usable ? p.col : NAN},
      .lo = {p.alo, p.xlo, p.dlo},
      .dmax = p.dmax};
}

/* Every nonzero operand of both computations in [SAFE_LO, SAFE_HI]: A's
 * entries (scaled by fa), x's (by fx), d's (by 2^kd = fa fx). The
 * largest |A| and |x| are the global maxima, and scaled they are < 1. */
static int pass_exact(const tl_residual_pass *p, const double max[2], double fx, double fa, int kd)
{
  int unscaled = max[0] <= SAFE_HI && max[1] <= SAFE_HI && p->dmax <= SAFE_HI &&
                 p->lo[0] >= SAFE_LO && p->lo[1] >= SAFE_LO && p->lo[2] >= SAFE_LO;
  int scaled = fa * p->lo[0] >= SAFE_LO && fx * p->lo[1] >= SAFE_LO &&
               ldexp(p->lo[2], kd) >= SAFE_LO && ldexp(p->dmax, kd) <= SAFE_HI;
  return unscaled && scaled && isfinite(p->norms[0]) && isfinite(p->norms[1]) &&
         isfinite(p->norms[2]);
}

int tl_residual_slice_rescale(const tl_residual_pass *p, const double max[2], double norms[3])
{
  int ex, ea;
  double fx = tl_pow2_scale(max[0], &ex), fa = tl_pow2_scale(max[1], &ea);
  if (!pass_exact(p, max, fx, fa, -(ea + ex)))
    return 0;
  norms[0] = fx * p->norms[0];               /* the sum of fx |x_i|          */
  norms[1] = ldexp(p->norms[1], -(ea + ex)); /* of |2^kd d - (fa A)(fx x)|_i */
  norms[2] = fa * p->norms[2];               /* column sums of fa A          */
  return 1;
}

void tl_residual_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                   const double *d, const double *x, double *r)
{
  residual_d(n, periodic, a, b, c, d, x, 1.0, 0, r);
}

double tl_norm1_scaled(const tl_batch *one, double *fa)
{
  return one->dtype == TL_F64 ? norm1_scaled_d(one, fa) : norm1_scaled_z(one, fa);
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

/* tl_slice_weakest_row: the pair (-rel, row) of the smallest
 * row_margin in rows [begin, begin + m) (a, b, c point at row begin). */
static void FN(rows_weakest)(size_t n, int periodic, size_t begin, size_t m, const S *a,
                             const S *b, const S *c, double *neg, long *row)
{
  *neg = -INFINITY;
  *row = -1;
  for (size_t i = 0; i < m; i++) {
    size_t g = begin + i;
    double left = (g > 0 || periodic) ? ABS(a[i]) : 0.0;
    double right = (g + 1 < n || periodic) ? ABS(c[i]) : 0.0;
    tl_pair_max(neg, row, -row_margin(ABS(b[i]), left, right), (long)g);
  }
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

/* ||fa A||_1 with fa the power of two near the largest part of A's
 * entries (tl_norm1_scaled). */
static double FN(norm1_scaled)(const tl_batch *one, double *fa)
{
  int ea;
  *fa = tl_pow2_scale(FN(entry_max)(one->n, one->periodic, one->a, one->b, one->c), &ea);
  return FN(norm1)(one->n, one->periodic, one->a, one->b, one->c, *fa);
}

#endif
