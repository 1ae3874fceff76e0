/* tridlab/residual.h -- LAPACK's eps and THRESH and the residual ratio
 * (core/residual.c; docs/design.md §1, §5).
 *
 * They live in the core because solvers judge their own answers with them
 * (tl_residual_check, tridlab/backend.h); the verification layer
 * (tridlab/verify.h, which includes this header) judges every answer with
 * the same ratio and adds the forward-error ratio.
 */
#ifndef TRIDLAB_RESIDUAL_H
#define TRIDLAB_RESIDUAL_H

#include <stddef.h>

#include "tridlab/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LAPACK's THRESH: a test ratio >= TL_THRESH fails. */
#define TL_THRESH 30.0
/* LAPACK's eps, DLAMCH('E') = 2^-53 (half of DBL_EPSILON). */
#define TL_EPS 0x1p-53

/* d - A x for one system (periodic or not), into r, in plain floating
 * point (it overflows where A x does). */
void tl_residual_d(size_t n, int periodic, const double *a, const double *b, const double *c,
                   const double *d, const double *x, double *r);
/* ||A||_1 of one system (+inf when the column sums overflow). */
double tl_norm1_system(const tl_batch *one);

/* DGTT02 with an allowance for underflow: max over systems of
 *     ||d - A x||_1 / ((||A||_1 (||x||_1 + n DBL_MIN) + n DBL_MIN) eps).
 * The corners a[0], c[n-1] of a plain system are never read.
 * Computed on A and x scaled by powers of two near their largest entries
 * (d by both), so nothing overflows and the scalings cancel exactly: the
 * ratio is finite whenever x is (a ratio beyond the largest double is
 * DBL_MAX). The n DBL_MIN terms (the model of gradual underflow: every
 * rounding leaves an absolute error up to eps DBL_MIN) make the ratio of
 * the closest double to the exact answer at most about 1 even when that
 * answer underflows, and allow the eps DBL_MIN per row that a solve whose
 * products fall in the subnormal range adds to d; for an answer with
 * ||A||_1 ||x||_1 >= DBL_MIN they change the ratio by a relative 2n 2^-1022
 * at most. LAPACK's conventions otherwise:
 * 0 when the residual is exactly zero (also when it underflows in the
 * scaled computation: then the ratio is below 2), 1/eps when ||A|| = 0 with
 * a non-zero residual, +inf when x is not finite. */
double tl_residual_ratio(const tl_batch *sys, const void *x);

#ifdef __cplusplus
}
#endif
#endif
