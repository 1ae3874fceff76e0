/* convergence/compact.c -- compact finite-difference operators as
 * tridiagonal systems.
 *
 * Source: S. K. Lele (1992), J. Comput. Phys. 103, 16-42 (the family of
 * tridiagonal schemes, the 4th- and 6th-order first derivatives and the
 * 6th-order second derivative, one-sided boundary closures); paper 000
 * (DistD2-TDS) §4.2, eq. 2 uses the 6th-order first derivative. Lele
 * writes f'_i for the derivative and f_i for the samples; here f is the
 * derivative and u the samples, and Lele's alpha, a, b keep their names.
 *
 * Interior row i (first derivative, m = 1; second derivative, m = 2):
 *
 *   alpha f[i-1] + f[i] + alpha f[i+1]
 *     m = 1:  = a (u[i+1] - u[i-1]) / (2h) + b (u[i+2] - u[i-2]) / (4h)
 *     m = 2:  = a (u[i+1] - 2u[i] + u[i-1]) / h^2 + b (u[i+2] - 2u[i] + u[i-2]) / (4h^2)
 *
 *   scheme   m  alpha  a      b      order
 *   pade4    1  1/4    3/2    0      4
 *   lele6    1  1/3    14/9   1/9    6
 *   d2-6th   2  2/11   12/11  3/11   6
 *
 * The matrices, periodic (corners alpha) and with closures (lele6 shown):
 *
 *   | 1  al          al |        | 1    2                   |  row 0   closure, 3rd order
 *   | al 1  al          |        | 1/4  1    1/4            |  row 1   Pade, 4th order
 *   |    al 1  al       |        |      1/3  1    1/3       |  interior, 6th order
 *   |       al 1  al    |        |           ...  ...  ...  |
 *   |          al 1  al |        |           1/4  1    1/4  |  row n-2 mirror of row 1
 *   | al          al 1  |        |                2    1    |  row n-1 mirror of row 0
 *
 * Boundary closures: each scheme has closure families (the table
 * `schemes` below; right end = mirror image of the left end, weights
 * times (-1)^m). The default, "closure", is the one above:
 *   first derivative, row 0:  f0 + 2 f1 = (-5/2 u0 + 2 u1 + 1/2 u2) / h        3rd order
 *   lele6, row 1:             Pade 4th-order row [1/4, 1, 1/4], rhs (3/2)(u2 - u0)/(2h)
 *   second derivative, row 0: f0 + 11 f1 = (13 u0 - 27 u1 + 15 u2 - u3) / h^2  3rd order
 *   d2-6th, row 1:            [1/10, 1, 1/10], rhs (6/5)(u2 - 2u1 + u0)/h^2     4th order
 * Rows 0 and n-1 put 2 (or 11) beside a diagonal of 1: those rows are NOT
 * diagonally dominant, so Thomas-like solvers without pivoting leave their
 * guaranteed domain there (they report TL_OUTSIDE_DOMAIN) although the
 * matrices stay well conditioned (cond_1 about 30, and 1.5e3 for d2-6th).
 * The global error is set by the lowest-order row: O(h^3) in the max norm.
 * The other families: "lele4" (Lele's alpha = 3 row, 4th order; f0 + 10 f1
 * for the second derivative), "lele4-singular" (lele6 only: the alpha = 3
 * row above a row 1 with the interior's [1/3, 1, 1/3], whose leading 2 x 2
 * block [[1, 3], [1/3, 1]] is exactly singular: Thomas meets a zero pivot
 * at row 1 although the matrix is not singular), "explicit5" and
 * "explicit6" (explicit one-sided rows, diagonal left-hand side: the
 * matrix is strictly diagonally dominant, and explicit6 keeps the global
 * order 6 of lele6 and d2-6th). docs/convergence.md has every family with
 * its measured orders.
 *
 * Cost of building a system: `width` multiply-adds per row (3 to 8), reads
 * u and writes a, b, c, d (5 words per point); the solve is the chosen
 * algorithm's. A production code would store the constant matrix once and
 * stream u -> f (2 words per point, docs/design.md §7); the explicit arrays
 * here let any registry algorithm solve the system unchanged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/convergence.h"

/* Every row's `order` is checked by tests/test_convergence.c (exact on
 * polynomials of degree order + m - 1, not on degree order + m). The
 * interior weights of u[i-2] .. u[i+2] are
 *   first derivative:   -b/4, -a/2, 0, a/2, b/4
 *   second derivative:   b/4,  a, -2a - b/2, a, b/4
 * The closure rows below were derived by Taylor matching (exact rational
 * arithmetic: the row is exact on 1, x, ..., x^(order+m-1)); the explicit
 * ones are the one-sided stencils of Fornberg's tables (B. Fornberg
 * (1988), Math. Comp. 51, 699-706). */

