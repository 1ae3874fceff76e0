/* tridlab/algorithms.h -- typed entry points of the reference algorithms.
 *
 * Each solves ONE system of n rows (notation of tridlab/system.h) and
 * writes x; inputs are never modified; x must not overlap them. Suffix _d
 * is double, _z double complex. Non-periodic kernels do not read the
 * corner entries a[0] and c[n-1]; periodic kernels do. Most users call
 * them through the registry (tl_solve), which also validates arguments
 * and loops over batches; learners can call them directly.
 */
#ifndef TRIDLAB_ALGORITHMS_H
#define TRIDLAB_ALGORITHMS_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* reference/thomas_ref.c: Thomas algorithm, no pivoting. */
int tl_thomas_ref_d(size_t n, const double *a, const double *b, const double *c,
                    const double *d, double *x, tl_info *info);
int tl_thomas_ref_z(size_t n, const double complex *a, const double complex *b,
                    const double complex *c, const double complex *d, double complex *x,
                    tl_info *info);

/* Thomas' two sweeps, as `tridlab trace` shows them. Forward: afterwards
 * row i reads x[i] + cp[i] x[i+1] = dp[i]; returns the row of a zero or
 * non-finite pivot, or -1 (*all_positive: every pivot real and > 0).
 * Backward: x[i] = dp[i] - cp[i] x[i+1] in place (x holds dp); returns
 * the first non-finite row, or -1. */
long tl_thomas_ref_forward_d(size_t n, const double *a, const double *b, const double *c,
                             const double *d, double *cp, double *dp, int *all_positive);
long tl_thomas_ref_forward_z(size_t n, const double complex *a, const double complex *b,
                             const double complex *c, const double complex *d,
                             double complex *cp, double complex *dp, int *all_positive);
long tl_thomas_ref_backward_d(size_t n, const double *cp, double *x);
long tl_thomas_ref_backward_z(size_t n, const double complex *cp, double complex *x);

/* reference/thomas_periodic_ref.c: cyclic systems by Sherman-Morrison. */
int tl_thomas_periodic_ref_d(size_t n, const double *a, const double *b, const double *c,
                             const double *d, double *x, tl_info *info);
int tl_thomas_periodic_ref_z(size_t n, const double complex *a, const double complex *b,
                             const double complex *c, const double complex *d,
                             double complex *x, tl_info *info);
/* Its two steps (n >= 3), in the order the solve calls them: the
 * tridiagonal part B of A = B + u v^T (its diagonal bmod) and u, for the
 * shift g (the solve takes g = -b[0], or -1 when b[0] = 0); then, after
 * B y = d (y in x) and B z = u by Thomas, Sherman-Morrison's
 * x = y - (v.y) / (1 + v.z) z with v = (1, 0, ..., 0, a[0]/g).
 * TL_ERR_BREAKDOWN when 1 + v.z = 0 or x overflows. */
void tl_thomas_periodic_split_d(size_t n, const double *a, const double *b, const double *c,
                                double g, double *bmod, double *u);
void tl_thomas_periodic_split_z(size_t n, const double complex *a, const double complex *b,
                                const double complex *c, double complex g, double complex *bmod,
                                double complex *u);
int tl_thomas_periodic_correct_d(size_t n, double a0, double g, const double *z, double *x,
                                 tl_info *info);
int tl_thomas_periodic_correct_z(size_t n, double complex a0, double complex g,
                                 const double complex *z, double complex *x, tl_info *info);

/* reference/cr_ref.c: cyclic reduction, any n. */
int tl_cr_ref_d(size_t n, const double *a, const double *b, const double *c, const double *d,
                double *x, tl_info *info);
int tl_cr_ref_z(size_t n, const double complex *a, const double complex *b,
                const double complex *c, const double complex *d, double complex *x,
                tl_info *info);

