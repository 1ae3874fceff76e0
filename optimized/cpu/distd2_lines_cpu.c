/* optimized/cpu/distd2_lines_cpu.c -- DistD2's Algorithms 5 and 6 on a
 * batch of slices, eight systems at once: the preprocessing and the
 * decoupling every MPI rank of distd2_mpi runs on its own rows when each
 * system has its own matrix, in one pass over each group
 * (tl_cpu_distd2_plan_decouple_lines_d: only sa, sc and d' leave the
 * cache), and each alone (tl_cpu_distd2_preprocess_lines_d, which
 * distd2_gpu_mpi runs before its device decoupling;
 * tl_cpu_distd2_decouple_lines_d, the one pass's test oracle).
 *
 * Source: paper 000 (DistD2-TDS) §4.2, Algorithm 5. reference/distd2_ref.c
 * (tl_distd2_preprocess_d) is the readable version on one slice; this
 * file runs the same operations, in the same order, on eight slices at
 * once, one vector lane each (lanes.h), so its results are the
 * reference's bits. The forward pass reads the slices a tile at a time;
 * the five arrays of a group (sa, sc and the three multipliers) stay
 * PACKED -- row i of the eight systems at pk + 8 i -- through the
 * backward pass and row 0, then cross into each system's plan rows
 * once. A zero or non-finite pivot, or a spike entry that overflows, in a
 * lane flags that system (lanes.h's check sums); the caller runs the
 * reference on it for its report. So does an entry that is not finite:
 * a, b, c (the corners too) in the preprocessing, d in the decoupling
 * (tl_lanes_check_row), so that a rank program need not read its slice
 * once more to check it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/cpu.h"
#include "tridlab/part_distd2.h"

/* The plan's rows, in its order; then Algorithm 6's d' (Y), packed only
 * when the decoupling runs in the same pass (the plan's multipliers F, R
 * and W are then neither packed nor written: d' is their only use). */
enum { SA, SC, F, R, W, ARRAYS, Y = ARRAYS, PACKED };

#if TL_LANES_OK

/* Packed row i of array k of a group. */
#define PK(k, i) (pk + ((size_t)(k) * m + (i)) * TL_LANES)

/* Where the slices sit in the system (reference/distd2_ref.c's lower_at,
 * upper_at: the corners of a plain system are read as 0). */
typedef struct d2_rows {
  size_t n_total, row0, m;
  int periodic;
} d2_rows;

static TL_CPU_INLINE int no_lower(const d2_rows *w, size_t i)
{
  return w->row0 + i == 0 && !w->periodic;
}

static TL_CPU_INLINE int no_upper(const d2_rows *w, size_t i)
{
  return w->row0 + i + 1 == w->n_total && !w->periodic;
}

/* Lines 1-12: rows 0 and 1 scaled to a unit diagonal, then the forward
 * pass, row j keeping x_0 in the spike sa_j. Each row's margin into
 * *pos (tl_lanes_margin_pos): whether every row is strictly dominant.
 * With d (not NULL), Algorithm 6's lines 1-12 in the same pass, from the
 * multipliers as they are made: y_j = f_j d_j (j < 2), f_j (d_j - a_j
 * y_{j-1}); the multipliers themselves are then not kept. d's own check
 * goes into *ychk, Algorithm 6's check sum, kept apart from Algorithm 5's
 * and added in the same order as tl_cpu_distd2_decouple_lines_d adds it,
 * so that a system is flagged exactly where one of the two phases alone
 * would flag it. */
