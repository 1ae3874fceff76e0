/* reference/gtsv_ref.c -- LAPACK DGTSV / ZGTSV: Gaussian elimination with
 * partial pivoting, the pivoting baseline every other algorithm is
 * measured against.
 *
 * Source: LAPACK 3 (Anderson et al., LAPACK Users' Guide, 3rd ed., 1999),
 * routines DGTSV and ZGTSV. LAPACK names the diagonals DL (our a[1..n-1]),
 * D (our b) and DU (our c[0..n-2]); B on entry is our d, on exit our x.
 *
 * At each step the row with the larger entry in the pivot column is
 * swapped up, which creates a second superdiagonal (fill-in):
 *
 *   | b0 c0       |     | * * +    |   + : fill-in from row swaps
 *   | a1 b1 c1    |  -> |   * * +  |
 *   |    a2 b2 c2 |     |     * *  |
 *   |       a3 b3 |     |       *  |
 *
 * Cost: about 8n flops plus comparisons, reads and copies a, b, c, d
 * (LAPACK overwrites its inputs, tridlab does not: we copy into scratch).
 * Stability: backward stable for every nonsingular tridiagonal matrix
 * (the growth factor of partial pivoting is at most 2 for tridiagonal
 * matrices; Higham §9.5). INFO > 0, an exactly zero pivot U(i,i), is
 * reported as a breakdown: the matrix is singular.
 *
 * Scaling (found by fuzzing). ZGTSV divides complex numbers by Smith's
 * method, whose denominator c + d (d/c) overflows when both parts of c
 * are near DBL_MAX: 1x1, b = 1.8e308 (1 + i), d = -4 - 2i gave x = 0
 * with INFO = 0, where x = (-6 + 2i) / 3.6e308 is a double. LAPACK gets A
 * and d scaled by powers of two near their largest entries, which is
 * exact and changes no pivot choice (the bits of x are the same wherever
 * nothing over- or underflows), and x is scaled back.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <limits.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"

static lapack_int lapack_gtsv_d(lapack_int n, double *dl, double *dd, double *du, double *x)
{
  return LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl, dd, du, x, n);
}

static lapack_int lapack_gtsv_z(lapack_int n, double complex *dl, double complex *dd,
                                double complex *du, double complex *x)
{
  return LAPACKE_zgtsv(LAPACK_COL_MAJOR, n, 1, dl, dd, du, x, n);
}

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "gtsv_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "gtsv_ref.c"
#undef TL_TEMPLATE_PASS

static int gtsv_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                      const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  return tl_solve_each(sys, x, info, tl_gtsv_ref_d, tl_gtsv_ref_z);
}

const tl_algorithm tl_algo_gtsv_ref = {
    .name = "gtsv",
    .family = "direct",
    .backend = "lapack",
    .exact = 1,
    .classes = TL_CLASS_NONSINGULAR,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = NULL,
    .nparams = 0,
    .summary = "LAPACK DGTSV/ZGTSV: Gaussian elimination with partial pivoting",
    .source = "LAPACK 3, DGTSV/ZGTSV (Anderson et al. 1999)",
    .solve = gtsv_solve,
};

#else /* ---- once for S = double and S = double complex ---- */

int FN(tl_gtsv_ref)(size_t n, const S *a, const S *b, const S *c, const S *d, S *x,
                    tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "gtsv: n must be >= 1 and no array may be NULL");
  if (n > (size_t)INT_MAX)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "n",
                   "gtsv: n = %zu exceeds LAPACK's integer range", n);
  S *work = tl_alloc(3 * n, sizeof(S));
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "gtsv: no memory");
  S *dl = work, *dd = work + n, *du = work + 2 * n;
  /* LAPACK overwrites its arguments: hand it copies, A and d each scaled
   * by a power of two near its largest entry (see "Scaling" above). */
  double amax = 0.0, dmax = 0.0;
  for (size_t i = 0; i < n; i++) {
    amax = fmax(amax, PART_MAX(b[i]));
    if (i > 0)
      amax = fmax(amax, PART_MAX(a[i]));
    if (i + 1 < n)
      amax = fmax(amax, PART_MAX(c[i]));
    dmax = fmax(dmax, PART_MAX(d[i]));
  }
  int ea, ed;
  double fa = tl_pow2_scale(amax, &ea), fd = tl_pow2_scale(dmax, &ed);
  for (size_t i = 0; i < n; i++) {
    dd[i] = fa * b[i];
    x[i] = fd * d[i];
    if (i + 1 < n) {
      dl[i] = fa * a[i + 1];
      du[i] = fa * c[i];
    }
  }
  lapack_int linfo = FN(lapack_gtsv)((lapack_int)n, dl, dd, du, x);
  free(work);
  if (linfo == 0 && ed != ea)
    for (size_t i = 0; i < n; i++)
      x[i] = LDEXP(x[i], ed - ea); /* A x = d: x = 2^(ed - ea) x' */
  if (linfo > 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)linfo - 1, "",
                   "gtsv: U(%ld,%ld) is exactly zero; the matrix is singular", (long)linfo - 1,
                   (long)linfo - 1);
  if (linfo < 0)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lapack", "gtsv: LAPACK rejected argument %d",
                   (int)-linfo);
  for (size_t i = 0; i < n; i++)
    if (!ISFINITE(x[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)i, "",
                     "gtsv: solution overflows at row %zu", i);
  return TL_OK;
}

#endif
