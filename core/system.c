/* core/system.c -- batches, matrix classes, scratch memory. */
#include <complex.h>
#include <math.h>
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

void *tl_alloc(size_t n, size_t size)
{
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
    double b = fabs(bl[i]), margin = b - (left + right);
    if (!(margin >= 0.0))
      row_dd = 0;
    if (!(margin > 0.0))
      strict = 0;
    if (!(b >= 2.0 * (left + right)))
      strong = 0;
    if (!(b - (up + down) >= 0.0))
      col_dd = 0;
    double rel = b > 0.0 ? margin / b : -INFINITY;
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

/* n = 1 and 2 periodic systems wrap onto themselves; their moduli are
 * those of the assembled matrix, so handle them through the general
 * routine with the corner folded in. */
static unsigned classes_small_periodic(size_t n, const double complex *a, const double complex *b,
                                       const double complex *c, long *worst_row)
{
  if (worst_row)
    *worst_row = 0;
  if (n == 1) {
    double s = cabs(a[0] + b[0] + c[0]);
    return s > 0 ? (TL_CLASS_ROW_DD | TL_CLASS_STRICT_DD | TL_CLASS_STRONG_DD | TL_CLASS_COL_DD)
                 : 0u;
  }
  /* n == 2: A = [b0, a0+c0; a1+c1, b1] */
  double al[2] = {0.0, cabs(a[1] + c[1])}, cl[2] = {cabs(a[0] + c[0]), 0.0};
  double bl[2] = {cabs(b[0]), cabs(b[1])};
  return classes_from_moduli(2, al, bl, cl, 0, worst_row);
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
