/* optimized/cpu/lanes.h -- eight systems at once on the layout an MPI
 * rank holds: the building blocks of the batched local phases of the
 * partition algorithms (modified_thomas_cpu.c).
 *
 * A rank holds each system's rows one after the other: system s at
 * [s m, (s+1) m), the x-line layout. The local phases of the partition
 * algorithms are recurrences down (or up) each system's rows -- chains of
 * dependent divisions, one system after another in the references. Run
 * on eight systems at once, one per vector LANE, the eight chains overlap
 * and one vector instruction does each operation for all eight.
 *
 * Row i of eight systems is eight values m apart, not the eight adjacent
 * values a vector wants. So a phase reads a TILE -- eight rows of each of
 * the eight systems, one 64-byte cache line per system -- and transposes
 * it in registers (tl_cpu_transpose8_d), runs the recurrence on the eight
 * rows of the tile, and transposes its results back:
 *
 *   system 0: r0 .. r7 | r8 .. r15 | ...      tile: row 0: s0 .. s7
 *   system 1: r0 .. r7 | r8 .. r15 | ...  ->        row 1: s0 .. s7
 *   ...                                              ...
 *   system 7: r0 .. r7 | r8 .. r15 | ...            row 7: s0 .. s7
 *
 * Tiles start at multiples of 8 rows; the rows of a phase that cover only
 * part of a tile (its first and last rows) are gathered and scattered one
 * row at a time instead.
 *
 * The lanes are GNU C vectors (GCC and Clang): the compiler emits one
 * 512-bit instruction per operation with AVX-512, two with AVX2, four
 * with SSE2 -- the operations written once. TL_LANES_OK is 0 for another
 * compiler; the batched phases then run the references system by system.
 *
 * Breakdown: each lane adds up its pivots and its results in a check sum,
 * one add per value (as thomas_group.h does): the sum is not finite as
 * soon as a pivot or a result is not finite, and a zero pivot makes a
 * result infinite or NaN. tl_lanes_flag flags the lanes whose sum is not
 * finite, once per group; the caller runs the reference phase on a
 * flagged system, which gives its report (or finds that only the sum
 * overflowed: then the reference's results, the same bits, stand). A
 * test on every row would cost more than the row's arithmetic. The arithmetic in a lane is the
 * reference's, operation for operation, so an unflagged lane's results
 * are the reference's bits (the CPU room is built with -ffp-contract=off,
 * as the reference is compiled without contraction in ISO C) -- except in
 * the sweeps that invert a pivot once where the reference divides by it
 * (tl_lanes_fillin_row below, Tridsolver's and the hybrid's; P-TDMA's
 * fused passes, ptdma_cpu.c; PDD's ends, pdd_ends_cpu.c): their results
 * are within a few roundings of the reference's. In the first two a pivot
 * that cancelled to within 2^-30 of its terms also flags the lane
 * (tl_lanes_check_pivot), since there a rounding more or less is the
 * difference between the reference's breakdown and a finite answer (the
 * Thomas kernels do the same with |p| <= 2^-30 |b|, within a factor of 2
 * of this test and cheaper: thomas_group.h).
 */
#ifndef TL_CPU_LANES_H
#define TL_CPU_LANES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpu_internal.h"
#include "tridlab/cpu.h"

enum { TL_LANES = 8 }; /* systems per group = rows per tile */

#ifndef TL_LANES_AHEAD
#define TL_LANES_AHEAD 64 /* rows the software prefetch runs ahead */
#endif

/* 1 when the m values of each of the k arrays v[j] (a system's first
 * row on) are all finite (v - v is 0 for each finite v, NaN else), for
 * the systems a kernel leaves to the reference. */
static inline int tl_lanes_rows_finite(size_t m, int k, const double *const *v)
{
  double e = 0.0;
  for (int j = 0; j < k; j++)
    for (size_t i = 0; i < m; i++)
      e += v[j][i] - v[j][i];
  return e == 0.0;
}

#ifdef TL_CPU_SHUFFLE
#define TL_LANES_OK 1

typedef tl_cpu_v8d tl_lanes; /* row i of 8 systems, one per lane */

/* Lanes pass by value only between the inline functions of a kernel in
 * this room, never across a library boundary: the compilers' -Wpsabi
 * warning, that a 64-byte vector passed without AVX-512 changes the
 * ABI, concerns no caller here. GCC 12 still printed its note once in
 * each kernel file under this pragma; the Makefile's -Wno-psabi (OPT_CPU)
 * silences it. */
#if defined(__GNUC__) /* Clang too: it reads GCC's pragmas */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