/* First derivative. */
/* f0 + 2 f1 = (-5/2 u0 + 2 u1 + 1/2 u2) / h, 3rd order (Lele 1992). */
#define D1_3RD                                                                                     \
  {                                                                                                \
    {0.0, 1.0, 2.0}, 0, 3, {-2.5, 2.0, 0.5}, 3                                                     \
  }
/* Pade at row 1: (1/4) f0 + f1 + (1/4) f2 = (3/4)(u2 - u0) / h, 4th order. */
#define D1_PADE                                                                                    \
  {                                                                                                \
    {0.25, 1.0, 0.25}, -1, 3, {-0.75, 0.0, 0.75}, 4                                                \
  }
/* Lele's alpha = 3 row: f0 + 3 f1 = (-17/6 u0 + 3/2 u1 + 3/2 u2 - 1/6 u3) / h,
 * 4th order (truncation error (1/20) h^4 u^(5)). */
#define D1_LELE4                                                                                   \
  {                                                                                                \
    {0.0, 1.0, 3.0}, 0, 4, {-17.0 / 6.0, 1.5, 1.5, -1.0 / 6.0}, 4                                  \
  }
/* The interior's alpha at row 1 with a one-sided right-hand side:
 * (1/3) f0 + f1 + (1/3) f2 = (-11/12 u0 + 5/18 u1 + 1/2 u2 + 1/6 u3 - 1/36 u4) / h,
 * 4th order. Below the alpha = 3 row it makes the leading block
 * [[1, 3], [1/3, 1]] exactly singular. */
#define D1_ROW1_ALPHA                                                                              \
  {                                                                                                \
    {1.0 / 3.0, 1.0, 1.0 / 3.0}, -1, 5, {-11.0 / 12.0, 5.0 / 18.0, 0.5, 1.0 / 6.0, -1.0 / 36.0}, 4 \
  }
/* Explicit one-sided rows (diagonal left-hand side), 5th order (6 points)
 * and 6th order (7 points), at rows 0 and 1. */
#define D1_EXP5_0                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, 0, 6, {-137.0 / 60.0, 5.0, -5.0, 10.0 / 3.0, -1.25, 0.2}, 5                   \
  }
#define D1_EXP5_1                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, -1, 6, {-0.2, -13.0 / 12.0, 2.0, -1.0, 1.0 / 3.0, -0.05}, 5                   \
  }
#define D1_EXP6_0                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, 0, 7, {-49.0 / 20.0, 6.0, -7.5, 20.0 / 3.0, -3.75, 1.2, -1.0 / 6.0}, 6        \
  }
#define D1_EXP6_1                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, -1, 7,                                                                        \
        {-1.0 / 6.0, -77.0 / 60.0, 2.5, -5.0 / 3.0, 5.0 / 6.0, -0.25, 1.0 / 30.0}, 6               \
  }

/* Second derivative. */
/* f0 + 11 f1 = (13 u0 - 27 u1 + 15 u2 - u3) / h^2, 3rd order (Lele 1992). */
#define D2_3RD                                                                                     \
  {                                                                                                \
    {0.0, 1.0, 11.0}, 0, 4, {13.0, -27.0, 15.0, -1.0}, 3                                           \
  }