static TL_CPU_INLINE void d2_forward(const d2_rows *w, const double *a, const double *b,
                                     const double *c, const double *d, double *pk, tl_lanes *chk,
                                     tl_lanes *ychk, tl_lanes_bits *pos)
{
  size_t m = w->m;
  tl_lanes zero = tl_lanes_splat(0.0), one = tl_lanes_splat(1.0), y = zero;
  for (size_t j = 0; j < 2; j++) {
    tl_lanes bj = tl_lanes_gather(b, m, j), f = one / bj;
    tl_lanes ar = tl_lanes_gather(a, m, j), cr = tl_lanes_gather(c, m, j);
    tl_lanes aj = no_lower(w, j) ? zero : ar;
    tl_lanes cj = no_upper(w, j) ? zero : cr;
    *chk = tl_lanes_check_row(*chk + bj + f, ar, bj, cr, zero); /* corners too */
    tl_lanes_margin_pos(pos, aj, bj, cj);
    tl_lanes_store(PK(SA, j), aj * f), tl_lanes_store(PK(SC, j), cj * f);
    if (d) {
      tl_lanes rhs = tl_lanes_gather(d, m, j);
      *ychk = *ychk + (rhs - rhs); /* d's own check (lanes.h, tl_lanes_check_row) */
      y = rhs * f;
      tl_lanes_store(PK(Y, j), y);
      continue;
    }
    tl_lanes_store(PK(F, j), f);
    tl_lanes_store(PK(R, j), zero), tl_lanes_store(PK(W, j), zero);
  }
  tl_lanes sa = tl_lanes_load(PK(SA, 1)), sc = tl_lanes_load(PK(SC, 1));
  const double *src[4] = {a, b, c, d};
  double t[4][64]; /* tiles of a, b, c (and d) */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 2, m, &r0, &r1);
    if (r0 >= r1)
      continue;
    tl_lanes_tiles_get(d ? 4 : 3, src, m, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (size_t r = r0; r < r1; r++) {
      size_t j = i0 + r, k = r * TL_LANES;
      tl_lanes aj = tl_lanes_load(t[0] + k); /* j >= 2: never the system's row 0 */
      tl_lanes bj = tl_lanes_load(t[1] + k), cr = tl_lanes_load(t[2] + k);
      *chk = tl_lanes_check_row(*chk, aj, bj, cr, zero); /* the entries (lanes.h) */
      tl_lanes pivot = bj - aj * sc;
      tl_lanes f = one / pivot;
      tl_lanes cj = no_upper(w, j) ? zero : cr;
      tl_lanes_margin_pos(pos, aj, bj, cj);
      sa = -f * aj * sa;
      sc = f * cj;
      *chk = *chk + pivot + f;
      tl_lanes_store(PK(SA, j), sa), tl_lanes_store(PK(SC, j), sc);
      if (d) {
        tl_lanes rhs = tl_lanes_load(t[3] + k);
        *ychk = *ychk + (rhs - rhs);
        y = f * (rhs - aj * y);
        tl_lanes_store(PK(Y, j), y);
        continue;
      }
      tl_lanes_store(PK(F, j), f), tl_lanes_store(PK(R, j), aj);
      tl_lanes_store(PK(W, j), zero);
    }
  }
}

/* Lines 13-20 on the packed rows: the backward pass from m-3 to 1, row j
 * keeping x_{m-1} in sc_j; then row 0 absorbs row 1 (its scale: fix).
 * with_y: Algorithm 6's lines 13-20 on y in the same pass, w_j being the
 * forward pass's sc_j, read before it is replaced (else w_j is kept). */
static TL_CPU_INLINE tl_lanes d2_backward(size_t m, double *pk, int with_y, tl_lanes *chk)
{
  tl_lanes fix = tl_lanes_splat(1.0);
  if (m < 3)
    return fix;
  tl_lanes san = tl_lanes_load(PK(SA, m - 2)), scn = tl_lanes_load(PK(SC, m - 2));
  tl_lanes yn = with_y ? tl_lanes_load(PK(Y, m - 2)) : fix;
  for (size_t j = m - 2; j-- > 1;) {
    tl_lanes wj = tl_lanes_load(PK(SC, j));
    san = tl_lanes_load(PK(SA, j)) - wj * san;
    scn = -wj * scn;
    if (with_y) {
      yn = tl_lanes_load(PK(Y, j)) - wj * yn;
      tl_lanes_store(PK(Y, j), yn);
    } else {
      tl_lanes_store(PK(W, j), wj);
    }
    tl_lanes_store(PK(SA, j), san), tl_lanes_store(PK(SC, j), scn);
  }
  tl_lanes w0 = tl_lanes_load(PK(SC, 0));
  tl_lanes pivot = tl_lanes_splat(1.0) - w0 * tl_lanes_load(PK(SA, 1));
  fix = tl_lanes_splat(1.0) / pivot;
  *chk = *chk + pivot + fix;
  if (with_y)
    tl_lanes_store(PK(Y, 0), fix * (tl_lanes_load(PK(Y, 0)) - w0 * yn));
  else
    tl_lanes_store(PK(W, 0), w0);
  tl_lanes_store(PK(SA, 0), tl_lanes_load(PK(SA, 0)) * fix);
  tl_lanes_store(PK(SC, 0), -fix * w0 * tl_lanes_load(PK(SC, 1)));
  return fix;
}

/* One group: Algorithm 5 (d NULL: all five plan rows written), or
 * Algorithms 5 and 6 in one pass (only sa, sc and d' -- into dt --
 * written). nt, nt_dt: whether the plan rows, and dt, are written by
 * streaming stores. */
