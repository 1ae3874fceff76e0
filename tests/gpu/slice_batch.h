/* tests/gpu/slice_batch.h -- the batches the GPU test programs share
 * (mutant_driver.c, device_test.c): a dominant tridiagonal batch, and
 * the plans of one MPI rank's DistD2 slices of it. */
#ifndef TL_TESTS_GPU_SLICE_BATCH_H
#define TL_TESTS_GPU_SLICE_BATCH_H

#include <math.h>
#include <stddef.h>

#include "tridlab/part_distd2.h"

/* A dominant tridiagonal batch of `count` values per array: b = 4,
 * a and c in [-1, 1]; with `broken`, one zero pivot near the middle of
 * the values (system 1 of a batch layout, some lane of a packed one). */
static void fill(size_t count, int broken, double *a, double *b, double *c, double *d)
{
  for (size_t k = 0; k < count; k++) {
    a[k] = sin(0.7 * (double)k);
    c[k] = cos(1.3 * (double)k);
    b[k] = 4;
    d[k] = 1 + 0.01 * (double)(k % 17);
  }
  if (broken) { /* b = a c' is hard to aim at: a zero row is a zero pivot */
    size_t k = count / 2 + 3;
    a[k] = b[k] = c[k] = 0;
  }
}

/* The plans of nsys systems of m rows (system s at a + s m, ...) as the
 * middle rank of three holds them (rows 5 m per system, fix_scale per
 * system), and ends x_first = 1, x_last = -1 for the substitution.
 * Returns TL_OK or the first plan's error. */
static int slice_plans(size_t m, size_t nsys, const double *a, const double *b, const double *c,
                       double *rows, double *fix, double *ends, tl_info *info)
{
  int status = TL_OK;
  for (size_t s = 0; s < nsys && status == TL_OK; s++) {
    tl_distd2_plan plan;
    size_t o = s * m;
    status =
        tl_distd2_plan_slice_in_d(&plan, 3 * m, 0, m, m, a + o, b + o, c + o, rows + 5 * o, info);
    fix[s] = status == TL_OK ? plan.fix_scale[0] : 0;
    ends[2 * s] = 1, ends[2 * s + 1] = -1;
    tl_distd2_plan_destroy(&plan);
  }
  return status;
}

#endif
