/* reference/spike_dp_ref.c -- SPIKE whose blocks are factored by diagonal
 * pivoting (1x1 and 2x2 pivots, no row interchanges), simulated serially
 * phase by phase.
 *
 * Source: L.-W. Chang, J. A. Stratton, H.-S. Kim and W.-m. W. Hwu, "A
 * scalable, numerically stable, high-performance tridiagonal solver using
 * GPUs", SC12 (2012): SPIKE (E. Polizzi and A. H. Sameh, Parallel
 * Computing 32 (2006), as reference/spike_ref.c) whose partitions are
 * each solved by the diagonal pivoting method, with the pivoting rule
 * they take from Erway, Marcia and Tyson (Bunch's rule for symmetric
 * tridiagonal matrices, made local and extended to unsymmetric ones).
 * The rule below -- sigma, kappa and the test -- is the one of the solver
 * Chang et al. published with the paper; the text of the paper was not
 * at hand when this file was written (docs/algorithms/spike_dp.md says
 * so). docs/algorithms/spike_dp.md is the teaching page.
 *
 * Everything but the block factorization is spike's (tl_spike_run_* in
 * reference/spike_ref.c: partitions, spikes, reduced system, retrieval,
 * ledger, verdict): this file is phase 1, its block solve, and the
 * registry entry.
 *
 * THE FACTORIZATION. Eliminate the block A_p (m rows) one PIVOT BLOCK at
 * a time, a 1x1 block [beta_k] or a 2x2 block
 *
 *   E_k = | beta_k  c_k    |      Delta_k = beta_k b_k+1 - a_k+1 c_k
 *         | a_k+1   b_k+1  |
 *
 * where beta_k is the current diagonal entry of row k. Eliminating a
 * leading 1x1 or 2x2 block of a tridiagonal matrix leaves a tridiagonal
 * matrix in which only the first diagonal entry changed:
 *
 *   after a 1x1 pivot:  beta_k+1 = b_k+1 - a_k+1 c_k / beta_k
 *   after a 2x2 pivot:  beta_k+2 = b_k+2 - a_k+2 c_k+1 beta_k / Delta_k
 *
 * So A_p = L B U with B block diagonal (its blocks [beta_k] and E_k),
 * and no row is ever swapped: the factors stay inside the band of A_p.
 * Partial pivoting (spike) swaps rows and gains a second superdiagonal
 * u2; here the only new numbers are the betas (m = 5, a 2x2 pivot on
 * rows 1 and 2):
 *
 *   | b0 c0          |        | β0 c0          |  B = diag([β0], [β1 c1; a2 b2],
 *   | a1 b1 c1       |        |    β1 c1       |           [β3], [β4])
 *   |    a2 b2 c2    |   ->   |    a2 b2 c2    |  nothing outside the three
 *   |       a3 b3 c3 |        |          β3 c3 |  diagonals (spike_ref.c's
 *   |          a4 b4 |        |             β4 |  picture has its + there)
 *
 * The factors are beta (m words) and the pivot sizes (m bytes); L and U
 * are never stored: their entries are a_k+1 / beta_k, c_k / beta_k (1x1)
 * and the rows of E_k^-1 times a_k+2 or c_k+1 (2x2), recomputed from a,
 * c and beta by the solve.
 *
 * THE PIVOTING RULE (Erway, Marcia and Tyson, as Chang et al. use it).
 * With kappa = (sqrt(5) - 1) / 2 and
 *   sigma = max(|c_k|, |a_k+1|, |b_k+1|, |c_k+1|, |a_k+2|)
 * (entries outside the block count as 0; all five are entries of A: the
 * elimination changes only diagonal entries, and not b_k+1 yet):
 *   |beta_k| sigma >= kappa |a_k+1| |c_k|   ->  1x1 pivot on row k
 *   otherwise                                ->  2x2 pivot on rows k, k+1
 * The last row is always a 1x1 pivot (sigma = 0 there: 0 >= 0).
 *
 * WHY IT IS STABLE. Two bounds, each a line of algebra:
 *   1x1: |a_k+1 c_k / beta_k| <= sigma / kappa, so |beta_k+1| <=
 *        |b_k+1| + sigma / kappa, and the product of the multipliers and
 *        the pivot, |a_k+1| |c_k| / |beta_k|, is at most sigma / kappa.
 *   2x2: |beta_k b_k+1| <= |beta_k| sigma < kappa |a_k+1 c_k|, so
 *        |Delta_k| > (1 - kappa) |a_k+1 c_k| > 0 -- a 2x2 pivot is never
 *        singular -- and |a_k+2 c_k+1 beta_k / Delta_k| < sigma^2 kappa /
 *        (sigma (1 - kappa)) = sigma / kappa, because 1 - kappa = kappa^2.
 * That last identity is why kappa is (sqrt(5) - 1) / 2: it makes the two
 * kinds of pivot bound the growth alike, every beta by (1 + 1/kappa)
 * max|a_ij| = max|a_ij| / kappa^2, about 2.62 max|a_ij| (partial
 * pivoting: 2 max|a_ij|, Higham, Accuracy and Stability of Numerical
 * Algorithms, §9.5). Bounded growth and bounded products |L| |B| |U| are
 * what the backward error analyses of diagonal pivoting (Bunch's for the
 * symmetric case, Erway and Marcia's for this one, which Chang et al.
 * cite and this file does not reproduce) rest on. Where every pivot is
 * 1x1 this is Gaussian elimination without pivoting (Thomas): on a
 * strictly row-dominant A, |beta_k| > |c_k| and sigma >= |a_k+1| give
 * |beta_k| sigma > kappa |a_k+1 c_k| at every step.
 *
 * Breakdown: a 1x1 pivot chosen with beta_k = 0 means a_k+1 c_k = 0 too,
 * and then row k or column k of the remaining block is zero: the block
 * is singular (as U(k,k) = 0 is for spike). A breakdown names the
 * partition; other partitions of the same matrix may avoid it.
 *
 * Where it is guaranteed, and the verdict: spike's (tl_spike_run_*): a
 * strictly row-dominant A with a residual ratio below 30 is ok;
 * anything else gets its answer written and outside-domain.
 *
 * Cost per partition of m rows: the factorization about 3m flops and
 * the pivot test (3 multiplications, 5 comparisons per step), three block
 * solves about 6m each (a division per row: the multipliers are not
 * stored), retrieval 4m: about 25m. Memory: 4m words (beta, g, V, W),
 * against spike's 7m. Communication: spike's.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/part_spike_dp.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "spike_dp_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "spike_dp_ref.c"
#undef TL_TEMPLATE_PASS

const tl_spike_variant tl_spike_diagonal = {
    .name = "spike_dp",
    .words = 1, /* beta */
    .local_d = diagonal_local_d,
    .local_z = diagonal_local_z,
};

