/* reference/tridsolver_ref.c -- the Tridsolver distributed solver: a
 * forward sweep that leaves ONE reduced row per partition, four ways to
 * solve the reduced system, a backward sweep; P ranks simulated serially.
 *
 * Source: paper 002 (Tridsolver), section "Distributed memory algorithms":
 * Algorithm 6 (forward_sweep, "a reduced system with one row per
 * subdomain"), the strategies gather-scatter (GS), allgather (AG), PCR and
 * Jacobi (Algorithm 5, "Iterative solutions") for the reduced system.
 * Symbols: paper 002's a_i u_{i-1} + b_i u_i + c_i u_{i+1} = d_i,
 * i = 0..M-1 in one partition, is our row begin + i with x for u; its
 * a*_i, b*_0, c*_i, d*_i are our as[i], (b0), cs[i], ds[i]. The reduced row
 * (A, B, C, D) and the unknowns F[p] = x[begin_p] are ours: the paper does
 * not write the reduced row down; it is derived below.
 *
 * Phase 1, forward sweep (Algorithm 6): a Thomas forward pass from row 1
 * that keeps the fill-in in column 0 (a*_i multiplies x_0), while row 0
 * eliminates x_1, x_2, ... as they are normalised, so that it ends
 * coupling x_{-1}, x_0 and x_{m-1}:
 *
 *   rows 1:       a*_1 = a_1/b_1,  c*_1 = c_1/b_1,  d*_1 = d_1/b_1
 *   row 0:        b0 = b_0 - c_0 a*_1,  d0 = d_0 - c_0 d*_1,  c0 = -c_0 c*_1
 *   i = 2..m-1:   p = b_i - a_i c*_{i-1}
 *                 d*_i = (d_i - a_i d*_{i-1})/p, a*_i = -a_i a*_{i-1}/p, c*_i = c_i/p
 *                 (i <= m-2) b0 -= c0 a*_i,  d0 -= c0 d*_i,  c0 = -c0 c*_i
 *   row 0:        a*_0 = a_0/b0,  c*_0 = c0/b0,  d*_0 = d0/b0
 *
 *        A x = d            after the forward sweep (m = 6)
 *   a | b c         |       a | 1         c |     row 0: x_{-1}, x_0, x_{m-1}
 *     | a b c       |         | a 1 c       |     row i: x_0, x_i, x_{i+1}
 *     |   a b c     |   ->    | a   1 c     |
 *     |     a b c   |         | a     1 c   |
 *     |       a b c |         | a       1 c |
 *     |         a b | c       | a         1 | c
 *
 * With m = 2 row 1 is already the last row and row 0 already couples
 * x_{m-1} = x_1: the elimination of x_1 from row 0 (Algorithm 6 lines
 * 4-6) is skipped, else row 0 would couple the next partition. m = 1 is
 * not possible (row 0 would have to be the last row too): >= 2 rows.
 *
 * Phase 2-3, the reduced row of partition p in F[p] = x[begin_p]. Row
 * m-1 gives the last unknown L_p = x[end_p - 1] = dl_p - al_p F[p] -
 * cl_p F[p+1] ((al, cl, dl) = as, cs, ds of row m-1). Put L_{p-1} and L_p
 * into row 0 (a0, c0, d0 = as[0], cs[0], ds[0]):
 *
 *   A_p = -a0 al_{p-1}        B_p = 1 - a0 cl_{p-1} - c0 al_p
 *   C_p = -c0 cl_p            D_p = d0 - a0 dl_{p-1} - c0 dl_p
 *
 * so rank p needs the 3 words of rank p-1's last row: one message to the
 * right neighbour. The reduced system is P x P tridiagonal.
 *
 * Phase 4, the strategies (paper 002: AG and GS use global collectives,
 * PCR and Jacobi only point-to-point messages):
 *   allgather       every rank receives all P rows (4P words) and solves
 *                   the same system redundantly (Thomas); no scatter.
 *   gather_scatter  rank 0 receives the P rows, solves (Thomas), sends
 *                   F[p], F[p+1] (2 words) back to every rank.
 *   pcr             PCR across ranks: at stride s = 1, 2, 4, ... rank p
 *                   receives the rows of ranks p-s and p+s (4 words each);
 *                   ceil(log2 P) steps; F[p] = D/B; F[p+1] from rank p+1.
 *   jacobi          Algorithm 5: each sweep rank p receives F[p-1], F[p+1]
 *                   (1 word each) and updates F[p] = (D - A F[p-1] -
 *                   C F[p+1]) / B; the test is a global reduction.
 * In this serial simulation the allgather solve runs once (every rank's
 * copy is identical), and allgather and gather_scatter give the same bits;
 * pcr gives the same solution up to round-off. Jacobi is approximate.
 *
 * Phase 5, backward sweep: x_0 = F[p]; x_{m-1} = d*_{m-1} - a*_{m-1} F[p]
 * - c*_{m-1} F[p+1]; x_i = d*_i - a*_i F[p] - c*_i x_{i+1}, i = m-2..1.
 *
 * Cost per partition of m rows: forward ~ 11m flops, backward 4m; reads a,
 * b, c, d, writes and re-reads 3m words of a*, c*, d*, writes x.
 * Messages: 3 words to the right, 1 word to the left, plus the strategy:
 * AG 4P words to every rank (one allgather), GS 4 words in and 2 out per
 * rank (gather + scatter), PCR ceil(log2 P) exchanges of 2 x 4 words,
 * Jacobi 2 x 1 word per sweep (+ one reduction per convergence test).
 *
 * Stability: for row diagonally dominant A, |a*_i| + |c*_i| <= 1 for rows
 * 1..m-1 (as in Thomas), row 0 keeps its margin when it eliminates a row
 * whose off-diagonal sum is <= 1, so |a*_0| + |c*_0| <= 1, and the reduced
 * row has margin |B| - |A| - |C| >= 1 - |a0| - |c0| >= 0: the reduced
 * system is row dominant (strictly when A is). Thomas (AG, GS) is stable
 * there; PCR is forward but not backward stable (pcr_ref.c), and the
 * reduced residual is the full residual in the first row of each
 * partition. The declared class is strict row dominance (needed by PCR and
 * Jacobi); the solve also measures LAPACK's residual ratio of its answer
 * (O(n), one reduction) and returns TL_OUTSIDE_DOMAIN when it is >= 30.
 *
 * Jacobi, what is dropped: the iteration stops with a reduced residual
 * r = D - R F; dropped = ||r||_inf / (||R||_inf ||F||_inf), the normwise
 * backward error of the reduced system, compared with tol (default 8 eps:
 * reachable in floating point whatever the margin). Bound: with R strictly
 * dominant, ||R^-1||_inf <= 1/margin, margin = min_p |B_p| - |A_p| - |C_p|
 * (Varah 1975), and the backward sweep does not amplify an error of F
 * (|a*_i| + |c*_i| <= 1; x contains F, so ||x|| >= ||F||), hence
 *   ||x - x_exact||_inf / ||x||_inf <= dropped ||R||_inf / margin = bound
 * in exact arithmetic (round-off of the direct phases comes on top).
 * info->dropped, tol and bound report these; the solve reports
 * TL_OUTSIDE_DOMAIN when a fixed sweep count leaves dropped > tol, and
 * TL_ERR_NOT_CONVERGED when tolerance mode stops on the limit, on
 * stagnation (200 sweeps without a smaller dropped) or on divergence.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_tridsolver.h"
#include "tridlab/residual.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "tridsolver_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "tridsolver_ref.c"
#undef TL_TEMPLATE_PASS

static size_t tridsolver_minibatch(const tl_algorithm *self, const tl_options *opt, size_t nsys);

static int tridsolver_system(const tl_algorithm *self, const tl_batch *one, void *x,
                             const tl_options *opt, tl_info *info)
{
  int strategy = (int)tl_param_value(self, opt, "reduced");
  long iters = (long)tl_param_value(self, opt, "iters");
  double tol = tl_param_value(self, opt, "tol");
  long maxit = (long)tl_param_value(self, opt, "maxit");
  if (one->dtype == TL_F64)
    return tl_tridsolver_ref_ledger_d(one->n, opt->parts, opt->part_sizes, strategy, iters, tol,
                                      maxit, one->a, one->b, one->c, one->d, x, opt->ledger, info);
  return tl_tridsolver_ref_ledger_z(one->n, opt->parts, opt->part_sizes, strategy, iters, tol,
                                    maxit, one->a, one->b, one->c, one->d, x, opt->ledger, info);
}

void tl_tridsolver_name_row(tl_info *info, size_t n, int parts, const size_t *part_sizes)
{
  /* The strategies name the reduced row, i.e. the partition p; its
   * unknown F[p] is x[begin_p], the row reported for the matrix. */
  if (!info || info->row < 0 || info->row >= parts)
    return;
  size_t lo, hi;
  char msg[sizeof info->msg];
  tl_partition_bounds(n, parts, part_sizes, (int)info->row, &lo, &hi);
  memcpy(msg, info->msg, sizeof msg);
  info->row = (long)lo;
  snprintf(info->msg, sizeof info->msg, "%.200s; row %zu", msg, lo);
}

