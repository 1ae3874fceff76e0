/* optimized/cpu/modified_thomas_cpu.c -- the modified Thomas sweeps of
 * the exact partition algorithms on a batch of slices, eight systems at
 * once: the phases every MPI rank of tridsolver_mpi and hybrid_pcr_mpi
 * runs on its own rows (tl_cpu_tridsolver_forward_d and _backward_d,
 * tl_cpu_hybrid_pcr_forward_d, tridlab/cpu.h).
 *
 * Tridsolver's rank program keeps no a', c', d' between its phases 1 and
 * 5: its reduced row needs rows 0 and m-1 only. So phase 1 is the forward
 * sweep writing just those (tl_cpu_tridsolver_ends_d), and phase 5 runs
 * the sweep again on a group, into a packed scratch in L2, before the
 * backward sweep reads it there (tl_cpu_tridsolver_finish_d), the
 * verdict's pass following on the group's rows while they are in cache:
 *
 *   phase 1:  a, b, c, d --> forward --> rows 0, m-1 of a', c', d'
 *   phase 5:  a, b, c, d --> forward --> packed a', c', d' --> backward --> x
 *                                          (L2)         verdict's pass <-'
 *
 * One forward sweep (forward_group) serves all three, its results put
 * where the caller's fw_out says, so the three give the same bits.
 *
 * Both eliminate a partition's rows so that each interior unknown
 * depends on the partition's first (and last) unknowns only, with the
 * same forward step (tl_lanes_fillin_row, lanes.h). Tridsolver's below;
 * the hybrid's after it.
 *
 * Source: paper 002 (Tridsolver) Algorithm 6, the forward sweep with the
 * fill-in in column 0, and its backward substitution.
 * reference/tridsolver_ref.c (tl_tridsolver_forward_d, _backward_d) is
 * the readable version on one system; this file runs its recurrences on
 * eight systems at once, one vector lane each (lanes.h: the tiles, the
 * transposes, the check sums).
 *
 * What it changes, and why. The reference divides by the pivot three
 * times per row, as paper 002 writes the sweep (kept there for
 * teaching); here one reciprocal and three multiplications do it, so a',
 * c', d' are within a few roundings of the reference's, not its bits.
 * On the machine of docs/performance.md a 512-bit division issues once
 * every ~8 cycles and takes ~11 to finish: three per row were the
 * sweep's limit. One row's pivot waits on the previous row's division;
 * two groups side by side were meant to fill that wait, but from memory
 * the 64 lines their tile reads made the sweep slower than one group
 * (forward_group). The backward sweep has no division: the reference's
 * operations, its bits.
 *
 * A zero or non-finite pivot, or one that cancelled to within 2^-30 of
 * its terms (forward: tl_lanes_check_pivot, lanes.h), or a non-finite x
 * (backward) in a lane sets bad[s] (as may a check sum that overflowed: lanes.h); that
 * lane's outputs are then unspecified, and the caller runs the reference
 * phase on the system for its report. The forward sweeps also set bad[s]
 * when one of system s's entries is not finite (tl_lanes_check_row, five
 * operations per row, on the values the sweep reads anyway): a rank
 * program then scans only the flagged systems' entries, instead of the
 * whole slice before the solve.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/cpu.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/part_tridsolver.h"

#if TL_LANES_OK

/* What the forward sweep carries from row to row, per lane. */
typedef struct fw_state {
  tl_lanes as, cs, ds; /* row i-1's a', c', d'                          */
  tl_lanes b0, c0, d0;  /* row 0 while it eliminates x_1 .. x_{i-1}      */
  tl_lanes chk;         /* check sum of the pivots and results (lanes.h)  */
} fw_state;

/* Row i of the forward sweep (Algorithm 6, lines 7-19):
 * reference/tridsolver_ref.c's loop body, operation for operation.
 * last: row m-1 without a next partition (its c is the corner, read as
 * 0); eliminate: row 0 still has a row below to eliminate. */
static TL_CPU_INLINE void forward_row(fw_state *f, tl_lanes a, tl_lanes b, tl_lanes c, tl_lanes d,
                                      int last, int eliminate)
{
  tl_lanes ci = last ? tl_lanes_splat(0.0) : c;
  tl_lanes_fillin_row(a, b, ci, d, &f->as, &f->cs, &f->ds, &f->chk);
  if (eliminate) { /* row 0 eliminates x_i, now couples x_{i+1} */
    f->b0 = f->b0 - f->c0 * f->as;
    f->d0 = f->d0 - f->c0 * f->ds;
    f->c0 = -f->c0 * f->cs;
  }
}

