/* optimized/cpu/ptdma_cpu.c -- CaNS's P-TDMA local phases on a batch of
 * slices, eight systems at once: the initialization (plan) and the
 * runtime step each on its own (tl_cpu_ptdma_init_d and
 * tl_cpu_ptdma_runtime_d, tridlab/cpu.h), and the two together as every
 * MPI rank of ptdma_mpi runs them on its own rows (tl_cpu_ptdma_ends_d
 * and tl_cpu_ptdma_finish_d, below).
 *
 * Source: paper 001 (CaNS) §2.2.4, Algorithm 2, lines 3-17 (the
 * initialization: the modified Thomas on the coefficients only) and
 * 21-26 (the runtime: the same elimination applied to d).
 * reference/ptdma_ref.c (tl_ptdma_init_d, tl_ptdma_runtime_d) is the
 * readable version on one system; this file runs the same operations, in
 * the same order, on eight systems at once, one vector lane each
 * (lanes.h), so its results are the reference's bits: each phase
 * streams 4 to 6 words per unknown, and its divisions, eight at a time,
 * cost less than that traffic. The fused passes of ptdma_mpi (below)
 * read 4 words per unknown and were bound by their arithmetic, a third
 * of it the divisions (docs/performance.md, "P-TDMA's phases without
 * their arrays"): they invert each pivot once and multiply, within a few
 * roundings of the reference instead of its bits ("One reciprocal per
 * row", below).
 *
 * Both phases sweep down and then back up a partition. A group's
 * results stay PACKED between the two sweeps -- row i of the eight
 * systems at pk + 8 i, the layout of a tile, in L2 at the sizes a rank
 * holds -- and cross into the slices' layout once, by the transposes of
 * lanes.h.
 *
 *   x-lines (A, B, C, D)  --tiles-->  forward  -->  packed  -->  backward
 *                                                    |
 *   x-lines (a, b, c or d)  <------transposes---------+
 *
 * Breakdown (initialization only): every pivot, its reciprocal where the
 * sweep has none, and every a and c go into the lanes' check sums
 * (lanes.h); a flagged system runs the reference for its report.
 *
 * ptdma_mpi's split flavour keeps no arrays between its phases: its
 * steps 1 and 2 run together (tl_cpu_ptdma_ends_d: the initialization's
 * and the runtime's forward passes in one loop, their backward passes in
 * another) and keep the two rows the rank sends; its step 4 is a Thomas
 * solve of the interior rows by the x-line kernel (ptdma_mpi.c's
 * finish_lines), or, where that cannot run, steps 1 and 2 again before
 * the paper's reconstruction (tl_cpu_ptdma_finish_d):
 *
 *   A, B, C, D --> forward --> packed a', 1/b', c', d' --> backward --+--> rows 0, m-1
 *   (4 words read)             (L2)                                   +--> x (step 4)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/cpu.h"
#include "tridlab/part_ptdma.h"

#if TL_LANES_OK

/* Packed rows: row i of array k of a group (k = 0, 1, 2: a, b, c; 3: d'
 * in the fused passes). */
#define PK(pk, k, i) ((pk) + ((k)*m + (i)) * TL_LANES)

/* Row i of this partition is global row begin + i: without periodic
 * wrap-around, A of global row 0 and C of row n-1 are corners, read as 0
 * (reference/ptdma_ref.c's lower_at and upper_at). */
typedef struct pt_rows {
  size_t n, begin, m;
  int periodic;
} pt_rows;

static TL_CPU_INLINE tl_lanes lower_at(const pt_rows *w, const double *A, size_t i)
{
  return (w->begin + i == 0 && !w->periodic) ? tl_lanes_splat(0.0) : tl_lanes_gather(A, w->m, i);
}

static TL_CPU_INLINE tl_lanes upper_at(const pt_rows *w, const double *C, size_t i)
{
  return (w->begin + i + 1 == w->n && !w->periodic) ? tl_lanes_splat(0.0)
                                                    : tl_lanes_gather(C, w->m, i);
}

/* Initialization, lines 3-10: rows 0 and 1 as they are, then the
 * forward pass, row i keeping x_0 in a_i; into the packed scratch. */
