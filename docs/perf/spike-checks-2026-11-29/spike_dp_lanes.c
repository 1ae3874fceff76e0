/* NOT BUILT: a record of an experiment (docs/performance.md, "SPIKE: the entries checked
 * from the kernel's flags, and Givens in lanes"). spike_dp's phases 1-3 in vector lanes, the
 * reference's bits (its Criterion test passed), but 1.2-1.7 times slower than the reference's
 * loops system by system (ab-dp-lanes.txt): every row computes all three pivot cases. */
/* optimized/cpu/spike_dp_cpu.c -- spike_dp's local phase (phases 1-3 of
 * tridlab/part_spike_dp.h: the block factored by 1x1 / 2x2 diagonal
 * pivoting, g and the spikes V, W, the six tips) on a batch of slices,
 * eight systems at once: what every rank of spike_dp_mpi runs on its rows
 * (tl_cpu_spike_dp_local_d, tridlab/cpu.h).
 *
 * Source: Chang, Stratton, Kim and Hwu, SC12, with the pivoting rule of
 * Erway, Marcia and Tyson, as reference/spike_dp_ref.c, which is the
 * readable version on one partition (tl_spike_dp_factor,
 * tl_spike_dp_solve_block). This file makes the same operations in the
 * same order in each vector lane (lanes.h), so an unflagged lane's
 * results are the reference's bits.
 *
 * LANES THAT ARE ONE ROW APART. A 2x2 pivot takes two rows at once, so
 * after one the lanes of a group no longer start their pivot blocks on
 * the same rows. Row by row, a lane is either at the START of a block
 * (it chooses 1x1 or 2x2 by the rule) or at the SECOND row of a 2x2
 * started on the row before. Every row computes what each of the three
 * would do -- a 1x1 pivot, the start of a 2x2 (nothing but beta_k+1 =
 * b_k+1), the end of a 2x2 (E_k, its determinant, the Schur complement)
 * -- and each lane selects its own:
 *
 *   row k    lane 0: 1x1    lane 1: 2x2 start    lane 2: 2x2 second  ...
 *   row k+1  lane 0: 1x1    lane 1: 2x2 second   lane 2: 1x1
 *
 * The forward substitution with L rides along (its update of row k+1
 * needs only what the factorization just made); the back substitution
 * runs up the rows with the same three cases, the pivot sizes kept as
 * masks. What the selects cost: each row computes all three cases, about
 * twice the arithmetic a lane needs (a 2x2's E_k is made at its second
 * row and kept for the first).
 *
 * The rule reads two rows ahead (sigma: c_k+1, a_k+2), and the
 * substitutions reach back one, so the group's rows are first copied
 * into packed rows (eight lanes a row, in L2 at the sizes a rank holds)
 * by the transposes of lanes.h, and its results go back the same way:
 *
 *   x-lines a, b, c, d --tiles--> packed a b c d --> factor + L --> back substitution
 *   x-lines g, V, W  <--transposes-----------------------------------------+
 *
 * Breakdown. The reference fails where a 1x1 pivot beta_k is zero or
 * not finite, where a 2x2 pivot's determinant is, and where g, V or W is
 * not finite. Each lane adds its chosen pivots, determinants and results
 * to its check sum, and a zero one puts a NaN there: such a system is
 * flagged, for the caller to run through the reference, which gives its
 * report. The cases a lane did not choose never enter the sum.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "lanes.h"
#include "tridlab/algorithms.h"
#include "tridlab/cpu.h"
#include "tridlab/part_spike_dp.h"

/* The packed arrays of a group: a, b, c; the right-hand sides g (d at
 * first), V (a right neighbour), W (a left one); the pivots beta; the
 * pivot sizes as masks (the first and the second row of a 2x2). */
enum { PA, PB, PC, Y0, BETA = Y0 + 3, FIRST, SECOND, ARRAYS };

#if TL_LANES_OK

#define PK(k, i) (pk + ((size_t)(k)*m + (i)) * TL_LANES)

typedef int64_t dp_mask __attribute__((vector_size(sizeof(tl_lanes))));

