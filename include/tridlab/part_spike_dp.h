/* tridlab/part_spike_dp.h -- SPIKE whose blocks are factored by diagonal
 * pivoting with 1x1 and 2x2 pivots and no row interchanges (registry
 * name "spike_dp"), one partition at a time.
 *
 * Source: L.-W. Chang, J. A. Stratton, H.-S. Kim and W.-m. W. Hwu, "A
 * scalable, numerically stable, high-performance tridiagonal solver
 * using GPUs", SC12 (2012): SPIKE's partitioning (Polizzi and Sameh 2006,
 * tridlab/part_spike.h) with each partition solved by diagonal
 * pivoting, the pivoting rule Chang et al. take from Erway, Marcia and
 * Tyson (Bunch's rule made local and extended to unsymmetric
 * matrices). reference/spike_dp_ref.c explains the method
 * (docs/algorithms/spike_dp.md).
 *
 * Only phases 1 and 2 differ from spike's; phases 3-5 (tips, reduced
 * system, retrieval) and the verdict are tridlab/part_spike.h's:
 *   1. tl_spike_dp_factor   local: A_p = L B U, B block diagonal with
 *                           1x1 and 2x2 pivot blocks
 *   2. tl_spike_dp_local    local: g = A_p^-1 d_p and the spikes V, W
 * Local pointers point at the partition's first row; begin labels global
 * rows in messages (as in tridlab/part_spike.h).
 */
#ifndef TRIDLAB_PART_SPIKE_DP_H
#define TRIDLAB_PART_SPIKE_DP_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/part_spike.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The pivoting constant kappa = (sqrt(5) - 1) / 2 (about 0.618; kappa^2 +
 * kappa = 1). At step k, with sigma = max(|c_k|, |a_k+1|, |b_k+1|,
 * |c_k+1|, |a_k+2|) (entries outside the block count as 0) and beta_k the
 * current diagonal entry: a 1x1 pivot when |beta_k| sigma >= kappa
 * |a_k+1| |c_k|, else a 2x2 pivot on rows k, k+1. */
#define TL_SPIKE_DP_KAPPA 0.6180339887498949

/* Pivot sizes, one byte per row: 1 a 1x1 pivot; 2 the first row of a
 * 2x2 pivot block, whose second row holds 0. */
enum { TL_SPIKE_DP_SECOND = 0, TL_SPIKE_DP_1X1 = 1, TL_SPIKE_DP_2X2 = 2 };

/* Phase 1: diagonal pivoting of the block (rows begin .. begin+m-1; its
 * own a[1..m-1], b, c[0..m-2]). beta: the diagonal of B (m entries: the
 * 1x1 pivots and the diagonals of the 2x2 blocks; their off-diagonal
 * entries are c[k] and a[k+1], untouched); piv: the pivot sizes. A zero
 * or non-finite 1x1 pivot or 2x2 determinant -- the block is singular,
 * or out of range -- is TL_ERR_BREAKDOWN naming the global row and the
 * partition (`part`). */
int tl_spike_dp_factor_d(size_t begin, size_t m, int part, const double *a, const double *b,
                         const double *c, double *beta, unsigned char *piv, tl_info *info);
int tl_spike_dp_factor_z(size_t begin, size_t m, int part, const double complex *a,
                         const double complex *b, const double complex *c,
                         double complex *beta, unsigned char *piv, tl_info *info);

/* Solve A_p y = y in place with the factors (and the block's own a, c). */
void tl_spike_dp_solve_block_d(size_t m, const double *a, const double *c, const double *beta,
                               const unsigned char *piv, double *y);
void tl_spike_dp_solve_block_z(size_t m, const double complex *a, const double complex *c,
                               const double complex *beta, const unsigned char *piv,
                               double complex *y);

/* Phase 2: g, v, w as tl_spike_local_* (tl_spike_local_apply_* with the
 * factors of phase 1). */
int tl_spike_dp_local_d(size_t begin, size_t m, int has_left, int has_right, const double *a,
                        const double *c, const double *d, const double *beta,
                        const unsigned char *piv, double *g, double *v, double *w,
                        tl_info *info);
int tl_spike_dp_local_z(size_t begin, size_t m, int has_left, int has_right,
                        const double complex *a, const double complex *c,
                        const double complex *d, const double complex *beta,
                        const unsigned char *piv, double complex *g, double complex *v,
                        double complex *w, tl_info *info);

/* spike_dp's variant of SPIKE (tridlab/part_spike.h): phases 1-2 above,
 * 1 word of factors per row (beta), the pivot sizes as flags. */
extern const tl_spike_variant tl_spike_diagonal;

/* The whole solve, simulated partition by partition (the registry's
 * "spike_dp"): tl_spike_run_* with tl_spike_diagonal -- the same
 * messages, ledger and verdict as spike's, under the name spike_dp. */
int tl_spike_dp_ref_ledger_d(size_t n, int parts, const size_t *part_sizes, const double *a,
                             const double *b, const double *c, const double *d, double *x,
                             tl_ledger *ledger, tl_info *info);
int tl_spike_dp_ref_ledger_z(size_t n, int parts, const size_t *part_sizes,
                             const double complex *a, const double complex *b,
                             const double complex *c, const double complex *d,
                             double complex *x, tl_ledger *ledger, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