/* Where a forward sweep puts its a', c', d' (a compile-time choice at
 * each call, so each sweep is compiled for its own):
 *   TS_SLICES  every row, into the slices (as, cs, ds: system s at s m);
 *   TS_PACKED  every row, into the group's packed scratch: a' of row i at
 *              as + 8 i, its c' and d' 8 m and 16 m further on (the
 *              layout of a tile, in L2);
 *   TS_ENDS    rows 0 and m-1 only, 6 per system at as + 6 s:
 *              a'_0, a'_{m-1}, c'_0, c'_{m-1}, d'_0, d'_{m-1}. */
enum { TS_SLICES, TS_PACKED, TS_ENDS };
typedef struct fw_out {
  int mode;
  double *as, *cs, *ds; /* cs, ds: TS_SLICES only */
  int keep_row0;        /* 1: row 0 is not eliminated (the hybrid's pass) */
} fw_out;

/* Row i's a', c', d' of the group whose slices start at element o, where
 * w says (TS_SLICES: rows 0 and 1 only; the others go through
 * forward_put's tiles). */
static TL_CPU_INLINE void put_row(const fw_out *w, size_t o, size_t m, size_t i, tl_lanes a,
                                  tl_lanes c, tl_lanes d)
{
  if (w->mode == TS_SLICES) {
    tl_lanes_scatter(w->as + o, m, i, a), tl_lanes_scatter(w->cs + o, m, i, c);
    tl_lanes_scatter(w->ds + o, m, i, d);
  } else if (w->mode == TS_PACKED) {
    double *p = w->as + i * TL_LANES;
    tl_lanes_store(p, a), tl_lanes_store(p + TL_LANES * m, c);
    tl_lanes_store(p + 2 * TL_LANES * m, d);
  } else if (i == 0 || i == m - 1) {
    double *e = w->as + 6 * (o / m) + (i == 0 ? 0 : 1);
    for (int l = 0; l < TL_LANES; l++)
      e[6 * l] = a[l], e[6 * l + 2] = c[l], e[6 * l + 4] = d[l];
  }
}

/* Rows 0 and 1 of a group (lines 1-6): row 1 normalised (f->as, cs, ds
 * hold it on return), and row 0 eliminating x_1 (with m = 2, x_1 is
 * already x_{m-1}). The corners do not enter the arithmetic; they are
 * read for the entries' check only. */
static TL_CPU_INLINE void forward_first_rows(fw_state *f, size_t m, int has_right, const double *a,
                                             const double *b, const double *c, const double *d)
{
  tl_lanes b1 = tl_lanes_gather(b, m, 1);
  tl_lanes c1 = (m == 2 && !has_right) ? tl_lanes_splat(0.0) : tl_lanes_gather(c, m, 1);
  tl_lanes a1 = tl_lanes_gather(a, m, 1), d1 = tl_lanes_gather(d, m, 1);
  f->as = a1 / b1;
  f->cs = c1 / b1;
  f->ds = d1 / b1;
  f->chk = b1 + f->ds;
  f->b0 = tl_lanes_gather(b, m, 0), f->c0 = tl_lanes_gather(c, m, 0);
  f->d0 = tl_lanes_gather(d, m, 0);
  /* the entries of rows 0 and 1, corners too (lanes.h) */
  f->chk = tl_lanes_check_row(f->chk, a1, b1, tl_lanes_gather(c, m, 1), d1);
  f->chk = tl_lanes_check_row(f->chk, tl_lanes_gather(a, m, 0), f->b0, f->c0, f->d0);
  if (m >= 3) {
    tl_lanes c0 = f->c0;
    f->b0 = f->b0 - c0 * f->as;
    f->d0 = f->d0 - c0 * f->ds;
    f->c0 = -c0 * f->cs;
  }
}

/* Row 0 normalised (lines 20-22) into r (a', c', d'), and the group's
 * flags. */
static TL_CPU_INLINE void forward_row0(fw_state *f, size_t m, int has_left, const double *a,
                                       tl_lanes r[3], unsigned char *bad)
{
  r[0] = has_left ? tl_lanes_gather(a, m, 0) / f->b0 : tl_lanes_splat(0.0);
  r[1] = f->c0 / f->b0;
  r[2] = f->d0 / f->b0;
  tl_lanes_flag(f->chk + f->b0 + r[2], bad);
}

/* Row i of the forward sweep from its entries v (a, b, c, d), its a',
 * c', d' where w says (TS_SLICES: into the tiles ot[0..2], whose rows
 * the sweep then writes to the slices, a tile or its part at a time). */
