/* optimized/cpu/spike_cpu.c -- SPIKE's local phase (phases 1-3: the
 * pivoted factorization of a block, g and the two spikes, the tips) on a
 * batch of slices, eight systems at once, and the serial registry
 * backend "spike_cpu" built on it. What every MPI rank of spike_mpi runs
 * on its own rows (tl_cpu_spike_local_d, tridlab/cpu.h). The registry
 * backend's code (tl_cpu_spike_solve, below) serves spike_givens_cpu
 * too (spike_givens_cpu.c), with that variant's kernel.
 *
 * Source: E. Polizzi and A. H. Sameh, "A parallel hybrid banded system
 * solver: the SPIKE algorithm", Parallel Computing 32 (2006) 177-194 (the
 * spikes, the tips, the reduced system); the blocks factored as LAPACK's
 * DGTTRF and solved as DGTTRS (Anderson et al., LAPACK Users' Guide,
 * 1999). reference/spike_ref.c (tl_spike_factor_d, tl_spike_solve_block_d,
 * tl_spike_local_d, tl_spike_tips_d) is the readable version on one
 * partition; this file makes the same operations in the same order in
 * each vector lane (lanes.h), so an unflagged lane's results are the
 * reference's bits (the CPU room is built with -ffp-contract=off).
 *
 * PIVOTING AS A PER-LANE SELECT. At step i DGTTRF compares the current
 * pivot candidate u0_i with the entry below it, a_{i+1}, and keeps row i
 * as the pivot row when |u0_i| >= |a_{i+1}|, else swaps rows i and i+1.
 * Eight systems in eight lanes make eight different choices, and a vector
 * has no branch per lane. So the comparison becomes a MASK (all bits set
 * in the lanes that keep row i) and the swap becomes SELECTS: each lane
 * picks which of the two rows is its pivot row P and which the other row
 * O, and then one elimination, the same instruction in every lane, works
 * on whatever each lane picked:
 *
 *            columns  i      i+1    i+2          keep: P = row i,   O = row i+1
 *   row i          [ u0_i   u1_i   0      ]      swap: P = row i+1, O = row i
 *   row i+1        [ a_i+1  b_i+1  c_i+1  ]
 *
 *   l_i = O[i] / P[i]                 the multiplier (|l_i| <= 1)
 *   U's row i = P: u0_i, u1_i, u2_i   (u2_i = c_{i+1}: the fill-in of a swap)
 *   u0_{i+1}  = O[i+1] - l_i P[i+1]   the next pivot candidate
 *   u1_{i+1}  = keep ? c_{i+1} : -l_i c_{i+1}
 *
 * and the forward substitution of each right-hand side y, fused into the
 * same step (L's step i needs only l_i and the choice), is the same pair
 * of selects: Y_i = keep ? y_i : y_{i+1}, y_{i+1} = (the other) - l_i Y_i.
 * These are the reference's two branches, written with the operands
 * chosen first: in a keeping lane l_i = a_{i+1} / u0_i and u0_{i+1} =
 * b_{i+1} - l_i u1_i, in a swapping lane l_i = u0_i / a_{i+1} and u0_{i+1}
 * = u1_i - l_i b_{i+1} -- the same operations on the same values, so the
 * same bits.
 *
 * What the select costs. Because the operands are selected before the
 * arithmetic, neither branch is computed twice: one division a row, as
 * in the reference. What every lane computes although its own branch
 * does not need it is the fill-in product -l_i c_{i+1} (a multiply and a
 * negation, thrown away where the lane keeps its row); and the choice
 * itself costs the mask (two absolute values, a comparison) and the
 * selects -- 6 for the factors and 2 per right-hand side, 12 a row in a
 * middle partition, each one blend instruction with AVX2 or AVX-512 --
 * where the reference pays a branch that a random matrix mispredicts
 * about half the time. Selecting the RESULTS of both branches instead
 * would cost a second division a row. Every row of U gets a u2 (zero
 * where the lane kept its row), so the back substitution always runs
 * three diagonals, as DGTTRS does.
 *
 * ONE FORWARD AND ONE BACKWARD PASS. The three solves with the block
 * (g = A_p^-1 d, V = A_p^-1 (c_last e_last), W = A_p^-1 (a_first e_first),
 * V where the partition has a right neighbour, W a left one) share the
 * factors, so they ride along the factorization: the forward pass reads
 * tiles of a, b, c, d (lanes.h), factors and applies L to the up to three
 * right-hand sides, and keeps U and the three partial solutions PACKED
 * (row i of the eight systems at pk + 8 i: the layout of a tile, in L2 at
 * the sizes a rank holds); the backward pass runs U's back substitution
 * on the packed rows from the last and writes each finished tile of g, V,
 * W back to the systems' rows by the transposes of lanes.h:
 *
 *   x-lines a, b, c, d --tiles--> factor + L (g, V, W) --> packed u0 u1 u2 y
 *                                                               |
 *   x-lines g, V, W  <--transposes-- U back substitution <------+
 *
 * V and W are solved as the reference solves them, every operation on
 * their zeros included, so their bits are its bits too. The tips (6 words
 * a system) are read from the results afterwards (tl_spike_tips_d).
 *
 * Breakdown. The reference fails where a pivot u0_i is zero or not
 * finite, and where a result is not finite. Every pivot and every result
 * goes into its lane's check sum (lanes.h): a non-finite pivot shows
 * there, and a zero pivot makes the result divided by it infinite or NaN.
 * The entries need no check sum of their own (as lanes.h's
 * tl_lanes_check_row gives the sweeps that can lose one): every entry
 * the pass uses reaches a pivot or a result, and an inf or a NaN cannot
 * leave them finite -- a product with it is inf or NaN (0 inf too), and
 * where it only divides (x / u0 with u0 = inf) it is the pivot, which is
 * in the sum itself. The entries the pass does not use are the corners:
 * a[0] of a block with no left neighbour, c[m-1] of one with no right.
 * So an MPI rank takes the entries' check of the systems the lanes ran
 * from their flags, and checks only the corners (spike_mpi.c).
 * (Where the reference skips the elimination under a zero pivot -- kept
 * row, u0_i = a_{i+1} = 0 -- the lane divides 0 by 0: its results are
 * then not the reference's, but it is flagged either way.)
 * A flagged system is the caller's to solve again with the reference,
 * which gives its report (or, if only the sum overflowed, the same bits).
 * Systems past the last whole group of eight, blocks of one row, and
 * builds without the lanes (TL_LANES_OK = 0) run the reference phases
 * here, system by system.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/algorithms.h"
#include "tridlab/cpu.h"
#include "tridlab/part_spike.h"

/* The packed arrays of a group: U's three diagonals, then the right-hand
 * sides in the order g, V (when the partition has a right neighbour), W
 * (a left one). */
