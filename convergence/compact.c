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
 * Boundary closures (the table `schemes` below; right end = mirror image
 * of the left end, weights times (-1)^m):
 *   first derivative, row 0:  f0 + 2 f1 = (-5/2 u0 + 2 u1 + 1/2 u2) / h        3rd order
 *   lele6, row 1:             Pade 4th-order row [1/4, 1, 1/4], rhs (3/2)(u2 - u0)/(2h)
 *   second derivative, row 0: f0 + 11 f1 = (13 u0 - 27 u1 + 15 u2 - u3) / h^2  3rd order
 *   d2-6th, row 1:            [1/10, 1, 1/10], rhs (6/5)(u2 - 2u1 + u0)/h^2     4th order
 * Rows 0 and n-1 put 2 (or 11) beside a diagonal of 1: those rows are NOT
 * diagonally dominant, so Thomas-like solvers without pivoting leave their
 * guaranteed domain there (they report TL_OUTSIDE_DOMAIN) although the
 * matrices stay well conditioned (cond_1 about 30, and 1.5e3 for d2-6th).
 * The global error is set by the lowest-order row: O(h^3) in the max norm
 * (docs/convergence.md has the measured orders).
 *
 * Cost of building a system: `width` multiply-adds per row (3 or 5), reads
 * u and writes a, b, c, d (5 words per point); the solve is the chosen
 * algorithm's. A production code would store the constant matrix once and
 * stream u -> f (2 words per point, ARCHITECTURE §7); the explicit arrays
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
 *   second derivative:   b/4,  a, -2a - b/2, a, b/4 */
static const tl_compact_scheme schemes[] = {
    {
        .name = "pade4",
        .derivative = 1,
        .order = 4,
        .alpha = 0.25,
        .a = 1.5,
        .b = 0.0,
        .interior = {{0.25, 1.0, 0.25}, -1, 3, {-0.75, 0.0, 0.75}, 4},
        .nclosure = 1,
        /* row 0: f0 + 2 f1 = (-5/2 u0 + 2 u1 + 1/2 u2) / h, 3rd order */
        .closure = {{{0.0, 1.0, 2.0}, 0, 3, {-2.5, 2.0, 0.5}, 3}},
        .global_order_max = 3.0,
        .global_order_l2 = 3.5,
        .min_n_periodic = 3,
        .min_n_closure = 4, /* n = 3 with closures is singular */
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
        .nclosure = 2,
        /* row 0: the 3rd-order closure; row 1: Pade, 4th order */
        .closure = {{{0.0, 1.0, 2.0}, 0, 3, {-2.5, 2.0, 0.5}, 3},
                    {{0.25, 1.0, 0.25}, -1, 3, {-0.75, 0.0, 0.75}, 4}},
        .global_order_max = 3.0,
        .global_order_l2 = 3.5,
        .min_n_periodic = 5,
        .min_n_closure = 5,
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
        .nclosure = 2,
        /* row 0: f0 + 11 f1 = (13 u0 - 27 u1 + 15 u2 - u3) / h^2, 3rd order;
         * row 1: [1/10, 1, 1/10], (6/5)(u0 - 2 u1 + u2) / h^2, 4th order */
        .closure = {{{0.0, 1.0, 11.0}, 0, 4, {13.0, -27.0, 15.0, -1.0}, 3},
                    {{0.1, 1.0, 0.1}, -1, 3, {1.2, -2.4, 1.2}, 4}},
        .global_order_max = 3.0,
        .global_order_l2 = 3.5,
        .min_n_periodic = 5,
        .min_n_closure = 5,
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

/* The checks that do not depend on the arrays. */
static int check_grid(const tl_compact_scheme *s, int periodic, size_t n, double h, tl_info *info)
{
  if (!s)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "scheme", "no scheme given");
  size_t min_n = periodic ? s->min_n_periodic : s->min_n_closure;
  if (n < min_n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "n", "%s on a %s grid needs n >= %zu, got %zu",
                   s->name, periodic ? "periodic" : "closure", min_n, n);
  if (!(h > 0.0) || !isfinite(h))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "h", "grid spacing h = %g must be positive", h);
  return TL_OK;
}

int tl_compact_system(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                      double *a, double *b, double *c, double *d, tl_info *info)
{
  tl_info_clear(info);
  TL_CALL(check_grid(s, periodic, n, h, info));
  const void *ptrs[5] = {u, a, b, c, d};
  static const char *const names[5] = {"u", "a", "b", "c", "d"};
  for (int k = 0; k < 5; k++)
    if (!ptrs[k])
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, names[k], "array %s is NULL", names[k]);

  double scale = s->derivative == 1 ? 1.0 / h : 1.0 / (h * h);
  double sign = s->derivative == 1 ? -1.0 : 1.0; /* mirror x -> -x: f' changes sign */
  size_t nc = periodic ? 0 : (size_t)s->nclosure;
  for (size_t i = 0; i < n; i++) {
    const tl_compact_row *row = &s->interior;
    int mirror = 0;
    double rhs;
    if (periodic) {
      rhs = rhs_periodic(row, n, i, u);
    } else if (i < nc) {
      row = &s->closure[i];
      rhs = rhs_closure(row, n, i, 0, sign, u);
    } else if (i >= n - nc) {
      row = &s->closure[n - 1 - i];
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

int tl_compact_apply(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                     const tl_algorithm *algo, const tl_options *opt, double *du, tl_info *info)
{
  tl_info_clear(info);
  TL_CALL(check_grid(s, periodic, n, h, info));
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
  int status = tl_compact_system(s, periodic, n, h, u, a, b, c, d, info);
  if (status == TL_OK) {
    tl_batch sys = {
        .dtype = TL_F64, .n = n, .nsys = 1, .periodic = periodic, .a = a, .b = b, .c = c, .d = d};
    status = tl_solve(algo, &sys, du, opt, info);
  }
  free(work);
  return status;
}
