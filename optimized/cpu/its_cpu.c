/* optimized/cpu/its_cpu.c -- ITS's decay-rate estimate (paper 003 eq 18)
 * for a batch of slices: tl_its_rate's loop with the rows side by side.
 *
 * WHY. The rate of row i, 2 max(|a|,|c|) / (|b| + sqrt(b^2 - 4|a||c|))
 * written as tl_its_row_rate writes it, takes two divisions, a square
 * root and a third division; the reference calls it once per row, one
 * row after another (about 12 % of an ITS rank's time at P = 2). The rows
 * do not depend on each other, so eight rows are one SIMD step: each
 * lane computes a row's rate by the same operations, in the same order,
 * with the dominance test as a select instead of a branch (the lanes of
 * rows that are not strictly dominant compute a value that is thrown
 * away). Division and square root are correctly rounded in a vector as
 * in a scalar, and the largest of the rates does not depend on the order
 * it is taken in (the rates are >= +0; a lane whose rate is NaN is
 * skipped by the comparison, as the reference's loop skips it): the
 * reference's bits. Eight rows that provably cannot raise the largest
 * rate so far are passed over by a test without division or square root
 * (rows_below): their rates are not the largest, so the bits stay.
 *
 *   rows of system s:   g = begin, begin+1, ..., begin+m-1 (global)
 *   ends of a plain system: row 0 has no a, row n-1 no c -> 0 for them
 *   the lanes:          [ row i | row i+1 | ... | row i+7 ] -> max
 */
#include <math.h>
#include <stdlib.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/part_its.h"

/* The rate of one row with both neighbours (tl_its_row_rate, inlined). */
static TL_CPU_INLINE double row_rate(double aa, double bb, double cc)
{
  double ra = aa / bb, rc = cc / bb;
  double q = 2 * (ra > rc ? ra : rc) / (1 + sqrt(1 - 4 * ra * rc));
  return bb > aa + cc ? q : 1.0; /* tl_its_row_rate's "not dominant" */
}

/* Only the largest rate counts, and most rows' rates are far below it:
 * a row is passed over when it cannot raise the largest so far, r, by a
 * test with no division or square root. For a strictly dominant row
 * (p = ra rc < 1/4), sqrt(1 - 4p) >= 1 - 4p, so
 *
 *   rate = 2 max(ra, rc) / (1 + sqrt(1 - 4p)) <= max(ra, rc) / (1 - 2p)
 *        = max(|a|, |c|) |b| / (b^2 - 2 |a| |c|),
 *
 * and the row cannot raise r when max(|a|, |c|) |b| (1 + 2^-20) <= r (b^2 -
 * 2 |a| |c|). The margin 2^-20 covers the roundings of both sides (a few
 * eps: b^2 - 2 |a| |c| >= b^2 / 2, no cancellation) and of the computed
 * rate (its square root of 1 - 4p, where 1 - 4p is near 0, can be off by
 * up to ~3e-8 of the rate). The test is used only where |b| is in
 * [2^-200, 2^200] and r >= 2^-200: then b^2 and r (b^2 - 2 |a| |c|) are
 * normal numbers, and a product max(|a|, |c|) |b| small enough to lose
 * precision (below 2^-1022) belongs to a row whose rate, below 2^-600,
 * cannot reach r. A row whose |a|, |b|, |c| are those of the row that gave r
 * has r's rate (a matrix with constant coefficients: every row), and a
 * row that is not strictly dominant (rate 1) cannot raise r >= 1. Eight
 * rows at a time: where any of them might raise r, all eight are rated
 * as the reference rates them. The largest rate, and so the result, are
 * the reference's bits. */
enum { RATE_ROWS = 8 }; /* TL_LANES where there are lanes */

/* Eight rows: each gives -1 where it cannot raise r and +1 where it
 * might, and the largest of the eight decides. (Selects and one max
 * reduction: GCC keeps them in vector registers where an and-reduction
 * of comparisons was taken lane by lane, slower than rating the rows.)
 * No value is NaN: a row with a NaN is not strictly dominant, and one
 * that is, inside the range, has finite products. */
