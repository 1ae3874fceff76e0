/* optimized/cpu/nshaped_cpu.c -- the N-shaped partition method's local
 * stages on a batch of slices: RD, RU and JU eight systems at once, SS
 * eight rows at once. What every MPI rank of nshaped_mpi runs on its own
 * rows (tl_cpu_nshaped_reduce_d, tl_cpu_nshaped_substitute_d,
 * tridlab/cpu.h).
 *
 * Source: paper 004 (N-shaped) §4.1.2 (RD, RU), §4.1.3 (JU), §4.1.5
 * (SS), Table 1. reference/nshaped_ref.c (tl_nshaped_rd_d, _ru_d, _ju_d,
 * _ss_d, _ss_tiny_d) is the readable version on one system; this file
 * runs the same operations, in the same order, so its results are the
 * reference's bits (the CPU room is built without contraction: lanes.h).
 *
 * A rank holds partition p of each system: its row 0 is the joint line
 * J_p and rows 1 .. L the block below it (L = m-1, or m-2 where row m-1
 * is the last joint line of a plain system, J_{p+1} = n-1).
 *
 * RD and RU are recurrences down and up the block, one dependent
 * division a row, so eight systems run side by side, one per vector lane
 * (lanes.h), as P-TDMA's sweeps do (ptdma_cpu.c). RD reads tiles of a,
 * b, c, d and keeps a group's block rows PACKED (row i of the eight
 * systems at pk + 8 i, in L2 at the sizes a rank holds); RU runs on the
 * packed rows and ends on row 1, which JU needs, still in registers; the
 * block rows then cross once, by the transposes of lanes.h, into each
 * system's left, diag, right, rhs (the rows of tl_nshaped_init_rank_in):
 *
 *   x-lines a, b, c, d  --tiles-->  RD  -->  packed  -->  RU, JU
 *                                                  |
 *   block rows (left, diag, right, rhs)  <--transposes--+
 *
 * With a scan (tl_cpu_nshaped_scan), RD also measures rows 1 .. L-1 for
 * the MPI verdict as it reads them (ns_scan_row) and SS takes max |x|,
 * so that the verdict need not read the slice once more.
 *
 * SS has no recurrence: row i needs its own block row and the two
 * support values only. So it runs along each system's rows, eight rows
 * to a vector, straight from the contiguous block rows: no transposes.
 *
 * Breakdown. RD fails on a pivot diag_i that is zero or not finite.
 * Every pivot goes into its lane's check sum (lanes.h), and so does
 * every multiplier of RU and JU: between them they divide by diag_L ..
 * diag_2 and diag_1, once each, so a zero pivot makes one of them
 * infinite or NaN. SS fails on an x that is not finite: every x goes
 * into the sum. The caller runs the reference stage on a flagged system,
 * which gives its report.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/cpu.h"

#if TL_LANES_OK

enum { LEFT, DIAG, RIGHT, RHS, ARRAYS }; /* the block rows, as tl_nshaped_init_rank_in lays them */

/* Packed row i of array k of a group. */
#define PK(k, i) (pk + ((size_t)(k) * m + (i)) * TL_LANES)

/* The verdict's measure of rows 1 .. L-1 (tl_cpu_nshaped_scan), lane by
 * lane as RD reads the rows: residual_cpu.c's dd_block and max_block on
 * those rows, the same operations. Row i's column margin needs a_{i+1}:
 * it is taken when row i+1 comes (bprev, cprev2: |b_i|, |c_{i-1}|). */
typedef struct ns_scan {
  tl_lanes rmin, cmin, worst, wrow, amax; /* rows 1 .. L-1 so far */
  tl_lanes bprev, cprev, cprev2;          /* |b_{i-1}|, |c_{i-1}|, |c_{i-2}| */
} ns_scan;