static TL_CPU_INLINE tl_lanes dp_select(dp_mask keep, tl_lanes x, tl_lanes y)
{
  return (tl_lanes)((keep & (dp_mask)x) | (~keep & (dp_mask)y));
}

/* C's fmax, lane by lane: the larger, or the one that is not a NaN. */
static TL_CPU_INLINE tl_lanes dp_fmax(tl_lanes a, tl_lanes b)
{
  tl_lanes r = dp_select(a > b, a, b);
  r = dp_select(b != b, a, r);
  return dp_select(a != a, b, r);
}

static TL_CPU_INLINE dp_mask dp_load_mask(const double *p)
{
  return (dp_mask)tl_lanes_load(p);
}

/* E_k / s of the 2x2 pivot on rows k, k+1 (spike_dp_ref.c's block2_of):
 * from beta_k, c_k, a_k+1 and beta_k+1 = b_k+1. */
typedef struct dp_block2 {
  tl_lanes e00, e01, e10, e11, delta, s;
} dp_block2;

static TL_CPU_INLINE dp_block2 dp_block2_of(tl_lanes bk, tl_lanes ck, tl_lanes a1, tl_lanes b1)
{
  dp_block2 e;
  e.s = dp_fmax(dp_fmax(tl_lanes_abs(bk), tl_lanes_abs(ck)),
                dp_fmax(tl_lanes_abs(a1), tl_lanes_abs(b1)));
  e.e00 = bk / e.s, e.e01 = ck / e.s, e.e10 = a1 / e.s, e.e11 = b1 / e.s;
  e.delta = e.e00 * e.e11 - e.e01 * e.e10;
  return e;
}

/* The group's rows of a, b, c and d into the packed rows (d into g's). */
static TL_CPU_INLINE void pack(size_t m, size_t ld, const double *a, const double *b,
                               const double *c, const double *d, double *pk)
{
  const double *src[4] = {a, b, c, d};
  static const int to[4] = {PA, PB, PC, Y0};
  double t[4][64];
  for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
    size_t r0, r1;
    tl_lanes_clip(i0, 0, m, &r0, &r1);
    tl_lanes_tiles_get(4, src, ld, i0, r0, r1, i0 + TL_LANES_AHEAD, t);
    for (int j = 0; j < 4; j++)
      memcpy(PK(to[j], i0 + r0), t[j] + r0 * TL_LANES, (r1 - r0) * TL_LANES * sizeof(double));
  }
}

/* The factorization and L's forward substitution on nrhs right-hand
 * sides, row by row (tl_spike_dp_factor and the first loop of
 * tl_spike_dp_solve_block, fused). */
