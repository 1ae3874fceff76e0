/* reference/hybrid_pcr_ref.c -- the hybrid Thomas-PCR solver on P
 * partitions, simulated serially phase by phase.
 *
 * Source: paper 002 (Tridsolver), section "Tridiagonal systems solver
 * algorithms", Algorithm 3 (hybrid_forward) and Algorithm 4
 * (hybrid_backward), and section "Distributed memory algorithms" (each
 * rank runs the forward pass on its M rows, giving a reduced system of two
 * rows per rank; the reduced system is solved; each rank runs the backward
 * pass). Paper 000 (DistD2-TDS) §2.2.1 describes the same three phases
 * (Algorithm 2: modified Thomas first phase, Algorithm 3: substitution
 * phase) with PCR for the reduced system.
 *
 * Symbols: paper 002 writes row i of a partition of M rows as
 * a_i u_{i-1} + b_i u_i + c_i u_{i+1} = d_i, i = 0..M-1: our a, b, c, d
 * with u for x, M = m, local row i = global row begin + i. Its a*_i, c*_i,
 * d*_i are our as[i], cs[i], ds[i]. Paper 000 numbers rows 1..n and
 * overwrites c and u in place.
 *
 * Phase 1, modified Thomas (Algorithm 3). Normalise rows 0 and 1, then a
 * forward pass that eliminates x_{i-1} from row i with row i-1 and keeps
 * the fill-in in column 0 (a*_i multiplies x_0), then a backward pass that
 * eliminates x_{i+1} with row i+1 and moves the fill-in to column m-1,
 * finally row 0 eliminates x_1 with row 1 (partition of m = 6, the
 * neighbours' unknowns x_{-1}, x_6 outside the bars):
 *
 *        A x = d               after the forward pass     after the backward pass
 *   a | b c         |          a | 1 c         |          a | 1         c |
 *     | a b c       |            | a 1 c       |            | a 1       c |
 *     |   a b c     |    ->      | a   1 c     |    ->      | a   1     c |
 *     |     a b c   |            | a     1 c   |            | a     1   c |
 *     |       a b c |            | a       1 c |            | a       1 c |
 *     |         a b | c          | a         1 | c          | a         1 | c
 *
 *   rows 0, 1:    a*_i = a_i / b_i, c*_i = c_i / b_i, d*_i = d_i / b_i
 *   i = 2..m-1:   p = b_i - a_i c*_{i-1}
 *                 d*_i = (d_i - a_i d*_{i-1}) / p,  a*_i = -a_i a*_{i-1} / p,
 *                 c*_i = c_i / p
 *   i = m-3..1:   d*_i -= c*_i d*_{i+1},  a*_i -= c*_i a*_{i+1},
 *                 c*_i = -c*_i c*_{i+1}
 *   row 0 (m>=3): p = 1 - c*_0 a*_1,  d*_0 = (d*_0 - c*_0 d*_1) / p,
 *                 a*_0 = a*_0 / p,  c*_0 = -c*_0 c*_1 / p
 *
 * Phase 2, the reduced system. Rows 0 and m-1 of every partition now
 * couple only x_first, x_last of the partition and the neighbours':
 * 2P rows, tridiagonal, unit diagonal, every rank contributing 6 words:
 *
 *        | 1  c0                |    unknowns: x_first(0), x_last(0),
 *        | a1 1  c1             |              x_first(1), x_last(1), ...
 *        |    a2 1  c2          |    row 2p:   partition p's row 0
 *        |       a3 1  c3       |    row 2p+1: partition p's row m-1
 *
 * solved here by PCR (tl_pcr_ref) on the gathered system. The MPI version
 * runs the same PCR across ranks (two rows each, one exchange with ranks
 * ever further away per step; paper 002); the arithmetic is the same.
 *
 * Phase 3, substitution (Algorithm 4): x_i = d*_i - a*_i x_0 - c*_i x_{m-1}.
 *
 * Partitions need m >= 2 rows: the reduced system takes two distinct rows
 * from each. With m = 2 both rows are already reduced rows after the
 * normalisation (row 0 couples x_{-1}, x_0, x_1 = x_last; row 1 couples
 * x_0, x_1, x_2 = the next first unknown), so the final step for row 0 of
 * Algorithm 3 (lines 17-20) must be skipped: it would eliminate x_1 = x_last
 * and couple row 0 to the next partition. It applies for m >= 3.
 *
 * Divisions are written as ratios (d_i / b_i) rather than a reciprocal
 * times: one rounding fewer and no overflow of 1/p near underflow.
 *
 * Cost per partition of m rows: forward ~ 9m + backward pass 6m flops,
 * substitution 4m: about 19m flops (Thomas: 8m); reads a, b, c, d, writes
 * and re-reads 3m words of a*, c*, d*, writes x. Communication: one gather
 * of 6 words per rank (or, PCR distributed, ceil(log2 2P) exchanges of 2
 * rows = 8 words with partners 1, 2, 4, ... ranks away), and 2 words back
 * to each rank. Reduced solve: about 12 (2P) log2(2P) flops. Two
 * synchronisation points (before and after the reduced solve).
 *
 * Stability: for row diagonally dominant A, by induction |a*_i| + |c*_i|
 * <= 1 in every row after every step (each step adds a row whose off
 * diagonal sum is at most 1 and whose margin is preserved, as in Thomas),
 * so the pivots satisfy |p| >= |b_i| - |a_i| >= |c_i| and the reduced
 * system is row diagonally dominant with unit diagonal (strictly when A
 * is). PCR is forward stable there but not backward stable (pcr_ref.c:
 * every unknown comes out of its own reduction tree), and its residual
 * grows with the condition number; the residual of the reduced system is
 * exactly the residual of the full system in the rows next to partition
 * boundaries (rows 1..m-2 are satisfied by the substitution). Measured:
 * ratio 4e13 on a strictly dominant 2x2 with cond 1e15, 3e3 on a weakly
 * dominant M-matrix with n = 4096, P = 16. So, as pcr does, the declared
 * class is strict row dominance, and the solve measures LAPACK's residual
 * ratio of its own answer (O(n), less than the solve; one global
 * reduction in the MPI version) and returns TL_OUTSIDE_DOMAIN when it is
 * >= 30 or A is not strictly row dominant. The domain is decided on A and
 * on this check, not on PCR's status for the computed reduced system. A
 * zero or non-finite pivot is TL_ERR_BREAKDOWN with its global row.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/residual.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "hybrid_pcr_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "hybrid_pcr_ref.c"
#undef TL_TEMPLATE_PASS

static int hybrid_pcr_system(const tl_algorithm *self, const tl_batch *one, void *x,
                             const tl_options *opt, tl_info *info)
{
  (void)self;
  if (one->dtype == TL_F64)
    return tl_hybrid_pcr_ref_ledger_d(one->n, opt->parts, opt->part_sizes, one->a, one->b, one->c,
                                      one->d, x, opt->ledger, info);
  return tl_hybrid_pcr_ref_ledger_z(one->n, opt->parts, opt->part_sizes, one->a, one->b, one->c,
                                    one->d, x, opt->ledger, info);
}

int tl_hybrid_pcr_reduced_failure(tl_info *info, int status, size_t n, int parts,
                                  const size_t *part_sizes)
{
  /* Reduced row k is partition k/2's first (k even) or last row. */
  size_t lo, hi, k = info ? (size_t)(info->row < 0 ? 0 : info->row) : 0;
  tl_partition_bounds(n, parts, part_sizes, (int)(k / 2), &lo, &hi);
  size_t row = (k % 2) ? hi - 1 : lo;
  return TL_FAIL(info, status, -1, (long)row, "",
                 "hybrid_pcr: the reduced system broke down in PCR at reduced row %zu "
                 "(global row %zu)",
                 k, row);
}

