/* reference/cr_ref.c -- cyclic reduction (CR), for any n >= 1.
 *
 * Source: R. W. Hockney (1965), "A fast direct solution of Poisson's
 * equation using Fourier analysis", J. ACM 12; B. L. Buzbee, G. H. Golub
 * and C. W. Nielson (1970), "On direct methods for solving Poisson's
 * equations", SIAM J. Numer. Anal. 7; Golub & Van Loan, Matrix
 * Computations. Paper 002 (Tridsolver), introduction, names CR beside
 * Thomas and PCR and cites R. A. Sweet (1977) for CR of arbitrary
 * dimension. Here n is arbitrary in the simplest way: a row at either end
 * of a level that lacks a neighbour just has nothing to eliminate there.
 * Symbols: the usual CR letters, which are ours (paper 002 eq. (1) has
 * a, b, c, d and u for x, rows 0..N-1); alpha_i = -a_i / b_{i-h} and
 * gamma_i = -c_i / b_{i+h} are the elimination factors at stride h.
 *
 * Level k works on the rows i with (i + 1) divisible by h = 2^k (level 0:
 * all rows). Each row at an odd position of its level (i = 2h-1, 4h-1,
 * ...) eliminates x[i-h] and x[i+h] with its two even-position
 * neighbours, and so couples only to x[i-2h], x[i+2h]: the odd rows form a
 * tridiagonal system half the size. Repeat until one row is left, solve
 * it, then substitute back level by level. For n = 7:
 *
 *     A x = d (h = 1)      rows 1,3,5 reduced     level 1 (h = 2)
 *     | b c           |    | b c           |      unknowns x1 x3 x5
 *     | a b c         |    |   b   c       |  ->  | b c   |
 *     |   a b c       |    |   a b c       |      | a b c |
 *     |     a b c     |    |   a   b   c   |  ->  |   a b |
 *     |       a b c   |    |       a b c   |
 *     |         a b c |    |       a   b   |  ->  level 2 (h = 4):
 *     |           a b |    |           a b |      row 3 alone, b x3 = d
 *
 *   reduce row i (left l = i-h, right r = i+h; an absent r contributes 0):
 *     alpha = -a_i / b_l,     gamma = -c_i / b_r
 *     a_i' = alpha a_l        c_i' = gamma c_r
 *     b_i' = b_i + alpha c_l + gamma a_r
 *     d_i' = d_i + alpha d_l + gamma d_r
 *   last row (i = h-1, h the largest power of two <= n): x_i = d_i / b_i
 *   back-substitute the even positions of each level, deepest first:
 *     x_j = (d_j - a_j x_{j-h} - c_j x_{j+h}) / b_j
 *
 * Cost: 12 flops per reduced row and 5 per substituted row; at most n - 1
 * of each, so about 17n flops (Thomas: 8n). Reads a, b, c, d and writes x
 * (5 words per unknown, as Thomas), plus a 4n-word scratch copy that the
 * levels revisit: about 13n words read and 4n written there over all
 * levels, at a stride that doubles every level (out of cache each word
 * then costs a whole line). Parallel view: floor(log2 n) reduction steps,
 * one solve and floor(log2 n) substitution steps, each a synchronisation;
 * the step at stride h has about n / 2h independent rows, so the
 * parallelism halves at every level.
 *
 * Stability: CR is Gaussian elimination without pivoting on P A P^T, where
 * P orders the unknowns by the level that eliminates them (the reduced
 * system is the Schur complement of the even rows, whose block is
 * diagonal). For row diagonally dominant A every reduced system is row
 * diagonally dominant again and its dominance margins do not shrink
 * (with strict dominance the off-diagonal entries even shrink quickly
 * relative to the diagonal: D. Heller (1976), SIAM J. Numer. Anal. 13),
 * so a non-singular A gives no zero pivot and the growth is bounded.
 * Outside that class the solve returns TL_OUTSIDE_DOMAIN. A zero or
 * non-finite divisor, or a non-finite result, is a breakdown
 * (TL_ERR_BREAKDOWN with the original row). Unlike PCR, CR never divides
 * by the original diagonal of an odd row.
 *
 * Underflow. The back substitution x_j = (d_j - a_j x_{j-h} - c_j
 * x_{j+h}) / b_j is exact to eps relative to its terms, which row
 * dominance bounds; but where the terms are subnormal, each carries an
 * absolute error up to eps DBL_MIN, and row j+h, eliminated with x_j
 * exact at level h, then sees it multiplied by a_{j+h} / b_j -- any size
 * when the rows are scaled very differently (fuzzing found a dominant
 * complex matrix with rows near 1e-162 and 1e139 and d near 1e-321:
 * residual ratio 6e11). Thomas does not amplify such an error (row j+h is
 * eliminated with the same x_j). So when a back-substituted row's terms
 * are below 2 DBL_MIN, CR measures LAPACK's residual ratio of its answer
 * (O(n)) and returns TL_OUTSIDE_DOMAIN when it is >= 30.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "cr_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "cr_ref.c"
#undef TL_TEMPLATE_PASS

static int cr_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                    tl_info *info)
{
  (void)self;
  (void)opt;
  return tl_solve_each(sys, x, info, tl_cr_ref_d, tl_cr_ref_z);
}

const tl_algorithm tl_algo_cr_ref = {
    .name = "cr",
    .family = "cyclic-reduction",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_ROW_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = NULL,
    .nparams = 0,
    .summary = "cyclic reduction, any n: log2(n) halving levels, then back substitution, 17n flops",
    .source = "Hockney 1965; Buzbee, Golub & Nielson 1970; paper 002 (Tridsolver) introduction",
    .solve = cr_solve,
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

/* Scratch copy of the system. The corners a[0] and c[n-1] are not part of
 * a non-periodic system, so they are never read: the copy holds 0 there. */