static TL_CPU_INLINE void forward(size_t m, int nrhs, double *pk, tl_lanes *chk)
{
  tl_lanes zero = tl_lanes_splat(0.0), nan = tl_lanes_splat(NAN);
  tl_lanes kappa = tl_lanes_splat(TL_SPIKE_DP_KAPPA), beta = tl_lanes_load(PK(PB, 0));
  dp_mask second = {0}; /* lanes at the second row of a 2x2 */
  for (size_t k = 0; k < m; k++) {
    int has1 = k + 1 < m, has2 = k + 2 < m;
    tl_lanes ak = tl_lanes_load(PK(PA, k)), ck = tl_lanes_load(PK(PC, k));
    tl_lanes a1 = has1 ? tl_lanes_load(PK(PA, k + 1)) : zero;
    tl_lanes b1 = has1 ? tl_lanes_load(PK(PB, k + 1)) : zero;
    tl_lanes_store(PK(BETA, k), beta);
    /* A lane at a block's start: the rule (pivot_size). */
    dp_mask one = ~(dp_mask){0};
    if (has1) {
      tl_lanes sigma = dp_fmax(tl_lanes_abs(ck), dp_fmax(tl_lanes_abs(a1), tl_lanes_abs(b1)));
      if (has2)
        sigma = dp_fmax(sigma, dp_fmax(tl_lanes_abs(tl_lanes_load(PK(PC, k + 1))),
                                       tl_lanes_abs(tl_lanes_load(PK(PA, k + 2)))));
      one = (sigma == zero) |
            (tl_lanes_abs(beta) >= kappa * tl_lanes_abs(a1) * (tl_lanes_abs(ck) / sigma));
    }
    dp_mask start = ~second, p1 = start & one, p2 = start & ~one;
    /* 1x1: beta_k the pivot; the Schur complement and L's update. */
    *chk = *chk + dp_select(p1, beta, zero) + dp_select(p1 & (beta == zero), nan, zero);
    tl_lanes l1 = a1 / beta, nb1 = b1 - l1 * ck;
    /* The second row of a 2x2 started at k-1: E_k-1 and its determinant. */
    dp_block2 e = {0};
    tl_lanes nb2 = zero;
    if (k > 0) {
      e = dp_block2_of(tl_lanes_load(PK(BETA, k - 1)), tl_lanes_load(PK(PC, k - 1)), ak, beta);
      *chk = *chk + dp_select(second, e.delta, zero) +
             dp_select(second & (e.delta == zero), nan, zero);
      nb2 = b1 - a1 * (e.e00 / e.delta) * (ck / e.s);
    }
    tl_lanes_store(PK(FIRST, k), (tl_lanes)p2);
    tl_lanes_store(PK(SECOND, k), (tl_lanes)second);
    if (!has1)
      break;
    /* row k+1: its beta, and each right-hand side's entry (L) */
    beta = dp_select(second, nb2, dp_select(one, nb1, b1)); /* 2x2 start: beta_k+1 = b_k+1 */
    for (int j = 0; j < nrhs; j++) {
      tl_lanes yk = tl_lanes_load(PK(Y0 + j, k)), yn = tl_lanes_load(PK(Y0 + j, k + 1));
      tl_lanes u1 = yn - l1 * yk, u2 = yn;
      if (k > 0)
        u2 = yn - a1 * ((e.e00 * yk - e.e10 * tl_lanes_load(PK(Y0 + j, k - 1))) / e.delta / e.s);
      tl_lanes_store(PK(Y0 + j, k + 1), dp_select(second, u2, dp_select(p1, u1, yn)));
    }
    second = p2;
  }
}

/* B and U: the back substitution up the rows (the second loop of
 * tl_spike_dp_solve_block), each lane in its own pivot block; each
 * result into the check sum and its packed row. */
static TL_CPU_INLINE void backward(size_t m, int nrhs, double *pk, tl_lanes *chk)
{
  tl_lanes x1[3] = {0}, r1[3] = {0};
  dp_block2 e = {0}; /* the 2x2 whose second row was the row below */
  for (size_t i = m; i-- > 0;) {
    dp_mask fst = dp_load_mask(PK(FIRST, i)), sec = dp_load_mask(PK(SECOND, i));
    tl_lanes ci = tl_lanes_load(PK(PC, i)), bi = tl_lanes_load(PK(BETA, i));
    dp_block2 es = e; /* for a second row: E of rows i-1, i */
    if (i > 0)
      es = dp_block2_of(tl_lanes_load(PK(BETA, i - 1)), tl_lanes_load(PK(PC, i - 1)),
                        tl_lanes_load(PK(PA, i)), bi);
    for (int j = 0; j < nrhs; j++) {
      tl_lanes y = tl_lanes_load(PK(Y0 + j, i)), t = i + 1 < m ? y - ci * x1[j] : y;
      tl_lanes x = t / bi;                                       /* 1x1 */
      tl_lanes xf = (e.e11 * y - e.e01 * r1[j]) / e.delta / e.s; /* the first row of a 2x2 */
      if (i > 0) { /* the second row of a 2x2: r0 = y_i-1 as L left it */
        tl_lanes r0 = tl_lanes_load(PK(Y0 + j, i - 1));
        tl_lanes xs = (es.e00 * t - es.e10 * r0) / es.delta / es.s;
        x = dp_select(sec, xs, x);
      }
      x = dp_select(fst, xf, x);
      r1[j] = t;
      tl_lanes_store(PK(Y0 + j, i), x);
      *chk = *chk + x;
      x1[j] = x;
    }
    e = es;
  }
}