static TL_CPU_INLINE void forward_put(fw_state *f, const fw_out *w, size_t o, size_t m, size_t i,
                                      int has_right, const tl_lanes v[4], double (*ot)[64])
{
  f->chk = tl_lanes_check_row(f->chk, v[0], v[1], v[2], v[3]);
  forward_row(f, v[0], v[1], v[2], v[3], i == m - 1 && !has_right, i + 1 < m && !w->keep_row0);
  if (w->mode == TS_SLICES) {
    size_t j = i % TL_LANES * TL_LANES;
    tl_lanes_store(ot[0] + j, f->as), tl_lanes_store(ot[1] + j, f->cs);
    tl_lanes_store(ot[2] + j, f->ds);
  } else {
    put_row(w, o, m, i, f->as, f->cs, f->ds);
  }
}

/* How far ahead of the forward sweep its lines are fetched into L2, in
 * rows: two tiles. From memory (one thread, 4096 slices of 2048 rows)
 * the sweep took 2.85-2.97 ns per unknown with 16 rows, 2.91-3.06 with
 * 32 and 2.99-3.32 with lanes.h's 64 (docs/performance.md). */
enum { FW_AHEAD = 16 };

/* Rows i0 + r0 .. i0 + r1 - 1 of the forward sweep, the tile at i0 of
 * the group's 8 slices of a, b, c and d (src[0..3]); the lines FW_AHEAD
 * rows on are fetched into L2 first. A whole tile is transposed straight
 * into registers (through a tile on the stack, lanes.h's
 * tl_lanes_tiles_get, the sweep took 3.2-3.5 ns per unknown from memory
 * instead of 2.8-3.0, docs/performance.md); a part of one, row by row. */
static TL_CPU_INLINE void forward_tile(fw_state *f, const fw_out *w, size_t o, size_t m, size_t i0,
                                       size_t r0, size_t r1, int has_right,
                                       const double *const *src, double (*ot)[64])
{
  for (int j = 0; j < 4; j++)
    tl_lanes_prefetch(src[j], m, i0 + FW_AHEAD);
  if (r0 == 0 && r1 == TL_LANES) { /* fixed bounds: t stays in registers */
    tl_lanes t[4][TL_LANES];
    for (int j = 0; j < 4; j++)
      tl_cpu_transpose8_load_d(src[j] + i0, m, t[j]);
    for (int r = 0; r < TL_LANES; r++) {
      const tl_lanes v[4] = {t[0][r], t[1][r], t[2][r], t[3][r]};
      forward_put(f, w, o, m, i0 + (size_t)r, has_right, v, ot);
    }
    return;
  }
  for (size_t r = r0; r < r1; r++) {
    const tl_lanes v[4] = {tl_lanes_gather(src[0], m, i0 + r), tl_lanes_gather(src[1], m, i0 + r),
                           tl_lanes_gather(src[2], m, i0 + r), tl_lanes_gather(src[3], m, i0 + r)};
    forward_put(f, w, o, m, i0 + r, has_right, v, ot);
  }
}

/* The forward sweep of the group whose 8 slices start at element o, its
 * results where w says; nt: streaming stores (TS_SLICES). One group at a
 * time: two side by side, so that their chains of dependent divisions
 * overlap, read 64 lines a tile, and from memory (one thread, 4096
 * slices of 2048 rows) took 7.3 ns per unknown where one group took
 * 3.2-3.5 (docs/performance.md). */
static TL_CPU_INLINE void forward_group(const fw_out *w, int nt, size_t o, size_t m, int has_left,
                                        int has_right, const double *a, const double *b,
                                        const double *c, const double *d, unsigned char *bad)
{
  const double *src[4] = {a + o, b + o, c + o, d + o};
  fw_state f;
  forward_first_rows(&f, m, has_right, src[0], src[1], src[2], src[3]);
  put_row(w, o, m, 1, f.as, f.cs, f.ds);
  double ot[3][64];                             /* TS_SLICES: a tile of a', c', d' */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) { /* rows 2 .. m-1 */
    size_t r0, r1;
    tl_lanes_clip(i0, 2, m, &r0, &r1);
    if (r0 >= r1)
      continue;
    forward_tile(&f, w, o, m, i0, r0, r1, has_right, src, ot);
    for (int k = 0; k < 3 && w->mode == TS_SLICES; k++)
      tl_lanes_tile_write(nt, (k == 0 ? w->as : k == 1 ? w->cs : w->ds) + o, m, i0, r0, r1, ot[k]);
  }
  tl_lanes r[3];
  forward_row0(&f, m, has_left, src[0], r, bad + o / m);
  put_row(w, o, m, 0, r[0], r[1], r[2]);
}