TL_CPU_CLONES
static void d2_group(const d2_rows *w, int nt, int nt_dt, const double *a, const double *b,
                     const double *c, const double *d, double *rows, double *dt, double *pk,
                     double *fix_scale, double *spike, unsigned char *bad, unsigned char *strict)
{
  size_t m = w->m;
  tl_lanes chk = tl_lanes_splat(0.0), ychk = chk;
  tl_lanes_bits pos = (tl_lanes_bits){0} - 1;
  d2_forward(w, a, b, c, d, pk, &chk, &ychk, &pos);
  tl_lanes fix = d2_backward(m, pk, d != NULL, &chk);
  /* The largest |sa| + |sc| over the interior rows (a NaN is skipped, as
   * the reference's comparison skips it; the check sum flags it), every
   * spike entry into the check sum, and every d' into Algorithm 6's. */
  tl_lanes big = tl_lanes_splat(0.0);
  for (size_t j = 0; j < m; j++) {
    tl_lanes sa = tl_lanes_load(PK(SA, j)), sc = tl_lanes_load(PK(SC, j));
    chk = chk + sa + sc;
    if (d)
      ychk = ychk + tl_lanes_load(PK(Y, j));
    if (j >= 1 && j + 1 < m) { /* big = s where s > big, lane by lane */
      tl_lanes s = tl_lanes_abs(sa) + tl_lanes_abs(sc);
      tl_lanes_bits gt = s > big, sb, bb;
      memcpy(&sb, &s, sizeof sb), memcpy(&bb, &big, sizeof bb);
      bb = (sb & gt) | (bb & ~gt);
      memcpy(&big, &bb, sizeof big);
    }
  }
  /* The packed rows into each system's plan rows (5 m values apiece; only
   * sa and sc with d), d' into dt. */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (int k = 0; k < (d ? SC + 1 : ARRAYS); k++)
      tl_lanes_tile_write(nt, rows + (size_t)k * m, ARRAYS * m, i0, r0, r1, PK(k, i0));
    if (d)
      tl_lanes_tile_write(nt_dt, dt, m, i0, r0, r1, PK(Y, i0));
  }
  for (int l = 0; l < TL_LANES; l++)
    fix_scale[l] = fix[l], spike[l] = big[l];
  for (int l = 0; l < TL_LANES && strict; l++)
    strict[l] = pos[l] != 0;
  tl_lanes_flag(chk, bad);
  if (d)
    tl_lanes_flag(ychk, bad);
}

#undef PK

/* Algorithm 6 on a group: d' of eight slices, down into the packed
 * scratch y (row j at y + 8 j) from tiles of d, f and r, then up with w
 * and row 0's fix, then out to the slices; the reference's operations.
 * rows: the group's first plan (5 m values per system). */
TL_CPU_CLONES
static void d2_decouple_group(size_t m, int nt, const double *rows, const double *fix,
                              const double *d, double *dt, double *y, unsigned char *bad)
{
  size_t lane = ARRAYS * m; /* between two systems' plan rows */
  const double *f = rows + (size_t)F * m, *r = rows + (size_t)R * m, *w = rows + (size_t)W * m;
  tl_lanes chk = tl_lanes_splat(0.0), yp = chk;
  double t[3][64]; /* tiles of d, f, r */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    tl_lanes_tile_get(d, m, i0, r0, r1, t[0]);
    tl_lanes_tile_get(f, lane, i0, r0, r1, t[1]);
    tl_lanes_tile_get(r, lane, i0, r0, r1, t[2]);
    tl_lanes_prefetch(d, m, i0 + TL_LANES_AHEAD);
    for (size_t q = r0; q < r1; q++) { /* lines 1-12 */
      size_t j = i0 + q, k = q * TL_LANES;
      tl_lanes rhs = tl_lanes_load(t[0] + k), fj = tl_lanes_load(t[1] + k);
      chk = chk + (rhs - rhs); /* d's own check (lanes.h, tl_lanes_check_row) */
      yp = j < 2 ? rhs * fj : fj * (rhs - tl_lanes_load(t[2] + k) * yp);
      tl_lanes_store(y + TL_LANES * j, yp);
    }
  }
  if (m >= 3) {
    tl_lanes yn = tl_lanes_load(y + TL_LANES * (m - 2));
    for (size_t j = m - 2; j-- > 1;) { /* lines 13-17 */
      yn = tl_lanes_load(y + TL_LANES * j) - tl_lanes_gather(w, lane, j) * yn;
      tl_lanes_store(y + TL_LANES * j, yn);
    }
    tl_lanes fx; /* lines 18-20 */
    for (int l = 0; l < TL_LANES; l++)
      fx[l] = fix[l];
    tl_lanes y0 = fx * (tl_lanes_load(y) - tl_lanes_gather(w, lane, 0) * yn);
    tl_lanes_store(y, y0);
  }
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (size_t q = r0; q < r1; q++)
      chk = chk + tl_lanes_load(y + TL_LANES * (i0 + q));
    tl_lanes_tile_write(nt, dt, m, i0, r0, r1, y + TL_LANES * i0);
  }
  tl_lanes_flag(chk, bad);
}
#endif /* TL_LANES_OK */