/* Phases 1-3 of one group of eight systems in the shape (left, right) of
 * its partition; flag[l] set for the lanes that may break down. */
static TL_CPU_INLINE void group_shape(size_t m, size_t ld, int left, int right, const double *a,
                                      const double *b, const double *c, const double *d, double *g,
                                      double *v, double *w, double *pk, unsigned char *flag)
{
  const int nrhs = 1 + right + left;
  tl_lanes chk = tl_lanes_splat(0.0), zero = tl_lanes_splat(0.0);
  pack(m, ld, a, b, c, d, pk);
  for (int j = 1; j < nrhs; j++) /* V: c[m-1] e_last; W: a[0] e_first */
    for (size_t i = 0; i < m; i++)
      tl_lanes_store(PK(Y0 + j, i), zero);
  if (right)
    tl_lanes_store(PK(Y0 + 1, m - 1), tl_lanes_load(PK(PC, m - 1)));
  if (left)
    tl_lanes_store(PK(Y0 + 1 + right, 0), tl_lanes_load(PK(PA, 0)));
  forward(m, nrhs, pk, &chk);
  backward(m, nrhs, pk, &chk);
  double *out[3] = {g, right ? v : w, w};
  for (int j = 0; j < nrhs; j++)
    for (size_t i0 = 0; i0 < m; i0 += TL_LANES) {
      size_t r0, r1;
      tl_lanes_clip(i0, 0, m, &r0, &r1);
      tl_lanes_tile_put(out[j], ld, i0, r0, r1, PK(Y0 + j, i0));
    }
  tl_lanes_flag(chk, flag);
}

/* The four shapes of a partition, each compiled with its own count of
 * right-hand sides. */
TL_CPU_CLONES
static void dp_group(size_t m, size_t ld, int left, int right, const double *a, const double *b,
                     const double *c, const double *d, double *g, double *v, double *w, double *pk,
                     unsigned char *flag)
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

/* The reference phases 1-3 on one system (scratch f: m words, piv: m
 * bytes); 1 when they fail (the caller runs them again for the report). */
static int reference_one(size_t m, int left, int right, const double *a, const double *b,
                         const double *c, const double *d, double *f, unsigned char *piv, double *g,
                         double *v, double *w, double *tips)
{
  tl_info info;
  if (tl_spike_diagonal.local_d(0, m, 0, left, right, a, b, c, d, f, piv, g, v, w, &info) < 0)
    return 1;
  tl_spike_tips_d(m, left, right, g, v, w, tips);
  return 0;
}

size_t tl_cpu_spike_dp_local_d(size_t m, size_t ld, size_t nsys, int has_left, int has_right,
                               const double *a, const double *b, const double *c, const double *d,
                               double *g, double *v, double *w, double *tips,
                               unsigned char *flagged)
{
  memset(flagged, 0, nsys);
  double *pk = NULL;
  size_t groups = tl_lanes_groups(m, nsys, ARRAYS, &pk);
#if TL_LANES_OK
  for (size_t j = 0; j < groups; j++) {
    size_t s = j * TL_LANES, o = s * ld;
    dp_group(m, ld, has_left, has_right, a + o, b + o, c + o, d + o, g + o, v + o, w + o, pk,
             flagged + s);
    for (size_t l = s; l < s + TL_LANES; l++)
      tl_spike_tips_d(m, has_left, has_right, g + l * ld, v + l * ld, w + l * ld,
                      tips + TL_SPIKE_SEND * l);
  }
#endif
  free(pk);
  size_t first = groups * TL_LANES; /* the rest: the reference, system by system */
  double *f = first < nsys && m > 0 ? tl_alloc(m, sizeof *f) : NULL;
  unsigned char *piv = f ? tl_alloc(m, 1) : NULL;
  for (size_t s = first; s < nsys; s++) {
    size_t o = s * ld;
    flagged[s] = !piv || reference_one(m, has_left, has_right, a + o, b + o, c + o, d + o, f, piv,
                                       g + o, v + o, w + o, tips + TL_SPIKE_SEND * s);
  }
  free(f);
  free(piv);
  return first;
}