void tl_hybrid_pcr_ledger_reduced(tl_ledger *ledger, int P, int p, size_t w, int solved)
{
  if (!solved) /* rank p's two rows to rank 0 */
    tl_ledger_root_trip(ledger, "reduced", P, p, TL_HYBRID_PCR_SEND * w, 0);
  else /* its two unknowns back */
    tl_ledger_root_trip(ledger, "solution", P, p, 2 * w, 1);
}

/* docs/algorithms/hybrid_pcr.md, "MPI": per system 6 scalars from every
 * rank to rank 0, 2 back, and the verdict. */
static int hybrid_pcr_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                                   const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  (void)self;
  (void)solved;
  tl_ledger_root_solve_model(out, opt->parts, shape->nsys, shape->dtype == TL_C128 ? 2 : 1,
                             "reduced", TL_HYBRID_PCR_SEND, "solution", 2);
  return TL_OK;
}

static int hybrid_pcr_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                            const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, hybrid_pcr_system);
}

const tl_algorithm tl_algo_hybrid_pcr_ref = {
    .name = "hybrid_pcr",
    .family = "partition",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 2,
    .params = NULL,
    .nparams = 0,
    .summary = "hybrid Thomas-PCR: modified Thomas per partition, 2P-row reduced system by PCR, "
               "substitution",
    .source = "paper 002 (Tridsolver) Algorithms 3, 4; paper 000 (DistD2-TDS) §2.2.1 "
              "Algorithms 2, 3",
    .solve = hybrid_pcr_solve,
    .ledger_model = hybrid_pcr_ledger_model,
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

#undef WORDS
#define WORDS (TL_IS_COMPLEX ? 2u : 1u) /* 8-byte words per scalar */

static int FN(hp_bad)(S v) { return v == 0 || !ISFINITE(v); }

int FN(tl_hybrid_pcr_forward)(size_t begin, size_t m, int has_left, int has_right, const S *a,
                              const S *b, const S *c, const S *d, S *as, S *cs, S *ds,
                              tl_info *info)
{
  if (m < 2)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "hybrid_pcr: a partition needs at least 2 rows (it has %zu)", m);
  /* Rows 0 and 1 (Algorithm 3 lines 1-5). The corners are never read. */
  for (size_t i = 0; i < 2; i++) {
    if (FN(hp_bad)(b[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + i), "",
                     "hybrid_pcr: zero or non-finite diagonal at row %zu", begin + i);
    S ai = (i == 0 && !has_left) ? 0 : a[i];
    S ci = (i == m - 1 && !has_right) ? 0 : c[i];
    as[i] = ai / b[i];
    cs[i] = ci / b[i];
    ds[i] = d[i] / b[i];
  }
  /* Forward pass, fill-in kept in column 0 (lines 6-11). */
  for (size_t i = 2; i < m; i++) {
    S p = b[i] - a[i] * cs[i - 1];
    if (FN(hp_bad)(p))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + i), "",
                     "hybrid_pcr: zero or non-finite pivot at row %zu (forward pass)", begin + i);
    S ci = (i == m - 1 && !has_right) ? 0 : c[i];
    ds[i] = (d[i] - a[i] * ds[i - 1]) / p;
    as[i] = -(a[i] * as[i - 1]) / p;
    cs[i] = ci / p;
  }
  /* Backward pass, fill-in moved to column m-1 (lines 12-16). */
  for (size_t i = m - 2; i-- > 1;) { /* i = m-3 down to 1 */
    ds[i] = ds[i] - cs[i] * ds[i + 1];
    as[i] = as[i] - cs[i] * as[i + 1];
    cs[i] = -cs[i] * cs[i + 1];
  }
  /* Row 0 eliminates x_1 (lines 17-20); with m = 2 row 0 is already reduced. */
  if (m >= 3) {
    S p = 1 - cs[0] * as[1];
    if (FN(hp_bad)(p))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)begin, "",
                     "hybrid_pcr: zero or non-finite pivot at row %zu (first row)", begin);
    ds[0] = (ds[0] - cs[0] * ds[1]) / p;
    as[0] = as[0] / p;
    cs[0] = -(cs[0] * cs[1]) / p;
  }
  return TL_OK;
}