/* Algorithm 5 on every group (d NULL), or Algorithms 5 and 6 (d' into
 * dt); the systems past the last group left to the caller. */
static void d2_lines(size_t n_total, int periodic, size_t row0, size_t m, size_t nsys,
                     const double *a, const double *b, const double *c, const double *d,
                     double *rows, double *dt, double *fix_scale, double *spike, unsigned char *bad,
                     unsigned char *strict)
{
  /* The packed rows: every row is written by the forward pass before
   * anything reads it, so they are not zeroed (lanes.h). */
  double *pk;
  size_t groups = tl_lanes_groups_dirty(m, nsys, d ? PACKED : ARRAYS, &pk);
#if TL_LANES_OK
  d2_rows w = {.n_total = n_total, .row0 = row0, .m = m, .periodic = periodic};
  /* Written: 5 plan rows, or sa, sc and d'. Each array streams where its
   * lines allow: the plan rows are this rank's own scratch, on cache
   * lines; dt is the caller's x, often not (x from calloc, 16 bytes past
   * a line: sa and sc went by plain stores with it, each line read before
   * it was written, 14 words a row where 12 do; distd2_mpi at P = 2,
   * 4096 x 4096: 94-97 -> 89-94 ms). */
  size_t words = (d ? 3 : ARRAYS) * groups * TL_LANES * m;
  int nt = tl_lanes_stream_worth(words, m, 1, &rows); /* to memory */
  int nt_dt = d && tl_lanes_stream_worth(words, m, 1, &dt);
  for (size_t g = 0; g < groups; g++) {
    size_t s = g * TL_LANES, o = s * m;
    d2_group(&w, nt, nt_dt, a + o, b + o, c + o, d ? d + o : NULL, rows + 5 * o, d ? dt + o : NULL,
             pk, fix_scale + s, spike + s, bad + s, strict ? strict + s : NULL);
  }
  tl_lanes_stream_done();
#else
  (void)n_total, (void)periodic, (void)row0, (void)a, (void)b, (void)c, (void)rows, (void)dt;
  (void)fix_scale, (void)spike;
#endif
  free(pk);
  for (size_t s = groups * TL_LANES; s < nsys; s++) {
    bad[s] = 1; /* the rest: the caller runs the reference on them */
    if (strict)
      strict[s] = 0;
  }
}

void tl_cpu_distd2_preprocess_lines_d(size_t n_total, int periodic, size_t row0, size_t m,
                                      size_t nsys, const double *a, const double *b,
                                      const double *c, double *rows, double *fix_scale,
                                      double *spike, unsigned char *bad, unsigned char *strict)
{
  d2_lines(n_total, periodic, row0, m, nsys, a, b, c, NULL, rows, NULL, fix_scale, spike, bad,
           strict);
}

void tl_cpu_distd2_decouple_lines_d(size_t m, size_t nsys, const double *rows,
                                    const double *fix_scale, const double *d, double *dt,
                                    unsigned char *bad)
{
  double *y;
  size_t groups = tl_lanes_groups(m, nsys, 1, &y);
#if TL_LANES_OK
  int nt = tl_lanes_stream_worth(groups * TL_LANES * m, m, 1, &dt); /* to memory */
  for (size_t g = 0; g < groups; g++) {
    size_t s = g * TL_LANES, o = s * m;
    d2_decouple_group(m, nt, rows + 5 * o, fix_scale + s, d + o, dt + o, y, bad + s);
  }
  tl_lanes_stream_done();
#else
  (void)rows, (void)fix_scale, (void)d, (void)dt;
#endif
  free(y);
  for (size_t s = groups * TL_LANES; s < nsys; s++)
    bad[s] = 1; /* the rest: the caller runs the reference on them */
}

void tl_cpu_distd2_plan_decouple_lines_d(size_t n_total, int periodic, size_t row0, size_t m,
                                         size_t nsys, const double *a, const double *b,
                                         const double *c, const double *d, double *rows, double *dt,
                                         double *fix_scale, double *spike, unsigned char *bad,
                                         unsigned char *strict)
{
  d2_lines(n_total, periodic, row0, m, nsys, a, b, c, d, rows, dt, fix_scale, spike, bad, strict);
}
