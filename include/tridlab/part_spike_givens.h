/* tridlab/part_spike_givens.h -- SPIKE whose blocks are factored by
 * Givens rotations, A_p = Q R, and which survives a singular block
 * (registry name "spike_givens"), one partition at a time.
 *
 * Source: Venetis, Kouris, Sobczyk, Gallopoulos and Sameh, "A direct
 * tridiagonal solver based on Givens rotations for GPU architectures",
 * Parallel Computing 49 (2015) 101-116 (g-Spike: SPIKE's
 * partitions, each block factored by Givens rotations without pivoting,
 * and a low-rank modification of the DS factorization where a block is
 * singular). The modification below is derived in
 * reference/spike_givens_ref.c, not taken from the paper, whose text was
 * not at hand (docs/algorithms/spike_givens.md says what was and was not
 * read).
 *
 * Phases 1 and 2 are this file's; phases 3-5 (tips, reduced system,
 * retrieval) and the verdict are tridlab/part_spike.h's, with the kernel
 * column K of a modified block (tl_spike_variant.kernel):
 *   1. tl_spike_givens_factor  local: A_p = Q R by m - 1 rotations (or
 *                              J A_p J, J the reversal, for the last
 *                              partition), R with two superdiagonals
 *      tl_spike_givens_shift   local: R's last diagonal entry replaced
 *                              where it is (nearly) zero: A_p' = Q R'
 *      tl_spike_givens_kernel  local: K, S_pp = A_p'^-1 A_p = I - K e_pin^T
 *   2. tl_spike_givens_local   local: g = A_p'^-1 d_p and the spikes V, W
 * Local pointers point at the partition's first row; begin labels global
 * rows in messages (as in tridlab/part_spike.h).
 */
#ifndef TRIDLAB_PART_SPIKE_GIVENS_H
#define TRIDLAB_PART_SPIKE_GIVENS_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/part_spike.h"

#ifdef __cplusplus
extern "C" {
#endif

/* R's last diagonal entry r is replaced when |r| <= TL_SPIKE_GIVENS_TAU
 * w, w = max(|q_first| |a_first|, |q_last| |c_last|) (q = Q e_last, the
 * couplings the block has): there A_p's own spikes would carry its
 * near-null vector with weight w / |r| >= 8, the modified block's K with
 * weight about 1 (docs/algorithms/spike_givens.md, "When to modify"). */
#define TL_SPIKE_GIVENS_TAU 0x1p-3

/* The flags of a partition (its first byte; the others are 0). */
enum {
  TL_SPIKE_GIVENS_FLIPPED = 1, /* factored bottom up: J A_p J = Q R, pinned at its top row */
  TL_SPIKE_GIVENS_SHIFTED = 2  /* R's last diagonal entry was replaced: K != 0 */
};

/* Phase 1: the QR factorization of the block (rows begin .. begin+m-1;
 * its own a[1..m-1], b, c[0..m-2]) by Givens rotations, or of J A_p J
 * when flip (the rows and columns in reverse order). Rotation i acts on
 * rows i, i+1 of what is factored: cs[i] real (held as a scalar), sn[i]
 * (cs[m-1] = 1, sn[m-1] = 0); r0, r1, r2 the diagonal and the two
 * superdiagonals of R. A zero R(i,i) with i < m-1 -- only where a
 * subdiagonal entry of the block is 0 and the part above it is singular
 * -- or a non-finite entry is TL_ERR_BREAKDOWN naming the global row and
 * the partition (`part`); R(m-1,m-1) = 0 is left to
 * tl_spike_givens_shift. */
int tl_spike_givens_factor_d(size_t begin, size_t m, int part, int flip, const double *a,
                             const double *b, const double *c, double *cs, double *sn, double *r0,
                             double *r1, double *r2, tl_info *info);
int tl_spike_givens_factor_z(size_t begin, size_t m, int part, int flip, const double complex *a,
                             const double complex *b, const double complex *c, double complex *cs,
                             double complex *sn, double complex *r0, double complex *r1,
                             double complex *r2, tl_info *info);

/* The low-rank modification, after tl_spike_givens_factor: top and
 * bottom are the moduli of the couplings at the first and last row of
 * what was factored (0 where there is no neighbour). Where |R(m-1,m-1)|
 * <= TL_SPIKE_GIVENS_TAU max(|q_first| top, |q_last| bottom), R(m-1,m-1)
 * becomes delta, the largest of the |R(i,i)|, top and bottom. Returns
 * shift = delta - R(m-1,m-1) as it was (0: unchanged), so that A_p' = Q R'
 * = A_p + shift q e_last^T, q = Q e_last. */
double tl_spike_givens_shift_d(size_t m, const double *cs, const double *sn, double *r0, double top,
                               double bottom);
double complex tl_spike_givens_shift_z(size_t m, const double complex *cs, const double complex *sn,
                                       double complex *r0, double top, double bottom);

/* y = A_p'^-1 y in place (Q^H, then back substitution with R'; between
 * two reversals when flip). */
void tl_spike_givens_solve_block_d(size_t m, int flip, const double *cs, const double *sn,
                                   const double *r0, const double *r1, const double *r2, double *y);
void tl_spike_givens_solve_block_z(size_t m, int flip, const double complex *cs,
                                   const double complex *sn, const double complex *r0,
                                   const double complex *r1, const double complex *r2,
                                   double complex *y);

/* K = A_p'^-1 (A_p' - A_p) e_pin = R'^-1 (shift e_last) (reversed when
 * flip): the column that makes S_pp = I - K e_pin^T. 0 when shift = 0. */
void tl_spike_givens_kernel_d(size_t m, int flip, const double *r0, const double *r1,
                              const double *r2, double shift, double *k);
void tl_spike_givens_kernel_z(size_t m, int flip, const double complex *r0,
                              const double complex *r1, const double complex *r2,
                              double complex shift, double complex *k);

/* Phase 2: g, v, w with A_p'^-1 (tl_spike_local_apply_*). */
int tl_spike_givens_local_d(size_t begin, size_t m, int has_left, int has_right, int flip,
                            const double *a, const double *c, const double *d, const double *cs,
                            const double *sn, const double *r0, const double *r1, const double *r2,
                            double *g, double *v, double *w, tl_info *info);
int tl_spike_givens_local_z(size_t begin, size_t m, int has_left, int has_right, int flip,
                            const double complex *a, const double complex *c,
                            const double complex *d, const double complex *cs,
                            const double complex *sn, const double complex *r0,
                            const double complex *r1, const double complex *r2, double complex *g,
                            double complex *v, double complex *w, tl_info *info);

/* spike_givens's variant of SPIKE (tridlab/part_spike.h): phases 1-2
 * above, 6 words of factors per row (cs, sn, r0, r1, r2 and K last), the
 * flags above; kernel = 1. */
extern const tl_spike_variant tl_spike_givens;

/* The whole solve, simulated partition by partition (the registry's
 * "spike_givens"): tl_spike_run_* with tl_spike_givens. */
int tl_spike_givens_ref_ledger_d(size_t n, int parts, const size_t *part_sizes, const double *a,
                                 const double *b, const double *c, const double *d, double *x,
                                 tl_ledger *ledger, tl_info *info);
int tl_spike_givens_ref_ledger_z(size_t n, int parts, const size_t *part_sizes,
                                 const double complex *a, const double complex *b,
                                 const double complex *c, const double complex *d,
                                 double complex *x, tl_ledger *ledger, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
