/* core/residual_internal.h -- what the verification's metrics
 * (verify/metrics.c) share with the residual ratio (core/residual.c);
 * private: not installed, not included by users.
 */
#ifndef TRIDLAB_RESIDUAL_INTERNAL_H
#define TRIDLAB_RESIDUAL_INTERNAL_H

#include <float.h>

#include "tridlab/system.h"

/* A quotient that overflows is the largest double: a ratio is +inf only
 * when the answer is not finite. */
static inline double tl_finite_ratio(double r)
{
  return r > DBL_MAX ? DBL_MAX : r;
}

/* ||fa A||_1 of one system (dtype TL_F64 or TL_C128), with *fa = the power
 * of two near the largest part of its entries (tl_pow2_scale): the norm
 * of the ratios without overflow (rcond does not change when A is
 * scaled). */
double tl_norm1_scaled(const tl_batch *one, double *fa);

#endif