/* Row i (entries a, b, c): its own margins when own (i < L), row i-1's
 * column margin when col (i >= 2). On a tie the earlier row stays. The
 * lanes go through arrays for the comparisons, which GCC vectorises
 * there (it takes a comparison of two vectors of doubles lane by lane);
 * the arrays are locals, kept in registers. */
static TL_CPU_INLINE void ns_scan_row(ns_scan *w, tl_lanes a, tl_lanes b, tl_lanes c, double i,
                                      int own, int col)
{
  double av[TL_LANES], bv[TL_LANES], cv[TL_LANES], rmin[TL_LANES], cmin[TL_LANES];
  double worst[TL_LANES], wrow[TL_LANES], amax[TL_LANES], bprev[TL_LANES], cprev2[TL_LANES];
  tl_lanes_store(av, a), tl_lanes_store(bv, b), tl_lanes_store(cv, c);
  tl_lanes_store(rmin, w->rmin), tl_lanes_store(cmin, w->cmin), tl_lanes_store(worst, w->worst);
  tl_lanes_store(wrow, w->wrow), tl_lanes_store(amax, w->amax);
  tl_lanes_store(bprev, w->bprev), tl_lanes_store(cprev2, w->cprev2);
#pragma omp simd
  for (int l = 0; l < TL_LANES; l++) {
    double A = fabs(av[l]), B = fabs(bv[l]), C = fabs(cv[l]);
    if (col) {
      double cm = bprev[l] - (cprev2[l] + A);
      cmin[l] = cm < cmin[l] ? cm : cmin[l];
    }
    if (own) {
      double margin = B - (A + C), q = B > 0.0 ? margin / B : -INFINITY;
      rmin[l] = margin < rmin[l] ? margin : rmin[l];
      int less = q < worst[l];
      worst[l] = less ? q : worst[l];
      wrow[l] = less ? i : wrow[l];
      double big = B > A ? B : A;
      big = big > C ? big : C;
      amax[l] = big > amax[l] ? big : amax[l];
    }
  }
  w->rmin = tl_lanes_load(rmin), w->cmin = tl_lanes_load(cmin), w->worst = tl_lanes_load(worst);
  w->wrow = tl_lanes_load(wrow), w->amax = tl_lanes_load(amax);
  w->cprev2 = w->cprev, w->cprev = tl_lanes_abs(c), w->bprev = tl_lanes_abs(b);
}

/* RD (Table 1) down rows 1 .. L, a tile of a, b, c, d at a time: the
 * Thomas forward sweep inside the block, the column of J_w kept as the
 * fill (left). Row 1, the block's first, stays as it is. Each row's c
 * goes into the packed RIGHT rows: RU reads it there and overwrites it
 * with the fill of J_{w+1}. */
static TL_CPU_INLINE void rd_down(size_t m, size_t L, const double *a, const double *b,
                                  const double *c, const double *d, double *pk, tl_lanes *chk,
                                  ns_scan *w)
{
  tl_lanes left = tl_lanes_gather(a, m, 1), diag = tl_lanes_gather(b, m, 1);
  tl_lanes rhs = tl_lanes_gather(d, m, 1), cp = tl_lanes_gather(c, m, 1);
  *chk = tl_lanes_check_row(*chk + diag, left, diag, cp, rhs); /* the entries (lanes.h) */
  ns_scan v; /* a local, in registers (*w may alias the arrays) */
  if (w) {
    v = *w;
    ns_scan_row(&v, left, diag, cp, 1.0, 1 < L, 0);
  }
  tl_lanes_store(PK(LEFT, 1), left), tl_lanes_store(PK(DIAG, 1), diag);
  tl_lanes_store(PK(RIGHT, 1), cp), tl_lanes_store(PK(RHS, 1), rhs);
  const double *src[4] = {a, b, c, d};
  double t[4][64]; /* tiles of a, b, c, d */
  for (size_t i0 = 0; i0 <= L; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 2, L + 1, &r0, &r1);
    if (r0 >= r1)
      continue;
    tl_lanes_tiles_get(4, src, m, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (size_t r = r0; r < r1; r++) {
      size_t i = i0 + r, k = r * TL_LANES;
      tl_lanes ai = tl_lanes_load(t[0] + k), bi = tl_lanes_load(t[1] + k);
      tl_lanes ci = tl_lanes_load(t[2] + k), di = tl_lanes_load(t[3] + k);
      *chk = tl_lanes_check_row(*chk, ai, bi, ci, di);
      if (w)
        ns_scan_row(&v, ai, bi, ci, (double)i, i < L, 1);
      tl_lanes ri = -ai / diag; /* r = -a_i / diag_{i-1} */
      left = ri * left;
      diag = bi + ri * cp;
      rhs = di + ri * rhs;
      cp = ci;
      *chk = *chk + diag;
      tl_lanes_store(PK(LEFT, i), left), tl_lanes_store(PK(DIAG, i), diag);
      tl_lanes_store(PK(RIGHT, i), cp), tl_lanes_store(PK(RHS, i), rhs);
    }
  }
  if (w)
    *w = v;
}

