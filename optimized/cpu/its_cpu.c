/* optimized/cpu/its_cpu.c -- ITS's decay-rate estimate (paper 003 eq 18)
 * for a batch of slices: tl_its_rate's loop with the rows side by side.
 *
 * WHY. The rate of row i, 2 max(|a|,|c|) / (|b| + sqrt(b^2 - 4|a||c|))
 * written as tl_its_row_rate writes it, takes two divisions, a square
 * root and a third division; the reference calls it once per row, one
 * row after another (about 12 % of an ITS rank's time at P = 2). The rows
 * do not depend on each other, so a whole slice is one SIMD loop: each
 * lane computes a row's rate by the same operations, in the same order,
 * with the dominance test as a select instead of a branch (the lanes of
 * rows that are not strictly dominant compute a value that is thrown
 * away). Division and square root are correctly rounded in a vector as
 * in a scalar, and the largest of the rates does not depend on the order
 * it is taken in (the rates are >= +0; a lane whose rate is NaN is
 * skipped by the comparison, as the reference's loop skips it): the
 * reference's bits.
 *
 *   rows of system s:   g = begin, begin+1, ..., begin+m-1 (global)
 *   ends of a plain system: row 0 has no a, row n-1 no c -> 0 for them
 *   the lanes:          [ row i | row i+1 | ... | row i+7 ] -> max
 */
#include <math.h>

#include "cpu_internal.h"
#include "tridlab/part_its.h"

/* The largest rate of k rows that have both neighbours (tl_its_row_rate
 * of each, inlined). */
TL_CPU_CLONES static double rows_rate(size_t k, const double *a, const double *b,
                                      const double *c)
{
  double r = 0.0;
#pragma omp simd reduction(max : r)
  for (size_t i = 0; i < k; i++) {
    double aa = fabs(a[i]), bb = fabs(b[i]), cc = fabs(c[i]);
    double ra = aa / bb, rc = cc / bb;
    double q = 2 * (ra > rc ? ra : rc) / (1 + sqrt(1 - 4 * ra * rc));
    double ri = bb > aa + cc ? q : 1.0; /* tl_its_row_rate's "not dominant" */
    r = ri > r ? ri : r;
  }
  return r;
}

void tl_cpu_its_rate_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                       const double *a, const double *b, const double *c, double *rate)
{
  /* a row at an end of a plain system has a coupling fewer: the
   * reference's own function for it */
  size_t lo = (!periodic && begin == 0) ? 1 : 0;
  size_t hi = (!periodic && begin + m == n) ? 1 : 0;
  for (size_t s = 0; s < nsys; s++) {
    const double *as = a + s * m, *bs = b + s * m, *cs = c + s * m;
    double r = 0.0;
    if (m >= lo + hi)
      r = rows_rate(m - lo - hi, as + lo, bs + lo, cs + lo);
    if (lo && m > 0) {
      double ri = tl_its_row_rate(0.0, bs[0], m > 1 || !hi ? cs[0] : 0.0);
      r = ri > r ? ri : r;
    }
    if (hi && m > lo) {
      double ri = tl_its_row_rate(as[m - 1], bs[m - 1], 0.0);
      r = ri > r ? ri : r;
    }
    rate[s] = r;
  }
}