static TL_CPU_INLINE int rows_below(const double *a, const double *b, const double *c, double r,
                                    const double key[3])
{
  double worst = -1.0, fine = r >= 0x1p-200 ? 1.0 : 0.0, one = r >= 1.0 ? -1.0 : 1.0;
#pragma omp simd reduction(max : worst)
  for (int i = 0; i < RATE_ROWS; i++) {
    double aa = fabs(a[i]), bb = fabs(b[i]), cc = fabs(c[i]), mx = aa > cc ? aa : cc;
    double excess = mx * bb * (1 + 0x1p-20) - r * (bb * bb - 2 * (aa * cc));
    double inside = bb >= 0x1p-200 && bb <= 0x1p200 ? fine : 0.0;
    double v = inside > 0 ? (excess > 0 ? 1.0 : -1.0) : 1.0; /* a strictly dominant row */
    v = bb > aa + cc ? v : one;                              /* one that is not: rate 1 */
    v = aa == key[0] && bb == key[1] && cc == key[2] ? -1.0 : v;
    worst = v > worst ? v : worst;
  }
  return worst < 0;
}

/* The largest rate of k rows that have both neighbours. */
TL_CPU_CLONES static double rows_rate(size_t k, const double *a, const double *b,
                                      const double *c)
{
  double r = 0.0, key[3] = {NAN, NAN, NAN}; /* |a|, |b|, |c| of the row that gave r */
  for (size_t i0 = 0; i0 < k; i0 += RATE_ROWS) {
    size_t len = k - i0 < RATE_ROWS ? k - i0 : RATE_ROWS;
    if (len == RATE_ROWS && rows_below(a + i0, b + i0, c + i0, r, key))
      continue;
    double q[RATE_ROWS]; /* the rates, side by side; then the largest */
#pragma omp simd
    for (size_t i = 0; i < len; i++)
      q[i] = row_rate(fabs(a[i0 + i]), fabs(b[i0 + i]), fabs(c[i0 + i]));
    for (size_t i = 0; i < len; i++)
      if (q[i] > r)
        r = q[i], key[0] = fabs(a[i0 + i]), key[1] = fabs(b[i0 + i]), key[2] = fabs(c[i0 + i]);
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

/* ---- the window solves, eight systems at once ---------------------- */

/* Each rank solves one small system per system of the batch, its
 * window's transposed matrix (2(J+L) rows, paper 003 eq 11), for the row
 * z' of the window's inverse. One at a time, with the reference's
 * allocations and checks, that took about 1.3 us a window: 5.4 ms of
 * rank 0's time at P = 2 (4096 windows of 62 rows) while rank 1 waited
 * for its t (docs/performance.md). Windows of the same length and
 * position are the same shape, so eight of them run as tl_thomas_ref_d
 * runs one, in eight lanes:
 *
 *   lane l = system s_l:  A'^T z' = g'   (ta = c shifted down, tb = b,
 *                                         tc = a shifted up, g' = e_pos)
 *   forward:  pivot = tb - ta c'_{i-1};  c'_i = tc / pivot;
 *             z'_i = (g_i - ta z'_{i-1}) / pivot
 *   backward: z'_i = z'_i - c'_i z'_{i+1}
 *
 * The same operations in the same order: the reference's bits. Its
 * checks (a zero or non-finite pivot, a non-finite z') become one check
 * sum per lane (lanes.h, "Breakdown"); a flagged lane is left to the
 * reference. */
#if TL_LANES_OK
/* Row i of the eight windows: the transposed matrix's entries. */
static TL_CPU_INLINE void window_row(const double *const *wa, const double *const *wb,
                                     const double *const *wc, size_t len, size_t i, tl_lanes *ta,
                                     tl_lanes *tb, tl_lanes *tc)
{
  for (int l = 0; l < TL_LANES; l++) {
    (*ta)[l] = i > 0 ? wc[l][i - 1] : 0;
    (*tb)[l] = wb[l][i];
    (*tc)[l] = i + 1 < len ? wa[l][i + 1] : 0;
  }
}

/* The eight systems sys[0..8) of window k (length len, I_k at pos); cz:
 * a scratch of 2 len rows of eight lanes (c' and z'). Returns the lanes
 * whose check sum is not finite (bit l). */
TL_CPU_CLONES static unsigned windows8(tl_its_state *st, const size_t *sys, int k, size_t len,
                                       size_t pos, double *cz)
{
  const double *wa[TL_LANES], *wb[TL_LANES], *wc[TL_LANES];
  for (int l = 0; l < TL_LANES; l++) {
    const tl_its_state *q = &st[sys[l]];
    size_t o = (size_t)k * q->W;
    wa[l] = q->wa + o, wb[l] = q->wb + o, wc[l] = q->wc + o;
  }
  tl_lanes chk = tl_lanes_splat(0.0), zero = tl_lanes_splat(0.0), one = tl_lanes_splat(1.0);
  tl_lanes ta = zero, tb = zero, tc = zero, cp = zero, z = zero;
  double *cps = cz, *zs = cz + TL_LANES * len; /* row i at TL_LANES i */
  for (size_t i = 0; i < len; i++) {           /* tl_thomas_ref_forward */
    window_row(wa, wb, wc, len, i, &ta, &tb, &tc);
    tl_lanes g = i == pos ? one : zero;
    tl_lanes pivot = i == 0 ? tb : tb - ta * cp;
    cp = i + 1 < len ? tc / pivot : zero;
    z = i == 0 ? g / pivot : (g - ta * z) / pivot;
    chk = chk + pivot + z;
    tl_lanes_store(cps + TL_LANES * i, cp), tl_lanes_store(zs + TL_LANES * i, z);
  }
  for (size_t i = len - 1; i-- > 0;) { /* tl_thomas_ref_backward; z: row i + 1 */
    z = tl_lanes_load(zs + TL_LANES * i) - tl_lanes_load(cps + TL_LANES * i) * z;
    chk = chk + z;
    tl_lanes_store(zs + TL_LANES * i, z);
  }
  unsigned char bad[TL_LANES] = {0};
  tl_lanes_flag(chk, bad);
  unsigned flagged = 0;
  for (int l = 0; l < TL_LANES; l++) {
    double *out = st[sys[l]].z + (size_t)k * st[sys[l]].W;
    for (size_t i = 0; i < len; i++)
      out[i] = zs[TL_LANES * i + (size_t)l];
    flagged |= (unsigned)bad[l] << l;
  }
  return flagged;
}
#endif

size_t tl_cpu_its_window_solves_d(tl_its_state *st, size_t nsys, int k, const unsigned char *skip,
                                  unsigned char *done)
{
  size_t count = 0;
  for (size_t s = 0; s < nsys; s++)
    done[s] = 0;
#if TL_LANES_OK
  size_t W = 0, run[TL_LANES], have = 0;
  for (size_t s = 0; s < nsys; s++)
    W = !skip[s] && k < st[s].nif && st[s].wlen[k] > W ? st[s].wlen[k] : W;
  double *cz = W ? tl_alloc(2 * TL_LANES * W, sizeof *cz) : NULL;
  if (!cz)
    return 0; /* every window to the reference */
  for (size_t s = 0; s < nsys; s++) {
    if (skip[s] || k >= st[s].nif || st[s].wfull[k])
      continue;
    const tl_its_state *q = &st[s];
    if (have > 0 && (q->wlen[k] != st[run[0]].wlen[k] || q->wpos[k] != st[run[0]].wpos[k]))
      have = 0; /* another shape: the run so far is the reference's */
    run[have++] = s;
    if (have < TL_LANES)
      continue;
    unsigned bad = windows8(st, run, k, q->wlen[k], q->wpos[k], cz);
    for (int l = 0; l < TL_LANES; l++)
      if (!(bad >> l & 1u))
        done[run[l]] = 1, count++;
    have = 0;
  }
  free(cz);
#else
  (void)st, (void)k, (void)skip;
#endif
  return count;
}