/* The groups of a batch: a', c', d' into the slices (mode TS_SLICES) or
 * rows 0 and m-1 into the ends (TS_ENDS). */
static TL_CPU_INLINE void forward_batch(const fw_out *w, size_t groups, size_t m, int has_left,
                                        int has_right, const double *a, const double *b,
                                        const double *c, const double *d, unsigned char *bad)
{
  int nt = 0;
  if (w->mode == TS_SLICES) { /* a', c', d' to memory */
    double *const out[3] = {w->as, w->cs, w->ds};
    nt = tl_lanes_stream_worth(3 * groups * TL_LANES * m, m, 3, out);
  }
  for (size_t g = 0; g < groups; g++)
    forward_group(w, nt, g * TL_LANES * m, m, has_left, has_right, a, b, c, d, bad);
  if (nt)
    tl_lanes_stream_done();
}

TL_CPU_CLONES
static void forward_all(size_t groups, size_t m, int has_left, int has_right, const double *a,
                        const double *b, const double *c, const double *d, double *as, double *cs,
                        double *ds, unsigned char *bad)
{
  const fw_out w = {TS_SLICES, as, cs, ds, 0};
  forward_batch(&w, groups, m, has_left, has_right, a, b, c, d, bad);
}

TL_CPU_CLONES
static void ends_all(size_t groups, size_t m, int has_left, int has_right, const double *a,
                     const double *b, const double *c, const double *d, double *ends,
                     unsigned char *bad)
{
  const fw_out w = {TS_ENDS, ends, NULL, NULL, 0};
  forward_batch(&w, groups, m, has_left, has_right, a, b, c, d, bad);
}

/* The backward sweep of a group, rows m-1 .. 1, as the reference writes
 * it: x_i = d'_i - a'_i x_0 - c'_i x_{i+1}, x_m = the next partition's
 * first unknown; x_0 = F[p]. F[2 l], F[2 l + 1]: lane l's two. */
TL_CPU_CLONES
static void backward_group(size_t m, int nt, const double *as, const double *cs,
                           const double *ds, const double *F, double *x, unsigned char *bad)
{
  tl_lanes first, xn;
  for (int l = 0; l < TL_LANES; l++)
    first[l] = F[2 * l], xn[l] = F[2 * l + 1];
  tl_lanes chk = first; /* the check sum of the results (lanes.h) */
  const double *src[3] = {as, cs, ds};
  double t[3][64], tx[64]; /* tiles of a', c', d', and of x */
  for (size_t i0 = (m - 1) / TL_LANES * TL_LANES;; i0 -= TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 1, m, &r0, &r1);
    tl_lanes_tiles_get(3, src, m, i0, r0, r1, i0 >= TL_LANES_AHEAD ? i0 - TL_LANES_AHEAD : m, t);
    for (size_t r = r1; r-- > r0;) {
      size_t k = r * TL_LANES;
      xn = tl_lanes_load(t[2] + k) - tl_lanes_load(t[0] + k) * first - tl_lanes_load(t[1] + k) * xn;
      chk = chk + xn;
      tl_lanes_store(tx + k, xn);
    }
    tl_lanes_tile_write(nt, x, m, i0, r0, r1, tx);
    if (i0 == 0)
      break;
  }
  tl_lanes_scatter(x, m, 0, first);
  tl_lanes_flag(chk, bad);
}

/* The backward sweep of a group from its packed a', c', d' (TS_PACKED):
 * backward_group's operations, so its bits. */
static TL_CPU_INLINE void backward_packed(size_t m, int nt, const double *pa, const double *F,
                                          double *x, unsigned char *bad)
{
  const double *pc = pa + TL_LANES * m, *pd = pc + TL_LANES * m;
  tl_lanes first, xn;
  for (int l = 0; l < TL_LANES; l++)
    first[l] = F[2 * l], xn[l] = F[2 * l + 1];
  tl_lanes chk = first;
  double tx[64]; /* a tile of x */
  for (size_t i0 = (m - 1) / TL_LANES * TL_LANES;; i0 -= TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 1, m, &r0, &r1);
    for (size_t r = r1; r-- > r0;) {
      size_t i = (i0 + r) * TL_LANES;
      xn = tl_lanes_load(pd + i) - tl_lanes_load(pa + i) * first - tl_lanes_load(pc + i) * xn;
      chk = chk + xn;
      tl_lanes_store(tx + r * TL_LANES, xn);
    }
    tl_lanes_tile_write(nt, x, m, i0, r0, r1, tx);
    if (i0 == 0)
      break;
  }
  tl_lanes_scatter(x, m, 0, first);
  tl_lanes_flag(chk, bad);
}