static TL_CPU_INLINE void init_forward(const pt_rows *w, const double *A, const double *B,
                                       const double *C, double *pk, tl_lanes *chk)
{
  size_t m = w->m;
  for (size_t i = 0; i < 2; i++) {
    tl_lanes Bi = tl_lanes_gather(B, m, i);
    *chk = *chk + Bi + tl_lanes_splat(1.0) / Bi;
    *chk = tl_lanes_check_row(*chk, tl_lanes_gather(A, m, i), Bi, tl_lanes_gather(C, m, i),
                              tl_lanes_splat(0.0)); /* the entries, corners too (lanes.h) */
    tl_lanes_store(PK(pk, 0, i), lower_at(w, A, i));
    tl_lanes_store(PK(pk, 1, i), Bi);
    tl_lanes_store(PK(pk, 2, i), upper_at(w, C, i));
  }
  tl_lanes ap = tl_lanes_load(PK(pk, 0, 1)), bp = tl_lanes_load(PK(pk, 1, 1));
  tl_lanes cp = tl_lanes_load(PK(pk, 2, 1));
  const double *src[3] = {A, B, C};
  double t[3][64]; /* tiles of A, B, C */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 2, m, &r0, &r1);
    if (r0 >= r1)
      continue;
    tl_lanes_tiles_get(3, src, m, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (size_t r = r0; r < r1; r++) {
      size_t i = i0 + r, k = r * TL_LANES;
      tl_lanes Ai = tl_lanes_load(t[0] + k); /* i >= 2: never global row 0 */
      tl_lanes Bi = tl_lanes_load(t[1] + k), Ci = tl_lanes_load(t[2] + k);
      *chk = tl_lanes_check_row(*chk, Ai, Bi, Ci, tl_lanes_splat(0.0));
      tl_lanes b = Bi - Ai * (cp / bp);
      ap = -Ai * (ap / bp);
      bp = b;
      cp = (w->begin + i + 1 == w->n && !w->periodic) ? tl_lanes_splat(0.0) : Ci;
      *chk = *chk + b;
      tl_lanes_store(PK(pk, 0, i), ap), tl_lanes_store(PK(pk, 1, i), bp);
      tl_lanes_store(PK(pk, 2, i), cp);
    }
  }
  *chk = *chk + tl_lanes_splat(1.0) / bp; /* b_{m-1}: no row divides by it */
}

/* Initialization, lines 11-17, on the packed scratch: the backward pass
 * from m-3 to 1, row i keeping x_{m-1} in c_i; then row 0 absorbs row 1. */
static TL_CPU_INLINE void init_backward(size_t m, double *pk, tl_lanes *chk)
{
  if (m < 3)
    return;
  tl_lanes an = tl_lanes_load(PK(pk, 0, m - 2)), bn = tl_lanes_load(PK(pk, 1, m - 2));
  tl_lanes cn = tl_lanes_load(PK(pk, 2, m - 2));
  for (size_t i = m - 2; i-- > 1;) {
    tl_lanes Ci = tl_lanes_load(PK(pk, 2, i)); /* still upper_at(C, i) */
    an = tl_lanes_load(PK(pk, 0, i)) - Ci * (an / bn);
    cn = -Ci * (cn / bn);
    bn = tl_lanes_load(PK(pk, 1, i));
    tl_lanes_store(PK(pk, 0, i), an), tl_lanes_store(PK(pk, 2, i), cn);
  }
  tl_lanes C0 = tl_lanes_load(PK(pk, 2, 0)), B1 = tl_lanes_load(PK(pk, 1, 1));
  tl_lanes b0 = tl_lanes_load(PK(pk, 1, 0)) - C0 * (tl_lanes_load(PK(pk, 0, 1)) / B1);
  tl_lanes_store(PK(pk, 1, 0), b0);
  tl_lanes_store(PK(pk, 2, 0), -C0 * (tl_lanes_load(PK(pk, 2, 1)) / B1));
  *chk = *chk + b0 + tl_lanes_splat(1.0) / b0;
}

