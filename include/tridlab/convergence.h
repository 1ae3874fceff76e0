/* tridlab/convergence.h -- compact finite-difference operators and
 * order-of-accuracy studies (ARCHITECTURE §5, "for convergence studies").
 *
 * A compact scheme computes the derivative f of samples u by solving one
 * tridiagonal system (S. K. Lele (1992), J. Comput. Phys. 103, 16-42;
 * paper 000 (DistD2-TDS) §4.2, eq. 2 for the 6th-order first derivative):
 *
 *   alpha f[i-1] + f[i] + alpha f[i+1] = sum_j w_j u[i+j] / h^m     (m = 1 or 2)
 *
 * tl_compact_system builds that system (our notation, tridlab/system.h)
 * and tl_compact_apply solves it with ANY registry algorithm, partitioned
 * ones included, so the solver's effect on the accuracy is measured with
 * the scheme's. tl_converge_run is the study behind `tridlab converge`:
 * errors against the analytic derivative for n doubling, and the observed
 * order. docs/convergence.md describes the schemes, the boundary closures
 * and their orders.
 *
 * Grids (x_i = i h):
 *   periodic   n points on [0, L), h = L / n, corners a[0] = c[n-1] = alpha
 *   closure    n points on [0, L] with both ends, h = L / (n - 1); the rows
 *              near each end are one-sided closures (tl_compact_scheme.closure)
 */
#ifndef TRIDLAB_CONVERGENCE_H
#define TRIDLAB_CONVERGENCE_H

#include <stddef.h>

#include "tridlab/registry.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Widest right-hand-side stencil of any row. */
#define TL_COMPACT_MAX_WIDTH 5

/* One row of a compact scheme at point i:
 *   lhs[0] f[i-1] + lhs[1] f[i] + lhs[2] f[i+1]
 *       = (rhs[0] u[i+first] + ... + rhs[width-1] u[i+first+width-1]) / h^m
 * `order` is its local order of accuracy: the row is exact for polynomials
 * of degree <= order + m - 1 and its truncation error is O(h^order). */
typedef struct tl_compact_row {
  double lhs[3];
  int first;
  int width;
  double rhs[TL_COMPACT_MAX_WIDTH];
  int order;
} tl_compact_row;

typedef struct tl_compact_scheme {
  const char *name;   /* "pade4", "lele6", "d2-6th"                  */
  int derivative;     /* m: 1 (first) or 2 (second derivative)      */
  int order;          /* order of the interior (and periodic) rows  */
  double alpha, a, b; /* Lele's coefficients (b = 0 for pade4)      */
  tl_compact_row interior;
  /* Closure rows at each end (1 or 2): closure[0] is row 0, closure[1]
   * row 1 of the left end; the right end is their mirror image (rows n-1,
   * n-2, lhs reversed, rhs weights times (-1)^m). */
  int nclosure;
  tl_compact_row closure[2];
  /* Measured global order with closures, max norm and discrete L2 norm
   * (docs/convergence.md). */
  double global_order_max;
  double global_order_l2;
  size_t min_n_periodic; /* smallest n for each grid */
  size_t min_n_closure;
  const char *summary; /* one line */
} tl_compact_scheme;

size_t tl_compact_count(void);
const tl_compact_scheme *tl_compact_get(size_t index); /* NULL past the end */
const tl_compact_scheme *tl_compact_find(const char *name);

/* Build the compact system for the samples u[0..n-1] with spacing h into
 * a, b, c (left-hand side) and d (right-hand side), n entries each.
 * periodic = 1: the corners a[0], c[n-1] are set; 0: closure rows, zero
 * corners. TL_ERR_ARG (arg names it) for a NULL pointer, n below the
 * scheme's minimum, or h not positive and finite. */
int tl_compact_system(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                      double *a, double *b, double *c, double *d, tl_info *info);

