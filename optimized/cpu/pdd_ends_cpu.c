/* optimized/cpu/pdd_ends_cpu.c -- what PDD's messages need of phase 1,
 * without the spikes: the ends of y, v and w by two eliminations that
 * keep nothing (tl_cpu_pdd_ends_d, tridlab/cpu.h), for the rank program
 * of PDD (optimized/mpi/pdd_mpi.c).
 *
 * PDD's phase 1 (reference/pdd_ref.c) solves, on partition p's block A_p
 * (the coupling entries a[0] and c[m-1] left out),
 *
 *   A_p y = d,   A_p v = a[0] e_0,   A_p w = c[m-1] e_{m-1},
 *
 * and keeps all three whole. What leaves the partition is only their
 * ends: y_0, v_0 go up, y_{m-1}, w_{m-1} go down (the 2x2 interface
 * systems), v_{m-1} and w_0 are what the bound drops. And the ends of a
 * solution need no back substitution:
 *
 *   top-down elimination (Thomas's forward sweep), pivots p_i:
 *     row m-1 is reduced to   x_{m-1} = (what the right-hand side became)
 *     so y_{m-1} = d'_{m-1}, v_{m-1} = g'_{m-1} (g: a[0] e_0 swept
 *     along), w_{m-1} = c[m-1] / p_{m-1} (its right-hand side is zero
 *     until that row);
 *
 *   bottom-up elimination (the reference's sweep for w), pivots q_i:
 *     row 0 is reduced to     x_0 = ...
 *     so y_0 = d''_0, w_0 = h''_0 (h: c[m-1] e_{m-1} swept up),
 *     v_0 = a[0] / q_0.
 *
 *     row:     0   1   2  ...  m-2  m-1
 *     down:    p0 -> p1 -> ...     -> p_{m-1}   gives y, v, w at m-1
 *     up:      q0 <- q1 <- ...     <- q_{m-1}   gives y, v, w at 0
 *
 * Each sweep is one reciprocal and a few products per row, and writes
 * nothing: where phase 1 solved three systems whole (two sweeps and two
 * stores per unknown each), this reads the block at most twice. The
 * caller picks the sweeps (pdd_mpi.c: the bottom-up one when there is a
 * left neighbour, or when the rows are not all strictly dominant, as it
 * also meets w's breakdowns; the top-down one when there is a right
 * neighbour; strict says which blocks are). The rank program then solves the block
 * once more with the neighbours' unknowns on the right-hand side
 * (pdd_mpi.c, "RESOLVE").
 *
 * The same ends as the reference's to rounding: the values are exact
 * functions of the block, computed by eliminations without pivoting, as
 * the reference's are, in another order. A zero or non-finite pivot in
 * either sweep, or a result that is not finite, flags the system
 * (check sums, as optimized/cpu/lanes.h); the caller then runs the
 * reference's phase 1, which gives the report. A bottom-up pivot can
 * vanish where the reference, which sweeps y top-down, meets none: the
 * reference then simply solves it.
 *
 * Eight systems at once, one per SIMD lane, through lanes.h's tiles; a
 * batch's last systems (fewer than eight) one at a time, the same
 * operations.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/cpu.h"

/* 1 when every |b_i| < 2^1023: the bits of |b_i| as integers against
 * those of 2^1023 (a NaN's are larger), or-ed: a loop a compiler runs in
 * vector lanes. */
TL_CPU_CLONES static int b_in_range(size_t m, const double *b)
{
  uint64_t over = 0;
  for (size_t i = 0; i < m; i++) {
    uint64_t u;
    memcpy(&u, b + i, sizeof u);
    over |= (u & (UINT64_MAX >> 1)) >= UINT64_C(0x7fe0000000000000);
  }
  return !over;
}

/* Whether every row of a block is strictly dominant (the entries as they
 * are: |b_i| - (|a_i| + |c_i|) > 0, as tl_lanes_margin_pos tests it) with
 * |b_i| < 2^1023. Then no pivot of the bottom-up elimination vanishes or
 * overflows: q_i = b_i - c_i a_{i+1} / q_{i+1} with |a_{i+1} / q_{i+1}|
 * <= 1, so |c_i| < |b_i| bounds it away from 0, and |b_i| + |c_i| < 2 |b_i|
 * from above (a b near the largest double, with a c that adds to it, made
 * the reference's w break down where the top-down sweep did not). The
 * margins come from the sweep's rows; the range, which in the sweep's
 * loop slowed it by half, from a loop of its own over b. */
static int rows_strict(size_t m, const double *a, const double *b, const double *c)
{
  int pos = 1;
  for (size_t i = 0; i < m; i++)
    pos &= fabs(b[i]) - (fabs(a[i]) + fabs(c[i])) > 0.0;
  return pos && b_in_range(m, b);
}