static void FN(cr_copy)(size_t n, const S *a, const S *b, const S *c, const S *d, S *wa, S *wb,
                        S *wc, S *wd)
{
  for (size_t i = 0; i < n; i++) {
    wa[i] = (i > 0) ? a[i] : 0;
    wb[i] = b[i];
    wc[i] = (i + 1 < n) ? c[i] : 0;
    wd[i] = d[i];
  }
}

static int FN(cr_bad_divisor)(S v)
{
  return v == 0 || !ISFINITE(v);
}

/* One level at stride h (public: `tridlab trace` shows each): every odd-position row i = 2h-1, 4h-1, ...
 * eliminates its neighbours l = i-h (always there) and r = i+h (absent
 * past the end). The even rows are only read, so the rows are independent.
 * Returns the row of a zero or non-finite divisor, or -1. */
long FN(tl_cr_ref_reduce)(size_t n, size_t h, S *a, S *b, S *c, S *d)
{
  for (size_t i = 2 * h - 1; i < n; i += 2 * h) {
    size_t l = i - h, r = i + h;
    if (FN(cr_bad_divisor)(b[l]))
      return (long)l;
    /* Ratios before products: the product a_i c_l of entries near 1e292
     * overflows (near 5e-293 it underflows) before any division could help. */
    S alpha = -a[i] / b[l];
    S gamma = 0, a_r = 0, c_r = 0, d_r = 0; /* an absent right row adds nothing */
    if (r < n) {
      if (FN(cr_bad_divisor)(b[r]))
        return (long)r;
      gamma = -c[i] / b[r];
      a_r = a[r];
      c_r = c[r];
      d_r = d[r];
    }
    /* Row l couples to x[l-h] only if that row exists (else a[l] is 0). */
    a[i] = (l >= h) ? alpha * a[l] : 0;
    c[i] = (r < n && r + h < n) ? gamma * c_r : 0;
    b[i] = b[i] + alpha * c[l] + gamma * a_r;
    d[i] = d[i] + alpha * d[l] + gamma * d_r;
  }
  return -1;
}

/* Back substitution at stride h: the even-position rows j = h-1, 3h-1, ...
 * take their neighbours x[j-h], x[j+h] from the level below. b[j] was
 * checked when row j served as a divisor in cr_reduce at this level.
 * Sets *tiny when the terms of a row are near the underflow threshold.
 * Returns the first row whose value is not finite, or -1. */
long FN(tl_cr_ref_back)(size_t n, size_t h, const S *a, const S *b, const S *c, const S *d, S *x,
                        int *tiny)
{
  for (size_t j = h - 1; j < n; j += 2 * h) {
    S s = d[j], left = (j >= h) ? a[j] * x[j - h] : 0, right = (j + h < n) ? c[j] * x[j + h] : 0;
    s -= left;
    s -= right;
    if (ABS(d[j]) + ABS(left) + ABS(right) < 2 * DBL_MIN)
      *tiny = 1;
    x[j] = s / b[j];
    if (!ISFINITE(x[j]))
      return (long)j;
  }
  return -1;
}

int FN(tl_cr_ref)(size_t n, const S *a, const S *b, const S *c, const S *d, S *x, tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "cr: n must be >= 1 and no array may be NULL");
  S *w = tl_alloc(n, 4 * sizeof(S));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "cr: no memory for %zu scratch rows", n);
  S *wa = w, *wb = w + n, *wc = w + 2 * n, *wd = w + 3 * n;
  FN(cr_copy)(n, a, b, c, d, wa, wb, wc, wd);

  /* Reduce while the level has at least two rows (n / h >= 2). */
  size_t h = 1;
  int level = 0;
  for (; h <= n / 2; h *= 2, level++) {
    long bad = FN(tl_cr_ref_reduce)(n, h, wa, wb, wc, wd);
    if (bad >= 0) {
      free(w);
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                     "cr: zero or non-finite pivot b at row %ld, reduction level %d (cyclic "
                     "reduction without pivoting breaks down; try gtsv)",
                     bad, level);
    }
  }

  /* One row left: i = h - 1 couples to nothing else. */
  size_t last = h - 1;
  if (FN(cr_bad_divisor)(wb[last])) {
    free(w);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)last, "",
                   "cr: zero or non-finite pivot b at row %zu, the last reduced row (cyclic "
                   "reduction without pivoting breaks down; try gtsv)",
                   last);
  }
  x[last] = wd[last] / wb[last];
  long bad = ISFINITE(x[last]) ? -1 : (long)last;
  int tiny = 0;
  for (size_t g = h / 2; g > 0 && bad < 0; g /= 2)
    bad = FN(tl_cr_ref_back)(n, g, wa, wb, wc, wd, x, &tiny);
  free(w);
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                   "cr: overflow in the back substitution at row %ld", bad);

  /* Domain: row diagonal dominance keeps every reduced system dominant. */
  long worst = -1;
  if (CLASSES(n, a, b, c, 0, &worst) & TL_CLASS_ROW_DD)
    return tiny ? tl_residual_check("cr", TL_IS_COMPLEX ? TL_C128 : TL_F64, n, 0, a, b, c, d, x,
                                    "its back substitution ran near the underflow threshold, "
                                    "where an error of eps DBL_MIN in x[j] reaches row j+h "
                                    "multiplied by a[j+h] / b[j]",
                                    info)
                : TL_OK;
  return TL_WARN(info, worst,
                 "cr: matrix is not row diagonally dominant (row %ld); cyclic reduction "
                 "without pivoting has no stability guarantee here",
                 worst);
}

#endif