/* Phase 1 again and phase 5 of a group: the forward sweep into the
 * packed scratch pk (3 8 m), then the backward sweep from it into x; F:
 * the group's first unknowns, 2 per system. redo[l] where the forward or
 * the backward sweep flags system l. One group at a time: two side by
 * side, as the first sweep runs them, need twice the scratch (1.5 MiB at
 * m = 4096, more than L2) and were no faster (docs/performance.md). */
TL_CPU_CLONES
static void finish_group(size_t m, int nt, int has_left, int has_right, const double *a,
                         const double *b, const double *c, const double *d, const double *F,
                         double *x, double *pk, unsigned char *redo)
{
  const fw_out w = {TS_PACKED, pk, NULL, NULL, 0};
  forward_group(&w, 0, 0, m, has_left, has_right, a, b, c, d, redo);
  backward_packed(m, nt, pk, F, x, redo);
}

/* A group's phase 5 (finish_group, hp_finish_group): the same arguments
 * for both, the slices of the group from a, b, c, d and x. */
typedef void finish_fn(size_t m, int nt, int has_left, int has_right, const double *a,
                       const double *b, const double *c, const double *d, const double *xb,
                       double *x, double *pk, unsigned char *redo);

/* The whole groups of a batch through fin, but a group holding a system
 * to skip (its others to redo); each one's part of the verdict's pass
 * after it, while its a, b, c, d are in cache (passes: not NULL). */
static size_t finish_batch(finish_fn *fin, size_t n, size_t begin, size_t m, size_t nsys,
                           int has_left, int has_right, const double *a, const double *b,
                           const double *c, const double *d, const double *xb,
                           const unsigned char *skip, double *x, unsigned char *redo,
                           const double *halo, struct tl_residual_pass *passes)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 3, &pk);
  memset(redo, 0, nsys);
  int nt = tl_lanes_stream_worth(groups * TL_LANES * m, m, 1, &x); /* x to memory */
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m, s = g * TL_LANES;
    if (tl_lanes_group_skipped(skip + s, redo + s))
      continue;
    fin(m, nt, has_left, has_right, a + o, b + o, c + o, d + o, xb + 2 * s, x + o, pk, redo + s);
    if (passes)
      tl_cpu_residual_slices_pass_d(n, 0, begin, m, TL_LANES, a + o, b + o, c + o, d + o, x + o,
                                    halo + 4 * s, passes + s);
  }
  if (nt)
    tl_lanes_stream_done();
  free(pk);
  return groups * TL_LANES;
}

#endif /* TL_LANES_OK */

size_t tl_cpu_tridsolver_ends_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                                const double *b, const double *c, const double *d, double *ends,
                                unsigned char *bad)
{
  size_t groups = tl_lanes_group_count(m, nsys);
#if TL_LANES_OK
  ends_all(groups, m, has_left, has_right, a, b, c, d, ends, bad);
#else
  (void)has_left, (void)has_right, (void)a, (void)b, (void)c, (void)d, (void)ends, (void)bad;
#endif
  return groups * TL_LANES;
}

size_t tl_cpu_tridsolver_finish_d(size_t n, size_t begin, size_t m, size_t nsys, int has_left,
                                  int has_right, const double *a, const double *b, const double *c,
                                  const double *d, const double *F, const unsigned char *skip,
                                  double *x, unsigned char *redo, const double *halo,
                                  struct tl_residual_pass *passes)
{
#if TL_LANES_OK
  return finish_batch(finish_group, n, begin, m, nsys, has_left, has_right, a, b, c, d, F, skip, x,
                      redo, halo, passes);
#else
  (void)n, (void)begin, (void)has_left, (void)has_right, (void)a, (void)b, (void)c, (void)d,
      (void)F, (void)skip, (void)x, (void)halo, (void)passes;
  memset(redo, 0, nsys);
  return 0;
#endif
}