int tl_tridsolver_pcr_breakdown(tl_info *info, size_t p, size_t stride)
{
  if (stride == 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)p, "",
                   "tridsolver: zero pivot in PCR on the reduced system (partition %zu)", p);
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)p, "",
                 "tridsolver: zero pivot in PCR on the reduced system (partition %zu, stride %zu)",
                 p, stride);
}

int tl_tridsolver_jacobi_breakdown(tl_info *info, size_t p)
{
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)p, "",
                 "tridsolver: zero diagonal in the reduced row of partition %zu", p);
}

void tl_tridsolver_jacobi_max(double *rmax, double *fmax, double r, double f)
{
  if (!(r <= *rmax)) /* a NaN residual sticks, as infinity */
    *rmax = isnan(r) ? INFINITY : r;
  if (f > *fmax) /* |F| of a NaN is not counted: the residual says it */
    *fmax = f;
}

double tl_tridsolver_jacobi_dropped(double rmax, double fmax, double rnorm)
{
  if (rmax == 0.0)
    return 0.0;
  if (fmax == 0.0 || !isfinite(rmax) || !(rnorm > 0.0))
    return INFINITY;
  return rmax / (rnorm * fmax);
}

int tl_tridsolver_jacobi_status(long it, long iters, long maxit, double dropped, double tol,
                                double margin, double rnorm, long bad, tl_info *info)
{
  if (info) {
    info->iterations = it > (long)INT_MAX ? INT_MAX : (int)it;
    info->dropped = dropped;
    info->tol = tol;
    /* ||F - F_exact|| <= ||r|| / margin = dropped ||R|| ||F|| / margin */
    info->bound = margin > 0.0 ? dropped * rnorm / margin : INFINITY;
  }
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_NOT_CONVERGED, -1, bad, "",
                   "tridsolver: Jacobi on the reduced system diverged after %ld sweeps "
                   "(reduced margin %.3g)",
                   it, margin);
  if (dropped <= tol)
    return TL_OK;
  if (iters == 0)
    return TL_FAIL(info, TL_ERR_NOT_CONVERGED, -1, -1, "",
                   "tridsolver: Jacobi on the reduced system stopped after %ld sweeps "
                   "(%s) with dropped %.3g > tol %.3g (reduced margin %.3g)",
                   it, it >= maxit ? "limit" : "stagnation", dropped, tol, margin);
  return TL_WARN(info, -1,
                 "tridsolver: %ld Jacobi sweeps leave the reduced residual dropped = "
                 "||r|| / (||R|| ||F||) = %.3g > tol %.3g",
                 iters, dropped, tol);
}

