/* optimized/cpu/spike_givens_cpu.c -- spike_givens's local phase (phases
 * 1-3 of tridlab/part_spike_givens.h: the QR factorization of a block by
 * Givens rotations, R's last entry replaced where the block is singular,
 * K, g and the spikes V, W, the eight tips) on a batch of slices, eight
 * systems at once: what every rank of spike_givens_mpi runs on its rows
 * (tl_cpu_spike_givens_local_d, tridlab/cpu.h), and the serial registry
 * backend "spike_givens_cpu" built on it (at the end, through spike_cpu.c's
 * tl_cpu_spike_solve).
 *
 * Source: Venetis, Kouris, Sobczyk, Gallopoulos and Sameh, Parallel
 * Computing 49 (2015) (g-Spike), as reference/spike_givens_ref.c, which
 * is the readable version on one partition (tl_spike_givens_factor,
 * _shift, _kernel, _local). This file makes the same operations in the
 * same order in each vector lane (lanes.h), so an unflagged lane's
 * results are the reference's bits.
 *
 * NO CHOICE TO MAKE. A rotation has no pivot to choose: every lane runs
 * the same instructions on every row, as spike_cpu.c's lanes do only
 * after selecting their pivot rows. What differs between lanes are the
 * reference's two special rotations (z = 0: the identity; x = 0: a swap
 * with a sign), taken here as selects of the general rotation's results,
 * and hypot, which the lanes call one lane at a time (the C library's
 * hypot, for the reference's bits: no vector hypot gives them).
 *
 * ONE FORWARD AND ONE BACKWARD PASS, as spike_cpu.c's:
 *
 *   x-lines a, b, c, d --tiles--> rotations: R, and Q^H on g, V, W ---> packed r0 r1 r2 y
 *                                                                            |
 *   per lane: the shift test, R(m-1,m-1) replaced, K's right-hand side       |
 *                                                                            v
 *   x-lines g, V, W, K <--transposes-- R' back substitution (g, V, W, K) <---+
 *
 * Q^H is applied to the right-hand sides as the rotations are made (the
 * reference applies them afterwards, in the same order: Q does not depend
 * on the shift), so the rotations themselves are never stored. The last
 * partition factors J A_p J (its rows bottom up): its forward pass reads
 * the tiles from the last and its results go back in reverse order.
 *
 * Breakdown. The reference fails where a rotation meets a zero column
 * (R(i,i) = 0, i < m-1), where R is not finite, where R(m-1,m-1) is 0
 * after the shift test, and where g, V or W is not finite. Each lane adds
 * R's entries and its results to its check sum, and a zero R(i,i) or
 * R(m-1,m-1) puts a NaN there: such a system is flagged, for the caller
 * to run through the reference, which gives its report. Every entry of
 * a, b, c, d the pass reads (rows 0 .. m-1, the corners included) goes
 * into the sum as well (lanes.h's tl_lanes_check_row: five operations a
 * row), so that a system with an entry that is not finite is flagged
 * whatever the rotations make of it (hypot(inf, NaN) is inf, and x / inf
 * is 0): an MPI rank takes its entries' check from the flags.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/algorithms.h"
#include "tridlab/cpu.h"
#include "tridlab/part_spike_givens.h"

/* The packed arrays of a group: R's three diagonals, then the right-hand
 * sides g, V (a right neighbour), W (a left one) and K, in that order,
 * each m rows of eight lanes, in the order factored (bottom up when
 * flipped). */
enum { R0, R1, R2, Y0, ARRAYS = Y0 + 4 };

#if TL_LANES_OK

#define PK(k, i) (pk + ((size_t)(k)*m + (i)) * TL_LANES)

typedef int64_t gv_mask __attribute__((vector_size(sizeof(tl_lanes))));

static TL_CPU_INLINE tl_lanes gv_select(gv_mask keep, tl_lanes x, tl_lanes y)
{
  return (tl_lanes)((keep & (gv_mask)x) | (~keep & (gv_mask)y));
}