void tl_cpu_tridsolver_forward_d(size_t begin, size_t m, size_t nsys, int has_left, int has_right,
                                 const double *a, const double *b, const double *c,
                                 const double *d, double *as, double *cs, double *ds,
                                 unsigned char *bad)
{
  size_t groups = tl_lanes_group_count(m, nsys);
#if TL_LANES_OK
  forward_all(groups, m, has_left, has_right, a, b, c, d, as, cs, ds, bad);
#endif
  for (size_t s = groups * TL_LANES; s < nsys; s++) { /* the rest: the reference */
    size_t o = s * m;
    tl_info info;
    if (tl_tridsolver_forward_d(begin, m, has_left, has_right, a + o, b + o, c + o, d + o, as + o,
                                cs + o, ds + o, &info) < 0 ||
        !tl_lanes_rows_finite(m, 4, (const double *const[4]){a + o, b + o, c + o, d + o}))
      bad[s] = 1;
  }
}

void tl_cpu_tridsolver_backward_d(size_t begin, size_t m, size_t nsys, const double *as,
                                  const double *cs, const double *ds, const double *F, double *x,
                                  unsigned char *bad)
{
  size_t groups = tl_lanes_group_count(m, nsys);
#if TL_LANES_OK
  int nt = tl_lanes_stream_worth(groups * TL_LANES * m, m, 1, &x); /* x to memory */
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m;
    backward_group(m, nt, as + o, cs + o, ds + o, F + 2 * g * TL_LANES, x + o,
                   bad + g * TL_LANES);
  }
  tl_lanes_stream_done();
#endif
  for (size_t s = groups * TL_LANES; s < nsys; s++) {
    size_t o = s * m;
    tl_info info;
    if (tl_tridsolver_backward_d(begin, m, as + o, cs + o, ds + o, F[2 * s], F[2 * s + 1], x + o,
                                 &info) < 0)
      bad[s] = 1;
  }
}

/* ---- the hybrid Thomas-PCR's modified Thomas ---------------------------
 *
 * reference/hybrid_pcr_ref.c (tl_hybrid_pcr_forward_d) on one system:
 * rows 0 and 1 normalised; the forward pass with the fill-in in column 0
 * (the step above); a backward pass that moves the fill-in to column m-1;
 * row 0 eliminating x_1. The backward pass reads what the forward pass
 * wrote, so a group's a', c', d' stay PACKED in a scratch of 3 m rows of
 * 8 lanes (row i of a' at pa + 8 i: the layout of a tile, in L2 at the
 * sizes a rank holds) until both passes are done, and cross into the
 * x-line layout once, by the transposes of lanes.h. The backward pass and
 * row 0 run the reference's operations (row 0's divisions included);
 * the forward pass takes one reciprocal per row. */

#if TL_LANES_OK

/* Rows 0 and 1: x_i's coefficients divided by b_i (lines 1-5); a_0
 * without a previous partition and c_{m-1} without a next one are the
 * corners, read as 0. */
static TL_CPU_INLINE void hp_first_rows(size_t m, int has_left, int has_right, const double *a,
                                        const double *b, const double *c, const double *d,
                                        double *pa, double *pc, double *pd, tl_lanes *chk)
{
  for (size_t i = 0; i < 2; i++) {
    tl_lanes bi = tl_lanes_gather(b, m, i), zero = tl_lanes_splat(0.0);
    tl_lanes ar = tl_lanes_gather(a, m, i), cr = tl_lanes_gather(c, m, i);
    tl_lanes dr = tl_lanes_gather(d, m, i);
    tl_lanes ai = (i == 0 && !has_left) ? zero : ar;
    tl_lanes ci = (i == m - 1 && !has_right) ? zero : cr;
    tl_lanes di = dr / bi;
    tl_lanes_store(pa + 8 * i, ai / bi), tl_lanes_store(pc + 8 * i, ci / bi);
    tl_lanes_store(pd + 8 * i, di);
    *chk = tl_lanes_check_row(*chk + bi + di, ar, bi, cr, dr); /* corners too (lanes.h) */
  }
}

/* Rows 2 .. m-1, forward (lines 6-11), a tile of the input at a time,
 * into the packed scratch: Tridsolver's forward sweep (forward_tile)
 * without row 0's elimination. */
static TL_CPU_INLINE void hp_forward_pass(size_t m, int has_right, const double *a,
                                          const double *b, const double *c, const double *d,
                                          double *pa, double *pc, double *pd, tl_lanes *chk)
{
  tl_lanes as = tl_lanes_load(pa + 8), cs = tl_lanes_load(pc + 8), ds = tl_lanes_load(pd + 8);
  /* w writes c' and d' at pa + 8 m and pa + 16 m: pc and pd (hp_sweeps) */
  const double *src[4] = {a, b, c, d};
  const fw_out w = {TS_PACKED, pa, NULL, NULL, 1};
  fw_state f = {.as = as, .cs = cs, .ds = ds, .chk = *chk}; /* b0, c0, d0 unused */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 2, m, &r0, &r1);
    if (r0 < r1)
      forward_tile(&f, &w, 0, m, i0, r0, r1, has_right, src, NULL);
  }
  *chk = f.chk;
}

