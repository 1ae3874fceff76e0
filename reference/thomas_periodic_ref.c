/* reference/thomas_periodic_ref.c -- cyclic tridiagonal systems by the
 * Sherman-Morrison formula ("periodic Thomas").
 *
 * Source: paper 000 (DistD2-TDS), §2.1 (periodic Thomas, its ref. [9]);
 * Sherman & Morrison (1950); the classic presentation is Temperton (1975)
 * and Press et al., Numerical Recipes, §2.7 "cyclic tridiagonal systems".
 * Symbols: paper 000 names the periodic variant without printing the
 * cyclic matrix; in its 1-based a, b, c notation the corners are a_1 and
 * c_n (docs/notation.md). Ours are a[0] (row 0, multiplies x[n-1]) and
 * c[n-1] (row n-1, multiplies x[0]).
 *
 * A cyclic matrix is a tridiagonal B plus a rank-one correction u v^T:
 *
 *   | b0 c0       a0 |   | b0-g c0            |   | g        |
 *   | a1 b1 c1       |   | a1   b1 c1         |   | 0        |
 *   |    a2 b2 c2    | = |      a2 b2 c2      | + | 0        | [1 0 0 0 a0/g]
 *   | c4       a4 b4 |   |         a4 b4-a0c4/g|   | c4       |
 *         A                       B                  u          v^T
 *
 * with any g != 0 (we take g = -b0, which keeps B dominant when A is).
 * Then, by Sherman-Morrison,
 *
 *   B y = d,  B z = u,   x = y - (v.y) / (1 + v.z) z.
 *
 * Two Thomas solves with the same matrix, one dot product of two entries,
 * one update: about 17n flops; reads a, b, c, d, writes x, with 3n scratch
 * (B's diagonal, u, z) plus the n of each inner Thomas solve.
 *
 * Failure modes, each detected and reported:
 *  - b[0] = 0 makes g = -b0 zero: we take g = -1 instead, and the solve
 *    is outside the domain (B may then be far from dominant).
 *  - 1 + v.z = 0 (or not finite): A is singular, or B is; breakdown.
 *  - B not diagonally dominant: the inner Thomas solves carry no
 *    guarantee; reported as outside the domain.
 * Domain: A strictly diagonally dominant by rows (then B is dominant
 * too and 1 + v.z = det A / det B cannot vanish). Weakly dominant cyclic
 * matrices can be singular (cyclic tridiag(-1, 2, -1) annihilates the
 * constant vector), so they are reported as outside the domain.
 *
 * n = 1 and n = 2 fold onto themselves (tridlab/system.h) and are solved
 * directly as 1x1 and 2x2 systems.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "thomas_periodic_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "thomas_periodic_ref.c"
#undef TL_TEMPLATE_PASS

static int thomas_periodic_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                                 const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  return tl_solve_each(sys, x, info, tl_thomas_periodic_ref_d, tl_thomas_periodic_ref_z);
}

const tl_algorithm tl_algo_thomas_periodic_ref = {
    .name = "thomas_periodic",
    .family = "direct",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_PERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = NULL,
    .nparams = 0,
    .summary = "periodic Thomas: Sherman-Morrison correction of two Thomas solves",
    .source = "paper 000 (DistD2-TDS) §2.1 (periodic Thomas); Sherman-Morrison 1950",
    .solve = thomas_periodic_solve,
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

/* n = 1: s x = d with s = a + b + c as tl_periodic1_entry computes it.
 * n = 2: [b0, a0+c0; a1+c1, b1] x = d, by elimination with partial
 * pivoting (Cramer's rule is not backward stable: on a nearly singular
 * 2x2 its residual can be 1e11 eps). */
static int FN(periodic_tiny)(size_t n, const S *a, const S *b, const S *c, const S *d, S *x,
                             tl_info *info)
{
  if (n == 1) {
    S s = PERIODIC1(a[0], b[0], c[0]);
    if (s == 0 || !ISFINITE(s))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, 0, "",
                     "thomas_periodic: n = 1 and the 1x1 entry a[0] + b[0] + c[0] is %s",
                     s == 0 ? "0 (singular)" : "not finite (it overflows)");
    x[0] = d[0] / s;
  } else {
    S m[2][2] = {{b[0], a[0] + c[0]}, {a[1] + c[1], b[1]}}, r[2] = {d[0], d[1]};
    int top = ABS(m[1][0]) > ABS(m[0][0]); /* the pivot row */
    int bot = 1 - top;
    if (m[top][0] == 0)
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, 0, "",
                     "thomas_periodic: n = 2 and the 2x2 matrix is singular");
    S l = m[bot][0] / m[top][0];
    S u11 = m[bot][1] - l * m[top][1];
    if (u11 == 0 || !ISFINITE(u11))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, 1, "",
                     "thomas_periodic: n = 2 and the 2x2 matrix is singular");
    x[1] = (r[bot] - l * r[top]) / u11;
    x[0] = (r[top] - m[top][1] * x[1]) / m[top][0];
  }
  if (!ISFINITE(x[0]) || !ISFINITE(x[n - 1]))
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, 0, "", "thomas_periodic: overflow");
  long worst = -1;
  if (!(CLASSES(n, a, b, c, 1, &worst) & TL_CLASS_STRICT_DD))
    return TL_WARN(info, worst,
                   "thomas_periodic: the %zux%zu cyclic matrix is not strictly diagonally "
                   "dominant (row %ld)",
                   n, n, worst);
  return TL_OK;
}

