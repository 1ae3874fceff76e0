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
#include "../core/template.h"
#include "gtsv_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "../core/template.h"
#include "gtsv_ref.c"
#undef TL_TEMPLATE_PASS

static int gtsv_system(const tl_algorithm *self, const tl_batch *one, void *x,
                       const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  if (one->dtype == TL_F64)
    return tl_gtsv_ref_d(one->n, one->a, one->b, one->c, one->d, x, info);
  return tl_gtsv_ref_z(one->n, one->a, one->b, one->c, one->d, x, info);
}

static int gtsv_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                      const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, gtsv_system);
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
  /* LAPACK overwrites its arguments: hand it copies. */
  if (n > 1) {
    memcpy(dl, a + 1, (n - 1) * sizeof(S));
    memcpy(du, c, (n - 1) * sizeof(S));
  }
  memcpy(dd, b, n * sizeof(S));
  memcpy(x, d, n * sizeof(S));
  lapack_int linfo = FN(lapack_gtsv)((lapack_int)n, dl, dd, du, x);
  free(work);
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