/* RU (Table 1) up rows L-1 .. 1 on the packed rows: the backward sweep,
 * which replaces the upper diagonal by the column of J_{w+1} (right) and
 * leaves the pivots alone; row L keeps its c as its right. Then JU
 * (§4.1.3): the joint line J_w, row 0, absorbs row 1, the row RU ended
 * on; its reduced row rb, rc, rd into ju[3 l ..] for lane l. */
static TL_CPU_INLINE void ru_up_ju(size_t m, size_t L, const double *a, const double *b,
                                   const double *c, const double *d, double *pk, double *ju,
                                   tl_lanes *chk)
{
  tl_lanes left = tl_lanes_load(PK(LEFT, L)), diag = tl_lanes_load(PK(DIAG, L));
  tl_lanes right = tl_lanes_load(PK(RIGHT, L)), rhs = tl_lanes_load(PK(RHS, L));
  for (size_t i = L; i-- > 1;) {
    tl_lanes ri = -tl_lanes_load(PK(RIGHT, i)) / diag; /* r = -c_i / diag_{i+1} */
    left = tl_lanes_load(PK(LEFT, i)) + ri * left;
    right = ri * right;
    rhs = tl_lanes_load(PK(RHS, i)) + ri * rhs;
    diag = tl_lanes_load(PK(DIAG, i));
    *chk = *chk + ri;
    tl_lanes_store(PK(LEFT, i), left), tl_lanes_store(PK(RIGHT, i), right);
    tl_lanes_store(PK(RHS, i), rhs);
  }
  tl_lanes c0 = tl_lanes_gather(c, m, 0), b0 = tl_lanes_gather(b, m, 0);
  tl_lanes d0 = tl_lanes_gather(d, m, 0);
  tl_lanes ri = -c0 / diag; /* JU: r = -c_{J_w} / diag_1 */
  tl_lanes rb = b0 + ri * left;
  tl_lanes rc = ri * right;
  tl_lanes rd = d0 + ri * rhs;
  *chk = tl_lanes_check_row(*chk + ri, tl_lanes_gather(a, m, 0), b0, c0, d0); /* row 0's too */
  for (int l = 0; l < TL_LANES; l++)
    ju[3 * l] = rb[l], ju[3 * l + 1] = rc[l], ju[3 * l + 2] = rd[l];
}