/* Every packed a and c of a group into the check sum (the reference's
 * results, checked as the breakdown rule of lanes.h asks). */
static TL_CPU_INLINE void check_ac(size_t m, const double *pk, tl_lanes *chk)
{
  for (size_t i = 0; i < m; i++)
    *chk = *chk + tl_lanes_load(PK(pk, 0, i)) + tl_lanes_load(PK(pk, 2, i));
}

/* Packed rows of `arrays` arrays (from array k0) into the slices; every a
 * and c into the check sum when chk is given. */
static TL_CPU_INLINE void unpack(size_t m, int nt, const double *pk, int k0, int arrays,
                                 double *const *out, tl_lanes *chk)
{
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (int k = 0; k < arrays; k++)
      tl_lanes_tile_write(nt, out[k], m, i0, r0, r1, PK(pk, k0 + k, i0));
  }
  if (chk)
    check_ac(m, pk, chk);
}

TL_CPU_CLONES
static void init_group(const pt_rows *w, int nt, const double *A, const double *B, const double *C,
                       double *a, double *b, double *c, double *pk, unsigned char *bad)
{
  tl_lanes chk = tl_lanes_splat(0.0);
  init_forward(w, A, B, C, pk, &chk);
  init_backward(w->m, pk, &chk);
  double *out[3] = {a, b, c};
  unpack(w->m, nt, pk, 0, 3, out, &chk);
  tl_lanes_flag(chk, bad);
}

/* Runtime, lines 21-26: d' of a group, forward into the packed scratch
 * (row i keeps d of rows 0 and 1 as they are), then backward from m-3 to
 * 0, reading b and C a tile at a time from the last. */
TL_CPU_CLONES
static void runtime_group(size_t m, int nt, const double *A, const double *C, const double *b,
                          const double *D, double *d, double *pk, unsigned char *bad)
{
  tl_lanes dp = tl_lanes_gather(D, m, 1), bp = tl_lanes_gather(b, m, 1);
  tl_lanes d0 = tl_lanes_gather(D, m, 0);
  tl_lanes chk = (d0 - d0) + (dp - dp); /* D's own check (lanes.h, tl_lanes_check_row) */
  tl_lanes_store(PK(pk, 0, 0), d0);
  tl_lanes_store(PK(pk, 0, 1), dp);
  const double *src[3] = {A, b, D};
  double t[3][64]; /* tiles of A, b, D; then of C, b */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 2, m, &r0, &r1);
    if (r0 >= r1)
      continue;
    tl_lanes_tiles_get(3, src, m, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (size_t r = r0; r < r1; r++) {
      size_t k = r * TL_LANES;
      tl_lanes Di = tl_lanes_load(t[2] + k);
      chk = chk + (Di - Di);
      dp = Di - tl_lanes_load(t[0] + k) * (dp / bp);
      bp = tl_lanes_load(t[1] + k);
      tl_lanes_store(PK(pk, 0, i0 + r), dp);
    }
  }
  if (m >= 3) { /* rows m-3 .. 0, from row m-2 */
    const double *up[2] = {C, b};
    tl_lanes dn = tl_lanes_load(PK(pk, 0, m - 2)), bn = tl_lanes_gather(b, m, m - 2);
    for (size_t i0 = (m - 3) / TL_LANES * TL_LANES;; i0 -= TL_LANES) {
      size_t r0, r1;
      tl_lanes_clip(i0, 0, m - 2, &r0, &r1);
      tl_lanes_tiles_get(2, up, m, i0, r0, r1, i0 >= TL_LANES_AHEAD ? i0 - TL_LANES_AHEAD : m, t);
      for (size_t r = r1; r-- > r0;) {
        size_t k = r * TL_LANES;
        dn = tl_lanes_load(PK(pk, 0, i0 + r)) - tl_lanes_load(t[0] + k) * (dn / bn);
        bn = tl_lanes_load(t[1] + k);
        tl_lanes_store(PK(pk, 0, i0 + r), dn);
      }
      if (i0 == 0)
        break;
    }
  }
  double *out[1] = {d};
  unpack(m, nt, pk, 0, 1, out, NULL);
  if (bad)
    tl_lanes_flag(chk, bad);
}