void tl_tridsolver_ledger_reduced(tl_ledger *ledger, int strategy, int P, size_t nsys, size_t w,
                                  long sweeps, int round0)
{
  size_t others = (size_t)P - 1, ws = w * nsys;
  switch (strategy) {
  case TL_TRIDSOLVER_ALLGATHER: /* every rank gets every reduced row */
    tl_ledger_collective_all(ledger, "reduced", round0, TL_LEDGER_ALLGATHER, P, -1, 4 * ws,
                             4 * ws * others);
    return;
  case TL_TRIDSOLVER_GATHER_SCATTER: /* rows to rank 0, (F[p], F[p+1]) back */
    for (int r = 0; r < P; r++) {
      tl_ledger_collective(ledger, "reduced", round0, TL_LEDGER_GATHER, r, 0, r ? 4 * ws : 0,
                           r ? 0 : 4 * ws * others);
      tl_ledger_collective(ledger, "solution", round0, TL_LEDGER_SCATTER, r, 0,
                           r ? 0 : 2 * ws * others, r ? 2 * ws : 0);
    }
    return;
  case TL_TRIDSOLVER_PCR: /* step l: rows to ranks p - 2^l and p + 2^l */
    for (int l = 0, s = 1; s < P; l++, s *= 2)
      for (int p = 0; p < P; p++) {
        if (p >= s)
          tl_ledger_message(ledger, "pcr", round0 + l, p, p - s, 4 * ws);
        if (p + s < P)
          tl_ledger_message(ledger, "pcr", round0 + l, p, p + s, 4 * ws);
      }
    for (int p = 1; p < P; p++) /* F[p] to rank p-1, which needs it as F[p+1] */
      tl_ledger_message(ledger, "next-first", round0, p, p - 1, ws);
    return;
  default: /* Jacobi, round k = 0 (F = D / B) .. sweeps: F to both
            * neighbours, then the test: 6 numbers per system */
    for (long k = 0; k <= sweeps; k++) {
      for (int p = 0; p < P; p++) {
        if (p > 0)
          tl_ledger_message(ledger, "jacobi", (int)k, p, p - 1, ws);
        if (p + 1 < P)
          tl_ledger_message(ledger, "jacobi", (int)k, p, p + 1, ws);
      }
      tl_ledger_collective_all(ledger, "jacobi-test", (int)k, TL_LEDGER_ALLREDUCE, P, -1,
                               TL_TRIDSOLVER_TEST_WORDS * nsys, TL_TRIDSOLVER_TEST_WORDS * nsys);
    }
    return;
  }
}