/* Row 1: (1/10) f0 + f1 + (1/10) f2 = (6/5)(u0 - 2 u1 + u2) / h^2, 4th order. */
#define D2_ROW1                                                                                    \
  {                                                                                                \
    {0.1, 1.0, 0.1}, -1, 3, {1.2, -2.4, 1.2}, 4                                                    \
  }
/* f0 + 10 f1 = (145/12 u0 - 76/3 u1 + 29/2 u2 - 4/3 u3 + 1/12 u4) / h^2,
 * 4th order: the [1, 11] row with one more point. Above the [1/10, 1,
 * 1/10] row 1 its leading block [[1, 10], [1/10, 1]] is exactly
 * singular. */
#define D2_LELE4                                                                                   \
  {                                                                                                \
    {0.0, 1.0, 10.0}, 0, 5, {145.0 / 12.0, -76.0 / 3.0, 14.5, -4.0 / 3.0, 1.0 / 12.0}, 4           \
  }
/* The interior's alpha at row 1 with a one-sided right-hand side:
 * (2/11) f0 + f1 + (2/11) f2 = (3/2 u0 - 147/44 u1 + 27/11 u2 - 21/22 u3
 * + 9/22 u4 - 3/44 u5) / h^2, 4th order; below f0 + 10 f1 the leading
 * block [[1, 10], [2/11, 1]] has determinant -9/11. */
#define D2_ROW1_ALPHA                                                                              \
  {                                                                                                \
    {2.0 / 11.0, 1.0, 2.0 / 11.0}, -1, 6,                                                          \
        {1.5, -147.0 / 44.0, 27.0 / 11.0, -21.0 / 22.0, 9.0 / 22.0, -3.0 / 44.0}, 4                \
  }
/* Explicit one-sided rows, 5th order (7 points) and 6th order (8 points). */
#define D2_EXP5_0                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, 0, 7,                                                                         \
        {203.0 / 45.0, -87.0 / 5.0, 117.0 / 4.0, -254.0 / 9.0, 16.5, -5.4, 137.0 / 180.0}, 5       \
  }
#define D2_EXP5_1                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, -1, 7, {137.0 / 180.0, -49.0 / 60.0, -17.0 / 12.0, 47.0 / 18.0,               \
                             -19.0 / 12.0,  31.0 / 60.0,  -13.0 / 180.0},                          \
        5                                                                                          \
  }
#define D2_EXP6_0                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, 0, 8,                                                                         \
        {469.0 / 90.0, -22.3, 879.0 / 20.0, -949.0 / 18.0, 41.0, -20.1, 1019.0 / 180.0, -0.7}, 6   \
  }
#define D2_EXP6_1                                                                                  \
  {                                                                                                \
    {0.0, 1.0, 0.0}, -1, 8, {0.7, -7.0 / 18.0, -2.7, 4.75, -67.0 / 18.0, 1.8, -0.5, 11.0 / 180.0}, \
        6                                                                                          \
  }

#define SRC_LELE "Lele (1992), J. Comput. Phys. 103, 16-42"
#define SRC_LELE_ALPHA3                                                                            \
  "Lele (1992): the alpha = 3 boundary row of the family f0 + alpha f1 = (a u0 + b u1 + c u2 + "   \
  "d u3) / h"
#define SRC_TAYLOR "derived here by Taylor matching"
#define SRC_D2_LELE4                                                                               \
  "derived here by Taylor matching: the [1, 11] row of Lele (1992) with one more point"
#define SRC_FORNBERG "explicit one-sided stencils: Fornberg (1988), Math. Comp. 51, 699-706"

/* The explicit families of each scheme (rows 0 .. nrows-1). */
#define EXPLICIT(ord, nr, r0, r1, minn, omax, ol2)                                                 \
  {                                                                                                \
    "explicit" #ord, "explicit " #ord "th-order one-sided closures", nr, {r0, r1}, minn, omax,     \
        ol2, 0, SRC_FORNBERG                                                                       \
  }