/* The reference's rotation (spike_givens_ref.c, `rotation`) taking
 * [x; z] to [rho; 0], lane by lane: the general case computed in every
 * lane, its two special cases selected over it. */
static TL_CPU_INLINE void rotate(tl_lanes x, tl_lanes z, tl_lanes *cs, tl_lanes *sn, tl_lanes *rho)
{
  tl_lanes ax = tl_lanes_abs(x), az = tl_lanes_abs(z), r;
  for (int l = 0; l < TL_LANES; l++)
    r[l] = hypot(ax[l], az[l]);
  tl_lanes phase = x / ax, one = tl_lanes_splat(1.0), zero = tl_lanes_splat(0.0);
  tl_lanes c = ax / r, s = phase * (z / r), p = phase * r;
  gv_mask xz = x == zero, zz = z == zero;
  c = gv_select(xz, zero, c), s = gv_select(xz, z / az, s), p = gv_select(xz, az, p);
  *cs = gv_select(zz, one, c), *sn = gv_select(zz, zero, s), *rho = gv_select(zz, x, p);
}

/* What a group carries down the rows: R's working row (x at column i,
 * y at i+1), the right-hand sides' current entries, the product of
 * |sn| (|q_first|), the last cs, the largest |R(i,i)|, the check sum. */
typedef struct gv_state {
  tl_lanes x, y, t[4], q0, cs_last, rmax, chk;
} gv_state;

/* Rotation i on rows i, i+1 of what is factored: row i+1's entries z
 * (below the diagonal), bb, cc (cc = 0 on the last row), and each
 * right-hand side's entry yn[k] of row i+1. R's row i and the right-hand
 * sides' row i into the packed rows. */
static TL_CPU_INLINE void step(size_t m, size_t i, int nrhs, tl_lanes z, tl_lanes bb, tl_lanes cc,
                               const tl_lanes *yn, gv_state *g, double *pk)
{
  tl_lanes cs, sn, rho, zero = tl_lanes_splat(0.0), nan = tl_lanes_splat(NAN);
  rotate(g->x, z, &cs, &sn, &rho);
  tl_lanes r1 = cs * g->y + sn * bb, r2 = sn * cc;
  tl_lanes_store(PK(R0, i), rho), tl_lanes_store(PK(R1, i), r1), tl_lanes_store(PK(R2, i), r2);
  g->chk =
      g->chk + gv_select(rho == zero, nan, zero) + rho + r1 + r2; /* R(i,i) = 0: a zero column */
  g->x = -sn * g->y + cs * bb;
  g->y = cs * cc;
  g->q0 = g->q0 * tl_lanes_abs(sn);
  g->cs_last = cs;
  tl_lanes ar = tl_lanes_abs(rho);
  g->rmax = gv_select(ar > g->rmax, ar, g->rmax);
  for (int k = 0; k < nrhs; k++) { /* Q^H: the same rotation on each right-hand side */
    tl_lanes t0 = g->t[k], t1 = yn[k];
    tl_lanes_store(PK(Y0 + k, i), cs * t0 + sn * t1);
    g->t[k] = -sn * t0 + cs * t1;
  }
}

/* The forward pass: the m - 1 rotations, a tile of a, b, c, d at a time
 * -- rows 1 .. m-1 going down, or (flip) rows m-2 .. 0 going up, each
 * original row j giving row i+1 of what is factored. In J A_p J the
 * subdiagonal is c and the superdiagonal a. g: d; V: c[m-1] at the last
 * row (never flipped: a flipped block has no right neighbour); W: a[0]
 * at the first row, which is the last when flipped. */