/* docs/algorithms/tridsolver.md, "MPI": per system, the last row to the
 * right (3 words), the strategy, and the verdict. Jacobi's sweeps are
 * counted from solved->iterations. */
static int tridsolver_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                                   const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  int P = opt->parts, strategy = (int)tl_param_value(self, opt, "reduced");
  size_t w = (shape->dtype == TL_C128 ? 2 : 1) * shape->nsys;
  size_t nsys = shape->nsys, ws = w / nsys, mb = tridsolver_minibatch(self, opt, nsys);
  tl_ledger_reset(out);
  for (size_t s0 = 0, i = 0; s0 < nsys; s0 += mb, i++) { /* mini-batch i */
    size_t ns = s0 + mb <= nsys ? mb : nsys - s0;
    int round0 = (int)i * TL_TRIDSOLVER_ROUNDS;
    for (int p = 0; p + 1 < P; p++)
      tl_ledger_message(out, "last-row", round0, p, p + 1, 3 * ws * ns);
    tl_tridsolver_ledger_reduced(out, strategy, P, ns, ws, solved ? solved->iterations : 0, round0);
  }
  tl_ledger_residual_verdict(out, P, 0, shape->nsys, shape->dtype == TL_C128 ? 2 : 1);
  return TL_OK;
}

/* Systems per mini-batch of a batch: minibatch, or the whole batch (for
 * 0, and for Jacobi, whose sweeps take the batch together). */
static size_t tridsolver_minibatch(const tl_algorithm *self, const tl_options *opt, size_t nsys)
{
  size_t mb = (size_t)tl_param_value(self, opt, "minibatch");
  if (mb == 0 || mb > nsys || (int)tl_param_value(self, opt, "reduced") == TL_TRIDSOLVER_JACOBI)
    return nsys;
  return mb;
}

static int tridsolver_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                            const tl_options *opt, tl_info *info)
{
  size_t mb = tridsolver_minibatch(self, opt, sys->nsys);
  if (mb < sys->nsys) /* each mini-batch's messages in rounds of their own */
    return tl_for_each_system_in_minibatches(self, sys, x, opt, mb, TL_TRIDSOLVER_ROUNDS, info,
                                             tridsolver_system);
  int status = tl_for_each_system(self, sys, x, opt, info, tridsolver_system);
  /* Across ranks the systems of a batch sweep together until the last
   * has stopped (a stopped system's F rides along unchanged): Jacobi's
   * messages are the batch's, info->iterations (the largest) rounds. */
  if ((int)tl_param_value(self, opt, "reduced") == TL_TRIDSOLVER_JACOBI && status >= 0)
    tl_tridsolver_ledger_reduced(opt->ledger, TL_TRIDSOLVER_JACOBI, opt->parts, sys->nsys,
                                 sys->dtype == TL_C128 ? 2 : 1, info ? info->iterations : 0, 0);
  return status;
}

static const tl_param tridsolver_params[] = {
    {"reduced", TL_PARAM_CHOICE, 0, 0, 0, "allgather|gather_scatter|pcr|jacobi",
     "how the P-row reduced system is solved (paper 002: AG, GS, PCR, Jacobi)"},
    {"iters", TL_PARAM_INT, 0, 0, 1e9, NULL,
     "jacobi: fixed number of sweeps (paper 002 uses 10); 0 = sweep until dropped <= tol"},
    {"tol", TL_PARAM_REAL, 8 * TL_EPS, TL_EPS, 1.0, NULL,
     "jacobi: tolerance on dropped = ||r||_inf / (||R||_inf ||F||_inf), reduced system"},
    {"maxit", TL_PARAM_INT, 20000, 1, 1e9, NULL, "jacobi with iters = 0: sweep limit"},
    {"minibatch", TL_PARAM_INT, 0, 0, 1e9, NULL,
     "across ranks: systems per mini-batch, whose exchanges overlap the sweeps of the next "
     "(latency hiding); 0 = the whole batch at once; jacobi: always the whole batch"},
};