/* ---------------------------------------------------------------- */
/* Both phases without their arrays: ends, then the solve again        */
/* One reciprocal per row                                              */

/* The passes below are steps 1 and 2 of Algorithm 2 with one change:
 * each row's pivot b'_i is inverted once, r_i = 1 / b'_i, and every
 * division by it becomes a multiplication by r_i (the note of paper 001
 * Algorithm 2: "store 1/b to avoid divisions"). Where the reference
 * divides seven times per row (three going down, three going up, one in
 * step 4), these divide once. The ratios keep their order -- A_i (c'_{i-1}
 * r_{i-1}), as the reference's A_i (c'_{i-1} / b'_{i-1}) -- so entries near
 * overflow stay as finite as in the reference; a', b', c', d' and x are
 * within a few roundings of its values, not its bits. A pivot whose
 * reciprocal is not finite (zero, or so small that 1 / b' overflows, where
 * the reference's ratios might not) flags the system, which then runs in
 * the reference, as a breakdown does. So does a pivot that cancelled to
 * within 2^-30 of the terms it came from (tl_lanes_check_pivot, lanes.h:
 * where the reference's pivot is exactly 0, a breakdown it reports, this
 * one's may be an ulp; e.g. row k: A = 0, B = C = 49; row k+1: A = B = 1,
 * C = 0). The reference decides. The reference and the phases one at a
 * time (init_group, runtime_group) keep the paper's divisions.
 *
 * Array 1 of the scratch holds r_i on the interior rows 1 .. m-2, which
 * the backward pass and step 4 multiply by, and b' itself on rows 0 and
 * m-1, which are sent.
 *
 * Forward (lines 3-10 and 21-23 together): rows 0 and 1 as they are,
 * then for i >= 2, with r = r_{i-1}:
 *   b'_i = B_i - A_i (c'_{i-1} r)    a'_i = -A_i (a'_{i-1} r)
 *   d'_i = D_i - A_i (d'_{i-1} r)    c'_i = C_i
 * D's own check in *dchk; each row's margin into *pos (tl_lanes_margin_pos,
 * lanes.h): the strict dominance the verdict asks for, from the rows as
 * read. */
static TL_CPU_INLINE void fused_forward(const pt_rows *w, const double *A, const double *B,
                                        const double *C, const double *D, double *pk, tl_lanes *chk,
                                        tl_lanes *dchk, tl_lanes_bits *pos)
{
  size_t m = w->m;
  tl_lanes rp = tl_lanes_splat(0.0);
  for (size_t i = 0; i < 2; i++) {
    tl_lanes Bi = tl_lanes_gather(B, m, i), Di = tl_lanes_gather(D, m, i);
    rp = tl_lanes_splat(1.0) / Bi;
    *chk = *chk + Bi + rp;
    *chk = tl_lanes_check_row(*chk, tl_lanes_gather(A, m, i), Bi, tl_lanes_gather(C, m, i),
                              tl_lanes_splat(0.0)); /* the entries, corners too (lanes.h) */
    *dchk = *dchk + (Di - Di);
    tl_lanes_store(PK(pk, 0, i), lower_at(w, A, i));
    tl_lanes_store(PK(pk, 1, i), Bi);
    tl_lanes_store(PK(pk, 2, i), upper_at(w, C, i));
    tl_lanes_store(PK(pk, 3, i), Di);
    if (pos)
      tl_lanes_margin_pos(pos, tl_lanes_load(PK(pk, 0, i)), Bi, tl_lanes_load(PK(pk, 2, i)));
  }
  if (m >= 3)
    tl_lanes_store(PK(pk, 1, 1), rp); /* row 1 is interior */
  tl_lanes ap = tl_lanes_load(PK(pk, 0, 1)), cp = tl_lanes_load(PK(pk, 2, 1));
  tl_lanes dp = tl_lanes_load(PK(pk, 3, 1));
  const double *src[4] = {A, B, C, D};
  double t[4][64]; /* tiles of A, B, C, D */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 2, m, &r0, &r1);
    if (r0 >= r1)
      continue;
    tl_lanes_tiles_get(4, src, m, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (size_t r = r0; r < r1; r++) {
      size_t i = i0 + r, k = r * TL_LANES;
      tl_lanes Ai = tl_lanes_load(t[0] + k); /* i >= 2: never global row 0 */
      tl_lanes Bi = tl_lanes_load(t[1] + k), Ci = tl_lanes_load(t[2] + k);
      tl_lanes Di = tl_lanes_load(t[3] + k);
      *chk = tl_lanes_check_row(*chk, Ai, Bi, Ci, tl_lanes_splat(0.0));
      *dchk = *dchk + (Di - Di);
      tl_lanes elim = Ai * (cp * rp), b = Bi - elim;
      *chk = tl_lanes_check_pivot(*chk, b, Bi, elim);
      dp = Di - Ai * (dp * rp);
      ap = -Ai * (ap * rp);
      rp = tl_lanes_splat(1.0) / b;
      cp = (w->begin + i + 1 == w->n && !w->periodic) ? tl_lanes_splat(0.0) : Ci;
      if (pos)
        tl_lanes_margin_pos(pos, Ai, Bi, cp);
      *chk = *chk + b + rp;
      tl_lanes_store(PK(pk, 0, i), ap), tl_lanes_store(PK(pk, 1, i), i + 1 < m ? rp : b);
      tl_lanes_store(PK(pk, 2, i), cp), tl_lanes_store(PK(pk, 3, i), dp);
    }
  }
}

