/* reference/thomas_ref.c -- the Thomas algorithm (no pivoting).
 *
 * Source: paper 000 (DistD2-TDS), §2.1, Algorithm 1; L. H. Thomas (1949).
 * Symbols: paper 000 uses our letters a, b, c, d and u for x; its
 * 1-based rows 1..n are our 0..n-1; its overwritten c_i is our cp[i].
 *
 * Gaussian elimination specialised to three diagonals. The forward pass
 * eliminates the lower diagonal and scales each row so its pivot is 1:
 *
 *   | b0 c0          |      | 1 c'0           |      | 1               |
 *   | a1 b1 c1       |  ->  |   1  c'1        |  ->  |   1             |
 *   |    a2 b2 c2    |      |      1  c'2     |      |      1          |
 *   |       a3 b3    |      |         1       |      |         1       |
 *      A x = d             forward pass            backward pass: x
 *
 *   c'0 = c0 / b0,            d'0 = d0 / b0
 *   p_i = b_i - a_i c'_{i-1}  (the pivot of row i)
 *   c'_i = c_i / p_i,         d'_i = (d_i - a_i d'_{i-1}) / p_i
 *   x_{n-1} = d'_{n-1},       x_i = d'_i - c'_i x_{i+1}
 *
 * Cost: 8n flops (3 divisions become 1 reciprocal + 2 multiplications in
 * Algorithm 1); reads a, b, c, d and writes x: 5 words per unknown, plus
 * n words of scratch c'. Serial: each row needs the previous one.
 *
 * Stability (Higham, Accuracy and Stability of Numerical Algorithms,
 * §9.5): without pivoting the method is backward stable when A is
 * diagonally dominant by rows or by columns, or symmetric positive
 * definite. Outside these classes a pivot can be tiny and the error
 * unbounded, so the solve returns TL_OUTSIDE_DOMAIN. A zero or non-finite
 * pivot is a breakdown (TL_ERR_BREAKDOWN with its row).
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"

/* Symmetric matrices with positive pivots are positive definite (the
 * pivots are the ratios of leading minors), which is in Thomas's domain. */
static int symmetric_d(size_t n, const double *a, const double *c)
{
  for (size_t i = 0; i + 1 < n; i++)
    if (a[i + 1] != c[i])
      return 0;
  return 1;
}

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "thomas_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "thomas_ref.c"
#undef TL_TEMPLATE_PASS

static int thomas_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                        const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  return tl_solve_each(sys, x, info, tl_thomas_ref_d, tl_thomas_ref_z);
}

const tl_algorithm tl_algo_thomas_ref = {
    .name = "thomas",
    .family = "direct",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD | TL_CLASS_SPD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = NULL,
    .nparams = 0,
    .summary = "Thomas algorithm: Gaussian elimination without pivoting, 8n flops",
    .source = "paper 000 (DistD2-TDS) §2.1 Algorithm 1; Thomas 1949",
    .solve = thomas_solve,
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

/* Forward pass (public: `tridlab trace` shows it): afterwards row i reads x[i] + cp[i] x[i+1] = dp[i].
 * dp shares storage with x. Returns the row of a zero or non-finite pivot,
 * or -1. *all_positive tells whether every pivot was real and > 0. */
long FN(tl_thomas_ref_forward)(size_t n, const S *a, const S *b, const S *c, const S *d, S *cp,
                               S *dp, int *all_positive)
{
  *all_positive = 1;
  for (size_t i = 0; i < n; i++) {
    S pivot = (i == 0) ? b[0] : b[i] - a[i] * cp[i - 1];
    if (pivot == 0 || !ISFINITE(pivot))
      return (long)i;
#if TL_IS_COMPLEX
    *all_positive = 0; /* positive-definiteness is only detected for real systems */
#else
    if (!(pivot > 0))
      *all_positive = 0;
#endif
    cp[i] = (i + 1 < n) ? c[i] / pivot : 0;
    dp[i] = (i == 0) ? d[0] / pivot : (d[i] - a[i] * dp[i - 1]) / pivot;
  }
  return -1;
}

/* Backward pass: x[i] = dp[i] - cp[i] x[i+1], in place on x. Returns the
 * first row whose value is not finite (overflow), or -1. */
long FN(tl_thomas_ref_backward)(size_t n, const S *cp, S *x)
{
  for (size_t k = n; k-- > 0;) {
    if (k + 1 < n)
      x[k] = x[k] - cp[k] * x[k + 1];
    if (!ISFINITE(x[k]))
      return (long)k;
  }
  return -1;
}

int FN(tl_thomas_ref)(size_t n, const S *a, const S *b, const S *c, const S *d, S *x,
                      tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "thomas: n must be >= 1 and no array may be NULL");
  S *cp = tl_alloc(n, sizeof(S));
  if (!cp)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas: no memory for %zu scratch entries", n);

  int all_positive = 0;
  long bad = FN(tl_thomas_ref_forward)(n, a, b, c, d, cp, x, &all_positive);
  if (bad >= 0) {
    free(cp);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                   "thomas: zero or non-finite pivot at row %ld (elimination without pivoting "
                   "breaks down; try gtsv)",
                   bad);
  }
  bad = FN(tl_thomas_ref_backward)(n, cp, x);
  free(cp);
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                   "thomas: overflow in the backward pass at row %ld", bad);

  /* Domain: diagonally dominant by rows or columns, or SPD. */
  long worst = -1;
  unsigned cls = CLASSES(n, a, b, c, 0, &worst);
  if (cls & (TL_CLASS_ROW_DD | TL_CLASS_COL_DD))
    return TL_OK;
#if !TL_IS_COMPLEX
  if (all_positive && symmetric_d(n, a, c))
    return TL_OK; /* symmetric with positive pivots: positive definite */
#endif
  return TL_WARN(info, worst,
                 "thomas: matrix is not diagonally dominant (row %ld) nor found symmetric "
                 "positive definite; Thomas without pivoting has no stability guarantee here",
                 worst);
}

#endif