/* The m-th derivative of u into du (n entries; du must not overlap u):
 * builds the system and solves it with tl_solve(algo, ..., opt). Returns
 * what tl_solve returns: TL_OK, TL_OUTSIDE_DOMAIN (du written, no
 * stability guarantee: e.g. thomas on the closure rows, which are not
 * diagonally dominant), or < 0 (du not written); TL_ERR_NOMEM. */
int tl_compact_apply(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                     const tl_algorithm *algo, const tl_options *opt, double *du, tl_info *info);

/* ------------------------------------------------------------------ */
/* Test functions with analytic derivatives                            */

typedef struct tl_converge_function {
  const char *name;    /* "sin", "expsin", "polyexp" */
  const char *formula; /* e.g. "sin(k x)"            */
  /* 1: periodic on [0, L) when k L / (2 pi) is an integer. */
  int periodic;
  /* The value (derivative 0) or the derivative of order 1 or 2 at x. */
  double (*eval)(double x, double k, int derivative);
} tl_converge_function;

size_t tl_converge_function_count(void);
const tl_converge_function *tl_converge_function_get(size_t index);
const tl_converge_function *tl_converge_function_find(const char *name);

/* ------------------------------------------------------------------ */
/* The study                                                           */

/* One grid of the study. */
typedef struct tl_converge_row {
  size_t n;
  double h;
  int status;     /* what the solver returned: TL_OK, TL_OUTSIDE_DOMAIN or < 0 */
  double err_max; /* max_i |f_i - f(x_i)|; NaN when the solve failed          */
  double err_l2;  /* sqrt(h sum_i (f_i - f(x_i))^2); NaN when it failed       */
  /* log(e_prev / e) / log(h_prev / h) against the previous row (log2 of the
   * error ratio when h halves); NaN for the first row or next to a failed
   * row. */
  double order_max;
  double order_l2;
  /* ||f - f_lapack||_inf / ||f_lapack||_inf: the solver's own error against
   * a pivoted LAPACK solve of the same system; NaN when either has none. */
  double solver_diff;
  double dropped; /* info.dropped of approximate solvers (0 otherwise) */
  char note[256]; /* the solver's message when status != TL_OK         */
} tl_converge_row;

typedef struct tl_converge_config {
  const tl_compact_scheme *scheme;
  int periodic; /* 1: periodic grid; 0: closures */
  const tl_converge_function *function;
  double wavenumber; /* k > 0                  */
  double length;     /* L > 0; 0 means 2 pi    */
  const tl_algorithm *algo;
  const tl_options *opt; /* P and parameters; NULL: defaults        */
  size_t nmin, nmax;     /* n = nmin, 2 nmin, 4 nmin, ... <= nmax  */
  /* Called after each row (may be NULL): progress for the caller. */
  void (*on_row)(const tl_converge_row *row, size_t index, size_t count, void *ctx);
  void *ctx;
} tl_converge_config;

/* The observed order between two grids: log(e_prev / e) / log(h_prev / h);
 * NaN when either error is not positive and finite. */
double tl_converge_order(double e_prev, double e, double h_prev, double h);

/* Number of rows: n = nmin, 2 nmin, ... <= nmax (0 if nmin is 0 or > nmax). */
size_t tl_converge_count(size_t nmin, size_t nmax);

/* Run the study into rows[0 .. *count-1] (cap entries available).
 * Returns TL_OK when every row was computed, whatever each solver status
 * was (a failed solve is a row with its status and NaN errors: the study
 * goes on). Before any work: TL_ERR_ARG for a bad configuration (arg names
 * it: scheme, function, wavenumber, length, nmin, nmax, rows, algo; e.g. a
 * function that is not periodic on the periodic grid), TL_ERR_UNSUPPORTED
 * when the algorithm does not take real systems of this layout;
 * TL_ERR_NOMEM. */
int tl_converge_run(const tl_converge_config *cfg, tl_converge_row *rows, size_t cap, size_t *count,
                    tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