/* Rows m-3 .. 1, backward (lines 12-16), then row 0 eliminates x_1
 * (lines 17-20), on the packed scratch: the reference's operations. */
static TL_CPU_INLINE void hp_backward_pass(size_t m, double *pa, double *pc, double *pd,
                                           tl_lanes *chk)
{
  if (m < 3)
    return; /* with m = 2 row 0 is already reduced */
  tl_lanes an = tl_lanes_load(pa + 8 * (m - 2)), cn = tl_lanes_load(pc + 8 * (m - 2));
  tl_lanes dn = tl_lanes_load(pd + 8 * (m - 2));
  for (size_t i = m - 2; i-- > 1;) {
    tl_lanes ci = tl_lanes_load(pc + 8 * i);
    dn = tl_lanes_load(pd + 8 * i) - ci * dn;
    an = tl_lanes_load(pa + 8 * i) - ci * an;
    cn = -ci * cn;
    tl_lanes_store(pa + 8 * i, an), tl_lanes_store(pc + 8 * i, cn);
    tl_lanes_store(pd + 8 * i, dn);
  }
  tl_lanes a1 = tl_lanes_load(pa + 8), c1 = tl_lanes_load(pc + 8), d1 = tl_lanes_load(pd + 8);
  tl_lanes c0 = tl_lanes_load(pc);
  tl_lanes p = tl_lanes_splat(1.0) - c0 * a1;
  tl_lanes d0 = (tl_lanes_load(pd) - c0 * d1) / p;
  tl_lanes_store(pd, d0);
  tl_lanes_store(pa, tl_lanes_load(pa) / p);
  tl_lanes_store(pc, -(c0 * c1) / p);
  *chk = *chk + p + d0;
}

/* Both passes and row 0 of a group into the packed scratch. */
static TL_CPU_INLINE void hp_sweeps(size_t m, int has_left, int has_right, const double *a,
                                    const double *b, const double *c, const double *d, double *pk,
                                    tl_lanes *chk)
{
  double *pa = pk, *pc = pk + TL_LANES * m, *pd = pk + 2 * TL_LANES * m;
  hp_first_rows(m, has_left, has_right, a, b, c, d, pa, pc, pd, chk);
  hp_forward_pass(m, has_right, a, b, c, d, pa, pc, pd, chk);
  hp_backward_pass(m, pa, pc, pd, chk);
}

TL_CPU_CLONES
static void hp_group(size_t m, int nt, int has_left, int has_right, const double *a,
                     const double *b, const double *c, const double *d, double *as, double *cs,
                     double *ds, double *pk, unsigned char *bad)
{
  double *pa = pk, *pc = pk + TL_LANES * m, *pd = pk + 2 * TL_LANES * m;
  tl_lanes chk = tl_lanes_splat(0.0);
  hp_sweeps(m, has_left, has_right, a, b, c, d, pk, &chk);
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) { /* packed -> the slices */
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    tl_lanes_tile_write(nt, as, m, i0, r0, r1, pa + TL_LANES * i0);
    tl_lanes_tile_write(nt, cs, m, i0, r0, r1, pc + TL_LANES * i0);
    tl_lanes_tile_write(nt, ds, m, i0, r0, r1, pd + TL_LANES * i0);
  }
  tl_lanes_flag(chk, bad);
}

/* The same sweeps keeping what the rank sends: tl_hybrid_pcr_pack's 6
 * per system (rows 0 and m-1 of a', c', d'). */
TL_CPU_CLONES
static void hp_ends_group(size_t m, int has_left, int has_right, const double *a, const double *b,
                          const double *c, const double *d, double *send, double *pk,
                          unsigned char *bad)
{
  tl_lanes chk = tl_lanes_splat(0.0);
  hp_sweeps(m, has_left, has_right, a, b, c, d, pk, &chk);
  for (int l = 0; l < TL_LANES; l++)
    for (int k = 0; k < 3; k++) {
      send[6 * l + k] = pk[k * TL_LANES * m + (size_t)l];
      send[6 * l + 3 + k] = pk[(k * m + m - 1) * TL_LANES + (size_t)l];
    }
  tl_lanes_flag(chk, bad);
}

