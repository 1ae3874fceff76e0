/* optimized/cpu/pdd_cpu.c -- PDD's per-system loops besides the Thomas
 * solves (tridlab/part_pdd.h), the rows side by side in SIMD lanes, for
 * the rank programs of PDD and RPDD (optimized/mpi/pdd_mpi.c):
 *
 *   tl_cpu_pdd_margin_d    the local margin of the error bound
 *                          (reference/spike_bound.c, local_margin)
 *   tl_cpu_pdd_margin_from_rows_d  the same from the x-line kernel's
 *                          row minimum and rows 0 and m-1
 *   tl_cpu_pdd_correct_d   phase 5, x = y - v x_left - w x_right
 *                          (tl_pdd_ref_correct_d)
 *   tl_cpu_pdd_correct_ends_d  the same where the spikes are short
 *                          (RPDD): only the rows they reach
 *   tl_cpu_max_abs_d       the largest |x| of a block
 *
 * Each does the reference's operations on each row, so it gives the
 * reference's bits; where the reference would meet a value that is not
 * finite, these say so and leave the work untouched for the reference,
 * which makes the report.
 */
#include <math.h>

#include "cpu_internal.h"

/* Rows per block of the margin's search: its buffer stays in L1. */
#define BLOCK 256

/* Rows [0, k) of a block, the block's first row being row k0 of m: the
 * smallest margin |b| - (left + right) into *best and its first row into
 * *row when it is smaller than *best; left = |a| but at row 0 of a
 * partition without a left neighbour, right = |c| but at row m-1 without
 * a right one. *nan set when a margin is NaN. */
TL_CPU_CLONES static void margin_block(size_t k, size_t k0, size_t m, int has_left,
                                       int has_right, const double *a, const double *b,
                                       const double *c, double *best, long *row, int *nan)
{
  double mg[BLOCK], lo = INFINITY;
  int bad = 0;
#pragma omp simd reduction(min : lo) reduction(| : bad)
  for (size_t i = 0; i < k; i++) {
    size_t r = k0 + i;
    double left = (r > 0 || has_left) ? fabs(a[i]) : 0.0;
    double right = (r + 1 < m || has_right) ? fabs(c[i]) : 0.0;
    double v = fabs(b[i]) - (left + right);
    bad |= v != v;
    mg[i] = v;
    lo = v < lo ? v : lo;
  }
  *nan |= bad;
  if (k > 0 && lo < *best) { /* on a tie the earlier row stays */
    size_t j = 0;
    while (j + 1 < k && !(mg[j] == lo))
      j++;
    *best = mg[j]; /* the row's own value (a tie of +0 and -0 keeps its sign) */
    *row = (long)(k0 + j);
  }
}

int tl_cpu_pdd_margin_d(size_t m, int has_left, int has_right, const double *a, const double *b,
                        const double *c, double *margin, long *row)
{
  double best = INFINITY;
  long at = -1;
  int nan = 0;
  for (size_t i = 0; i < m; i += BLOCK) {
    size_t k = m - i < BLOCK ? m - i : BLOCK;
    margin_block(k, i, m, has_left, has_right, a + i, b + i, c + i, &best, &at, &nan);
  }
  if (nan || at < 0) /* a NaN, or no row below +inf (none, or |b| = inf): the reference's rules */
    return 0;
  *margin = best, *row = at;
  return 1;
}

/* Row 0 with a left neighbour counts |a_0|, row m-1 with a right one
 * |c_{m-1}|: each such margin is at most the kernel's for its row (the
 * same |b| less a larger sum, rounded monotonically), so the least of
 * rowmin and the two is the least over the partition, in the same bits.
 * A NaN fails the test below: the row search decides. */
