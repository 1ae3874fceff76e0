/* core/system.c -- batches, matrix classes, scratch memory. */
#include <complex.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "tridlab/backend.h"
#include "tridlab/system.h"

size_t tl_dtype_size(tl_dtype dtype)
{
  switch (dtype) {
  case TL_F64: return sizeof(double);
  case TL_C128: return sizeof(double complex);
  default: return 0;
  }
}

const char *tl_dtype_name(tl_dtype dtype)
{
  switch (dtype) {
  case TL_F64: return "float64";
  case TL_C128: return "complex128";
  default: return "unknown";
  }
}

tl_batch tl_batch_system(const tl_batch *sys, size_t s)
{
  size_t off = s * sys->n * tl_dtype_size(sys->dtype);
  tl_batch one = *sys;
  one.nsys = 1;
  one.a = (const char *)sys->a + off;
  one.b = (const char *)sys->b + off;
  one.c = (const char *)sys->c + off;
  one.d = (const char *)sys->d + off;
  return one;
}

void tl_pair_max(double *value, long *row, double cand, long cand_row)
{
  int take;
  if (isnan(*value))
    take = isnan(cand) && cand_row < *row;
  else if (isnan(cand))
    take = 1;
  else
    take = cand > *value || (cand == *value && cand_row < *row);
  if (take) {
    *value = cand;
    *row = cand_row;
  }
}

double tl_pow2_scale(double m, int *e)
{
  *e = 0;
  if (m > 0.0 && isfinite(m))
    frexp(m, e);
  if (*e < -1000)
    *e = -1000;
  return ldexp(1.0, -*e);
}

/* Calls of tl_alloc left before the one that fails (tl_alloc_fail_at); 0:
 * none fails. */
static atomic_long alloc_countdown;

void tl_alloc_fail_at(long k)
{
  atomic_store(&alloc_countdown, k > 0 ? k : 0);
}

void *tl_alloc(size_t n, size_t size)
{
  if (atomic_load_explicit(&alloc_countdown, memory_order_relaxed) > 0 &&
      atomic_fetch_sub(&alloc_countdown, 1) == 1)
    return NULL;
  if (n == 0)
    n = 1;
  if (size && n > SIZE_MAX / size)
    return NULL;
  return calloc(n, size);
}

/* Classes from the moduli of the three diagonals (the same for real and
 * complex): al[i] = |entry left of the diagonal in row i|, cl[i] = |entry
 * right of it|; in a non-periodic system the corners count as 0. Every
 * value read goes through fabs, so real diagonals are passed as they are
 * (no copy of their moduli) and moduli stay what they are. */
/* One row's dominance, |b| against the moduli of its couplings: clears
 * *row_dd or *strict when the row is not (strictly) dominant, and returns
 * its margin relative to |b|, what the worst row is chosen by. */
static double judge_row(double b, double left, double right, int *row_dd, int *strict)
{
  double margin = b - (left + right);
  if (!(margin >= 0.0))
    *row_dd = 0;
  if (!(margin > 0.0))
    *strict = 0;
  return b > 0.0 ? margin / b : -INFINITY;
}

static unsigned classes_from_moduli(size_t n, const double *al, const double *bl,
                                    const double *cl, int periodic, long *worst_row)
{
  int row_dd = 1, strict = 1, strong = 1, col_dd = 1;
  double worst = INFINITY;
  long wrow = n ? 0 : -1;
  for (size_t i = 0; i < n; i++) {
    double left = (i > 0 || periodic) ? fabs(al[i]) : 0.0;
    double right = (i + 1 < n || periodic) ? fabs(cl[i]) : 0.0;
    /* Column i holds c[i-1] above and a[i+1] below the diagonal. */
    double up = (i > 0) ? fabs(cl[i - 1]) : (periodic ? fabs(cl[n - 1]) : 0.0);
    double down = (i + 1 < n) ? fabs(al[i + 1]) : (periodic ? fabs(al[0]) : 0.0);
    double b = fabs(bl[i]);
    double rel = judge_row(b, left, right, &row_dd, &strict);
    if (!(b >= 2.0 * (left + right)))
      strong = 0;
    if (!(b - (up + down) >= 0.0))
      col_dd = 0;
    if (rel < worst) {
      worst = rel;
      wrow = (long)i;
    }
  }
  if (worst_row)
    *worst_row = wrow;
  /* Strict dominance of every row also needs a non-zero diagonal. */
  return (row_dd ? TL_CLASS_ROW_DD : 0u) | (row_dd && strict ? TL_CLASS_STRICT_DD : 0u) |
         (row_dd && strict && strong ? TL_CLASS_STRONG_DD : 0u) |
         (col_dd ? TL_CLASS_COL_DD : 0u);
}