/* The tridiagonal part B of A = B + u v^T, and u, for the shift g. */
void FN(tl_thomas_periodic_split)(size_t n, const S *a, const S *b, const S *c, S g, S *bmod, S *u)
{
  for (size_t i = 0; i < n; i++) {
    bmod[i] = b[i];
    u[i] = 0;
  }
  bmod[0] = b[0] - g;
  bmod[n - 1] = b[n - 1] - a[0] * (c[n - 1] / g);
  u[0] = g;
  u[n - 1] = c[n - 1];
}

/* Sherman-Morrison's correction of y (in x) with z = B^-1 u. */
int FN(tl_thomas_periodic_correct)(size_t n, S a0, S g, const S *z, S *x, tl_info *info)
{
  /* Sherman-Morrison: v = (1, 0, ..., 0, a0/g). */
  S vy = x[0] + (a0 / g) * x[n - 1];
  S denom = 1 + z[0] + (a0 / g) * z[n - 1];
  if (denom == 0 || !ISFINITE(denom))
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, 0, "",
                   "thomas_periodic: 1 + v.z = 0 in the Sherman-Morrison formula (the cyclic "
                   "matrix is singular)");
  S factor = vy / denom;
  long bad = -1;
  for (size_t i = 0; i < n; i++) {
    x[i] -= factor * z[i];
    if (bad < 0 && !ISFINITE(x[i]))
      bad = (long)i;
  }
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                   "thomas_periodic: overflow in the correction at row %ld", bad);
  return TL_OK;
}

int FN(tl_thomas_periodic_ref)(size_t n, const S *a, const S *b, const S *c, const S *d, S *x,
                               tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "thomas_periodic: n must be >= 1 and no array may be NULL");
  if (n <= 2)
    return FN(periodic_tiny)(n, a, b, c, d, x, info);

  int gamma_fallback = (b[0] == 0);
  S g = gamma_fallback ? -1 : -b[0];
  S *work = tl_alloc(3 * n, sizeof(S));
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_periodic: no memory");
  S *bmod = work, *u = work + n, *z = work + 2 * n;
  FN(tl_thomas_periodic_split)(n, a, b, c, g, bmod, u);

  /* The inner solves see only the tridiagonal B: corners of B are zero by
   * construction, and non-periodic Thomas never reads a[0], c[n-1]. */
  tl_info inner;
  tl_info_clear(&inner);
  int sy = FN(tl_thomas_ref)(n, a, bmod, c, d, x, &inner); /* x holds y */
  int sz = sy < 0 ? sy : FN(tl_thomas_ref)(n, a, bmod, c, u, z, &inner);
  if (sy == TL_ERR_NOMEM || sz == TL_ERR_NOMEM) {
    free(work);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "thomas_periodic: no memory");
  }
  if (sy < 0 || sz < 0) {
    free(work);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, inner.row, "",
                   "thomas_periodic: the tridiagonal part B breaks down at row %ld (%s)",
                   inner.row, gamma_fallback ? "b[0] = 0 forced gamma = -1" : "B is singular");
  }

  int st = FN(tl_thomas_periodic_correct)(n, a[0], g, z, x, info);
  free(work);
  if (st < 0)
    return st;

  long worst = -1;
  if (gamma_fallback)
    return TL_WARN(info, 0,
                   "thomas_periodic: b[0] = 0, so gamma = -b[0] is unusable; solved with "
                   "gamma = -1, without a stability guarantee");
  if (!(CLASSES(n, a, b, c, 1, &worst) & TL_CLASS_STRICT_DD))
    return TL_WARN(info, worst,
                   "thomas_periodic: cyclic matrix not strictly diagonally dominant (row %ld); "
                   "it may be singular and Sherman-Morrison has no stability guarantee",
                   worst);
  if (sy == TL_OUTSIDE_DOMAIN || sz == TL_OUTSIDE_DOMAIN)
    return TL_WARN(info, inner.row,
                   "thomas_periodic: the modified matrix B is not diagonally dominant (row %ld)",
                   inner.row);
  return TL_OK;
}

#endif