static int spike_dp_system(const tl_algorithm *self, const tl_batch *one, void *x,
                           const tl_options *opt, tl_info *info)
{
  return tl_spike_system(&tl_spike_diagonal, self, one, x, opt, info);
}

static int spike_dp_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                          const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, spike_dp_system);
}

/* spike's classes, verdict and ledger: only the block factorization
 * differs. */
const tl_algorithm tl_algo_spike_dp_ref = {
    .name = "spike_dp",
    .family = "partition",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = tl_spike_params, /* truncate, tol, reduced: the shared driver's */
    .nparams = TL_SPIKE_NPARAMS,
    .summary = "SPIKE with blocks factored by 1x1/2x2 diagonal pivoting (no row swaps), "
               "spikes, 2(P-1)-unknown reduced system by a pivoted band solve, retrieval",
    .source = "Chang, Stratton, Kim and Hwu, SC12 (SPIKE with diagonal pivoting; the pivoting "
              "rule after Erway, Marcia and Tyson); Polizzi and Sameh 2006 (SPIKE)",
    .solve = spike_dp_solve,
    .ledger_model = tl_spike_ledger_model,
    .dropped_means = "truncate=1: the largest far spike entry dropped, as spike's and pdd's",
    .bound_means = "truncate=1: ||x - x_exact||_inf / ||x||_inf, as spike's and pdd's",
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

/* The pivoting rule at row k of the block: 1 (a 1x1 pivot) or 2 (a 2x2
 * pivot on rows k, k+1), from beta_k, the current diagonal entry.
 * |beta_k| sigma >= kappa |a_k+1| |c_k| is tested divided by sigma, as
 * |beta_k| >= kappa |a_k+1| (|c_k| / sigma): the same test where sigma >
 * 0 (sigma = 0 makes both sides 0: a 1x1 pivot), but the products of two
 * entries near 1e300 (or 1e-300) would overflow (underflow) and turn
 * every test into inf >= inf (0 >= 0), a 1x1 pivot whatever the matrix;
 * |c_k| / sigma is at most 1. */
static int FN(pivot_size)(size_t k, size_t m, const S *a, const S *b, const S *c, S beta_k)
{
  if (k + 1 >= m) /* the last row: sigma = 0 */
    return TL_SPIKE_DP_1X1;
  double sigma = fmax(ABS(c[k]), fmax(ABS(a[k + 1]), ABS(b[k + 1])));
  if (k + 2 < m)
    sigma = fmax(sigma, fmax(ABS(c[k + 1]), ABS(a[k + 2])));
  if (sigma == 0 || ABS(beta_k) >= TL_SPIKE_DP_KAPPA * ABS(a[k + 1]) * (ABS(c[k]) / sigma))
    return TL_SPIKE_DP_1X1;
  return TL_SPIKE_DP_2X2;
}

/* The 2x2 pivot block E_k on rows k, k+1 (beta[k+1] = b[k+1]) divided
 * by its largest entry s: e = E_k / s, delta = det(e) = Delta_k / s^2,
 * and E_k^-1 = (1 / (s delta)) [e11, -e01; -e10, e00]. Entries near
 * 1e300 (1e-300) would overflow (underflow) Delta_k itself; e's are at
 * most 1. s > 0: the rule takes a 2x2 pivot only where a_k+1 c_k != 0.
 * The factorization and the solve compute it alike. */
typedef struct FN(block2) {
  S e00, e01, e10, e11, delta;
  double s;
} FN(block2);

static FN(block2) FN(block2_of)(size_t k, const S *a, const S *c, const S *beta)
{
  double s = fmax(fmax(ABS(beta[k]), ABS(c[k])), fmax(ABS(a[k + 1]), ABS(beta[k + 1])));
  FN(block2) e = {beta[k] / s, c[k] / s, a[k + 1] / s, beta[k + 1] / s, 0, s};
  e.delta = e.e00 * e.e11 - e.e01 * e.e10;
  return e;
}

static int FN(singular)(size_t begin, size_t m, int part, size_t k, int size, S pivot,
                        tl_info *info)
{
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + k), "",
                 "spike_dp: the diagonal block of partition %d (rows %zu..%zu) is singular: "
                 "its %s at row %zu is %s; other partition sizes may avoid it (gtsv solves the "
                 "whole matrix)",
                 part, begin, begin + m - 1, size == 1 ? "1x1 pivot" : "2x2 pivot's determinant",
                 begin + k, pivot == 0 ? "zero" : "not finite");
}