/* Backward (lines 11-17 and 24-26 together), on the packed scratch, from
 * row m-2 up, with r = r_{i+1}:
 *   a'_i -= C_i (a'_{i+1} r)    c'_i = -C_i (c'_{i+1} r)    d'_i -= C_i (d'_{i+1} r)
 * (array 2 holds C itself on the rows below m-2: none of them is the
 * global last row, the one corner fused_forward zeroes); then row 0
 * absorbs row 1. No division but row 0's check: the three chains only
 * multiply. low (may be NULL): the lanes where an interior row's d' ends
 * below TL_PTDMA_D_SMALL in magnitude (tl_cpu_ptdma_ends_d's dsmall). */
static TL_CPU_INLINE void fused_backward(size_t m, double *pk, tl_lanes *chk, tl_lanes_bits *low)
{
  if (m < 3)
    return;
  tl_lanes an = tl_lanes_load(PK(pk, 0, m - 2)), rn = tl_lanes_load(PK(pk, 1, m - 2));
  tl_lanes cn = tl_lanes_load(PK(pk, 2, m - 2)), dn = tl_lanes_load(PK(pk, 3, m - 2));
  tl_lanes small = tl_lanes_splat(TL_PTDMA_D_SMALL);
  tl_lanes_bits lo = tl_lanes_abs(dn) < small;
  for (size_t i = m - 2; i-- > 1;) {
    tl_lanes Ci = tl_lanes_load(PK(pk, 2, i));
    dn = tl_lanes_load(PK(pk, 3, i)) - Ci * (dn * rn);
    an = tl_lanes_load(PK(pk, 0, i)) - Ci * (an * rn);
    cn = -Ci * (cn * rn);
    rn = tl_lanes_load(PK(pk, 1, i));
    if (low)
      lo |= tl_lanes_abs(dn) < small;
    tl_lanes_store(PK(pk, 0, i), an), tl_lanes_store(PK(pk, 2, i), cn);
    tl_lanes_store(PK(pk, 3, i), dn);
  }
  if (low)
    *low |= lo;
  /* rn is r_1 now, dn, an, cn row 1's */
  tl_lanes C0 = tl_lanes_load(PK(pk, 2, 0));
  tl_lanes_store(PK(pk, 3, 0), tl_lanes_load(PK(pk, 3, 0)) - C0 * (dn * rn));
  tl_lanes B0 = tl_lanes_load(PK(pk, 1, 0)), t = C0 * (an * rn), b0 = B0 - t;
  *chk = tl_lanes_check_pivot(*chk, b0, B0, t);
  tl_lanes_store(PK(pk, 1, 0), b0);
  tl_lanes_store(PK(pk, 2, 0), -C0 * (cn * rn));
  *chk = *chk + b0 + tl_lanes_splat(1.0) / b0;
}