int tl_cpu_pdd_margin_from_rows_d(size_t m, int has_left, int has_right, const double *a,
                                  const double *b, const double *c, double rowmin, double *margin)
{
  double best = rowmin;
  if (m < 2)
    return 0;
  if (has_left) {
    double v = fabs(b[0]) - (fabs(a[0]) + fabs(c[0]));
    best = v < best || v != v ? v : best;
  }
  if (has_right) {
    double v = fabs(b[m - 1]) - (fabs(a[m - 1]) + fabs(c[m - 1]));
    best = v < best || v != v ? v : best;
  }
  if (!(best > 0.0) || best == INFINITY)
    return 0;
  *margin = best;
  return 1;
}

/* Row k's corrected value: the reference's operations in its order (v
 * and w are read for every row, and used where the spikes reach). */
static inline double corrected(size_t k, size_t m, size_t kv, size_t kw, const double *v,
                               const double *w, double xl, double xr, const double *x)
{
  double s = x[k];
  s = k < kv ? s - v[k] * xl : s;
  return k + kw >= m ? s - w[k] * xr : s;
}

TL_CPU_CLONES int tl_cpu_pdd_correct_d(size_t m, size_t kv, size_t kw, const double *v,
                                       const double *w, double xl, double xr, double *x,
                                       double *xmax)
{
  /* First the values alone: the largest |x| and whether all are finite
   * (a sum of the moduli is not finite exactly then, or on an overflow
   * that the reference would not call one: then the reference decides).
   * Only then x is written, so that the reference can start again. */
  double mx = 0.0, sum = 0.0;
#pragma omp simd reduction(max : mx) reduction(+ : sum)
  for (size_t k = 0; k < m; k++) {
    double s = fabs(corrected(k, m, kv, kw, v, w, xl, xr, x));
    sum += s;
    mx = s > mx ? s : mx;
  }
  if (!isfinite(sum))
    return 0;
#pragma omp simd
  for (size_t k = 0; k < m; k++)
    x[k] = corrected(k, m, kv, kw, v, w, xl, xr, x);
  *xmax = mx;
  return 1;
}

TL_CPU_CLONES double tl_cpu_max_abs_d(size_t m, const double *x)
{
  double mx = 0.0;
#pragma omp simd reduction(max : mx)
  for (size_t k = 0; k < m; k++) {
    double s = fabs(x[k]);
    mx = s > mx ? s : mx;
  }
  return mx;
}

/* Rows [k0, k1) corrected by one spike s (v or w) times xs, the
 * reference's operation: first only looked at (the largest |x| max-ed
 * into *hi, the moduli added to *sum), then written. */
static inline void probe_rows(size_t k0, size_t k1, const double *s, double xs, const double *x,
                              double *hi, double *sum)
{
  double h = *hi, t = *sum;
#pragma omp simd reduction(max : h) reduction(+ : t)
  for (size_t k = k0; k < k1; k++) {
    double v = fabs(x[k] - s[k] * xs);
    t += v;
    h = v > h ? v : h;
  }
  *hi = h, *sum = t;
}

static inline void write_rows(size_t k0, size_t k1, const double *s, double xs, double *x)
{
#pragma omp simd
  for (size_t k = k0; k < k1; k++)
    x[k] = x[k] - s[k] * xs;
}

TL_CPU_CLONES int tl_cpu_pdd_correct_ends_d(size_t m, size_t kv, size_t kw, const double *v,
                                            const double *w, double xl, double xr, double *x,
                                            double mid_max, double *xmax)
{
  if (kv + kw > m) /* the spikes overlap: every row takes both */
    return tl_cpu_pdd_correct_d(m, kv, kw, v, w, xl, xr, x, xmax);
  /* Rows [0, kv) take v, rows [m - kw, m) take w, the rows between keep
   * y (their largest |y| is mid_max). Both ends are looked at before
   * either is written, so that the reference can start again on y. */
  double mx = mid_max, sum = 0.0;
  probe_rows(0, kv, v, xl, x, &mx, &sum);
  probe_rows(m - kw, m, w, xr, x, &mx, &sum);
  if (!isfinite(sum))
    return 0;
  write_rows(0, kv, v, xl, x);
  write_rows(m - kw, m, w, xr, x);
  *xmax = mx;
  return 1;
}