/* s + e = x + y exactly (Knuth's TwoSum), unless x + y overflows. */
static double two_sum(double x, double y, double *e)
{
  double s = x + y, z = s - x;
  *e = (x - (s - z)) + (y - z);
  return s;
}

/* u + v + w with the rounding errors of both additions added back (Sum2
 * of Ogita, Rump and Oishi, 2005): |result - exact| <= eps |exact| +
 * 4 eps^2 (|u| + |v| + |w|), so the sum is within an ulp or so of the
 * exact one unless the terms cancel to below eps times their size. The
 * terms are taken in decreasing magnitude (equal moduli: larger value
 * first), so any order of the arguments gives the same bits. */
static double sum3(double u, double v, double w)
{
  double t[3] = {u, v, w};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++) {
      double p = fabs(t[j]), q = fabs(t[j + 1]);
      if (q > p || (q == p && t[j + 1] > t[j])) {
        double tmp = t[j];
        t[j] = t[j + 1];
        t[j + 1] = tmp;
      }
    }
  double e1, e2;
  double s1 = two_sum(t[0], t[1], &e1);
  double s2 = two_sum(s1, t[2], &e2);
  return s2 + (e1 + e2);
}

double tl_periodic1_entry_d(double a, double b, double c)
{
  double s = sum3(a, b, c);
  if (isfinite(s) || !(isfinite(a) && isfinite(b) && isfinite(c)))
    return s;
  /* An addition overflowed; in quarters none can. The result may still
   * be +-inf: then the entry itself is not representable. */
  return 4.0 * sum3(0.25 * a, 0.25 * b, 0.25 * c);
}

double complex tl_periodic1_entry_z(double complex a, double complex b, double complex c)
{
  return tl_cmplx(tl_periodic1_entry_d(creal(a), creal(b), creal(c)),
                  tl_periodic1_entry_d(cimag(a), cimag(b), cimag(c)));
}

/* The folds of tridlab/system.h for one periodic system of n <= 2 rows
 * whose scalars are `parts` doubles (1: real; 2: complex, whose sums and
 * entry add real and imaginary parts separately). The row of an entry
 * that overflows, else -1. */
static long fold_parts(size_t n, size_t parts, const double *a, const double *b, const double *c,
                       double *fa, double *fb, double *fc)
{
  long bad = -1;
  for (size_t k = 0; k < parts; k++) {
    if (n == 1) {
      fa[k] = fc[k] = 0.0;
      fb[k] = tl_periodic1_entry_d(a[k], b[k], c[k]);
      bad = isfinite(fb[k]) ? bad : 0;
      continue;
    }
    size_t k1 = parts + k; /* the same part in row 1 */
    fa[k] = fc[k1] = 0.0;
    fb[k] = b[k];
    fb[k1] = b[k1];
    fc[k] = a[k] + c[k];
    fa[k1] = a[k1] + c[k1];
    if (!isfinite(fc[k]))
      bad = 0;
    else if (!isfinite(fa[k1]) && bad < 0)
      bad = 1;
  }
  return bad;
}

static int fold_one(const char *who, size_t n, int periodic, size_t parts, const void **a,
                    const void **b, const void **c, double *fa, double *fb, double *fc,
                    tl_info *info)
{
  if (!periodic || n > 2)
    return TL_OK;
  long bad = fold_parts(n, parts, *a, *b, *c, fa, fb, fc);
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_ARG, -1, bad, n == 1 ? "b" : "a",
                   "%s: an entry of the %zux%zu cyclic matrix overflows", who, n, n);
  *a = fa;
  *b = fb;
  *c = fc;
  return TL_OK;
}

int tl_fold_periodic_d(const char *who, size_t n, int periodic, const double **a,
                       const double **b, const double **c, double *fa, double *fb, double *fc,
                       tl_info *info)
{
  return fold_one(who, n, periodic, 1, (const void **)a, (const void **)b, (const void **)c, fa,
                  fb, fc, info);
}

int tl_fold_periodic_z(const char *who, size_t n, int periodic, const double complex **a,
                       const double complex **b, const double complex **c, double complex *fa,
                       double complex *fb, double complex *fc, tl_info *info)
{
  return fold_one(who, n, periodic, 2, (const void **)a, (const void **)b, (const void **)c,
                  (double *)fa, (double *)fb, (double *)fc, info);
}