/* Initialization and runtime of a group into the packed scratch (a', b'
 * or its reciprocal, c', d' in arrays 0-3); the initialization's check
 * sum and D's. */
static TL_CPU_INLINE void sweeps(const pt_rows *w, const double *A, const double *B,
                                 const double *C, const double *D, double *pk, tl_lanes *chk,
                                 tl_lanes *dchk, tl_lanes_bits *pos, tl_lanes_bits *low)
{
  fused_forward(w, A, B, C, D, pk, chk, dchk, pos);
  fused_backward(w->m, pk, chk, low);
}

/* Phases 1 and 2 of a group, keeping only what is sent: the rows 0 and
 * m-1 of a', b', c' (6 words per system, tl_ptdma_pack_d's order) and of
 * d' (2 words). */
TL_CPU_CLONES
static void ends_group(const pt_rows *w, const double *A, const double *B, const double *C,
                       const double *D, double *plan, double *rhs, double *pk, unsigned char *bad,
                       unsigned char *dbad, unsigned char *strict, unsigned char *dsmall,
                       double *inner)
{
  size_t m = w->m;
  tl_lanes chk = tl_lanes_splat(0.0), dchk = chk;
  tl_lanes_bits pos = (tl_lanes_bits){0} - 1, low = {0};
  sweeps(w, A, B, C, D, pk, &chk, &dchk, &pos, dsmall ? &low : NULL);
  check_ac(m, pk, &chk); /* as init_group's unpack */
  for (int l = 0; l < TL_LANES; l++) {
    double *q = plan + 6 * (size_t)l, *d = rhs + 2 * (size_t)l;
    for (int k = 0; k < 3; k++)
      q[2 * k] = PK(pk, k, 0)[l], q[2 * k + 1] = PK(pk, k, m - 1)[l];
    d[0] = PK(pk, 3, 0)[l], d[1] = PK(pk, 3, m - 1)[l];
  }
  tl_lanes_flag(chk, bad);
  tl_lanes_flag(dchk, dbad);
  for (int l = 0; l < TL_LANES && strict; l++)
    strict[l] = pos[l] != 0;
  for (int l = 0; l < TL_LANES && dsmall; l++)
    dsmall[l] = low[l] != 0;
  for (int l = 0; l < TL_LANES && inner && m >= 3; l++) /* rows 1 and m-2 for step 4 */
    for (int j = 0; j < 2; j++) {
      size_t i = j ? m - 2 : 1;
      double *q = inner + 8 * (size_t)l + 4 * j;
      q[0] = PK(pk, 0, i)[l], q[1] = PK(pk, 2, i)[l], q[2] = PK(pk, 3, i)[l];
      q[3] = PK(pk, 1, i)[l];
    }
}

/* Phases 1 and 2 of a group again, then step 4 on the packed rows:
 * x_k = (d'_k - a'_k x_first - c'_k x_last) r_k (tl_ptdma_reconstruct_d's
 * operations, its division by b'_k a multiplication by r_k = 1 / b'_k),
 * x_0 = x_first, x_{m-1} = x_last, tiles of x written to the slices. redo[l] where a value of x is
 * not finite (the reference reports it) or where the sweeps flag the
 * system (tl_cpu_ptdma_ends_d flagged it too: the rows sent were then the
 * reference's); tiny[l] as tl_ptdma_reconstruct_tiny_d. */