const tl_algorithm tl_algo_tridsolver_ref = {
    .name = "tridsolver",
    .family = "partition",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 2,
    .params = tridsolver_params,
    .nparams = (int)(sizeof tridsolver_params / sizeof tridsolver_params[0]),
    .summary = "Tridsolver: forward sweep to one reduced row per partition, reduced system by "
               "allgather, gather-scatter, PCR or Jacobi (approximate), backward sweep",
    .source = "paper 002 (Tridsolver) Algorithms 5, 6, section Distributed memory algorithms",
    .solve = tridsolver_solve,
    .ledger_model = tridsolver_ledger_model,
    .dropped_means = "the normwise backward error of the reduced solve, ||r|| / (||R|| ||F||) (Jacobi reduced solve)",
    .bound_means = "dropped ||R||_inf / margin, on the reduced unknowns",
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

#undef WORDS
#define WORDS (TL_IS_COMPLEX ? 2u : 1u) /* 8-byte words per scalar */

static int FN(ts_bad)(S v) { return v == 0 || !ISFINITE(v); }

int FN(tl_tridsolver_forward)(size_t begin, size_t m, int has_left, int has_right, const S *a,
                              const S *b, const S *c, const S *d, S *as, S *cs, S *ds,
                              tl_info *info)
{
  if (m < 2)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "tridsolver: a partition needs at least 2 rows (it has %zu)", m);
  if (FN(ts_bad)(b[1]))
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + 1), "",
                   "tridsolver: zero or non-finite diagonal at row %zu", begin + 1);
  /* Row 1 (lines 1-3). The corners are never read. */
  S c1 = (m == 2 && !has_right) ? 0 : c[1];
  as[1] = a[1] / b[1];
  cs[1] = c1 / b[1];
  ds[1] = d[1] / b[1];
  /* Row 0 eliminates x_1 (lines 4-6); with m = 2 x_1 is already x_{m-1}. */
  S b0 = b[0], c0 = c[0], d0 = d[0];
  if (m >= 3) {
    b0 = b[0] - c[0] * as[1];
    d0 = d[0] - c[0] * ds[1];
    c0 = -c[0] * cs[1];
  }
  /* Forward pass with the fill-in in column 0; row 0 follows (lines 7-19). */
  for (size_t i = 2; i < m; i++) {
    S p = b[i] - a[i] * cs[i - 1];
    if (FN(ts_bad)(p))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + i), "",
                     "tridsolver: zero or non-finite pivot at row %zu", begin + i);
    S ci = (i == m - 1 && !has_right) ? 0 : c[i];
    ds[i] = (d[i] - a[i] * ds[i - 1]) / p;
    as[i] = -(a[i] * as[i - 1]) / p;
    cs[i] = ci / p;
    if (i + 1 < m) { /* row 0 eliminates x_i, now couples x_{i+1} */
      b0 = b0 - c0 * as[i];
      d0 = d0 - c0 * ds[i];
      c0 = -c0 * cs[i];
    }
  }
  /* Normalise row 0 (lines 20-22). */
  if (FN(ts_bad)(b0))
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)begin, "",
                   "tridsolver: zero or non-finite pivot at row %zu (first row)", begin);
  as[0] = has_left ? a[0] / b0 : 0;
  cs[0] = c0 / b0;
  ds[0] = d0 / b0;
  return TL_OK;
}

void FN(tl_tridsolver_last_row)(size_t m, const S *as, const S *cs, const S *ds, S send[3])
{
  send[0] = as[m - 1];
  send[1] = cs[m - 1];
  send[2] = ds[m - 1];
}

void FN(tl_tridsolver_reduced_row)(size_t m, const S *as, const S *cs, const S *ds, const S *prev,
                                   S row[4])
{
  S a0 = as[0], c0 = cs[0], d0 = ds[0];
  S al = as[m - 1], cl = cs[m - 1], dl = ds[m - 1];
  row[0] = prev ? -a0 * prev[0] : 0;
  row[1] = 1 - (prev ? a0 * prev[1] : 0) - c0 * al;
  row[2] = -c0 * cl;
  row[3] = d0 - (prev ? a0 * prev[2] : 0) - c0 * dl;
}

/* Thomas on the gathered P rows (rows[4p..4p+3] = A, B, C, D). */
static int FN(ts_thomas_gathered)(int parts, const S *gathered, S *F, tl_info *info)
{
  size_t P = (size_t)parts;
  S *w = tl_alloc(4 * P, sizeof(S));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "tridsolver: no memory");
  for (size_t p = 0; p < P; p++)
    for (size_t k = 0; k < 4; k++)
      w[k * P + p] = gathered[4 * p + k];
  w[0] = 0;
  w[2 * P + P - 1] = 0;
  int st = FN(tl_thomas_ref)(P, w, w + P, w + 2 * P, w + 3 * P, F, info);
  free(w);
  if (st < 0)
    return st;
  if (info)
    tl_info_clear(info); /* the domain is decided on A */
  return TL_OK;
}

int FN(tl_tridsolver_allgather)(int parts, const S *rows, S *work, S *F, tl_info *info)
{
  /* The allgather: every rank's buffer receives all P rows. */
  memcpy(work, rows, 4 * (size_t)parts * sizeof(S));
  return FN(ts_thomas_gathered)(parts, work, F, info);
}