static TL_CPU_INLINE tl_lanes tl_lanes_splat(double v)
{
  return (tl_lanes){v, v, v, v, v, v, v, v};
}

/* Row r of a tile, and back. */
static TL_CPU_INLINE tl_lanes tl_lanes_load(const double *t)
{
  tl_lanes v;
  memcpy(&v, t, sizeof v);
  return v;
}

static TL_CPU_INLINE void tl_lanes_store(double *t, tl_lanes v)
{
  memcpy(t, &v, sizeof v);
}

/* Row i of eight slices m apart, and back: the rows outside whole tiles. */
static TL_CPU_INLINE tl_lanes tl_lanes_gather(const double *p, size_t m, size_t i)
{
  tl_lanes v;
  for (int l = 0; l < TL_LANES; l++)
    v[l] = p[(size_t)l * m + i];
  return v;
}

static TL_CPU_INLINE void tl_lanes_scatter(double *p, size_t m, size_t i, tl_lanes v)
{
  for (int l = 0; l < TL_LANES; l++)
    p[(size_t)l * m + i] = v[l];
}

/* Rows [i0 + r0, i0 + r1) of eight slices m apart into rows r0 .. r1-1
 * of tile (8 rows of 8 lanes): one transpose for a whole tile, row by row
 * for a part of one. */
static TL_CPU_INLINE void tl_lanes_tile_get(const double *p, size_t m, size_t i0, size_t r0,
                                            size_t r1, double *tile)
{
  if (r0 == 0 && r1 == TL_LANES) {
    tl_cpu_transpose8_d(p + i0, m, tile, TL_LANES);
    return;
  }
  for (size_t r = r0; r < r1; r++)
    tl_lanes_store(tile + r * TL_LANES, tl_lanes_gather(p, m, i0 + r));
}

/* The inverse: rows r0 .. r1-1 of tile into rows [i0 + r0, i0 + r1). */
static TL_CPU_INLINE void tl_lanes_tile_put(double *p, size_t m, size_t i0, size_t r0, size_t r1,
                                            const double *tile)
{
  if (r0 == 0 && r1 == TL_LANES) {
    tl_cpu_transpose8_d(tile, TL_LANES, p + i0, m);
    return;
  }
  for (size_t r = r0; r < r1; r++)
    tl_lanes_scatter(p, m, i0 + r, tl_lanes_load(tile + r * TL_LANES));
}

/* Streaming stores (cpu_internal.h, TL_CPU_NT): a whole tile's rows are
 * whole cache lines of the slices (8 doubles from a multiple of 8 rows),
 * so they can be written without the line being read first. For batches
 * larger than the cache, whose results go to memory anyway
 * (tl_lanes_stream_worth). */

/* Whether arrays of `words` doubles are worth writing with streaming
 * stores: more than the last-level cache holds (tl_cpu_stream_min_bytes,
 * tridlab/cpu.h: 32 MiB, a bound that errs towards plain stores on larger
 * caches), and each of the k arrays p[j] and its slices of m rows on
 * cache lines (64 bytes). A streaming store to a part of a line would
 * cost more than a plain one. Measured (one thread, 4096 slices of 2048
 * rows, a', c', d' and x to aligned arrays): Tridsolver's forward sweep
 * 5.3 -> 4.3 ns per unknown, its backward sweep 3.2 -> 1.9. */
static inline int tl_lanes_stream_worth(size_t words, size_t m, int k, double *const *p)
{
  int ok = TL_CPU_NT && words * sizeof(double) > tl_cpu_stream_min_bytes() && m % 8 == 0;
  for (int j = 0; j < k; j++)
    ok &= (uintptr_t)p[j] % 64 == 0;
  return ok;
}

/* tl_lanes_tile_put, with streaming stores for a whole tile when nt
 * (tl_lanes_stream_worth has checked that the lines are aligned). The
 * caller ends its kernel with tl_lanes_stream_done. */
static TL_CPU_INLINE void tl_lanes_tile_write(int nt, double *p, size_t m, size_t i0, size_t r0,
                                              size_t r1, const double *tile)
{
#if TL_CPU_NT
  if (nt && r0 == 0 && r1 == TL_LANES) {
    tl_cpu_v8d r[8];
    tl_cpu_transpose8_load_d(tile, TL_LANES, r);
    for (int k = 0; k < 8; k++)
      tl_cpu_stream_line_d(p + (size_t)k * m + i0, r[k]);
    return;
  }
#else
  (void)nt;
#endif
  tl_lanes_tile_put(p, m, i0, r0, r1, tile);
}

/* After a kernel's streaming stores: they are ordered before what
 * follows (another thread or rank may read the results next). */