/* reference/pcr_ref.c: parallel cyclic reduction, any n. */
int tl_pcr_ref_d(size_t n, const double *a, const double *b, const double *c, const double *d,
                 double *x, tl_info *info);
/* CR's levels, as `tridlab trace` shows them, on a working copy of the
 * system (corners 0). Reduce at stride h: rows i = 2h-1, 4h-1, ...
 * eliminate x[i-h], x[i+h] and then couple x[i-2h], x[i], x[i+2h].
 * Back at stride h: rows j = h-1, 3h-1, ... take x[j-h], x[j+h] from the
 * level below (*tiny: terms near underflow). Each returns the row of a
 * zero or non-finite divisor or value, or -1. */
long tl_cr_ref_reduce_d(size_t n, size_t h, double *a, double *b, double *c, double *d);
long tl_cr_ref_reduce_z(size_t n, size_t h, double complex *a, double complex *b,
                        double complex *c, double complex *d);
long tl_cr_ref_back_d(size_t n, size_t h, const double *a, const double *b, const double *c,
                      const double *d, double *x, int *tiny);
long tl_cr_ref_back_z(size_t n, size_t h, const double complex *a, const double complex *b,
                      const double complex *c, const double complex *d, double complex *x,
                      int *tiny);

/* One PCR level at stride s: row i of (na, nb, nc, nd) couples x[i-2s],
 * x[i], x[i+2s] (every row eliminates its neighbours at distance s).
 * Returns the row of a zero or non-finite divisor, or -1. */
long tl_pcr_ref_step_d(size_t n, size_t s, const double *a, const double *b, const double *c,
                       const double *d, double *na, double *nb, double *nc, double *nd);
long tl_pcr_ref_step_z(size_t n, size_t s, const double complex *a, const double complex *b,
                       const double complex *c, const double complex *d, double complex *na,
                       double complex *nb, double complex *nc, double complex *nd);
int tl_pcr_ref_z(size_t n, const double complex *a, const double complex *b,
                 const double complex *c, const double complex *d, double complex *x,
                 tl_info *info);

/* reference/jacobi_ref.c: Jacobi iteration on the whole system (periodic
 * or not). Stops when the normwise backward error
 * ||d - A x||_1 / (||A||_1 ||x||_1) <= tol; TL_ERR_NOT_CONVERGED after
 * maxit iterations or on stagnation. info->iterations is set. */
int tl_jacobi_ref_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                    const double *d, double *x, double tol, long maxit, tl_info *info);
int tl_jacobi_ref_z(size_t n, int periodic, const double complex *a, const double complex *b,
                    const double complex *c, const double complex *d, double complex *x,
                    double tol, long maxit, tl_info *info);
/* Its steps: one sweep y = D^-1 (d - (A - D) x) (0 when some y_i is not
 * finite, else 1; when A is not periodic, the start D^-1 d is the sweep
 * of x = 0), and the componentwise backward error eta of an iterate,
 * which the solve compares with tol. */
int tl_jacobi_sweep_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                      const double *d, const double *x, double *y);
int tl_jacobi_sweep_z(size_t n, int periodic, const double complex *a, const double complex *b,
                      const double complex *c, const double complex *d, const double complex *x,
                      double complex *y);
double tl_jacobi_backward_error_d(size_t n, int periodic, const double *a, const double *b,
                                  const double *c, const double *d, const double *x);
double tl_jacobi_backward_error_z(size_t n, int periodic, const double complex *a,
                                  const double complex *b, const double complex *c,
                                  const double complex *d, const double complex *x);

/* reference/gtsv_ref.c: LAPACK DGTSV / ZGTSV, Gaussian elimination with
 * partial pivoting (the pivoting baseline). Non-periodic only. */
int tl_gtsv_ref_d(size_t n, const double *a, const double *b, const double *c, const double *d,
                  double *x, tl_info *info);
int tl_gtsv_ref_z(size_t n, const double complex *a, const double complex *b,
                  const double complex *c, const double complex *d, double complex *x,
                  tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