void FN(tl_hybrid_pcr_pack)(size_t m, const S *as, const S *cs, const S *ds,
                            S send[TL_HYBRID_PCR_SEND])
{
  send[0] = as[0];
  send[1] = cs[0];
  send[2] = ds[0];
  send[3] = as[m - 1];
  send[4] = cs[m - 1];
  send[5] = ds[m - 1];
}

void FN(tl_hybrid_pcr_gather)(int parts, const S *send, S *ra, S *rb, S *rc, S *rd)
{
  for (size_t p = 0; p < (size_t)parts; p++) {
    const S *s = send + TL_HYBRID_PCR_SEND * p;
    for (size_t k = 0; k < 2; k++) {
      ra[2 * p + k] = s[3 * k];
      rb[2 * p + k] = 1; /* both rows were normalised */
      rc[2 * p + k] = s[3 * k + 1];
      rd[2 * p + k] = s[3 * k + 2];
    }
  }
  ra[0] = 0; /* no partition before the first or after the last */
  rc[2 * (size_t)parts - 1] = 0;
}

int FN(tl_hybrid_pcr_backward)(size_t begin, size_t m, const S *as, const S *cs, const S *ds,
                               S first, S last, S *x, tl_info *info)
{
  x[0] = first;
  x[m - 1] = last;
  for (size_t i = 1; i + 1 < m; i++)
    x[i] = ds[i] - as[i] * first - cs[i] * last;
  for (size_t i = 0; i < m; i++)
    if (!ISFINITE(x[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + i), "",
                     "hybrid_pcr: non-finite result at row %zu (substitution)", begin + i);
  return TL_OK;
}

int FN(tl_hybrid_pcr_ref_ledger)(size_t n, int parts, const size_t *part_sizes, const S *a,
                                 const S *b, const S *c, const S *d, S *x, tl_ledger *ledger,
                                 tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "hybrid_pcr: n must be >= 1 and no array may be NULL");
  if (parts < 1 || parts > TL_MAX_PARTS || (!part_sizes && n / (size_t)parts < 2))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "hybrid_pcr: %d partitions of %zu rows: every partition needs >= 2 rows",
                   parts, n);
  size_t P = (size_t)parts;
  /* Scratch: a*, c*, d* (3n), send buffers (6P), reduced system (8P),
   * reduced solution (2P). */
  S *w = tl_alloc(3 * n + 16 * P, sizeof(S));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "hybrid_pcr: no memory for scratch");
  S *as = w, *cs = w + n, *ds = w + 2 * n, *send = w + 3 * n;
  S *ra = send + 6 * P, *rb = ra + 2 * P, *rc = rb + 2 * P, *rd = rc + 2 * P, *y = rd + 2 * P;
  int status = TL_OK;

  /* Phase 1 and 2 on every rank: local, no communication. */
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    TL_CHECK(FN(tl_hybrid_pcr_forward)(lo, hi - lo, p > 0, p + 1 < parts, a + lo, b + lo, c + lo,
                                       d + lo, as + lo, cs + lo, ds + lo, info));
    FN(tl_hybrid_pcr_pack)(hi - lo, as + lo, cs + lo, ds + lo, send + TL_HYBRID_PCR_SEND * p);
    tl_hybrid_pcr_ledger_reduced(ledger, parts, p, WORDS, 0); /* send + 6p goes to rank 0 */
  }
  /* Exchange: gather the 2P-row reduced system, solve it by PCR. */
  FN(tl_hybrid_pcr_gather)(parts, send, ra, rb, rc, rd);
  status = FN(tl_pcr_ref)(2 * P, ra, rb, rc, rd, y, info);
  if (status < 0) {
    status = tl_hybrid_pcr_reduced_failure(info, status, n, parts, part_sizes);
    goto cleanup;
  }
  status = TL_OK; /* the domain is decided on A below */
  if (info)
    tl_info_clear(info);
  /* Phase 3 on every rank, with its two reduced unknowns (the scatter). */
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    tl_hybrid_pcr_ledger_reduced(ledger, parts, p, WORDS, 1); /* y[2p], y[2p+1] */
    TL_CHECK(FN(tl_hybrid_pcr_backward)(lo, hi - lo, as + lo, cs + lo, ds + lo, y[2 * p],
                                        y[2 * p + 1], x + lo, info));
  }
  /* Under MPI, the check below is a halo exchange and three reductions. */
  tl_ledger_residual_verdict(ledger, parts, 0, 1, WORDS);
  long worst = -1;
  if (!(CLASSES(n, a, b, c, 0, &worst) & TL_CLASS_STRICT_DD)) {
    status = TL_WARN(info, worst,
                     "hybrid_pcr: matrix is not strictly row diagonally dominant (row %ld); the "
                     "modified Thomas step and PCR have no stability guarantee here",
                     worst);
    goto cleanup;
  }
  /* PCR on the reduced system is not backward stable (see the header). */
  status = tl_residual_check("hybrid_pcr", TL_IS_COMPLEX ? TL_C128 : TL_F64, n, 0, a, b, c, d, x,
                             "PCR on the reduced system is not backward stable on this "
                             "ill-conditioned matrix (its error is still bounded by cond(A) eps)",
                             info);
cleanup:
  free(w);
  return status;
}

int FN(tl_hybrid_pcr_ref)(size_t n, int parts, const size_t *part_sizes, const S *a, const S *b,
                          const S *c, const S *d, S *x, tl_info *info)
{
  return FN(tl_hybrid_pcr_ref_ledger)(n, parts, part_sizes, a, b, c, d, x, NULL, info);
}

#endif