static inline void tl_lanes_stream_done(void)
{
  tl_cpu_stream_fence();
}

/* Software prefetch of row i of the eight slices of p (when it exists),
 * into L2 only: eight slices of 2^k rows start on the same L1 set, and
 * the lines of several arrays prefetched into L1 pushed out the tile
 * being read (P = 2, 4096 x 4096: Tridsolver's rank program 165 -> 126
 * ms, P-TDMA's 152 -> 127, docs/performance.md, "MPI"). */
static TL_CPU_INLINE void tl_lanes_prefetch(const double *p, size_t m, size_t i)
{
  if (i < m)
    for (int l = 0; l < TL_LANES; l++)
      TL_CPU_PREFETCH_L2(p + (size_t)l * m + i, 0);
}

/* The step that starts every tile of a sweep: rows r0 .. r1-1 of the
 * tile at i0 of each of the k arrays src[j] into tiles[j], and row `ahead`
 * of each fetched for a later tile. */
static TL_CPU_INLINE void tl_lanes_tiles_get(int k, const double *const *src, size_t m, size_t i0,
                                             size_t r0, size_t r1, size_t ahead,
                                             double (*tiles)[64])
{
  for (int j = 0; j < k; j++) {
    tl_lanes_prefetch(src[j], m, ahead);
    tl_lanes_tile_get(src[j], m, i0, r0, r1, tiles[j]);
  }
}

/* Eight 64-bit integers: the lanes' bits, and what comparing two lanes
 * gives (-1 true, 0 false). */
typedef int64_t tl_lanes_bits __attribute__((vector_size(64)));

/* Absolute values of the lanes (the sign bits cleared). */
static TL_CPU_INLINE tl_lanes tl_lanes_abs(tl_lanes v)
{
  tl_lanes_bits u;
  memcpy(&u, &v, sizeof u);
  u &= (tl_lanes_bits){0} + INT64_MAX;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* A pivot p = B - t that cancelled to within 2^-30 of its terms, |p| <=
 * 2^-30 (|B| + |t|), puts a NaN into the check sum (chk + 0 elsewhere).
 * A sweep that inverts its pivot once where its reference divides by it
 * rounds differently: where the reference's pivot is exactly 0 (a
 * breakdown it reports; e.g. 1 - 49 / 49) this one's may be an ulp
 * (1 - 49 (1 / 49) = 1.1e-16), with a finite reciprocal and a solution
 * that is noise. Such a system goes to the reference, which decides. */
#define TL_LANES_CANCELLED 0x1p-30

static TL_CPU_INLINE tl_lanes tl_lanes_check_pivot(tl_lanes chk, tl_lanes p, tl_lanes B, tl_lanes t)
{
  tl_lanes k = tl_lanes_splat(TL_LANES_CANCELLED); /* k |B| + k |t|: no overflow */
  tl_lanes x = k * tl_lanes_abs(B) + k * tl_lanes_abs(t);
  /* |p| <= x compared as integers: for numbers >= 0 the bits are in the
   * order of the values, and GCC compares integer lanes in one vector
   * instruction where it takes a comparison of doubles lane by lane. A
   * NaN |p| is never <= (its check sum flags it anyway); a NaN x is
   * (the lane is flagged either way). */
  tl_lanes_bits cut = (tl_lanes_bits)tl_lanes_abs(p) <= (tl_lanes_bits)x;
  return chk + (tl_lanes)((tl_lanes_bits)tl_lanes_splat(NAN) & cut);
}

/* One row of the forward sweep with the fill-in kept in column 0, the
 * step Tridsolver's sweep (paper 002 Algorithm 6) and the hybrid's
 * (Algorithm 3 of its source, reference/hybrid_pcr_ref.c) share: row i
 * (a, b, ci, d; ci = 0 for a missing neighbour) from row i-1's a', c',
 * d' (as, cs, ds, updated in place). One reciprocal of the pivot where
 * the references divide three times; the pivot and d' go into the check
 * sum, and a pivot that cancelled (tl_lanes_check_pivot). */
static TL_CPU_INLINE void tl_lanes_fillin_row(tl_lanes a, tl_lanes b, tl_lanes ci, tl_lanes d,
                                              tl_lanes *as, tl_lanes *cs, tl_lanes *ds,
                                              tl_lanes *chk)
{
  tl_lanes t = a * *cs, p = b - t;
  tl_lanes r = tl_lanes_splat(1.0) / p;
  *chk = tl_lanes_check_pivot(*chk, p, b, t);
  *ds = (d - a * *ds) * r;
  *as = -(a * *as) * r;
  *cs = ci * r;
  *chk = *chk + p + *ds;
}