/* One system's sweeps, scalar: the operations of the lanes below. */
static int ends_one(size_t m, int down, int up, const double *a, const double *b,
                    const double *c, const double *d, double e[6])
{
  double chk = 0.0;
  if (down) { /* g starts at -1 so that row 0 gives a[0] / p_0 */
    double cs = 0.0, ds = 0.0, gs = -1.0;
    for (size_t i = 0; i < m; i++) {
      double p = b[i] - a[i] * cs, r = 1.0 / p;
      ds = (d[i] - a[i] * ds) * r;
      gs = -(a[i] * gs) * r;
      cs = c[i] * r;
      chk = chk + p + ds + gs + cs;
    }
    e[1] = ds, e[3] = gs, e[5] = cs; /* y, v, w at m-1 */
  }
  if (up) {
    double as = 0.0, es = 0.0, hs = -1.0;
    for (size_t i = m; i-- > 0;) {
      double q = b[i] - c[i] * as, r = 1.0 / q;
      es = (d[i] - c[i] * es) * r;
      hs = -(c[i] * hs) * r;
      as = a[i] * r;
      chk = chk + q + es + hs + as;
    }
    e[0] = es, e[2] = as, e[4] = hs; /* y, v, w at 0 */
  }
  return !(chk - chk == 0.0);
}

#if TL_LANES_OK

/* What a sweep carries from row to row: the eliminated row's multiplier
 * (c' down, a' up) and its two right-hand sides (y's; and v's down, w's
 * up), per lane. */
typedef struct sweep {
  tl_lanes mul, y, s;
} sweep;

/* One row of a sweep: down (lo = a, hi = c)
 *   p = b - a c',  c' = c / p,  y' = (d - a y') / p,  g' = -a g' / p;
 * up, a and c trade places (lo = c, hi = a). One reciprocal and products
 * for the three divisions. The check sum takes the pivot and both
 * right-hand sides (a multiplier that overflows makes the next pivot
 * infinite; the last row's is added at the end). */
static TL_CPU_INLINE void sweep_row(sweep *w, tl_lanes lo, tl_lanes b, tl_lanes hi, tl_lanes d,
                                    tl_lanes *chk)
{
  tl_lanes p = b - lo * w->mul, rp = tl_lanes_splat(1.0) / p;
  w->y = (d - lo * w->y) * rp;
  w->s = -(lo * w->s) * rp;
  w->mul = hi * rp;
  *chk = *chk + p + w->y + w->s;
}

/* Row r of a stack tile t (a, b, c, d in t[0..3]); its margin into *pos
 * (pos NULL: not tested). */
static TL_CPU_INLINE void sweep_row_tile(sweep *w, int up, double (*t)[64], size_t r, tl_lanes *chk,
                                         tl_lanes_bits *pos)
{
  size_t k = r * TL_LANES;
  tl_lanes a = tl_lanes_load(t[0] + k), b = tl_lanes_load(t[1] + k), c = tl_lanes_load(t[2] + k);
  if (pos)
    tl_lanes_margin_pos(pos, a, b, c);
  sweep_row(w, up ? c : a, b, up ? a : c, tl_lanes_load(t[3] + k), chk);
}

/* Tile j of one group's sweeps (nch = 2: down and up, tile nt-1-j of
 * the way up; nch = 1: the one sweep, up1 says which); the group's 8
 * slices of m rows are m apart in each of src[0..3] (a, b, c, d). A
 * whole tile (8 rows of the 8 slices) is transposed straight into
 * registers, as the x kernel's are (thomas_lines_cpu.c: the round trip
 * through a stack tile cost a third of its time); a partial one (a
 * sweep's first or last) goes through lanes.h's stack tile. */
static TL_CPU_INLINE void sweep_step(const int nch, int up1, size_t j, size_t nt, size_t m,
                                     const double *const *src, sweep *w, tl_lanes *chk,
                                     tl_lanes_bits *pos)
{
  for (int q = 0; q < nch; q++) {
    int up = nch == 2 ? q : up1;
    size_t i0 = (up ? nt - 1 - j : j) * TL_LANES, r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    if (r0 == 0 && r1 == TL_LANES) {
      tl_lanes A[TL_LANES], B[TL_LANES], C[TL_LANES], D[TL_LANES];
      tl_cpu_transpose8_load_d(src[0] + i0, m, A);
      tl_cpu_transpose8_load_d(src[1] + i0, m, B);
      tl_cpu_transpose8_load_d(src[2] + i0, m, C);
      tl_cpu_transpose8_load_d(src[3] + i0, m, D);
      for (int r = 0; r < TL_LANES; r++) {
        int i = up ? TL_LANES - 1 - r : r;
        if (pos && q == 0) /* the margins, from the first sweep's rows */
          tl_lanes_margin_pos(pos, A[i], B[i], C[i]);
        sweep_row(&w[q], up ? C[i] : A[i], B[i], up ? A[i] : C[i], D[i], chk);
      }
      continue;
    }
    double t[4][64]; /* the partial tiles of a, b, c, d */
    for (int k = 0; k < 4; k++)
      tl_lanes_tile_get(src[k], m, i0, r0, r1, t[k]);
    for (size_t i = r0; i < r1; i++)
      sweep_row_tile(&w[q], up, t, up ? r1 - 1 - (i - r0) : i, chk, q == 0 ? pos : NULL);
  }
}