int FN(tl_tridsolver_gather_scatter)(int parts, const S *rows, S *work, S *F, tl_info *info)
{
  /* Rank 0 gathers (work is its buffer), solves, and scatters: rank p
   * receives F[p] and F[p+1], which it reads out of F here. */
  memcpy(work, rows, 4 * (size_t)parts * sizeof(S));
  return FN(ts_thomas_gathered)(parts, work, F, info);
}

int FN(tl_tridsolver_pcr_step)(const S self[4], const S *left, const S *right, S out[4])
{
  S A = 0, B = self[1], C = 0, D = self[3];
  if (left) {
    if (FN(ts_bad)(left[1]))
      return -1;
    S alpha = -self[0] / left[1];
    A = alpha * left[0];
    B += alpha * left[2];
    D += alpha * left[3];
  }
  if (right) {
    if (FN(ts_bad)(right[1]))
      return -1;
    S gamma = -self[2] / right[1];
    C = gamma * right[2];
    B += gamma * right[0];
    D += gamma * right[3];
  }
  out[0] = A;
  out[1] = B;
  out[2] = C;
  out[3] = D;
  return 0;
}

int FN(tl_tridsolver_pcr)(int parts, const S *rows, S *work, S *F, tl_info *info)
{
  size_t P = (size_t)parts;
  /* The two levels live in one allocation and swap roles every step:
   * free `levels`, never cur or next. */
  S *levels = tl_alloc(8 * P, sizeof(S));
  if (!levels)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "tridsolver: no memory");
  S *cur = levels, *next = levels + 4 * P;
  memcpy(cur, rows, 4 * P * sizeof(S));
  for (size_t s = 1; s < P; s *= 2) {
    for (size_t p = 0; p < P; p++) {
      /* The two messages rank p receives at this step (4 words each). */
      S *recv = work;
      const S *left = NULL, *right = NULL;
      if (p >= s) {
        memcpy(recv, cur + 4 * (p - s), 4 * sizeof(S));
        left = recv;
      }
      if (p + s < P) {
        memcpy(recv + 4, cur + 4 * (p + s), 4 * sizeof(S));
        right = recv + 4;
      }
      if (FN(tl_tridsolver_pcr_step)(cur + 4 * p, left, right, next + 4 * p) < 0) {
        free(levels);
        return tl_tridsolver_pcr_breakdown(info, p, s);
      }
    }
    S *t = cur;
    cur = next;
    next = t;
  }
  for (size_t p = 0; p < P; p++) {
    if (FN(tl_tridsolver_pcr_unknown)(cur + 4 * p, &F[p]) < 0) {
      free(levels);
      return tl_tridsolver_pcr_breakdown(info, p, 0);
    }
  }
  free(levels);
  return TL_OK;
}

int FN(tl_tridsolver_pcr_unknown)(const S row[4], S *F)
{
  /* After ceil(log2 P) steps the row couples nothing: B F = D. */
  if (FN(ts_bad)(row[1]))
    return -1;
  *F = row[3] / row[1];
  return 0;
}

S FN(tl_tridsolver_jacobi_update)(const S row[4], S left, S right)
{
  return (row[3] - row[0] * left - row[2] * right) / row[1];
}

/* dropped = ||r||_inf / (||R||_inf ||F||_inf), the normwise backward
 * error of the reduced system R F = D at the iterate F (r = D - R F). */
static double FN(ts_dropped)(size_t P, const S *rows, const S *F, double rnorm)
{
  double rmax = 0.0, fmax = 0.0;
  for (size_t p = 0; p < P; p++) {
    double r = FN(tl_tridsolver_jacobi_residual)(rows + 4 * p, p > 0 ? F[p - 1] : 0, F[p],
                                                 p + 1 < P ? F[p + 1] : 0, p > 0, p + 1 < P);
    tl_tridsolver_jacobi_max(&rmax, &fmax, r, ABS(F[p]));
  }
  return tl_tridsolver_jacobi_dropped(rmax, fmax, rnorm);
}

double FN(tl_tridsolver_jacobi_residual)(const S row[4], S left, S F, S right, int has_left,
                                         int has_right)
{
  S r = row[3] - row[1] * F;
  if (has_left)
    r -= row[0] * left;
  if (has_right)
    r -= row[2] * right;
  return ABS(r);
}

void FN(tl_tridsolver_jacobi_row)(const S row[4], int has_left, int has_right, double *margin,
                                  double *norm)
{
  double left = has_left ? ABS(row[0]) : 0.0, right = has_right ? ABS(row[2]) : 0.0;
  *margin = ABS(row[1]) - left - right;
  *norm = ABS(row[1]) + left + right;
}

/* Bit-for-bit equality of two iterates, and finiteness of one. */
static int FN(ts_same)(size_t P, const S *u, const S *v)
{
  return memcmp(u, v, P * sizeof(S)) == 0;
}

