/* tests/underflow_helpers.h -- what the regression tests of substitutions
 * near the underflow threshold share (found by fuzzing, issue 9): the
 * algorithm must not return ok with a residual ratio >= 30 (here it
 * reports outside-domain), and Thomas, which does not amplify the error,
 * must pass on the same system. Header-only. */
#ifndef TRIDLAB_TESTS_UNDERFLOW_HELPERS_H
#define TRIDLAB_TESTS_UNDERFLOW_HELPERS_H

#include <criterion/criterion.h>

#include "tridlab/registry.h"
#include "tridlab/verify.h"

static inline void expect_underflow_reported(const char *algo, const double *a, const double *b,
                                             const double *c, const double *d)
{
  double x[3];
  tl_batch sys = {.dtype = TL_F64, .n = 3, .nsys = 1, .a = a, .b = b, .c = c, .d = d};
  tl_info info;
  int st = tl_solve(tl_find(algo), &sys, x, NULL, &info);
  double ratio = tl_residual_ratio(&sys, x);
  cr_expect(st != TL_OK || ratio < TL_THRESH, "%s: status ok, ratio %g", algo, ratio);
  cr_expect_eq(st, TL_OUTSIDE_DOMAIN, "%s: %s", algo, info.msg);
  cr_expect_eq(tl_solve(tl_find("thomas"), &sys, x, NULL, &info), TL_OK);
  cr_expect_lt(tl_residual_ratio(&sys, x), TL_THRESH, "thomas");
}

#endif