int tl_batch_fold_periodic(const tl_batch *sys, tl_batch *folded, void **storage, tl_info *info)
{
  size_t es = tl_dtype_size(sys->dtype), count = sys->n * sys->nsys;
  *folded = *sys;
  *storage = NULL;
  if (!sys->periodic || sys->n > 2)
    return TL_OK;
  char *w = tl_alloc(3 * count, es);
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "no memory to fold a periodic batch");
  for (size_t s = 0; s < sys->nsys; s++) {
    size_t off = s * sys->n * es;
    const char *a = (const char *)sys->a + off, *b = (const char *)sys->b + off,
               *c = (const char *)sys->c + off;
    char *fa = w + off, *fb = w + count * es + off, *fc = w + 2 * count * es + off;
    long bad = fold_parts(sys->n, es / sizeof(double), (const double *)a, (const double *)b,
                          (const double *)c, (double *)fa, (double *)fb, (double *)fc);
    if (bad >= 0) {
      free(w);
      return TL_FAIL(info, TL_ERR_ARG, (long)s, bad, sys->n == 1 ? "b" : "a",
                     "periodic system %zu: the entry %s of its %zux%zu matrix overflows", s,
                     sys->n == 1 ? "a[0] + b[0] + c[0]" : (bad ? "a[1] + c[1]" : "a[0] + c[0]"),
                     sys->n, sys->n);
    }
  }
  folded->a = w;
  folded->b = w + count * es;
  folded->c = w + 2 * count * es;
  *storage = w;
  return TL_OK;
}

/* n = 1 and 2 periodic systems wrap onto themselves; their moduli are
 * those of the assembled matrix, so handle them through the general
 * routine with the corner folded in. n = 1: the 1x1 matrix [s] is
 * diagonal, in every class when s is a non-zero double, in none when it
 * is zero (singular) or not finite. */
static unsigned classes_small_periodic(size_t n, const double complex *a, const double complex *b,
                                       const double complex *c, long *worst_row)
{
  if (worst_row)
    *worst_row = 0;
  if (n == 1) {
    double s = cabs(tl_periodic1_entry_z(a[0], b[0], c[0]));
    return (s > 0 && isfinite(s))
               ? (TL_CLASS_ROW_DD | TL_CLASS_STRICT_DD | TL_CLASS_STRONG_DD | TL_CLASS_COL_DD)
               : 0u;
  }
  /* n == 2: A = [b0, a0+c0; a1+c1, b1] */
  double al[2] = {0.0, cabs(a[1] + c[1])}, cl[2] = {cabs(a[0] + c[0]), 0.0};
  double bl[2] = {cabs(b[0]), cabs(b[1])};
  return classes_from_moduli(2, al, bl, cl, 0, worst_row);
}

unsigned tl_row_classes_slice_d(size_t m, const double *a, const double *b, const double *c,
                                size_t row0, size_t n, int periodic, double *worst_rel,
                                long *worst_row)
{
  int row_dd = 1, strict = 1;
  double worst = INFINITY;
  long wrow = m ? (long)row0 : -1;
  for (size_t i = 0; i < m; i++) {
    size_t g = row0 + i; /* the global row: the ends of a plain system have no corner */
    double left = (g > 0 || periodic) ? fabs(a[i]) : 0.0;
    double right = (g + 1 < n || periodic) ? fabs(c[i]) : 0.0;
    double rel = judge_row(fabs(b[i]), left, right, &row_dd, &strict);
    if (rel < worst) {
      worst = rel;
      wrow = (long)g;
    }
  }
  if (worst_rel)
    *worst_rel = worst;
  if (worst_row)
    *worst_row = wrow;
  return (row_dd ? TL_CLASS_ROW_DD : 0u) | (row_dd && strict ? TL_CLASS_STRICT_DD : 0u);
}

unsigned tl_classes_z(size_t n, const double complex *a, const double complex *b,
                      const double complex *c, int periodic, long *worst_row)
{
  if (periodic && n <= 2)
    return classes_small_periodic(n, a, b, c, worst_row);
  double *m = tl_alloc(3 * n, sizeof(double));
  if (!m) {
    if (worst_row)
      *worst_row = -1;
    return 0u; /* no guarantee we can show */
  }
  for (size_t i = 0; i < n; i++) {
    m[i] = cabs(a[i]);
    m[n + i] = cabs(b[i]);
    m[2 * n + i] = cabs(c[i]);
  }
  unsigned cls = classes_from_moduli(n, m, m + n, m + 2 * n, periodic, worst_row);
  free(m);
  return cls;
}

unsigned tl_classes_d(size_t n, const double *a, const double *b, const double *c, int periodic,
                      long *worst_row)
{
  if (periodic && n <= 2) {
    double complex za[2], zb[2], zc[2];
    for (size_t i = 0; i < n; i++) {
      za[i] = a[i];
      zb[i] = b[i];
      zc[i] = c[i];
    }
    return classes_small_periodic(n, za, zb, zc, worst_row);
  }
  return classes_from_moduli(n, a, b, c, periodic, worst_row);
}