static int FN(ts_finite)(size_t P, const S *u)
{
  for (size_t p = 0; p < P; p++)
    if (!ISFINITE(u[p]))
      return 0;
  return 1;
}

int FN(tl_tridsolver_jacobi)(int parts, const S *rows, S *work, S *F, long iters, double tol,
                             long maxit, tl_info *info)
{
  size_t P = (size_t)parts;
  double margin = INFINITY, rnorm = 0.0; /* global reductions, once */
  for (size_t p = 0; p < P; p++) {
    if (FN(ts_bad)(rows[4 * p + 1]))
      return tl_tridsolver_jacobi_breakdown(info, p);
    double mp, np;
    FN(tl_tridsolver_jacobi_row)(rows + 4 * p, p > 0, p + 1 < P, &mp, &np);
    margin = mp < margin ? mp : margin;
    rnorm = np > rnorm ? np : rnorm;
  }
  S *old = work, *older = work + P;
  for (size_t p = 0; p < P; p++)
    F[p] = rows[4 * p + 3] / rows[4 * p + 1];
  long limit = iters > 0 ? iters : maxit;
  double dropped = FN(ts_dropped)(P, rows, F, rnorm), best = dropped;
  long it = 0, since_best = 0;
  while (it < limit && (iters > 0 || dropped > tol)) {
    if (iters > 0 && it > 0)
      memcpy(older, old, P * sizeof(S));
    memcpy(old, F, P * sizeof(S)); /* what each rank sends to its two neighbours */
    for (size_t p = 0; p < P; p++)
      F[p] = FN(tl_tridsolver_jacobi_update)(rows + 4 * p, p > 0 ? old[p - 1] : 0,
                                             p + 1 < P ? old[p + 1] : 0);
    it++;
    if (iters > 0 && it < limit) {
      /* Fixed count: no residual. But a sweep that changes no bit of F,
       * or a second one that brings it back, makes every further sweep
       * repeat itself: stop with the F that the remaining sweeps would
       * end on. A non-finite F stays so. (With MPI this test is one
       * logical reduction, which may run every few sweeps.) */
      int cycle = it > 1 && FN(ts_same)(P, F, older);
      if (!FN(ts_same)(P, F, old) && !cycle && FN(ts_finite)(P, F))
        continue;
      if (cycle && (limit - it) % 2)
        memcpy(F, old, P * sizeof(S));
    }
    dropped = FN(ts_dropped)(P, rows, F, rnorm);
    if (iters > 0)
      break; /* the count is done, or F is what it would end on */
    if (!isfinite(dropped))
      break; /* divergence */
    if (dropped < best) {
      best = dropped;
      since_best = 0;
    } else if (++since_best >= TL_TRIDSOLVER_STALL) {
      break;
    }
  }
  long bad = -1;
  for (size_t p = 0; p < P && bad < 0; p++)
    if (!ISFINITE(F[p]))
      bad = (long)p;
  return tl_tridsolver_jacobi_status(it, iters, maxit, dropped, tol, margin, rnorm, bad, info);
}