TL_CPU_CLONES
static void reduce_group(size_t m, size_t L, int nt, const double *a, const double *b,
                         const double *c, const double *d, double *rows, double *ju, double *pk,
                         unsigned char *bad, tl_cpu_nshaped_scan *scan)
{
  tl_lanes chk = tl_lanes_splat(0.0);
  tl_lanes inf = tl_lanes_splat(INFINITY), zero = tl_lanes_splat(0.0);
  ns_scan w = {.rmin = inf,
               .cmin = inf,
               .worst = inf,
               .wrow = zero,
               .amax = zero,
               .bprev = zero,
               .cprev = tl_lanes_abs(tl_lanes_gather(c, m, 0)), /* above row 1 */
               .cprev2 = zero};
  rd_down(m, L, a, b, c, d, pk, &chk, scan ? &w : NULL);
  ru_up_ju(m, L, a, b, c, d, pk, ju, &chk);
  for (size_t i0 = 0; i0 <= L; i0 += TL_LANES) { /* packed -> each system's block rows */
    size_t r0, r1;
    tl_lanes_clip(i0, 1, L + 1, &r0, &r1);
    for (int k = 0; k < ARRAYS; k++)
      tl_lanes_tile_write(nt, rows + (size_t)k * m, ARRAYS * m, i0, r0, r1, PK(k, i0));
  }
  tl_lanes_flag(chk, bad);
  for (int l = 0; scan && l < TL_LANES; l++) {
    tl_cpu_nshaped_scan *o = &scan[l];
    o->rmin = w.rmin[l], o->cmin = w.cmin[l], o->worst = w.worst[l], o->amax = w.amax[l];
    o->worst_row = (size_t)w.wrow[l], o->xmax = 0.0;
  }
}

#undef PK

/* The lanes of a comparison (all bits set where it holds). */
typedef int64_t ns_mask __attribute__((vector_size(sizeof(tl_lanes))));

static TL_CPU_INLINE tl_lanes ns_abs(tl_lanes v)
{
  return (tl_lanes)((ns_mask)v & ~(ns_mask)tl_lanes_splat(-0.0)); /* the sign bit cleared */
}

/* SS (Table 1) on eight rows of one system, from its block rows at these
 * addresses: x_i = (rhs_i - left_i xl - right_i xr) / diag_i, as the
 * reference writes it. x into the check sum; into *tiny the rows whose
 * terms are all below 2 DBL_MIN (tl_nshaped_ss_tiny_d's test). */
static TL_CPU_INLINE void ss_rows(const double *left, const double *diag, const double *right,
                                  const double *rhs, tl_lanes xl, tl_lanes xr, double *x,
                                  tl_lanes *chk, ns_mask *tiny)
{
  tl_lanes h = tl_lanes_load(rhs), l = tl_lanes_load(left) * xl, r = tl_lanes_load(right) * xr;
  tl_lanes xi = (h - l - r) / tl_lanes_load(diag);
  tl_lanes_store(x, xi);
  *chk = *chk + xi;
  *tiny |= (ns_mask)(ns_abs(h) + ns_abs(l) + ns_abs(r) < tl_lanes_splat(2 * DBL_MIN));
}

/* The largest |x| of k values (for the verdict: tl_cpu_nshaped_scan). */
static TL_CPU_INLINE double ss_xmax(const double *x, size_t k, double xm)
{
#pragma omp simd reduction(max : xm)
  for (size_t i = 0; i < k; i++)
    xm = fabs(x[i]) > xm ? fabs(x[i]) : xm;
  return xm;
}

/* SS on one system: x on its joint lines (row 0 is J_w, xl; row m-1 is
 * J_{w+1}, xr, when L = m-2) and its block rows, eight at a time; the
 * last few through a copy padded with rows that give x = 1 and are
 * never tiny. 1 into *tiny as tl_nshaped_ss_tiny_d says; returns 1 when
 * an x is not finite (or the check sum overflowed). */