enum { U0, U1, U2, Y0, ARRAYS = Y0 + 3 };

#if TL_LANES_OK

/* Row i of packed array k. */
#define PK(k, i) (pk + ((size_t)(k)*m + (i)) * TL_LANES)

/* The lanes of a comparison: all bits set where it holds. */
typedef int64_t sp_mask __attribute__((vector_size(sizeof(tl_lanes))));

static TL_CPU_INLINE tl_lanes sp_abs(tl_lanes v)
{
  return (tl_lanes)((sp_mask)v & ~(sp_mask)tl_lanes_splat(-0.0)); /* the sign bit cleared */
}

/* keep ? x : y, lane by lane, bit for bit. */
static TL_CPU_INLINE tl_lanes sp_select(sp_mask keep, tl_lanes x, tl_lanes y)
{
  return (tl_lanes)((keep & (sp_mask)x) | (~keep & (sp_mask)y));
}

/* One step of the forward pass: rows i (carried: u0, u1 and the right-
 * hand sides' y) and i+1 (ln, bn, cn = a, b, c of row i+1, cn = 0 for
 * the last row; yn the right-hand sides' entries). Row i of U and of the
 * partial solutions into the packed rows; row i+1, eliminated, carried. */
static TL_CPU_INLINE void eliminate(size_t m, size_t i, int nrhs, tl_lanes ln, tl_lanes bn,
                                    tl_lanes cn, const tl_lanes *yn, tl_lanes *u0, tl_lanes *u1,
                                    tl_lanes *y, double *pk, tl_lanes *chk)
{
  sp_mask keep = sp_abs(*u0) >= sp_abs(ln); /* DGTTRF's test; else rows i, i+1 swap */
  tl_lanes p0 = sp_select(keep, *u0, ln), p1 = sp_select(keep, *u1, bn);
  tl_lanes p2 = sp_select(keep, tl_lanes_splat(0.0), cn);
  tl_lanes o0 = sp_select(keep, ln, *u0), o1 = sp_select(keep, bn, *u1);
  tl_lanes fact = o0 / p0; /* l_i */
  tl_lanes_store(PK(U0, i), p0), tl_lanes_store(PK(U1, i), p1), tl_lanes_store(PK(U2, i), p2);
  *u0 = o1 - fact * p1;
  *u1 = sp_select(keep, cn, -fact * cn);
  *chk = *chk + p0;
  for (int k = 0; k < nrhs; k++) { /* L's step i on each right-hand side */
    tl_lanes py = sp_select(keep, y[k], yn[k]), oy = sp_select(keep, yn[k], y[k]);
    tl_lanes_store(PK(Y0 + k, i), py);
    y[k] = oy - fact * py;
  }
}