static TL_CPU_INLINE void forward(size_t m, size_t ld, int left, int right, int flip,
                                  const double *a, const double *b, const double *c,
                                  const double *d, double *pk, gv_state *g)
{
  const int nrhs = 1 + right + left, kw = 1 + right;
  size_t top = flip ? m - 1 : 0;
  tl_lanes zero = tl_lanes_splat(0.0), yn[3] = {zero, zero, zero};
  g->x = tl_lanes_gather(b, ld, top);
  g->y = m > 1 ? tl_lanes_gather(flip ? a : c, ld, top) : zero;
  g->t[0] = tl_lanes_gather(d, ld, top);
  g->chk = tl_lanes_check_row(g->chk, tl_lanes_gather(a, ld, top), g->x,
                              tl_lanes_gather(c, ld, top), g->t[0]); /* the entries, too */
  if (right)
    g->t[1] = m == 1 ? tl_lanes_gather(c, ld, m - 1) : zero;
  if (left)
    g->t[kw] = flip && m > 1 ? zero : tl_lanes_gather(a, ld, 0);
  const double *src[4] = {a, b, c, d};
  double t[4][64];
  size_t tiles = (m + TL_LANES - 1) / TL_LANES;
  for (size_t n = 0; n < tiles; n++) {
    size_t i0 = (flip ? tiles - 1 - n : n) * TL_LANES, r0, r1;
    tl_lanes_clip(i0, flip ? 0 : 1, flip ? m - 1 : m, &r0, &r1);
    if (r0 >= r1)
      continue;
    size_t ahead = flip ? (i0 >= TL_LANES_AHEAD ? i0 - TL_LANES_AHEAD : ld) : i0 + TL_LANES_AHEAD;
    tl_lanes_tiles_get(4, src, ld, i0, r0, r1, ahead, t);
    for (size_t q = 0; q < r1 - r0; q++) {
      size_t r = flip ? r1 - 1 - q : r0 + q, j = i0 + r, k = r * TL_LANES;
      size_t i = flip ? m - 2 - j : j - 1; /* the rotation: rows i, i+1 */
      tl_lanes aj = tl_lanes_load(t[0] + k), bj = tl_lanes_load(t[1] + k);
      tl_lanes cj = tl_lanes_load(t[2] + k);
      int last = i + 2 == m;
      yn[0] = tl_lanes_load(t[3] + k);
      g->chk = tl_lanes_check_row(g->chk, aj, bj, cj, yn[0]);
      if (right)
        yn[1] = last ? cj : zero;
      if (left)
        yn[kw] = flip && last ? aj : zero;
      step(m, i, nrhs, flip ? cj : aj, bj, last ? zero : (flip ? aj : cj), yn, g, pk);
    }
  }
  tl_lanes_store(PK(R0, m - 1), g->x); /* R's last row: x, and no superdiagonal */
  tl_lanes_store(PK(R1, m - 1), zero), tl_lanes_store(PK(R2, m - 1), zero);
  for (int k = 0; k < nrhs; k++)
    tl_lanes_store(PK(Y0 + k, m - 1), g->t[k]);
}

/* tl_spike_givens_shift, lane by lane, in its operations: R(m-1,m-1)
 * replaced in the packed row where the test says so; shift[l] = delta -
 * r there, 0 elsewhere. top, bottom: the couplings at the first and last
 * row of what was factored. Inline, as every function here that takes
 * lanes by value: a 64-byte vector passes in registers inside an AVX-512
 * clone and on the stack in a function compiled for SSE2 (a call between
 * the two reads garbage). */
static TL_CPU_INLINE int shift_lanes(size_t m, double *pk, const gv_state *g, tl_lanes top,
                                     tl_lanes bottom, double shift[TL_LANES])
{
  int any = 0;
  double *last = PK(R0, m - 1);
  for (int l = 0; l < TL_LANES; l++) {
    double q0 = g->q0[l], qm = m > 1 ? fabs(g->cs_last[l]) : 1;
    double weight = fmax(q0 * top[l], qm * bottom[l]);
    double delta = fmax(fmax(top[l], bottom[l]), fmax(g->rmax[l], fabs(last[l])));
    double r = last[l];
    shift[l] = 0;
    if (delta == 0 || weight == 0 || fabs(r) > TL_SPIKE_GIVENS_TAU * weight)
      continue;
    last[l] = delta;
    shift[l] = delta - r;
    any = 1;
  }
  return any;
}

