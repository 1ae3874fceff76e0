/* tridlab/convergence.h -- compact finite-difference operators and
 * order-of-accuracy studies (docs/design.md §5, "for convergence studies").
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
 *   closed     n points on [0, L] with both ends, h = L / (n - 1); the rows
 *              near each end are one-sided closure rows, from one of the
 *              scheme's closure families (tl_compact_scheme.closures):
 *              "closure" (3rd order, the default), "lele4", "lele4-singular",
 *              "explicit5", "explicit6"
 */
#ifndef TRIDLAB_CONVERGENCE_H
#define TRIDLAB_CONVERGENCE_H

#include <stddef.h>

#include "tridlab/registry.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Widest right-hand-side stencil of any row (the explicit 6th-order
 * second-derivative closure reads 8 points). */
#define TL_COMPACT_MAX_WIDTH 8
/* Most closure rows at one end, and most closure families of a scheme. */
#define TL_COMPACT_MAX_CLOSURE_ROWS 2
#define TL_COMPACT_MAX_CLOSURES 6

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

/* A closure family: the rows that replace the interior stencil next to
 * each end of a closed grid, where it would read points outside [0, L].
 * rows[0] is row 0, rows[1] row 1 of the left end; the right end is their
 * mirror image (rows n-1, n-2, lhs reversed, rhs weights times (-1)^m). */
typedef struct tl_compact_closure {
  const char *name;    /* "closure", "lele4", "lele4-singular", "explicit5", ... */
  const char *summary; /* one line, e.g. "3rd-order closures"                    */
  int nrows;           /* closure rows at each end                               */
  tl_compact_row rows[TL_COMPACT_MAX_CLOSURE_ROWS];
  size_t min_n; /* smallest n: smaller grids are too short or exactly singular */
  /* The global order measured with it (max norm and discrete L2 norm;
   * docs/convergence.md has the measurement). */
  double order_max, order_l2;
  /* 1: the leading 2 x 2 block of the matrix is exactly singular (the
   * matrix is not): elimination without pivoting meets a zero pivot at
   * row 1 (docs/convergence.md, "The trap"). */
  int singular_block;
  const char *source; /* where the rows come from                              */
} tl_compact_closure;

typedef struct tl_compact_scheme {
  const char *name;   /* "pade4", "lele6", "d2-6th"                  */
  int derivative;     /* m: 1 (first) or 2 (second derivative)      */
  int order;          /* order of the interior (and periodic) rows  */
  double alpha, a, b; /* Lele's coefficients (b = 0 for pade4)      */
  tl_compact_row interior;
  /* The closure families of the scheme; closures[0] ("closure", the
   * 3rd-order rows) is the default. */
  size_t nclosures;
  tl_compact_closure closures[TL_COMPACT_MAX_CLOSURES];
  size_t min_n_periodic; /* smallest n of the periodic grid */
  const char *summary;   /* one line */
} tl_compact_scheme;

size_t tl_compact_count(void);
const tl_compact_scheme *tl_compact_get(size_t index); /* NULL past the end */
const tl_compact_scheme *tl_compact_find(const char *name);
/* The scheme's closure family `name`; NULL: the default (closures[0]).
 * NULL when the scheme has no such family. */
const tl_compact_closure *tl_compact_closure_find(const tl_compact_scheme *s, const char *name);
/* The family a closed grid of s uses: `closure` when it is one of s's,
 * s's default when it is NULL; NULL when it is not one of s's. */
const tl_compact_closure *tl_compact_closure_resolve(const tl_compact_scheme *s,
                                                     const tl_compact_closure *closure);

/* Build the compact system for the samples u[0..n-1] with spacing h into
 * a, b, c (left-hand side) and d (right-hand side), n entries each.
 * closure NULL: the periodic grid, corners a[0], c[n-1] set; else a closed
 * grid with that closure family of s at both ends, zero corners.
 * TL_ERR_ARG (arg names it) for a NULL pointer, a closure that is not one
 * of s's, n below the grid's minimum, or h not positive and finite. */
int tl_compact_system_closed(const tl_compact_scheme *s, const tl_compact_closure *closure,
                             size_t n, double h, const double *u, double *a, double *b, double *c,
                             double *d, tl_info *info);
/* The same with periodic = 1 (periodic grid) or 0 (the default closure). */
int tl_compact_system(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                      double *a, double *b, double *c, double *d, tl_info *info);

/* The m-th derivative of u into du (n entries; du must not overlap u):
 * builds the system and solves it with tl_solve(algo, ..., opt). Returns
 * what tl_solve returns: TL_OK, TL_OUTSIDE_DOMAIN (du written, no
 * stability guarantee: e.g. thomas on the closure rows, which are not
 * diagonally dominant), or < 0 (du not written); TL_ERR_NOMEM. */
int tl_compact_apply(const tl_compact_scheme *s, int periodic, size_t n, double h, const double *u,
                     const tl_algorithm *algo, const tl_options *opt, double *du, tl_info *info);
/* The same on a grid chosen as tl_compact_system_closed chooses it. */
int tl_compact_apply_closed(const tl_compact_scheme *s, const tl_compact_closure *closure, size_t n,
                            double h, const double *u, const tl_algorithm *algo,
                            const tl_options *opt, double *du, tl_info *info);

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
  long row;       /* info.row: where a breakdown or the worst domain violation is; -1: none */
  char note[256]; /* the solver's message when status != TL_OK         */
} tl_converge_row;

typedef struct tl_converge_config {
  const tl_compact_scheme *scheme;
  int periodic; /* 1: periodic grid; 0: closed grid, closure rows at both ends */
  /* periodic = 0: the closure family, one of scheme->closures (NULL: the
   * default, closures[0]). */
  const tl_compact_closure *closure;
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
 * it: scheme, closure, function, wavenumber, length, nmin, nmax, rows, algo; e.g. a
 * function that is not periodic on the periodic grid), TL_ERR_UNSUPPORTED
 * when the algorithm does not take real systems of this layout;
 * TL_ERR_NOMEM. */
int tl_converge_run(const tl_converge_config *cfg, tl_converge_row *rows, size_t cap, size_t *count,
                    tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