static const tl_compact_scheme schemes[] = {
    {
        .name = "pade4",
        .derivative = 1,
        .order = 4,
        .alpha = 0.25,
        .a = 1.5,
        .b = 0.0,
        .interior = {{0.25, 1.0, 0.25}, -1, 3, {-0.75, 0.0, 0.75}, 4},
        .nclosures = 4,
        .closures =
            {
                /* n = 3 with closures is singular */
                {"closure", "3rd-order closures", 1, {D1_3RD}, 4, 3.0, 3.5, 0, SRC_LELE},
                /* n = 4 is singular */
                {"lele4",
                 "Lele's 4th-order closures (alpha = 3)",
                 1,
                 {D1_LELE4},
                 5,
                 4.0,
                 4.5,
                 0,
                 SRC_LELE_ALPHA3},
                EXPLICIT(5, 1, D1_EXP5_0, {{0}}, 6, 4.0, 4.0),
                EXPLICIT(6, 1, D1_EXP6_0, {{0}}, 7, 4.0, 4.0),
            },
        .min_n_periodic = 3,
        .summary = "first derivative, Pade [1/4, 1, 1/4], 4th order",
    },
    {
        .name = "lele6",
        .derivative = 1,
        .order = 6,
        .alpha = 1.0 / 3.0,
        .a = 14.0 / 9.0,
        .b = 1.0 / 9.0,
        .interior = {{1.0 / 3.0, 1.0, 1.0 / 3.0},
                     -2,
                     5,
                     {-1.0 / 36.0, -7.0 / 9.0, 0.0, 7.0 / 9.0, 1.0 / 36.0},
                     6},
        .nclosures = 5,
        .closures =
            {
                /* row 0: the 3rd-order closure; row 1: Pade, 4th order */
                {"closure", "3rd-order closures", 2, {D1_3RD, D1_PADE}, 5, 3.0, 3.5, 0, SRC_LELE},
                /* row 0: alpha = 3, row 1: Pade (n = 4 is singular) */
                {"lele4",
                 "Lele's 4th-order closures (alpha = 3), Pade row 1",
                 2,
                 {D1_LELE4, D1_PADE},
                 5,
                 4.0,
                 4.5,
                 0,
                 SRC_LELE_ALPHA3},
                /* row 0: alpha = 3, row 1: the interior's alpha (n = 5 is singular) */
                {"lele4-singular",
                 "Lele's alpha = 3 closure above a [1/3, 1, 1/3] row 1",
                 2,
                 {D1_LELE4, D1_ROW1_ALPHA},
                 6,
                 4.0,
                 4.5,
                 1,
                 SRC_LELE_ALPHA3 "; row 1 " SRC_TAYLOR},
                EXPLICIT(5, 2, D1_EXP5_0, D1_EXP5_1, 6, 5.0, 5.5),
                EXPLICIT(6, 2, D1_EXP6_0, D1_EXP6_1, 7, 6.0, 6.5),
            },
        .min_n_periodic = 5,
        .summary = "first derivative, Lele [1/3, 1, 1/3], 6th order",
    },
    {
        .name = "d2-6th",
        .derivative = 2,
        .order = 6,
        .alpha = 2.0 / 11.0,
        .a = 12.0 / 11.0,
        .b = 3.0 / 11.0,
        .interior = {{2.0 / 11.0, 1.0, 2.0 / 11.0},
                     -2,
                     5,
                     {3.0 / 44.0, 12.0 / 11.0, -51.0 / 22.0, 12.0 / 11.0, 3.0 / 44.0},
                     6},
        .nclosures = 5,
        .closures =
            {
                /* row 0: f0 + 11 f1, 3rd order; row 1: [1/10, 1, 1/10], 4th order
                 * (n = 4 is singular) */
                {"closure", "3rd-order closures", 2, {D2_3RD, D2_ROW1}, 5, 3.0, 3.5, 0, SRC_LELE},
                /* row 0: f0 + 10 f1, 4th order; row 1: the interior's alpha */
                {"lele4",
                 "4th-order closures (f0 + 10 f1), [2/11, 1, 2/11] row 1",
                 2,
                 {D2_LELE4, D2_ROW1_ALPHA},
                 6,
                 4.0,
                 4.5,
                 0,
                 SRC_D2_LELE4},
                /* row 0: f0 + 10 f1, row 1: [1/10, 1, 1/10], both the standard
                 * 4th-order rows (n = 5 is singular) */
                {"lele4-singular",
                 "f0 + 10 f1 above the 4th-order [1/10, 1, 1/10] row 1",
                 2,
                 {D2_LELE4, D2_ROW1},
                 6,
                 4.0,
                 4.5,
                 1,
                 SRC_D2_LELE4},
                EXPLICIT(5, 2, D2_EXP5_0, D2_EXP5_1, 7, 5.0, 5.5),
                EXPLICIT(6, 2, D2_EXP6_0, D2_EXP6_1, 8, 6.0, 6.5),
            },
        .min_n_periodic = 5,
        .summary = "second derivative, [2/11, 1, 2/11], 6th order",
    },
};