int FN(tl_tridsolver_backward)(size_t begin, size_t m, const S *as, const S *cs, const S *ds,
                               S first, S next_first, S *x, tl_info *info)
{
  x[0] = first;
  x[m - 1] = ds[m - 1] - as[m - 1] * first - cs[m - 1] * next_first;
  for (size_t i = m - 1; i-- > 1;)
    x[i] = ds[i] - as[i] * first - cs[i] * x[i + 1];
  for (size_t i = 0; i < m; i++)
    if (!ISFINITE(x[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + i), "",
                     "tridsolver: non-finite result at row %zu (backward sweep)", begin + i);
  return TL_OK;
}

int FN(tl_tridsolver_ref_ledger)(size_t n, int parts, const size_t *part_sizes, int strategy,
                                 long iters, double tol, long maxit, const S *a, const S *b,
                                 const S *c, const S *d, S *x, tl_ledger *ledger, tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "tridsolver: n must be >= 1 and no array may be NULL");
  if (parts < 1 || parts > TL_MAX_PARTS || (!part_sizes && n / (size_t)parts < 2))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "tridsolver: %d partitions of %zu rows: every partition needs >= 2 rows",
                   parts, n);
  if (strategy < TL_TRIDSOLVER_ALLGATHER || strategy > TL_TRIDSOLVER_JACOBI)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param", "tridsolver: unknown strategy %d",
                   strategy);
  if (strategy == TL_TRIDSOLVER_JACOBI && (!(tol > 0) || maxit < 1 || iters < 0))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "param",
                   "tridsolver: jacobi needs tol > 0, maxit >= 1 and iters >= 0");
  size_t P = (size_t)parts;
  /* a*, c*, d* (3n); last rows sent right (3P); reduced rows (4P);
   * strategy work (8P); F (P + 1, F[P] = 0 for the last backward sweep). */
  S *w = tl_alloc(3 * n + 16 * P + 1, sizeof(S));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "tridsolver: no memory for scratch");
  S *as = w, *cs = w + n, *ds = w + 2 * n, *last = w + 3 * n, *rows = last + 3 * P;
  S *work = rows + 4 * P, *F = work + 8 * P;
  int status = TL_OK;
  tl_info jinfo;
  tl_info_clear(&jinfo);

  for (int p = 0; p < parts; p++) { /* phases 1, 2: local */
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    TL_CHECK(FN(tl_tridsolver_forward)(lo, hi - lo, p > 0, p + 1 < parts, a + lo, b + lo, c + lo,
                                       d + lo, as + lo, cs + lo, ds + lo, info));
    FN(tl_tridsolver_last_row)(hi - lo, as + lo, cs + lo, ds + lo, last + 3 * p);
    if (p + 1 < parts) /* the 3 entries of last + 3p go to rank p+1 */
      tl_ledger_message(ledger, "last-row", 0, p, p + 1, 3 * WORDS);
  }
  for (int p = 0; p < parts; p++) { /* phase 3: with rank p-1's last row */
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    FN(tl_tridsolver_reduced_row)(hi - lo, as + lo, cs + lo, ds + lo,
                                  p > 0 ? last + 3 * (p - 1) : NULL, rows + 4 * p);
  }
  switch (strategy) { /* phase 4 */
  case TL_TRIDSOLVER_ALLGATHER:
    status = FN(tl_tridsolver_allgather)(parts, rows, work, F, &jinfo);
    break;
  case TL_TRIDSOLVER_GATHER_SCATTER:
    status = FN(tl_tridsolver_gather_scatter)(parts, rows, work, F, &jinfo);
    break;
  case TL_TRIDSOLVER_PCR:
    status = FN(tl_tridsolver_pcr)(parts, rows, work, F, &jinfo);
    break;
  default:
    status = FN(tl_tridsolver_jacobi)(parts, rows, work, F, iters, tol, maxit, &jinfo);
    break;
  }
  if (status < 0) {
    if (info) {
      *info = jinfo;
      tl_tridsolver_name_row(info, n, parts, part_sizes);
    }
    goto cleanup;
  }
  /* What the strategy's exchange buffers (rows, work, F) carry between
   * ranks, and the F[p+1] that PCR and Jacobi send to the left. */
  if (strategy != TL_TRIDSOLVER_JACOBI) /* Jacobi: for the batch, tridsolver_solve */
    tl_tridsolver_ledger_reduced(ledger, strategy, parts, 1, WORDS, 0, 0);
  F[P] = 0; /* no partition after the last: its c*_{m-1} is 0 anyway */
  for (int p = 0; p < parts; p++) { /* phase 5: with F[p+1] from rank p+1 */
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    TL_CHECK(FN(tl_tridsolver_backward)(lo, hi - lo, as + lo, cs + lo, ds + lo, F[p], F[p + 1],
                                        x + lo, info));
  }
  /* The verdict reads the whole matrix and x: under MPI, x and the
   * coupling entries at the slice ends cross once, then three reductions. */
  tl_ledger_residual_verdict(ledger, parts, 0, 1, WORDS);
  long worst = -1;
  if (!(CLASSES(n, a, b, c, 0, &worst) & TL_CLASS_STRICT_DD))
    status = TL_WARN(info, worst,
                     "tridsolver: matrix is not strictly row diagonally dominant (row %ld); "
                     "the forward sweep and the reduced solve have no stability guarantee here",
                     worst);
  else if (status == TL_OUTSIDE_DOMAIN && info) /* jacobi: fixed sweeps, dropped > tol */
    *info = jinfo;
  else
    status = tl_residual_check("tridsolver", TL_IS_COMPLEX ? TL_C128 : TL_F64, n, 0, a, b, c, d,
                               x, "the reduced solve is not backward stable on this "
                               "ill-conditioned matrix", info);
  if (info && strategy == TL_TRIDSOLVER_JACOBI) {
    info->dropped = jinfo.dropped;
    info->tol = jinfo.tol;
    info->bound = jinfo.bound;
    info->iterations = jinfo.iterations;
  }
cleanup:
  free(w);
  return status;
}

int FN(tl_tridsolver_ref)(size_t n, int parts, const size_t *part_sizes, int strategy, long iters,
                          double tol, long maxit, const S *a, const S *b, const S *c, const S *d,
                          S *x, tl_info *info)
{
  return FN(tl_tridsolver_ref_ledger)(n, parts, part_sizes, strategy, iters, tol, maxit, a, b, c, d,
                                      x, NULL, info);
}

#endif