/* How far ahead of a sweep its own lines are fetched into L2: tiles of
 * 8 rows (a line of each of the group's 32 slices per tile). From memory
 * on one thread (4096 slices of 2048 rows), the top-down and bottom-up
 * sweeps took 3.1 and 4.1 ns per unknown with no lookahead, 2.9 and 2.7
 * with 8 tiles, 3.2 and 3.1 with 16 (docs/performance.md, "PDD's ends
 * sweep without its copy, and in mini-batches"). */
enum { AHEAD = 8 };

/* The lines of the group's 32 slices at row i0 (a tile's first), into
 * L2; nothing past the slices' end. */
static TL_CPU_INLINE void ahead_prefetch(const double *const *src, size_t m, size_t i0)
{
  if (i0 >= m)
    return;
  for (int k = 0; k < 4; k++)
    for (size_t l = 0; l < TL_LANES; l++)
      TL_CPU_PREFETCH_L2(src[k] + l * m + i0, 0);
}

/* One group's sweeps and its ends (ends[6 l ..] for lane l), its flags
 * into bad[0..7]; strict (may be NULL): whether each lane's rows are all
 * strictly dominant. The group's 8 slices of m rows are m apart in each
 * of src[0..3]; each sweep fetches the tile AHEAD of the one it reads. */
TL_CPU_CLONES
static void ends_group(size_t m, int down, int up, const double *const *src, double *ends,
                       unsigned char *bad, unsigned char *strict)
{
  sweep w[2];
  tl_lanes chk = tl_lanes_splat(0.0), last = chk;
  tl_lanes_bits pos = (tl_lanes_bits){0} - 1, *pp = strict ? &pos : NULL;
  for (int q = 0; q < 2; q++) /* s = -1: row 0's v' is a / p (and w' up) */
    w[q].mul = w[q].y = tl_lanes_splat(0.0), w[q].s = tl_lanes_splat(-1.0);
  size_t nt = (m + TL_LANES - 1) / TL_LANES;
  for (size_t j = 0; j < nt; j++) {
    if (down && j + AHEAD < nt)
      ahead_prefetch(src, m, (j + AHEAD) * TL_LANES);
    if (up && j + AHEAD < nt)
      ahead_prefetch(src, m, (nt - 1 - j - AHEAD) * TL_LANES);
    if (down && up)
      sweep_step(2, 0, j, nt, m, src, w, &chk, pp);
    else
      sweep_step(1, up, j, nt, m, src, w, &chk, pp);
  }
  for (int l = 0; l < TL_LANES && strict; l++)
    strict[l] = pos[l] != 0;
  const sweep *dn = &w[0], *un = down ? &w[1] : &w[0];
  for (int l = 0; l < TL_LANES; l++) {
    double *e = ends + 6 * l;
    if (up) /* y, v, w at row 0 */
      e[0] = un->y[l], e[2] = un->mul[l], e[4] = un->s[l];
    if (down) /* y, v, w at row m-1 */
      e[1] = dn->y[l], e[3] = dn->s[l], e[5] = dn->mul[l];
  }
  if (up)
    last = last + un->mul;
  if (down)
    last = last + dn->mul;
  tl_lanes_flag(chk + last, bad);
}

#endif /* TL_LANES_OK */

void tl_cpu_pdd_ends_d(size_t m, size_t nsys, int down, int up, const double *a, const double *b,
                       const double *c, const double *d, double *ends, unsigned char *bad,
                       unsigned char *strict)
{
  for (size_t s = 0; s < nsys; s++)
    bad[s] = 0;
  if (m == 0 || !(up || down)) { /* no sweep: only the margins */
    for (size_t s = 0; s < nsys && strict; s++)
      strict[s] = m > 0 && rows_strict(m, a + s * m, b + s * m, c + s * m);
    return;
  }
  size_t s = 0;
#if TL_LANES_OK
  for (; s + TL_LANES <= nsys; s += TL_LANES) {
    const double *src[4] = {a + s * m, b + s * m, c + s * m, d + s * m};
    ends_group(m, down, up, src, ends + 6 * s, bad + s, strict ? strict + s : NULL);
    for (size_t l = 0; l < TL_LANES && strict; l++) /* b just swept: in cache */
      strict[s + l] &= (unsigned char)b_in_range(m, src[1] + l * m);
  }
#endif
  for (; s < nsys; s++) {
    bad[s] = (unsigned char)ends_one(m, down, up, a + s * m, b + s * m, c + s * m, d + s * m,
                                     ends + 6 * s);
    if (strict)
      strict[s] = rows_strict(m, a + s * m, b + s * m, c + s * m);
  }
}