int FN(tl_spike_dp_factor)(size_t begin, size_t m, int part, const S *a, const S *b, const S *c,
                           S *beta, unsigned char *piv, tl_info *info)
{
  memcpy(beta, b, m * sizeof *beta); /* only beta_k of the row in front changes */
  for (size_t k = 0; k < m;) {
    int size = FN(pivot_size)(k, m, a, b, c, beta[k]);
    piv[k] = (unsigned char)size;
    if (size == TL_SPIKE_DP_1X1) {
      if (beta[k] == 0 || !ISFINITE(beta[k]))
        return FN(singular)(begin, m, part, k, 1, beta[k], info);
      if (k + 1 < m) /* the Schur complement of [beta_k] */
        beta[k + 1] = b[k + 1] - a[k + 1] / beta[k] * c[k];
      k += 1;
    } else {
      piv[k + 1] = TL_SPIKE_DP_SECOND;
      beta[k + 1] = b[k + 1];
      FN(block2) e = FN(block2_of)(k, a, c, beta);
      if (e.delta == 0 || !ISFINITE(e.delta))
        return FN(singular)(begin, m, part, k, 2, e.delta, info);
      if (k + 2 < m) /* the Schur complement of E_k: a_k+2 (E_k^-1)_22 c_k+1 */
        beta[k + 2] = b[k + 2] - a[k + 2] * (e.e00 / e.delta) * (c[k + 1] / e.s);
      k += 2;
    }
  }
  return TL_OK;
}