/* The same sweeps again, then the substitution from the packed rows:
 * x_0 = first, x_{m-1} = last, x_i = d'_i - a'_i first - c'_i last
 * (tl_hybrid_pcr_backward's operations), tiles of x to the slices. xb:
 * first and last of each system, 2 per system. redo[l] where a sweep
 * flags a system or a value of x is not finite. */
TL_CPU_CLONES
static void hp_finish_group(size_t m, int nt, int has_left, int has_right, const double *a,
                            const double *b, const double *c, const double *d, const double *xb,
                            double *x, double *pk, unsigned char *redo)
{
  const double *pa = pk, *pc = pk + TL_LANES * m, *pd = pk + 2 * TL_LANES * m;
  tl_lanes chk = tl_lanes_splat(0.0), xf, xl;
  hp_sweeps(m, has_left, has_right, a, b, c, d, pk, &chk);
  tl_lanes_flag(chk, redo);
  for (int l = 0; l < TL_LANES; l++)
    xf[l] = xb[2 * l], xl[l] = xb[2 * l + 1];
  tl_lanes fin = (xf - xf) + (xl - xl);
  double t[64]; /* a tile of x */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (size_t r = r0; r < r1; r++) {
      size_t i = i0 + r, k = i * TL_LANES;
      tl_lanes v = i == 0 ? xf : xl;
      if (i > 0 && i + 1 < m) {
        v = tl_lanes_load(pd + k) - tl_lanes_load(pa + k) * xf - tl_lanes_load(pc + k) * xl;
        fin = fin + (v - v);
      }
      tl_lanes_store(t + r * TL_LANES, v);
    }
    tl_lanes_tile_write(nt, x, m, i0, r0, r1, t);
  }
  tl_lanes_flag(fin, redo);
}

#endif /* TL_LANES_OK */

size_t tl_cpu_hybrid_pcr_ends_d(size_t m, size_t nsys, int has_left, int has_right, const double *a,
                                const double *b, const double *c, const double *d, double *send,
                                unsigned char *bad)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 3, &pk);
#if TL_LANES_OK
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m, s = g * TL_LANES;
    hp_ends_group(m, has_left, has_right, a + o, b + o, c + o, d + o, send + 6 * s, pk, bad + s);
  }
#else
  (void)has_left, (void)has_right, (void)a, (void)b, (void)c, (void)d, (void)send, (void)bad;
#endif
  free(pk);
  return groups * TL_LANES;
}

size_t tl_cpu_hybrid_pcr_finish_d(size_t n, size_t begin, size_t m, size_t nsys, int has_left,
                                  int has_right, const double *a, const double *b, const double *c,
                                  const double *d, const double *xb, const unsigned char *skip,
                                  double *x, unsigned char *redo, const double *halo,
                                  struct tl_residual_pass *passes)
{
#if TL_LANES_OK
  return finish_batch(hp_finish_group, n, begin, m, nsys, has_left, has_right, a, b, c, d, xb, skip,
                      x, redo, halo, passes);
#else
  (void)n, (void)begin, (void)has_left, (void)has_right, (void)a, (void)b, (void)c, (void)d,
      (void)xb, (void)skip, (void)x, (void)halo, (void)passes;
  memset(redo, 0, nsys);
  return 0;
#endif
}

void tl_cpu_hybrid_pcr_forward_d(size_t begin, size_t m, size_t nsys, int has_left, int has_right,
                                 const double *a, const double *b, const double *c,
                                 const double *d, double *as, double *cs, double *ds,
                                 unsigned char *bad)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 3, &pk);
#if TL_LANES_OK
  double *const out[3] = {as, cs, ds}; /* a', c', d' to memory */
  int nt = tl_lanes_stream_worth(3 * groups * TL_LANES * m, m, 3, out);
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m;
    hp_group(m, nt, has_left, has_right, a + o, b + o, c + o, d + o, as + o, cs + o, ds + o, pk,
             bad + o / m);
  }
  tl_lanes_stream_done();
#endif
  free(pk);
  for (size_t s = groups * TL_LANES; s < nsys; s++) {
    size_t o = s * m;
    tl_info info;
    if (tl_hybrid_pcr_forward_d(begin, m, has_left, has_right, a + o, b + o, c + o, d + o, as + o,
                                cs + o, ds + o, &info) < 0 ||
        !tl_lanes_rows_finite(m, 4, (const double *const[4]){a + o, b + o, c + o, d + o}))
      bad[s] = 1;
  }
}