TL_CPU_CLONES
static void finish_group(const pt_rows *w, int nt, const double *A, const double *B,
                         const double *C, const double *D, const double *xb, double *x, double *pk,
                         unsigned char *redo, unsigned char *tiny)
{
  size_t m = w->m;
  tl_lanes chk = tl_lanes_splat(0.0), dchk = chk;
  sweeps(w, A, B, C, D, pk, &chk, &dchk, NULL, NULL);
  tl_lanes_flag(chk, redo); /* what ends flagged: the reference's rows were sent */
  tl_lanes xf, xl;
  for (int l = 0; l < TL_LANES; l++)
    xf[l] = xb[2 * l], xl[l] = xb[2 * l + 1];
  tl_lanes fin = (xf - xf) + (xl - xl), small = tl_lanes_splat(2 * DBL_MIN);
  tl_lanes_bits low = {0};
  double t[64]; /* a tile of x */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (size_t r = r0; r < r1; r++) {
      size_t i = i0 + r;
      tl_lanes v = i == 0 ? xf : xl;
      if (i > 0 && i + 1 < m) {
        tl_lanes dk = tl_lanes_load(PK(pk, 3, i)), ak = tl_lanes_load(PK(pk, 0, i)) * xf;
        tl_lanes ck = tl_lanes_load(PK(pk, 2, i)) * xl;
        low |= (tl_lanes_abs(dk) + tl_lanes_abs(ak) + tl_lanes_abs(ck)) < small;
        v = (dk - ak - ck) * tl_lanes_load(PK(pk, 1, i)); /* r_i: see fused_forward */
        fin = fin + (v - v);
      }
      tl_lanes_store(t + r * TL_LANES, v);
    }
    tl_lanes_tile_write(nt, x, m, i0, r0, r1, t);
  }
  tl_lanes_flag(fin, redo);
  for (int l = 0; l < TL_LANES; l++)
    tiny[l] = low[l] != 0;
}

#undef PK
#endif /* TL_LANES_OK */

void tl_cpu_ptdma_init_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                         const double *A, const double *B, const double *C, double *a, double *b,
                         double *c, unsigned char *bad)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 3, &pk);
#if TL_LANES_OK
  pt_rows w = {.n = n, .begin = begin, .m = m, .periodic = periodic};
  double *const out[3] = {a, b, c}; /* to memory: streaming stores where worth it */
  int nt = tl_lanes_stream_worth(3 * groups * TL_LANES * m, m, 3, out);
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m;
    init_group(&w, nt, A + o, B + o, C + o, a + o, b + o, c + o, pk, bad + g * TL_LANES);
  }
  tl_lanes_stream_done();
#endif
  free(pk);
  for (size_t s = groups * TL_LANES; s < nsys; s++) { /* the rest: the reference */
    size_t o = s * m;
    tl_info info;
    if (tl_ptdma_init_d(n, periodic, begin, begin + m, A + o, B + o, C + o, a + o, b + o, c + o,
                        &info) < 0 ||
        !tl_lanes_rows_finite(m, 3, (const double *const[3]){A + o, B + o, C + o}))
      bad[s] = 1;
  }
}

void tl_cpu_ptdma_runtime_d(size_t begin, size_t m, size_t nsys, const double *A, const double *C,
                            const double *b, const double *D, double *d, unsigned char *bad)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 3, &pk);
#if TL_LANES_OK
  int nt = tl_lanes_stream_worth(groups * TL_LANES * m, m, 1, &d);
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m;
    runtime_group(m, nt, A + o, C + o, b + o, D + o, d + o, pk, bad ? bad + g * TL_LANES : NULL);
  }
  tl_lanes_stream_done();
#endif
  free(pk);
  for (size_t s = groups * TL_LANES; s < nsys; s++) {
    size_t o = s * m;
    tl_ptdma_runtime_d(begin, begin + m, A + o, C + o, b + o, D + o, d + o);
    if (bad && !tl_lanes_rows_finite(m, 1, (const double *const[1]){D + o}))
      bad[s] = 1;
  }
}

/* Rows 1 .. m-2 of the two-spike substitution, the value of row k
 * by the references' operations in their order. */
static inline double two_spike_row(size_t k, const double *a, const double *b, const double *c,
                                   const double *d, double xf, double xl)
{
  double v = d[k] - a[k] * xf - c[k] * xl;
  return b ? v / b[k] : v;
}

/* P-TDMA's reconstruction (tl_ptdma_reconstruct_d, step 4) and DistD2's
 * substitution (tl_distd2_substitute_d, Algorithm 7) are one loop with no
 * recurrence, so the rows go side by side in SIMD lanes. First the values
 * alone, whether all are finite and whether one meets the tiny test;
 * only then x is written (d may be x): a caller whose values are not all
 * finite runs its reference on untouched data, for the report. */
