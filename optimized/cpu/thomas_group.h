/* optimized/cpu/thomas_group.h -- one row of a GROUP of SZ systems: the
 * Thomas recurrence that the three pipelines (thomas_packed_cpu.c,
 * thomas_lines_cpu.c, thomas_3d_cpu.c) share, and the check of the lanes
 * that may have broken down.
 *
 * It is included inside each (precision, SZ) pass of those files, after
 * optimized/layout/sz_template.h has set T, SZ and FN (hence no include guard): every
 * function here exists once per pass and file, and is inlined where the
 * pipeline calls it.
 *
 * The recurrence is reference/thomas_ref.c's, with the same symbols
 * (cp = c', dp = d'), run on the SZ lanes of a row at once -- the loop
 * over the lanes is the inner, vectorised (`omp simd`) loop -- and with
 * one reciprocal per row, then two multiplications (paper 000 (DistD2-TDS)
 * §2.1 Algorithm 1):
 *
 *   forward, row 0:   r = 1 / b_0;            cp_0 = c_0 r;  dp_0 = d_0 r
 *   forward, row i:   r = 1 / (b_i - a_i cp_{i-1});
 *                     cp_i = c_i r;  dp_i = (d_i - a_i dp_{i-1}) r
 *   backward:         x_{n-1} = dp_{n-1};  x_i = dp_i - cp_i x_{i+1}
 *
 * Breakdown: every lane adds up its pivots and its results in chk, one
 * add per value; the sum is not finite as soon as a pivot or a result is
 * not finite (a zero pivot always makes some x infinite or NaN), or when
 * a pivot cancelled (cancelled() below adds a NaN).
 * TL_CPU_BAD_MASK (cpu_internal.h) turns the sums into a mask of
 * candidate lanes, and confirm() below checks each candidate with the
 * reference recurrence (tl_cpu_breakdown_row_*), which gives the row, or
 * finds that only the sum overflowed (then the lane is fine).
 *
 * docs/algorithms/thomas_cpu.md explains the groups and the pipelines.
 */
#include <math.h>   /* fabs, NAN: cancelled() */
#include <stdint.h> /* its integer bits */
#include <string.h> /* memcpy */

/* Scratch row of row i of a system of np rows: i, or upside down for
 * every other group of a pipeline (the one scratch serves two groups). */
#ifndef TL_CPU_POS
#define TL_CPU_POS(i, rev, np) ((rev) ? (np)-1 - (i) : (i))
#endif

/* A row of SZ zeros: the corner entries a[0] and c[n-1] as the kernels use them. */
static const T FN(zero_row)[SZ];

/* NaN for a pivot p = b - t that cancelled to within 2^-30 of b (|p| <=
 * 2^-30 |b|: then t is b to 30 bits), 0 otherwise, added to the check sum: where the reference's
 * pivot is exactly 0 (a breakdown it reports, e.g. 1 - 49 / 49), one reciprocal's rounding can
 * leave an ulp (1 - 49 (1 / 49) = 1.1e-16) and a finite answer that is noise; confirm() then asks
 * the reference recurrence (as lanes.h's tl_lanes_check_pivot does for the partition sweeps). |p|
 * <= x is compared on the bits, as integers (for numbers >= 0 they are in the values' order):
 * compilers vectorise that, where they may take a comparison of floating lanes one lane at a time.
 */
#if TL_CPU_FLOAT
typedef int32_t FN(bits);
#define TL_GROUP_ABS(v) fabsf(v)
#else
typedef int64_t FN(bits);
#define TL_GROUP_ABS(v) fabs(v)
#endif
static TL_CPU_INLINE T FN(cancelled)(T p, T b)
{
  T x = (T)0x1p-30 * TL_GROUP_ABS(b), ap = TL_GROUP_ABS(p);
  FN(bits) ip, ix;
  memcpy(&ip, &ap, sizeof ip), memcpy(&ix, &x, sizeof ix);
  return ip <= ix ? (T)NAN : (T)0;
}
#undef TL_GROUP_ABS

/* Row 0 of SZ systems: cp = c / b, dp = d / b, by one reciprocal.
 * chk starts the NaN check. */
static TL_CPU_INLINE void FN(row_first)(const T *b, const T *c, const T *d, T *cp, T *dp, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    T p = b[l], r = (T)1 / p;
    cp[l] = c[l] * r;
    dp[l] = d[l] * r;
    chk[l] = p;
  }
}

/* Row i > 0 from row i-1 (cpm, dpm). dp may be d (in place). */
static TL_CPU_INLINE void FN(row_next)(const T *a, const T *b, const T *c, const T *d, const T *cpm,
                                       const T *dpm, T *cp, T *dp, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    T p = b[l] - a[l] * cpm[l], r = (T)1 / p;
    cp[l] = c[l] * r;
    dp[l] = (d[l] - a[l] * dpm[l]) * r;
    chk[l] += p + FN(cancelled)(p, b[l]);
  }
}

/* Backward step: x = dp - cp x1 (x may be dp). */
static TL_CPU_INLINE void FN(row_back)(const T *cp, const T *dp, const T *x1, T *x, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    x[l] = dp[l] - cp[l] * x1[l];
    chk[l] += x[l];
  }
}

/* The last row, where the backward pass starts: x = dp. */
static TL_CPU_INLINE void FN(row_copy_check)(const T *dp, T *x, T *chk)
{
#pragma omp simd
  for (int l = 0; l < SZ; l++) {
    x[l] = dp[l];
    chk[l] += x[l];
  }
}

/* The first lane of `bad` (lanes < valid) that really broke down, with
 * its row and kind; -1 when every candidate was only an overflow of the
 * check sum. Lane l starts at a + l lane_step, its rows row_step apart. */
static int FN(confirm)(uint64_t bad, size_t valid, size_t n, const T *a, const T *b, const T *c,
                       const T *x, size_t lane_step, size_t row_step, long *row, int *piv)
{
  for (size_t l = 0; l < valid && l < SZ; l++) {
    if (!(bad >> l & 1u))
      continue;
    size_t o = l * lane_step;
#if TL_CPU_FLOAT
    *row = tl_cpu_breakdown_row_f(n, a + o, b + o, c + o, row_step, x + o, row_step, piv);
#else
    *row = tl_cpu_breakdown_row_d(n, a + o, b + o, c + o, row_step, x + o, row_step, piv);
#endif
    if (*row >= 0)
      return (int)l;
  }
  return -1;
}