TL_CPU_CLONES
static int ss_system(size_t m, size_t L, const double *rows, double xl, double xr, double *x,
                     unsigned char *tiny, double *xmax)
{
  const double *left = rows, *diag = rows + m, *right = rows + 2 * m, *rhs = rows + 3 * m;
  tl_lanes vl = tl_lanes_splat(xl), vr = tl_lanes_splat(xr), chk = vl;
  ns_mask small = {0};
  x[0] = xl;
  if (L + 2 == m) {
    x[m - 1] = xr;
    chk = chk + vr;
  }
  size_t i = 1;
  for (; i + TL_LANES <= L + 1; i += TL_LANES)
    ss_rows(left + i, diag + i, right + i, rhs + i, vl, vr, x + i, &chk, &small);
  if (i <= L) {
    size_t k = (L + 1 - i) * sizeof(double);
    double t[5][TL_LANES]; /* left, diag, right, rhs, x */
    for (int l = 0; l < TL_LANES; l++)
      t[0][l] = t[2][l] = 0.0, t[1][l] = t[3][l] = 1.0;
    memcpy(t[0], left + i, k), memcpy(t[1], diag + i, k);
    memcpy(t[2], right + i, k), memcpy(t[3], rhs + i, k);
    ss_rows(t[0], t[1], t[2], t[3], vl, vr, t[4], &chk, &small);
    memcpy(x + i, t[4], k);
  }
  if (xmax) /* rows 1 .. L, from memory the pass has just written (L1, L2) */
    *xmax = ss_xmax(x + 1, L, 0.0);
  int bad = 0;
  for (int l = 0; l < TL_LANES; l++) {
    *tiny |= small[l] != 0;
    bad |= !(chk[l] - chk[l] == 0.0);
  }
  return bad;
}

#endif /* TL_LANES_OK */

void tl_cpu_nshaped_reduce_d(size_t m, size_t L, size_t nsys, const double *a, const double *b,
                             const double *c, const double *d, double *rows, double *ju,
                             unsigned char *bad)
{
  tl_cpu_nshaped_reduce_scan_d(m, L, nsys, a, b, c, d, rows, ju, bad, NULL);
}

void tl_cpu_nshaped_reduce_scan_d(size_t m, size_t L, size_t nsys, const double *a, const double *b,
                                  const double *c, const double *d, double *rows, double *ju,
                                  unsigned char *bad, tl_cpu_nshaped_scan *scan)
{
  double *pk = NULL;
  size_t groups = L >= 1 && L < m ? tl_lanes_groups(m, nsys, 4, &pk) : 0; /* left .. rhs */
#if TL_LANES_OK
  int nt = tl_lanes_stream_worth(ARRAYS * groups * TL_LANES * m, m, 1, &rows); /* to memory */
  for (size_t g = 0; g < groups; g++) {
    size_t s = g * TL_LANES, o = s * m;
    reduce_group(m, L, nt, a + o, b + o, c + o, d + o, rows + 4 * o, ju + 3 * s, pk, bad + s,
                 scan ? scan + s : NULL);
  }
  tl_lanes_stream_done();
#endif
  free(pk);
  for (size_t s = groups * TL_LANES; s < nsys; s++)
    bad[s] = 1; /* the rest: the caller runs the reference on them */
}

void tl_cpu_nshaped_substitute_d(size_t m, size_t L, size_t nsys, const double *rows,
                                 const double *sup, const unsigned char *skip, double *x,
                                 unsigned char *tiny, unsigned char *bad)
{
  tl_cpu_nshaped_substitute_scan_d(m, L, nsys, rows, sup, skip, x, tiny, bad, NULL);
}

void tl_cpu_nshaped_substitute_scan_d(size_t m, size_t L, size_t nsys, const double *rows,
                                      const double *sup, const unsigned char *skip, double *x,
                                      unsigned char *tiny, unsigned char *bad,
                                      tl_cpu_nshaped_scan *scan)
{
  for (size_t s = 0; s < nsys; s++) {
    if (skip && skip[s])
      continue;
#if TL_LANES_OK
    if (L >= 1 && L < m) {
      bad[s] |= (unsigned char)ss_system(m, L, rows + 4 * m * s, sup[2 * s], sup[2 * s + 1],
                                         x + m * s, &tiny[s], scan ? &scan[s].xmax : NULL);
      continue;
    }
#endif
    bad[s] = 1; /* no block, or no lanes: the caller runs the reference */
  }
}