/* The forward pass over rows 1 .. m-1, a tile of a, b, c, d at a time;
 * ld: the distance between two systems' rows. Row m-1 of U and of the
 * partial solutions last. */
static TL_CPU_INLINE void forward(size_t m, size_t ld, int left, int right, const double *a,
                                  const double *b, const double *c, const double *d, double *pk,
                                  tl_lanes *chk)
{
  const int nrhs = 1 + right + left;
  tl_lanes u0 = tl_lanes_gather(b, ld, 0), u1 = tl_lanes_gather(c, ld, 0), y[3], yn[3];
  tl_lanes zero = tl_lanes_splat(0.0);
  y[0] = tl_lanes_gather(d, ld, 0); /* g: d */
  if (right)
    y[1] = zero; /* V: c[m-1] e_last, m >= 2 */
  if (left)
    y[1 + right] = tl_lanes_gather(a, ld, 0); /* W: a[0] e_first */
  const double *src[4] = {a, b, c, d};
  double t[4][64]; /* tiles of a, b, c, d */
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 1, m, &r0, &r1);
    if (r0 >= r1)
      continue;
    tl_lanes_tiles_get(4, src, ld, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (size_t r = r0; r < r1; r++) {
      size_t j = i0 + r, k = r * TL_LANES; /* row j = i+1 */
      tl_lanes cj = tl_lanes_load(t[2] + k), last = j + 1 == m ? cj : zero;
      yn[0] = tl_lanes_load(t[3] + k);
      if (right)
        yn[1] = last;
      if (left)
        yn[1 + right] = zero;
      eliminate(m, j - 1, nrhs, tl_lanes_load(t[0] + k), tl_lanes_load(t[1] + k),
                j + 1 == m ? zero : cj, yn, &u0, &u1, y, pk, chk);
    }
  }
  tl_lanes_store(PK(U0, m - 1), u0);
  *chk = *chk + u0;
  for (int k = 0; k < nrhs; k++)
    tl_lanes_store(PK(Y0 + k, m - 1), y[k]);
}

/* The backward pass: U's back substitution on the packed rows, from the
 * last, each right-hand side as the reference writes it (rows m-1 and m-2
 * with one and two terms); each finished tile back to the systems' rows
 * of out[k]. Every result into the check sum. */
static TL_CPU_INLINE void backward(size_t m, size_t ld, int nrhs, double *pk, double *const *out,
                                   tl_lanes *chk)
{
  tl_lanes x1[3] = {0}, x2[3] = {0}; /* x of rows i+1 and i+2 */
  for (size_t i0 = (m - 1) / TL_LANES * TL_LANES;; i0 -= TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    for (size_t r = r1; r-- > r0;) {
      size_t i = i0 + r;
      tl_lanes u0 = tl_lanes_load(PK(U0, i)), u1 = tl_lanes_load(PK(U1, i));
      tl_lanes u2 = tl_lanes_load(PK(U2, i));
      for (int k = 0; k < nrhs; k++) {
        tl_lanes x = tl_lanes_load(PK(Y0 + k, i));
        if (i + 1 < m) /* a row below: u1's term */
          x = x - u1 * x1[k];
        if (i + 2 < m) /* two: u2's */
          x = x - u2 * x2[k];
        x = x / u0;
        tl_lanes_store(PK(Y0 + k, i), x);
        *chk = *chk + x;
        x2[k] = x1[k], x1[k] = x;
      }
    }
    for (int k = 0; k < nrhs; k++)
      tl_lanes_tile_put(out[k], ld, i0, r0, r1, PK(Y0 + k, i0));
    if (i0 == 0)
      break;
  }
}

/* Phases 1-2 of one group of eight systems in the shape (left, right) of
 * its partition; flag[l] set for the lanes whose check sum is not finite. */