void FN(tl_spike_dp_solve_block)(size_t m, const S *a, const S *c, const S *beta,
                                 const unsigned char *piv, S *y)
{
  /* L: eliminate each pivot block's coupling to the row after it. */
  for (size_t k = 0; k < m;) {
    if (piv[k] == TL_SPIKE_DP_1X1) {
      if (k + 1 < m)
        y[k + 1] = y[k + 1] - a[k + 1] / beta[k] * y[k];
      k += 1;
    } else { /* row k+2 -= a_k+2 (E_k^-1 y)_2 */
      if (k + 2 < m) {
        FN(block2) e = FN(block2_of)(k, a, c, beta);
        y[k + 2] = y[k + 2] - a[k + 2] * ((e.e00 * y[k + 1] - e.e10 * y[k]) / e.delta / e.s);
      }
      k += 2;
    }
  }
  /* B and U: back substitution, one pivot block at a time from the last. */
  for (size_t end = m; end > 0;) {
    if (piv[end - 1] != TL_SPIKE_DP_SECOND) { /* a 1x1 block on row k */
      size_t k = end - 1;
      S r = k + 1 < m ? y[k] - c[k] * y[k + 1] : y[k];
      y[k] = r / beta[k];
      end = k;
    } else { /* a 2x2 block on rows k, k+1: solve with E_k^-1 */
      size_t k = end - 2;
      S r0 = y[k], r1 = k + 2 < m ? y[k + 1] - c[k + 1] * y[k + 2] : y[k + 1];
      FN(block2) e = FN(block2_of)(k, a, c, beta);
      y[k] = (e.e11 * r0 - e.e01 * r1) / e.delta / e.s;
      y[k + 1] = (e.e00 * r1 - e.e10 * r0) / e.delta / e.s;
      end = k;
    }
  }
}

/* Phase 1's factors, as tl_spike_local_apply hands them to the block solve. */
typedef struct FN(dp_factors) {
  const S *a, *c, *beta;
  const unsigned char *piv;
} FN(dp_factors);

static void FN(dp_apply)(const void *factors, size_t m, void *y)
{
  const FN(dp_factors) *f = factors;
  FN(tl_spike_dp_solve_block)(m, f->a, f->c, f->beta, f->piv, y);
}

int FN(tl_spike_dp_local)(size_t begin, size_t m, int has_left, int has_right, const S *a,
                          const S *c, const S *d, const S *beta, const unsigned char *piv, S *g,
                          S *v, S *w, tl_info *info)
{
  FN(dp_factors) f = {a, c, beta, piv};
  return FN(tl_spike_local_apply)("spike_dp", begin, m, has_left, has_right, a, c, d,
                                  FN(dp_apply), &f, g, v, w, info);
}

/* spike_dp's phases 1-2 on one partition (tl_spike_diagonal): f is beta,
 * the flags are the pivot sizes. */
static int FN(diagonal_local)(size_t begin, size_t m, int part, int has_left, int has_right,
                              const S *a, const S *b, const S *c, const S *d, S *f,
                              unsigned char *piv, S *g, S *v, S *w, tl_info *info)
{
  TL_CALL(FN(tl_spike_dp_factor)(begin, m, part, a, b, c, f, piv, info));
  return FN(tl_spike_dp_local)(begin, m, has_left, has_right, a, c, d, f, piv, g, v, w, info);
}

int FN(tl_spike_dp_ref_ledger)(size_t n, int parts, const size_t *part_sizes, const S *a,
                               const S *b, const S *c, const S *d, S *x, tl_ledger *ledger,
                               tl_info *info)
{
  return FN(tl_spike_run)(&tl_spike_diagonal, n, parts, part_sizes, a, b, c, d, x, ledger, info);
}

#endif