/* The backward pass: R' back substitution of each right-hand side (the
 * reference's back_substitute), each result into the check sum and back
 * into its packed row. */
static TL_CPU_INLINE void backward(size_t m, int nrhs, double *pk, tl_lanes *chk)
{
  tl_lanes x1[4] = {0}, x2[4] = {0};
  for (size_t i = m; i-- > 0;) {
    tl_lanes r0 = tl_lanes_load(PK(R0, i)), r1 = tl_lanes_load(PK(R1, i));
    tl_lanes r2 = tl_lanes_load(PK(R2, i));
    for (int k = 0; k < nrhs; k++) {
      tl_lanes x = tl_lanes_load(PK(Y0 + k, i));
      if (i + 1 < m)
        x = x - r1 * x1[k];
      if (i + 2 < m)
        x = x - r2 * x2[k];
      x = x / r0;
      tl_lanes_store(PK(Y0 + k, i), x);
      *chk = *chk + x;
      x2[k] = x1[k], x1[k] = x;
    }
  }
}

/* Packed array k (in the order factored) back to the systems' rows of
 * out, reversed when flipped. */
static TL_CPU_INLINE void put(size_t m, size_t ld, int flip, const double *pk, int k, double *out)
{
  double tile[64];
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (size_t r = r0; r < r1; r++)
      memcpy(tile + r * TL_LANES, PK(k, flip ? m - 1 - (i0 + r) : i0 + r), 8 * sizeof(double));
    tl_lanes_tile_put(out, ld, i0, r0, r1, tile);
  }
}

/* Phases 1-3 of one group of eight systems in the shape (left, right) of
 * its partition; flag[l] set for the lanes that may break down. */
static TL_CPU_INLINE void group_shape(size_t m, size_t ld, int left, int right, const double *a,
                                      const double *b, const double *c, const double *d, double *g,
                                      double *v, double *w, double *k, double *pk,
                                      unsigned char *flag)
{
  int flip = left && !right, nrhs = 1 + left + right;
  tl_lanes zero = tl_lanes_splat(0.0);
  gv_state st = {.q0 = tl_lanes_splat(1.0), .cs_last = zero, .rmax = zero, .chk = zero};
  forward(m, ld, left, right, flip, a, b, c, d, pk, &st);
  st.chk = st.chk + st.x; /* R(m-1,m-1) as factored: finite, as the rest of R */
  /* the couplings: |a[0]| with a left neighbour, |c[m-1]| with a right */
  tl_lanes lc = left ? tl_lanes_abs(tl_lanes_gather(a, ld, 0)) : zero;
  tl_lanes rc = right ? tl_lanes_abs(tl_lanes_gather(c, ld, m - 1)) : zero;
  double shift[TL_LANES];
  int shifted = shift_lanes(m, pk, &st, flip ? rc : lc, flip ? lc : rc, shift);
  tl_lanes rl = tl_lanes_load(PK(R0, m - 1)), s = tl_lanes_load(shift);
  st.chk = st.chk + gv_select(rl == zero, tl_lanes_splat(NAN), zero); /* singular */
  if (shifted) {                                                      /* K: R'^-1 (shift e_last) */
    for (size_t i = 0; i + 1 < m; i++)
      tl_lanes_store(PK(Y0 + nrhs, i), zero);
    tl_lanes_store(PK(Y0 + nrhs, m - 1), s);
  }
  backward(m, nrhs + shifted, pk, &st.chk);
  double *out[3] = {g, right ? v : w, w};
  for (int j = 0; j < nrhs; j++)
    put(m, ld, flip, pk, Y0 + j, out[j]);
  if (shifted) { /* where a lane kept its R, K is 0 (the reference's memset) */
    gv_mask none = s == zero;
    for (size_t i = 0; i < m; i++)
      tl_lanes_store(PK(Y0 + nrhs, i), gv_select(none, zero, tl_lanes_load(PK(Y0 + nrhs, i))));
    put(m, ld, flip, pk, Y0 + nrhs, k);
  } else {
    for (int l = 0; l < TL_LANES; l++)
      memset(k + (size_t)l * ld, 0, m * sizeof *k);
  }
  tl_lanes_flag(st.chk, flag);
}