static TL_CPU_INLINE void group_shape(size_t m, size_t ld, int left, int right, const double *a,
                                      const double *b, const double *c, const double *d, double *g,
                                      double *v, double *w, double *pk, unsigned char *flag)
{
  tl_lanes chk = tl_lanes_splat(0.0);
  double *out[3] = {g, right ? v : w, w};
  forward(m, ld, left, right, a, b, c, d, pk, &chk);
  backward(m, ld, 1 + left + right, pk, out, &chk);
  tl_lanes_flag(chk, flag);
}

/* The four shapes of a partition -- alone, first, last, in the middle --
 * each compiled with its own count of right-hand sides. */
TL_CPU_CLONES
static void spike_group(size_t m, size_t ld, int left, int right, const double *a, const double *b,
                        const double *c, const double *d, double *g, double *v, double *w,
                        double *pk, unsigned char *flag)
{
  if (!left && !right)
    group_shape(m, ld, 0, 0, a, b, c, d, g, v, w, pk, flag);
  else if (!left)
    group_shape(m, ld, 0, 1, a, b, c, d, g, v, w, pk, flag);
  else if (!right)
    group_shape(m, ld, 1, 0, a, b, c, d, g, v, w, pk, flag);
  else
    group_shape(m, ld, 1, 1, a, b, c, d, g, v, w, pk, flag);
}

#undef PK
#endif /* TL_LANES_OK */

/* A variant's reference phases 1-3 on one system (scratch f: its
 * words m, flags: m bytes), K copied out of the factors for a kernel
 * variant, then the tips; 1 when they fail (the caller runs them again
 * for the report). */
static int reference_one(const tl_spike_variant *var, size_t m, int left, int right,
                         const double *a, const double *b, const double *c, const double *d,
                         double *f, unsigned char *flags, double *g, double *v, double *w,
                         double *k, double *tips)
{
  tl_info info;
  if (var->local_d(0, m, 0, left, right, a, b, c, d, f, flags, g, v, w, &info) < 0)
    return 1;
  if (!var->kernel) {
    tl_spike_tips_d(m, left, right, g, v, w, tips);
    return 0;
  }
  memcpy(k, f + (var->words - 1) * m, m * sizeof *k); /* K: the factors' last m */
  tl_spike_tips_kernel_d(m, left, right, g, v, w, k, tips);
  return 0;
}

size_t tl_cpu_spike_lanes_run_d(const tl_spike_variant *var, tl_cpu_spike_group_fn group,
                                int arrays, size_t m, size_t ld, size_t nsys, int has_left,
                                int has_right, const double *a, const double *b, const double *c,
                                const double *d, double *g, double *v, double *w, double *k,
                                double *tips, unsigned char *flagged)
{
  size_t send = var->kernel ? TL_SPIKE_SEND_KERNEL : TL_SPIKE_SEND;
  memset(flagged, 0, nsys);
  double *pk = NULL;
  size_t groups = group ? tl_lanes_groups(m, nsys, arrays, &pk) : 0;
  for (size_t j = 0; j < groups; j++) {
    size_t s = j * TL_LANES, o = s * ld;
    group(m, ld, has_left, has_right, a + o, b + o, c + o, d + o, g + o, v + o, w + o,
          k ? k + o : NULL, pk, flagged + s);
    for (size_t l = s; l < s + TL_LANES; l++) {
      size_t ol = l * ld;
      if (var->kernel)
        tl_spike_tips_kernel_d(m, has_left, has_right, g + ol, v + ol, w + ol, k + ol,
                               tips + send * l);
      else
        tl_spike_tips_d(m, has_left, has_right, g + ol, v + ol, w + ol, tips + send * l);
    }
  }
  free(pk);
  size_t first = groups * TL_LANES; /* the rest: the reference, system by system */
  double *f = first < nsys && m > 0 ? tl_alloc(var->words * m, sizeof *f) : NULL;
  unsigned char *flags = f ? tl_alloc(m, 1) : NULL;
  for (size_t s = first; s < nsys; s++) {
    size_t o = s * ld;
    flagged[s] =
        !flags || reference_one(var, m, has_left, has_right, a + o, b + o, c + o, d + o, f, flags,
                                g + o, v + o, w + o, k ? k + o : NULL, tips + send * s);
  }
  free(f);
  free(flags);
  return first;
}