TL_CPU_CLONES int tl_cpu_two_spike_rows_d(size_t m, const double *a, const double *b,
                                          const double *c, const double *d, double x_first,
                                          double x_last, double *x, int *tiny)
{
  double xf = x_first, xl = x_last, sum = fabs(xf) + fabs(xl);
  int small = 0;
  if (m < 2)
    return 0;
#pragma omp simd reduction(+ : sum) reduction(| : small)
  for (size_t k = 1; k < m - 1; k++) {
    sum += fabs(two_spike_row(k, a, b, c, d, xf, xl));
    small |= fabs(d[k]) + fabs(a[k] * xf) + fabs(c[k] * xl) < 2 * DBL_MIN;
  }
  if (tiny)
    *tiny = small;
  if (!isfinite(sum)) /* a value not finite (or a sum that overflowed) */
    return 0;
#pragma omp simd
  for (size_t k = 1; k < m - 1; k++)
    x[k] = two_spike_row(k, a, b, c, d, xf, xl);
  x[0] = xf, x[m - 1] = xl;
  return 1;
}

int tl_cpu_ptdma_reconstruct_d(size_t begin, size_t m, const double *a, const double *b,
                               const double *c, const double *d, double x_first, double x_last,
                               double *x, int *tiny, tl_info *info)
{
  *tiny = 0;
  if (tl_cpu_two_spike_rows_d(m, a, b, c, d, x_first, x_last, x, tiny))
    return TL_OK;
  /* a value not finite (or a partition of one row): the reference */
  return tl_ptdma_reconstruct_d(begin, begin + m, a, b, c, d, x_first, x_last, x, info);
}

size_t tl_cpu_ptdma_ends_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                           const double *A, const double *B, const double *C, const double *D,
                           double *plan, double *rhs, unsigned char *bad, unsigned char *dbad,
                           unsigned char *strict, unsigned char *dsmall, double *inner)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 4, &pk);
#if TL_LANES_OK
  pt_rows w = {.n = n, .begin = begin, .m = m, .periodic = periodic};
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m, s = g * TL_LANES;
    ends_group(&w, A + o, B + o, C + o, D + o, plan + 6 * s, rhs + 2 * s, pk, bad + s, dbad + s,
               strict ? strict + s : NULL, dsmall ? dsmall + s : NULL,
               inner ? inner + 8 * s : NULL);
  }
#else
  (void)n, (void)periodic, (void)begin, (void)A, (void)B, (void)C, (void)D, (void)plan, (void)rhs,
      (void)bad, (void)dbad, (void)strict, (void)dsmall, (void)inner;
#endif
  free(pk);
  return groups * TL_LANES;
}

size_t tl_cpu_ptdma_finish_d(size_t n, int periodic, size_t begin, size_t m, size_t nsys,
                             const double *A, const double *B, const double *C, const double *D,
                             const double *xb, const unsigned char *skip, double *x,
                             unsigned char *redo, unsigned char *tiny)
{
  double *pk;
  size_t groups = tl_lanes_groups(m, nsys, 4, &pk);
#if TL_LANES_OK
  pt_rows w = {.n = n, .begin = begin, .m = m, .periodic = periodic};
  int nt = tl_lanes_stream_worth(groups * TL_LANES * m, m, 1, &x);
  for (size_t g = 0; g < groups; g++) {
    size_t o = g * TL_LANES * m, s = g * TL_LANES;
    if (tl_lanes_group_skipped(skip + s, redo + s))
      continue; /* a system that failed: the group goes to the caller */
    finish_group(&w, nt, A + o, B + o, C + o, D + o, xb + 2 * s, x + o, pk, redo + s, tiny + s);
  }
  tl_lanes_stream_done();
#else
  (void)n, (void)periodic, (void)begin, (void)A, (void)B, (void)C, (void)D, (void)xb, (void)skip,
      (void)x, (void)redo, (void)tiny;
#endif
  free(pk);
  return groups * TL_LANES;
}