/* The entries' own check, folded into the check sum: e - e is 0 for a
 * finite e and NaN for an inf or NaN, and e = (a + b) + (c + d) is not
 * finite when one of a row's four entries is not -- or when the sum
 * overflows, a false alarm that only sends the system to the reference
 * and to the caller's scan of its entries. Five operations per row: a
 * rank program whose sweep reads the slice anyway need not read it once
 * more to check it (own_entry_check, tridlab/mpi.h). Raw values: a
 * corner read as 0 is checked as it is. */
static TL_CPU_INLINE tl_lanes tl_lanes_check_row(tl_lanes chk, tl_lanes a, tl_lanes b, tl_lanes c,
                                                 tl_lanes d)
{
  tl_lanes e = (a + b) + (c + d);
  return chk + (e - e);
}

/* Each lane's row margin |b| - (|a| + |c|) (core/system.c's judge_row;
 * a and c as the corners leave them: 0 where the row lacks a coupling,
 * as the margin leaves it out) and whether it is > 0, and-ed into *pos:
 * a lane stays all ones while every row is strictly dominant (a NaN is
 * not). What tl_cpu_row_classes_slice_d's TL_CLASS_STRICT_DD says,
 * from rows a sweep reads anyway. */
static TL_CPU_INLINE void tl_lanes_margin_pos(tl_lanes_bits *pos, tl_lanes a, tl_lanes b,
                                              tl_lanes c)
{
  tl_lanes margin = tl_lanes_abs(b) - (tl_lanes_abs(a) + tl_lanes_abs(c));
  *pos &= margin > tl_lanes_splat(0.0);
}

/* 1 into flag[l] (or-ed in) for each lane l whose check sum is not
 * finite: see "Breakdown" above. */
static TL_CPU_INLINE void tl_lanes_flag(tl_lanes chk, unsigned char *flag)
{
  for (int l = 0; l < TL_LANES; l++)
    flag[l] |= !(chk[l] - chk[l] == 0.0);
}

#else
#define TL_LANES_OK 0
#endif

/* The whole groups of eight that a batch of nsys slices of m rows has:
 * none when the lanes are not built or m < 2 (the caller's reference
 * path then takes every system). */
static inline size_t tl_lanes_group_count(size_t m, size_t nsys)
{
  return TL_LANES_OK && m >= 2 ? nsys / TL_LANES : 0;
}

/* Those groups, and a zeroed scratch for them of `arrays` packed arrays
 * of m rows of eight lanes (the caller frees it); none, and no scratch,
 * when memory is short. tl_lanes_groups_dirty: the same with a scratch
 * that is not zeroed (tl_cpu_scratch), for a kernel that writes every
 * packed row before it reads it and is called often enough that the
 * zeroing shows (distd2_lines_cpu.c: once per mini-batch of distd2_mpi,
 * 256 times a solve at 4096 x 4096 on 2 ranks, where it took 4-5 %). */
static inline size_t tl_lanes_groups(size_t m, size_t nsys, size_t arrays, double **pk)
{
  size_t groups = tl_lanes_group_count(m, nsys);
  *pk = groups ? tl_alloc(arrays * TL_LANES * m, sizeof **pk) : NULL;
  return *pk ? groups : 0;
}

static inline size_t tl_lanes_groups_dirty(size_t m, size_t nsys, size_t arrays, double **pk)
{
  size_t groups = tl_lanes_group_count(m, nsys);
  *pk = groups ? tl_cpu_scratch(arrays * TL_LANES * m, sizeof **pk) : NULL;
  return *pk ? groups : 0;
}

/* Whether a group of eight holds a system to skip (skip[0 .. 8), from
 * its first system); if so, redo[l] = 1 for its others: a finish pass
 * leaves such a group to its caller. */
static inline int tl_lanes_group_skipped(const unsigned char *skip, unsigned char *redo)
{
  int any = 0;
  for (int l = 0; l < TL_LANES; l++)
    any |= skip[l];
  for (int l = 0; l < TL_LANES && any; l++)
    redo[l] = !skip[l];
  return any;
}

/* The first and one-past-the-last row of the tile that starts at row i0,
 * within the rows [lo, hi) a phase runs: r0 .. r1-1 of the tile. */
static inline void tl_lanes_clip(size_t i0, size_t lo, size_t hi, size_t *r0, size_t *r1)
{
  *r0 = lo > i0 ? lo - i0 : 0;
  *r1 = hi < i0 + TL_LANES ? hi - i0 : TL_LANES;
}

#endif