size_t tl_compact_count(void)
{
  return sizeof schemes / sizeof schemes[0];
}

const tl_compact_scheme *tl_compact_get(size_t index)
{
  return index < tl_compact_count() ? &schemes[index] : NULL;
}

const tl_compact_scheme *tl_compact_find(const char *name)
{
  for (size_t k = 0; name && k < tl_compact_count(); k++)
    if (strcmp(schemes[k].name, name) == 0)
      return &schemes[k];
  return NULL;
}

/* sum_j w_j u[i + first + j] with indices taken modulo n. */
static double rhs_periodic(const tl_compact_row *row, size_t n, size_t i, const double *u)
{
  double s = 0.0;
  long N = (long)n;
  for (int j = 0; j < row->width; j++) {
    long k = ((long)i + row->first + j) % N;
    s += row->rhs[j] * u[k < 0 ? k + N : k];
  }
  return s;
}

/* Row i of a closure grid at distance r from its end: the left end reads
 * u[r + first + j]; the right end (mirror) reads u[n-1 - (r + first + j)]
 * with weights times sign = (-1)^m. */
static double rhs_closure(const tl_compact_row *row, size_t n, size_t r, int mirror, double sign,
                          const double *u)
{
  double s = 0.0;
  for (int j = 0; j < row->width; j++) {
    size_t k = (size_t)((long)r + row->first + j);
    s += mirror ? sign * row->rhs[j] * u[n - 1 - k] : row->rhs[j] * u[k];
  }
  return s;
}

const tl_compact_closure *tl_compact_closure_find(const tl_compact_scheme *s, const char *name)
{
  if (!s || !s->nclosures)
    return NULL;
  if (!name)
    return &s->closures[0];
  for (size_t k = 0; k < s->nclosures; k++)
    if (strcmp(s->closures[k].name, name) == 0)
      return &s->closures[k];
  return NULL;
}

const tl_compact_closure *tl_compact_closure_resolve(const tl_compact_scheme *s,
                                                     const tl_compact_closure *closure)
{
  if (!s || !s->nclosures)
    return NULL;
  if (!closure)
    return &s->closures[0];
  for (size_t k = 0; k < s->nclosures; k++)
    if (closure == &s->closures[k])
      return closure;
  return NULL;
}

/* The checks that do not depend on the arrays. */
static int check_grid(const tl_compact_scheme *s, const tl_compact_closure *closure, size_t n,
                      double h, tl_info *info)
{
  if (!s)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "scheme", "no scheme given");
  if (closure && tl_compact_closure_resolve(s, closure) != closure)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "closure", "closure '%s' is not one of %s's",
                   closure->name ? closure->name : "?", s->name);
  size_t min_n = closure ? closure->min_n : s->min_n_periodic;
  if (n < min_n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "%s on a %s grid needs n >= %zu, got %zu",
                   s->name, closure ? closure->name : "periodic", min_n, n);
  if (!(h > 0.0) || !isfinite(h))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "h", "grid spacing h = %g must be positive", h);
  return TL_OK;
}