#if TL_LANES_OK
/* spike_group in the shape the shared loop calls (no K). */
static void spike_group_k(size_t m, size_t ld, int left, int right, const double *a,
                          const double *b, const double *c, const double *d, double *g, double *v,
                          double *w, double *k, double *pk, unsigned char *flag)
{
  (void)k;
  spike_group(m, ld, left, right, a, b, c, d, g, v, w, pk, flag);
}
#define SPIKE_GROUP spike_group_k
#else
#define SPIKE_GROUP NULL
#endif

size_t tl_cpu_spike_local_d(size_t m, size_t ld, size_t nsys, int has_left, int has_right,
                            const double *a, const double *b, const double *c, const double *d,
                            double *g, double *v, double *w, double *tips, unsigned char *flagged)
{
  return tl_cpu_spike_lanes_run_d(&tl_spike_partial, SPIKE_GROUP, ARRAYS, m, ld, nsys, has_left,
                                  has_right, a, b, c, d, g, v, w, NULL, tips, flagged);
}

/* ---------------------------------------------------------------- */
/* The registry backends "spike_cpu" and "spike_givens_cpu"          */

/* A backend's batch scratch: V and W (n nsys each), K (kernel variants),
 * every system's tips (system after system, `send` per partition), one
 * partition's tips and flags, a flag per system, and one system's
 * factors as the reference lays them out (only K is read: kernel
 * variants). */
typedef struct sp_scratch {
  double *v, *w, *k, *tips, *part_tips, *f;
  unsigned char *part_flag, *flag;
  size_t send;
} sp_scratch;

/* Phases 1-3 of partition p of every system: its rows are a strided
 * slice of the batch (system s's at s n + lo), which the kernel takes as
 * it is; g into x. */
static void local_partition(const tl_cpu_spike_backend *be, const tl_batch *sys,
                            const tl_options *opt, int p, double *x, sp_scratch *sc)
{
  size_t n = sys->n, nsys = sys->nsys, P = (size_t)opt->parts, lo, hi, send = sc->send;
  tl_partition_bounds(n, opt->parts, opt->part_sizes, p, &lo, &hi);
  const double *a = sys->a, *b = sys->b, *c = sys->c, *d = sys->d;
  be->lanes(hi - lo, n, nsys, p > 0, (size_t)p + 1 < P, a + lo, b + lo, c + lo, d + lo, x + lo,
            sc->v + lo, sc->w + lo, sc->k ? sc->k + lo : NULL, sc->part_tips, sc->part_flag);
  for (size_t s = 0; s < nsys; s++) {
    memcpy(sc->tips + send * (s * P + (size_t)p), sc->part_tips + send * s, send * sizeof(double));
    sc->flag[s] |= sc->part_flag[s];
  }
}

/* Phases 4-5 and the verdict of system s on the host, exactly as spike_gpu
 * does (tl_spike_finish_d: the reference's code), its tips recorded in
 * the ledger as the reference records them; a flagged system, a singular
 * block or an overflow, is solved again by the reference, which says
 * where and why. A kernel variant's K goes where the reference keeps it,
 * the last m of each partition's factors. */
static int finish_system(const tl_cpu_spike_backend *be, const tl_batch *sys, const tl_options *opt,
                         const tl_spike_mode *mode, size_t s, double *x, const sp_scratch *sc,
                         tl_info *one)
{
  size_t n = sys->n, o = s * n, P = (size_t)opt->parts, words = be->ref->words;
  const double *a = (const double *)sys->a + o, *b = (const double *)sys->b + o;
  const double *c = (const double *)sys->c + o, *d = (const double *)sys->d + o;
  if (sc->flag[s])
    return tl_spike_run_mode_d(be->ref, mode, n, opt->parts, opt->part_sizes, a, b, c, d, x + o,
                               opt->ledger, one);
  for (int p = 0; p < opt->parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, opt->parts, opt->part_sizes, p, &lo, &hi);
    if (sc->k)
      memcpy(sc->f + words * lo + (words - 1) * (hi - lo), sc->k + o + lo,
             (hi - lo) * sizeof(double));
    tl_spike_ledger_reduced(opt->ledger, opt->parts, p, 1, sc->send, 0);
  }
  return tl_spike_finish_d(be->cpu, mode, n, opt->parts, opt->part_sizes, a, b, c, d, sc->f, x + o,
                           sc->v + o, sc->w + o, sc->tips + sc->send * P * s, x + o, opt->ledger,
                           one);
}

