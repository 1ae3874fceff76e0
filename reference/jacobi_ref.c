/* reference/jacobi_ref.c -- the Jacobi iteration on the whole system.
 *
 * Source: paper 002 (Tridsolver), section "Iterative solutions",
 * Algorithm 5, which applies it to the reduced system of a distributed
 * solve; here it runs on the whole system, periodic or not, as the
 * baseline iterative method. Symbols: paper 002 uses our a, b, c, d and x,
 * rows 0..N-1, and x^(p) for iterate p.
 *
 * Keep the diagonal, move the rest to the right-hand side with the old
 * iterate (wrapping around when periodic):
 *
 *   | b0 c0       a0 |          | b0             |
 *   | a1 b1 c1       |          |    b1          |  D x^(p+1) = d - (A - D) x^(p)
 *   |    a2 b2 c2    |  x = d   |       b2       |
 *   |       a3 b3 c3 |    ->    |          b3    |
 *   | c4       a4 b4 |          |             b4 |
 *
 *   x^(0)_i   = d_i / b_i
 *   x^(p+1)_i = (d_i - a_i x^(p)_{i-1} - c_i x^(p)_{i+1}) / b_i
 *   stop when eta = max_i |d - A x|_i / (|A| |x| + |d|)_i <= tol
 *   (the denominator also takes DBL_MIN (|A| 1 + 1)_i: see
 *   jacobi_backward_error)
 *
 * Periodic systems with n = 1 and 2 follow tridlab/system.h: entries that
 * land on the same column add, so for n = 1 the diagonal is a + b + c
 * (tl_periodic1_entry; the first iterate is exact), for n = 2 row 0 reads
 * b0 x0 + (a0 + c0) x1, the entry a0 + c0 formed before it multiplies.
 *
 * The test is the componentwise backward error (Oettli and Prager, 1964):
 * x solves (A + dA) x = d + dd exactly with |dA| <= eta |A| and
 * |dd| <= eta |d|, so the forward error is at most about
 * cond(A, x) eta (Skeel's condition number), the guarantee that the
 * direct solvers give. A normwise test (||d - A x||_1 against
 * ||A||_1 ||x||_1) is weaker: it lets the residual gather in a few rows,
 * and the forward error then grows with n (seen on the gallery: forward
 * error ratios of 1e3 at n = 4096 with a normwise backward error of 8
 * eps). The test runs on every iterate, so a returned x is verified a
 * posteriori whatever the matrix; TL_OK reports the eta left in
 * info->dropped.
 *
 * Cost per iteration: 5 flops per row for the update and 8 for the
 * residual and the two norms; the update reads a, b, c, d and x and writes
 * the new x (6 words per row), the test reads a, b, c, d and x again (5).
 * Parallel view: one exchange with the two neighbours per iteration and a
 * global sum for the test (paper 002 notes that this collective cancels
 * the neighbour-only advantage unless the test runs rarely).
 *
 * Convergence: the error is multiplied by J = D^-1 (A - D) each iteration.
 * For strictly row diagonally dominant A, ||J||_inf = max_i (|a_i| +
 * |c_i|) / |b_i| < 1 and the iteration converges from any start
 * (Varga, Matrix Iterative Analysis). Weakly
 * dominant matrices may converge very slowly (tridiag(-1, 2, -1):
 * rho(J) = cos(pi / (n + 1)), O(n^2) iterations) and others may diverge.
 * In floating point every sweep adds rounding errors of a few eps that the
 * iteration damps only by q = max_i (|a_i| + |c_i|) / |b_i| per sweep, so
 * the attainable backward error is about eps / (1 - q): the default tol
 * (8 eps) is reached when q <= 1/2, the class TL_CLASS_STRONG_DD
 * (|b_i| >= 2 (|a_i| + |c_i|)) that tridlab declares for Jacobi.
 * Outcomes: eta <= tol: TL_OK. Stagnation (no new smallest eta in 200
 * iterations) on a strictly dominant matrix: x is the best iterate
 * rounding allows, returned with TL_OUTSIDE_DOMAIN and its eta. maxit
 * reached, divergence (x no longer finite) or stagnation on a matrix that
 * is not strictly dominant: TL_ERR_NOT_CONVERGED, the message says
 * whether A is strictly dominant. A zero diagonal entry is a breakdown
 * (TL_ERR_BREAKDOWN with its row).
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/residual.h"

/* Iterations without a new smallest eta that count as stagnation. */
#define JACOBI_STALL 200

/* The three ways the iteration stops without a solution. */
static const char *const jacobi_reasons[] = {
    "iteration limit reached",
    "stagnation: the backward error stopped decreasing",
    "divergence: x not finite",
};
enum { JACOBI_LIMIT, JACOBI_STAGNATION, JACOBI_DIVERGENCE, JACOBI_CONVERGED };

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "jacobi_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "jacobi_ref.c"
#undef TL_TEMPLATE_PASS