/* The four shapes of a partition, each compiled with its own count of
 * right-hand sides. */
TL_CPU_CLONES
static void givens_group(size_t m, size_t ld, int left, int right, const double *a, const double *b,
                         const double *c, const double *d, double *g, double *v, double *w,
                         double *k, double *pk, unsigned char *flag)
{
  if (!left && !right)
    group_shape(m, ld, 0, 0, a, b, c, d, g, v, w, k, pk, flag);
  else if (!left)
    group_shape(m, ld, 0, 1, a, b, c, d, g, v, w, k, pk, flag);
  else if (!right)
    group_shape(m, ld, 1, 0, a, b, c, d, g, v, w, k, pk, flag);
  else
    group_shape(m, ld, 1, 1, a, b, c, d, g, v, w, k, pk, flag);
}

#undef PK
#endif /* TL_LANES_OK */

#if !TL_LANES_OK
#define givens_group NULL
#endif

size_t tl_cpu_spike_givens_local_d(size_t m, size_t ld, size_t nsys, int has_left, int has_right,
                                   const double *a, const double *b, const double *c,
                                   const double *d, double *g, double *v, double *w, double *k,
                                   double *tips, unsigned char *flagged)
{
  return tl_cpu_spike_lanes_run_d(&tl_spike_givens, givens_group, ARRAYS, m, ld, nsys, has_left,
                                  has_right, a, b, c, d, g, v, w, k, tips, flagged);
}

/* ---------------------------------------------------------------- */
/* The registry backend "spike_givens_cpu"                           */

/* The reports of phases 4-5 begin with the backend's name; phases 1-3
 * are spike_givens's (the factors' layout, K last). */
static const tl_spike_variant spike_givens_cpu_variant = {
    .name = "spike_givens_cpu", .words = 6, .kernel = 1};
static const tl_cpu_spike_backend spike_givens_cpu_backend = {.ref = &tl_spike_givens,
                                                              .cpu = &spike_givens_cpu_variant,
                                                              .lanes = tl_cpu_spike_givens_local_d};

static int spike_givens_cpu_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                                  const tl_options *opt, tl_info *info)
{
  return tl_cpu_spike_solve(&spike_givens_cpu_backend, self, sys, x, opt, info);
}

/* spike_givens's messages: 8 scalars per partition to partition 0, 3
 * back, the verdict (its reference's ledger model). */
static int spike_givens_cpu_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                                         const tl_options *opt, const tl_info *solved,
                                         tl_ledger *out)
{
  (void)self;
  (void)solved;
  tl_spike_ledger_model_send(shape, opt, TL_SPIKE_SEND_KERNEL, out);
  return TL_OK;
}

/* The backend names its reference and inherits what it does not state
 * (registry.h): double only, its parameters (spike's), its ledger. */
extern const tl_algorithm tl_algo_spike_givens_ref;
const tl_algorithm tl_algo_spike_givens_cpu = {
    .name = "spike_givens_cpu",
    .reference = &tl_algo_spike_givens_ref,
    .backend = "cpu",
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .summary = "SPIKE with Givens rotations: phases 1-3 eight systems at once, one per vector "
               "lane (the C library's hypot lane by lane); the reduced system and the retrieval "
               "as spike_givens's",
    .source = "Venetis, Kouris, Sobczyk, Gallopoulos and Sameh, Parallel Computing 49 (2015); "
              "Polizzi and Sameh 2006",
    .params = tl_spike_params,
    .nparams = TL_SPIKE_NPARAMS,
    .solve = spike_givens_cpu_solve,
    .ledger_model = spike_givens_cpu_ledger_model,
};