int tl_cpu_spike_solve(const tl_cpu_spike_backend *be, const tl_algorithm *self,
                       const tl_batch *sys, void *xv, const tl_options *opt, tl_info *info)
{
  if (sys->dtype != TL_F64 || sys->periodic)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, sys->periodic ? "periodic" : "dtype",
                   "%s solves non-periodic float64 batches; use the reference (%s)", self->name,
                   self->reference ? self->reference->name : "");
  size_t n = sys->n, nsys = sys->nsys, P = (size_t)opt->parts;
  int kernel = be->ref->kernel;
  tl_spike_mode mode;
  TL_CALL(tl_spike_mode_of(self, opt, &mode, info));
  sp_scratch sc = {.v = tl_alloc(n * nsys, sizeof(double)),
                   .w = tl_alloc(n * nsys, sizeof(double)),
                   .k = kernel ? tl_alloc(n * nsys, sizeof(double)) : NULL,
                   .send = kernel ? TL_SPIKE_SEND_KERNEL : TL_SPIKE_SEND,
                   .part_flag = tl_alloc(nsys, 1),
                   .flag = tl_alloc(nsys, 1)};
  sc.tips = tl_alloc(sc.send * P * nsys, sizeof(double));
  sc.part_tips = tl_alloc(sc.send * nsys, sizeof(double));
  sc.f = kernel ? tl_alloc(be->ref->words * n + 1, sizeof(double)) : NULL;
  int status = TL_OK;
  if (!sc.v || !sc.w || !sc.tips || !sc.part_tips || !sc.part_flag || !sc.flag ||
      (kernel && (!sc.k || !sc.f))) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory", self->name);
    goto cleanup;
  }
  memset(sc.flag, 0, nsys);
  for (int p = 0; p < opt->parts; p++) /* phases 1-3, g into x */
    local_partition(be, sys, opt, p, xv, &sc);
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && out.status >= 0; s++) {
    tl_info one;
    tl_info_clear(&one);
    tl_outcome_add(&out, s, finish_system(be, sys, opt, &mode, s, xv, &sc, &one), &one);
  }
  status = tl_outcome_finish(&out, info);
cleanup:
  free(sc.v);
  free(sc.w);
  free(sc.k);
  free(sc.f);
  free(sc.tips);
  free(sc.part_tips);
  free(sc.part_flag);
  free(sc.flag);
  return status;
}

/* spike's kernel in the shape of a backend's (no kernel column). */
static size_t partial_lanes(size_t m, size_t ld, size_t nsys, int left, int right, const double *a,
                            const double *b, const double *c, const double *d, double *g, double *v,
                            double *w, double *k, double *tips, unsigned char *flagged)
{
  (void)k;
  return tl_cpu_spike_local_d(m, ld, nsys, left, right, a, b, c, d, g, v, w, tips, flagged);
}

/* The reports of phases 4-5 begin with the backend's name; phases 1-3
 * are spike's (partial pivoting). */
static const tl_spike_variant spike_cpu_variant = {.name = "spike_cpu", .words = 4};
static const tl_cpu_spike_backend spike_cpu_backend = {
    .ref = &tl_spike_partial, .cpu = &spike_cpu_variant, .lanes = partial_lanes};

static int spike_cpu_solve(const tl_algorithm *self, const tl_batch *sys, void *xv,
                           const tl_options *opt, tl_info *info)
{
  return tl_cpu_spike_solve(&spike_cpu_backend, self, sys, xv, opt, info);
}

/* The backend names its reference and inherits what it does not state
 * (family, classes, layouts, partitioning, exactness; registry.h): it
 * says only where it differs -- double only, its parameters (spike's),
 * its ledger (recorded as spike's). */
extern const tl_algorithm tl_algo_spike_ref;
const tl_algorithm tl_algo_spike_cpu = {
    .name = "spike_cpu",
    .reference = &tl_algo_spike_ref,
    .backend = "cpu",
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .summary = "SPIKE: phases 1-3 eight systems at once, one per vector lane, DGTTRF's row swaps "
               "as per-lane selects; the reduced system and the retrieval as spike's",
    .source = "Polizzi and Sameh 2006; LAPACK DGTTRF/DGTTRS, DGBSV",
    .params = tl_spike_params,
    .nparams = TL_SPIKE_NPARAMS,
    .solve = spike_cpu_solve,
    .ledger_model = tl_spike_ledger_model,
};