static int jacobi_system(const tl_algorithm *self, const tl_batch *one, void *x,
                         const tl_options *opt, tl_info *info)
{
  double tol = tl_param_value(self, opt, "tol");
  long maxit = (long)tl_param_value(self, opt, "maxit");
  if (one->dtype == TL_F64)
    return tl_jacobi_ref_d(one->n, one->periodic, one->a, one->b, one->c, one->d, x, tol, maxit,
                           info);
  return tl_jacobi_ref_z(one->n, one->periodic, one->a, one->b, one->c, one->d, x, tol, maxit,
                         info);
}

static int jacobi_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                        const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, jacobi_system);
}

/* The default tol keeps LAPACK's residual and forward-error ratios
 * (THRESH 30) below 30 on the gallery while staying reachable in
 * floating point (the computed residual itself carries a few eps). */
static const tl_param jacobi_params[] = {
    {"tol", TL_PARAM_REAL, 8 * TL_EPS, TL_EPS, 1.0, NULL,
     "stop when max_i |d - A x|_i / (|A| |x| + |d|)_i <= tol"},
    {"maxit", TL_PARAM_INT, 20000, 1, 1e9, NULL, "iteration limit"},
};

const tl_algorithm tl_algo_jacobi_ref = {
    .name = "jacobi",
    .family = "iterative",
    .backend = "reference",
    .exact = 0,
    .classes = TL_CLASS_STRONG_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC | TL_PERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = jacobi_params,
    .nparams = (int)(sizeof jacobi_params / sizeof jacobi_params[0]),
    .summary = "Jacobi iteration until the backward error is below tol, 13n flops per iteration",
    .source = "paper 002 (Tridsolver) Algorithm 5, on the whole system",
    .solve = jacobi_solve,
    .dropped_means = "eta, the componentwise backward error left: max_i |d - A x|_i / (|A| |x| + |d|)_i",
    .bound_means = "the tolerance reached (ok), or the eta it stagnated at",
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

/* Diagonal of row i. A periodic system of one row wraps onto itself:
 * s x = d, s = a + b + c as tl_periodic1_entry computes it. */
static S FN(jacobi_diag)(size_t n, int periodic, const S *a, const S *b, const S *c, size_t i)
{
  if (periodic && n == 1)
    return PERIODIC1(a[0], b[0], c[0]);
  return b[i];
}

/* The off-diagonal part of row i applied to x: a_i x[i-1] + c_i x[i+1],
 * wrapping when periodic (for n = 2 both terms land on the other unknown
 * and add: the entry a_i + c_i multiplies it). The corners of a
 * non-periodic system are never read. */
static S FN(jacobi_offdiag)(size_t n, int periodic, const S *a, const S *c, const S *x, size_t i)
{
  if (periodic && n == 1)
    return 0; /* the corners are on the diagonal */
  if (periodic && n == 2)
    return (a[i] + c[i]) * x[1 - i];
  S s = 0;
  if (i > 0)
    s += a[i] * x[i - 1];
  else if (periodic)
    s += a[0] * x[n - 1];
  if (i + 1 < n)
    s += c[i] * x[i + 1];
  else if (periodic)
    s += c[i] * x[0];
  return s;
}

/* One sweep: y = D^-1 (d - (A - D) x). Returns 0 if some y_i is not
 * finite (the iteration diverges), else 1. */
int FN(tl_jacobi_sweep)(size_t n, int periodic, const S *a, const S *b, const S *c, const S *d,
                        const S *x, S *y)
{
  int finite = 1;
  for (size_t i = 0; i < n; i++) {
    y[i] = (d[i] - FN(jacobi_offdiag)(n, periodic, a, c, x, i)) /
           FN(jacobi_diag)(n, periodic, a, b, c, i);
    if (!ISFINITE(y[i]))
      finite = 0;
  }
  return finite;
}

/* |a_i| |x_{i-1}| + |c_i| |x_{i+1}|: the off-diagonal part of (|A| |x|)_i,
 * folded like jacobi_offdiag. */
static double FN(jacobi_offdiag_abs)(size_t n, int periodic, const S *a, const S *c, const S *x,
                                     size_t i)
{
  if (periodic && n == 1)
    return 0.0;
  if (periodic && n == 2)
    return ABS(a[i] + c[i]) * ABS(x[1 - i]);
  double s = 0.0;
  if (i > 0)
    s += ABS(a[i]) * ABS(x[i - 1]);
  else if (periodic)
    s += ABS(a[0]) * ABS(x[n - 1]);
  if (i + 1 < n)
    s += ABS(c[i]) * ABS(x[i + 1]);
  else if (periodic)
    s += ABS(c[i]) * ABS(x[0]);
  return s;
}

/* omega = max_i |d - A x|_i / (|A| (|x| + DBL_MIN) + |d| + DBL_MIN)_i,
 * the componentwise backward error with the allowance for underflow of
 * tridlab/residual.h (the closest double to the exact answer is off by up
 * to eps DBL_MIN per entry, a product by as much: x = 0 for an answer
 * that underflows is converged); 0 for a zero residual. */
double FN(tl_jacobi_backward_error)(size_t n, int periodic, const S *a, const S *b, const S *c,
                                    const S *d, const S *x)
{
  double omega = 0.0;
  for (size_t i = 0; i < n; i++) {
    S diag = FN(jacobi_diag)(n, periodic, a, b, c, i);
    double r = ABS(d[i] - diag * x[i] - FN(jacobi_offdiag)(n, periodic, a, c, x, i));
    double row = ABS(diag) + ((i > 0 || periodic) ? ABS(a[i]) : 0.0) +
                 ((i + 1 < n || periodic) ? ABS(c[i]) : 0.0);
    double scale = ABS(diag) * ABS(x[i]) + FN(jacobi_offdiag_abs)(n, periodic, a, c, x, i) +
                   ABS(d[i]) + DBL_MIN * (row + 1.0);
    if (r == 0.0)
      continue;
    /* An overflowing |A||x| must not pass for a tiny relative residual. */
    double w = (scale > 0.0 && isfinite(scale) && isfinite(r)) ? r / scale : INFINITY;
    if (!(w <= omega))
      omega = w;
  }
  return omega;
}

int FN(tl_jacobi_ref)(size_t n, int periodic, const S *a, const S *b, const S *c, const S *d, S *x,
                      double tol, long maxit, tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "jacobi: n must be >= 1 and no array may be NULL");
  if (!(tol > 0.0 && tol <= 1.0))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "tol", "jacobi: tol = %g is outside (0, 1]", tol);
  if (maxit < 1 || maxit > INT_MAX)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "maxit", "jacobi: maxit = %ld is outside [1, %d]",
                   maxit, INT_MAX);
  for (size_t i = 0; i < n; i++) {
    S diag = FN(jacobi_diag)(n, periodic, a, b, c, i);
    if (diag == 0 || !ISFINITE(diag))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)i, "",
                     "jacobi: zero or non-finite diagonal entry at row %zu (Jacobi divides by "
                     "the diagonal)",
                     i);
  }
  S *y = tl_alloc(n, sizeof(S));
  if (!y)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "jacobi: no memory for %zu scratch entries", n);

  /* Start from x = d / diag: exact when A is diagonal. */
  for (size_t i = 0; i < n; i++)
    x[i] = d[i] / FN(jacobi_diag)(n, periodic, a, b, c, i);

  S *cur = x, *next = y;
  double eta = INFINITY, best = INFINITY;
  long it = 0, since_best = 0;
  int outcome = JACOBI_LIMIT;
  while (it < maxit) {
    int finite = FN(tl_jacobi_sweep)(n, periodic, a, b, c, d, cur, next);
    S *t = cur; /* the new iterate becomes the current one */
    cur = next;
    next = t;
    it++;
    if (!finite) {
      eta = INFINITY;
      outcome = JACOBI_DIVERGENCE;
      break;
    }
    eta = FN(tl_jacobi_backward_error)(n, periodic, a, b, c, d, cur);
    if (eta <= tol) {
      outcome = JACOBI_CONVERGED;
      break;
    }
    if (eta < best) {
      best = eta;
      since_best = 0;
    } else if (++since_best >= JACOBI_STALL) {
      outcome = JACOBI_STAGNATION; /* rounding or a slow mode has stopped progress */
      break;
    }
  }
  if (cur != x) /* the last iterate is returned in x */
    memcpy(x, cur, n * sizeof(S));
  free(y);

  if (info) {
    info->iterations = (int)it;
    info->tol = tol;
    info->dropped = eta;
  }
  if (outcome == JACOBI_CONVERGED) {
    if (info)
      info->bound = tol; /* the backward error is at most tol */
    return TL_OK;
  }
  long worst = -1;
  unsigned cls = CLASSES(n, a, b, c, periodic, &worst);
  int strict = (cls & TL_CLASS_STRICT_DD) != 0;
  if (outcome == JACOBI_STAGNATION && strict) {
    /* Each sweep adds rounding errors that the iteration damps only by
     * q = max (|a|+|c|)/|b| per sweep: the attainable backward error is
     * about eps / (1 - q), above tol when q is near 1. x is the best the
     * iteration can do: written, with a warning. */
    if (info)
      info->bound = eta;
    return TL_WARN(info, worst,
                   "jacobi: stagnated after %ld iterations at backward error %.3g > tol %.3g "
                   "(rounding limits Jacobi to about eps/(1-q), q = max (|a|+|c|)/|b|, %s)",
                   it, eta, tol,
                   (cls & TL_CLASS_STRONG_DD) ? "here q <= 1/2" : "here q > 1/2: not strongly dominant");
  }
  if (strict)
    return TL_FAIL(info, TL_ERR_NOT_CONVERGED, -1, -1, "",
                   "jacobi: not converged after %ld iterations (%s); backward error %.3g > tol "
                   "%.3g; matrix strictly diagonally dominant (Jacobi converges there)",
                   it, jacobi_reasons[outcome], eta, tol);
  return TL_FAIL(info, TL_ERR_NOT_CONVERGED, -1, worst, "",
                 "jacobi: not converged after %ld iterations (%s); backward error %.3g > tol "
                 "%.3g; matrix not strictly diagonally dominant (row %ld): no convergence "
                 "guarantee",
                 it, jacobi_reasons[outcome], eta, tol, worst);
}

#endif