int tl_compact_system_closed(const tl_compact_scheme *s, const tl_compact_closure *closure,
                             size_t n, double h, const double *u, double *a, double *b, double *c,
                             double *d, tl_info *info)
{
  tl_info_clear(info);
  TL_CALL(check_grid(s, closure, n, h, info));
  const void *ptrs[5] = {u, a, b, c, d};
  static const char *const names[5] = {"u", "a", "b", "c", "d"};
  for (int k = 0; k < 5; k++)
    if (!ptrs[k])
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, names[k], "array %s is NULL", names[k]);

  int periodic = closure == NULL;
  double scale = s->derivative == 1 ? 1.0 / h : 1.0 / (h * h);
  double sign = s->derivative == 1 ? -1.0 : 1.0; /* mirror x -> -x: f' changes sign */
  size_t nc = periodic ? 0 : (size_t)closure->nrows;
  for (size_t i = 0; i < n; i++) {
    const tl_compact_row *row = &s->interior;
    int mirror = 0;
    double rhs;
    if (periodic) {
      rhs = rhs_periodic(row, n, i, u);
    } else if (i < nc) {
      row = &closure->rows[i];
      rhs = rhs_closure(row, n, i, 0, sign, u);
    } else if (i >= n - nc) {
      row = &closure->rows[n - 1 - i];
      mirror = 1;
      rhs = rhs_closure(row, n, n - 1 - i, 1, sign, u);
    } else {
      rhs = rhs_closure(row, n, i, 0, sign, u);
    }
    a[i] = mirror ? row->lhs[2] : row->lhs[0];
    b[i] = row->lhs[1];
    c[i] = mirror ? row->lhs[0] : row->lhs[2];
    d[i] = rhs * scale;
  }
  if (!periodic)
    a[0] = c[n - 1] = 0.0; /* the closure rows have no corners */
  return TL_OK;
}

int tl_compact_system(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                      double *a, double *b, double *c, double *d, tl_info *info)
{
  return tl_compact_system_closed(s, periodic ? NULL : tl_compact_closure_find(s, NULL), n, h, u, a,
                                  b, c, d, info);
}

int tl_compact_apply_closed(const tl_compact_scheme *s, const tl_compact_closure *closure, size_t n,
                            double h, const double *u, const tl_algorithm *algo,
                            const tl_options *opt, double *du, tl_info *info)
{
  tl_info_clear(info);
  TL_CALL(check_grid(s, closure, n, h, info));
  if (!algo)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "no algorithm given");
  if (!u)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "u", "array u is NULL");
  if (!du)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "du", "output array du is NULL");
  if (du < u + n && u < du + n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "du", "output du overlaps the samples u");
  double *work = tl_alloc(n, 4 * sizeof *work);
  if (!work)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "no memory for a system of %zu rows", n);
  double *a = work, *b = work + n, *c = work + 2 * n, *d = work + 3 * n;
  int status = tl_compact_system_closed(s, closure, n, h, u, a, b, c, d, info);
  if (status == TL_OK) {
    tl_batch sys = {.dtype = TL_F64,
                    .n = n,
                    .nsys = 1,
                    .periodic = closure == NULL,
                    .a = a,
                    .b = b,
                    .c = c,
                    .d = d};
    status = tl_solve(algo, &sys, du, opt, info);
  }
  free(work);
  return status;
}

int tl_compact_apply(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                     const tl_algorithm *algo, const tl_options *opt, double *du, tl_info *info)
{
  return tl_compact_apply_closed(s, periodic ? NULL : tl_compact_closure_find(s, NULL), n, h, u,
                                 algo, opt, du, info);
}
