/* tridlab/part_spike.h -- the phases of SPIKE with partially pivoted
 * local factorizations (registry name "spike"), one partition at a time.
 *
 * Source: E. Polizzi and A. H. Sameh, "A parallel hybrid banded system
 * solver: the SPIKE algorithm", Parallel Computing 32 (2006) 177-194 (A =
 * D S, the spikes, the reduced system of the block boundaries), with the
 * diagonal blocks factored by Gaussian elimination with partial pivoting
 * (LAPACK DGTTRF / DGTTRS). reference/spike_ref.c explains the
 * method (docs/algorithms/spike.md).
 *
 * Partition p owns m >= 1 rows [begin, begin + m). Phases, in order:
 *   1. tl_spike_factor      local: the block A_p = L U with row swaps
 *   2. tl_spike_local       local: g = A_p^-1 d_p and the spikes
 *                           V = A_p^-1 (c_last e_m), W = A_p^-1 (a_first e_1)
 *   3. tl_spike_tips        local: the 6 words this partition sends for the
 *                           reduced system (tips of g, V and W)
 *   4. tl_spike_reduced     on one partition: the 2(P-1) boundary unknowns
 *                           from every partition's tips
 *   5. tl_spike_retrieve    local, with the two boundary unknowns it gets
 *                           back: x = g - V x_next_top - W x_prev_bottom
 * Local pointers point at the partition's first row; begin labels global
 * rows in messages. has_left / has_right: whether a neighbour exists
 * (without one, a[begin] / c[begin+m-1] are corners, never read).
 * Phases 1-2 are one variant of SPIKE among others (tl_spike_variant
 * below; spike_dp's diagonal pivoting: tridlab/part_spike_dp.h); phases
 * 3-5 and the verdict are every variant's.
 */
#ifndef TRIDLAB_PART_SPIKE_H
#define TRIDLAB_PART_SPIKE_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/registry.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The verdict's reasons, the same words in the reference and across
 * ranks: outside strict row dominance, and a residual ratio >= 30. */
#define TL_SPIKE_DD_WHY                                                                          \
  "the pivoted block solves are backward stable, but nothing bounds the answer's error; its "    \
  "residual ratio is no proof (a nearly singular A can pass it with a large forward error)"
#define TL_SPIKE_RESIDUAL_WHY                                                                    \
  "a diagonal block or the reduced system is ill-conditioned for this partition"

/* Words (scalars) a partition sends for the reduced system: the top and
 * bottom entries of g, V and W. */
#define TL_SPIKE_SEND 6

/* The same and the top and bottom entries of K, for a variant whose
 * blocks may be singular (tl_spike_variant.kernel). */
#define TL_SPIKE_SEND_KERNEL 8

/* Words a partition gets back: its two outer boundary unknowns (x of the
 * previous partition's last row, of the next one's first row); a kernel
 * variant's partition also its own pinned unknown, which its retrieval
 * needs (x_pin cannot be found locally: 1 - K_pin is 0 for a singular
 * block). */
#define TL_SPIKE_BACK 2
#define TL_SPIKE_BACK_KERNEL 3

/* Phase 1: the LU factorization with partial pivoting of the block
 * (rows begin .. begin+m-1; its own a[1..m-1], b, c[0..m-2]), as LAPACK's
 * DGTTRF: l[i] the multiplier of step i, u0 the diagonal of U, u1 and u2
 * its first and second superdiagonals (u2: fill-in of the row swaps),
 * swap[i] = 1 when rows i and i+1 were swapped. m entries each. A zero
 * diagonal of U (the block is singular) is TL_ERR_BREAKDOWN naming the
 * global row and the partition (`part`). */
int tl_spike_factor_d(size_t begin, size_t m, int part, const double *a, const double *b,
                      const double *c, double *l, double *u0, double *u1, double *u2,
                      unsigned char *swap, tl_info *info);
int tl_spike_factor_z(size_t begin, size_t m, int part, const double complex *a,
                      const double complex *b, const double complex *c, double complex *l,
                      double complex *u0, double complex *u1, double complex *u2,
                      unsigned char *swap, tl_info *info);

/* Solve A_p y = y in place with the factors (DGTTRS, one right-hand side). */
void tl_spike_solve_block_d(size_t m, const double *l, const double *u0, const double *u1,
                            const double *u2, const unsigned char *swap, double *y);
void tl_spike_solve_block_z(size_t m, const double complex *l, const double complex *u0,
                            const double complex *u1, const double complex *u2,
                            const unsigned char *swap, double complex *y);

/* Phase 2: g = A_p^-1 d (m entries), v = A_p^-1 (c[m-1] e_{m-1}) when
 * has_right, w = A_p^-1 (a[0] e_0) when has_left (else left untouched).
 * TL_ERR_BREAKDOWN (global row) when a result is not finite. */
int tl_spike_local_d(size_t begin, size_t m, int has_left, int has_right, const double *a,
                     const double *c, const double *d, const double *l, const double *u0,
                     const double *u1, const double *u2, const unsigned char *swap, double *g,
                     double *v, double *w, tl_info *info);
int tl_spike_local_z(size_t begin, size_t m, int has_left, int has_right,
                     const double complex *a, const double complex *c, const double complex *d,
                     const double complex *l, const double complex *u0,
                     const double complex *u1, const double complex *u2,
                     const unsigned char *swap, double complex *g, double complex *v,
                     double complex *w, tl_info *info);

/* Phase 2 for a block factored any way (spike's partial pivoting above,
 * spike_dp's diagonal pivoting in tridlab/part_spike_dp.h): the three
 * solves g = A_p^-1 d, v = A_p^-1 (c[m-1] e_{m-1}), w = A_p^-1 (a[0] e_0)
 * (v when has_right, w when has_left), each one call of `apply`, which
 * overwrites y (m scalars: double for _d, double complex for _z) with
 * A_p^-1 y using `factors`. TL_ERR_BREAKDOWN (global row; the message
 * begins with `name`) when a result is not finite. tl_spike_local_* is
 * this with the LU factors of phase 1. */
typedef void (*tl_spike_apply_fn)(const void *factors, size_t m, void *y);
int tl_spike_local_apply_d(const char *name, size_t begin, size_t m, int has_left, int has_right,
                           const double *a, const double *c, const double *d,
                           tl_spike_apply_fn apply, const void *factors, double *g, double *v,
                           double *w, tl_info *info);
int tl_spike_local_apply_z(const char *name, size_t begin, size_t m, int has_left, int has_right,
                           const double complex *a, const double complex *c,
                           const double complex *d, tl_spike_apply_fn apply,
                           const void *factors, double complex *g, double complex *v,
                           double complex *w, tl_info *info);

/* Phase 3: send = {g top, g bottom, v top, v bottom, w top, w bottom}
 * (0 for a spike the partition does not have). */
void tl_spike_tips_d(size_t m, int has_left, int has_right, const double *g, const double *v,
                     const double *w, double send[TL_SPIKE_SEND]);
void tl_spike_tips_z(size_t m, int has_left, int has_right, const double complex *g,
                     const double complex *v, const double complex *w,
                     double complex send[TL_SPIKE_SEND]);

/* Phase 3 of a variant with a kernel column K (tl_spike_variant.kernel):
 * spike's six words, then {K top, K bottom}. */
void tl_spike_tips_kernel_d(size_t m, int has_left, int has_right, const double *g, const double *v,
                            const double *w, const double *k, double send[TL_SPIKE_SEND_KERNEL]);
void tl_spike_tips_kernel_z(size_t m, int has_left, int has_right, const double complex *g,
                            const double complex *v, const double complex *w,
                            const double complex *k, double complex send[TL_SPIKE_SEND_KERNEL]);

/* Phase 4: from every partition's tips (TL_SPIKE_SEND P words, partition
 * after partition), the 2(P-1) boundary unknowns y: y[2j] = x of the last
 * row of partition j, y[2j+1] = x of the first row of partition j+1, for
 * j = 0 .. P-2. The reduced system is banded (2 below, 2 above the
 * diagonal) and solved by LAPACK's pivoted band solver (DGBSV / ZGBSV).
 * P = 1: nothing. TL_ERR_BREAKDOWN (info->row = the reduced row) when it
 * is singular; TL_ERR_NOMEM. */
int tl_spike_reduced_d(int parts, const double *tips, double *y, tl_info *info);
int tl_spike_reduced_z(int parts, const double complex *tips, double complex *y, tl_info *info);

/* Phase 4 with kernel columns: tips of TL_SPIKE_SEND_KERNEL words per
 * partition. Partition p's block of S is I - K e_pin^T, its pinned row
 * its bottom (reduced row 2p) when p < P-1, else its top (2p-1), so its
 * rows of the reduced system gain -K top and -K bottom in the pinned
 * unknown's column: a singular block leaves a 0 on the diagonal there,
 * and the band (2 below, 2 above) is unchanged. K = 0 is spike's system. */
int tl_spike_reduced_kernel_d(int parts, const double *tips, double *y, tl_info *info);
int tl_spike_reduced_kernel_z(int parts, const double complex *tips, double complex *y,
                              tl_info *info);

/* A breakdown of phase 4 (info->row: the reduced row k) restated with the
 * matrix row it stands for -- reduced row 2j is the last row of partition
 * j, 2j+1 the first of partition j+1 -- so that every report names a row
 * of A. Returns status. */
int tl_spike_reduced_failure(tl_info *info, int status, size_t n, int parts,
                             const size_t *part_sizes);

/* Phase 5: x = g - v x_next_top - w x_prev_bottom (the terms a partition
 * has), x_prev_bottom = y[2p-2], x_next_top = y[2p+1]. TL_ERR_BREAKDOWN
 * (global row) for a result that is not finite. */
int tl_spike_retrieve_d(size_t begin, size_t m, int has_left, int has_right, const double *g,
                        const double *v, const double *w, double prev_bottom, double next_top,
                        double *x, tl_info *info);
int tl_spike_retrieve_z(size_t begin, size_t m, int has_left, int has_right,
                        const double complex *g, const double complex *v,
                        const double complex *w, double complex prev_bottom,
                        double complex next_top, double complex *x, tl_info *info);

/* Phase 5 with a kernel column: x = g - v x_next_top - w x_prev_bottom
 * + k x_pin, x_pin the partition's own pinned boundary unknown (its
 * bottom when has_right, else its top: y[2p] or y[2p-1]). */
int tl_spike_retrieve_kernel_d(size_t begin, size_t m, int has_left, int has_right, const double *g,
                               const double *v, const double *w, const double *k,
                               double prev_bottom, double next_top, double pin, double *x,
                               tl_info *info);
int tl_spike_retrieve_kernel_z(size_t begin, size_t m, int has_left, int has_right,
                               const double complex *g, const double complex *v,
                               const double complex *w, const double complex *k,
                               double complex prev_bottom, double complex next_top,
                               double complex pin, double complex *x, tl_info *info);

/* What partition p sends and receives (w words per scalar, for nsys
 * systems at once): its `send` tips (TL_SPIKE_SEND or
 * TL_SPIKE_SEND_KERNEL scalars) to partition 0 ("tips", a gather), then
 * its boundary unknowns back ("boundary", a scatter: TL_SPIKE_BACK, or
 * TL_SPIKE_BACK_KERNEL with kernel tips). */
void tl_spike_ledger_reduced(tl_ledger *ledger, int P, int p, size_t w, size_t send, int back);

/* SPIKE's variants differ only in how a partition factors its block
 * (phases 1 and 2); the partitions, the tips, the reduced system, the
 * retrieval, the messages and the verdict are one code for all. A
 * variant: its registry name (the first word of its messages), the
 * scalars of factors it keeps per row, and phases 1-2 on one partition of
 * m rows -- factor the block into f (words m scalars) and flags (m
 * bytes), then g, v and w (tl_spike_local_apply_*).
 *
 * kernel = 1: a variant whose block A_p may be singular factors a
 * modified block A_p' instead (D' = diag(A_p'), S = D'^-1 A) and leaves
 * in S's diagonal block the column K: S_pp = A_p'^-1 A_p = I - K e_pin^T,
 * pin the block's bottom row when it has a right neighbour, else its top
 * row, K the last m scalars of its factors (f + (words - 1) m; 0 where
 * A_p' = A_p). Then g, v, w are A_p'^-1's, the tips are
 * TL_SPIKE_SEND_KERNEL words, phase 4 is tl_spike_reduced_kernel_* and
 * phase 5 tl_spike_retrieve_kernel_* (spike_givens:
 * tridlab/part_spike_givens.h). */
typedef struct tl_spike_variant {
  const char *name;
  size_t words;
  int kernel;
  int (*local_d)(size_t begin, size_t m, int part, int has_left, int has_right, const double *a,
                 const double *b, const double *c, const double *d, double *f,
                 unsigned char *flags, double *g, double *v, double *w, tl_info *info);
  int (*local_z)(size_t begin, size_t m, int part, int has_left, int has_right,
                 const double complex *a, const double complex *b, const double complex *c,
                 const double complex *d, double complex *f, unsigned char *flags,
                 double complex *g, double complex *v, double complex *w, tl_info *info);
} tl_spike_variant;

/* spike's variant: phase 1 is tl_spike_factor_* (l, u0, u1, u2: 4 words
 * per row; the swaps are the flags), phase 2 tl_spike_local_*. */
extern const tl_spike_variant tl_spike_partial;

/* A report of the phases every variant shares (3-5) is worded as
 * spike's ("spike: ..."); for another variant, its own name in front
 * instead ("spike_dp: ..."). Returns status. */
int tl_spike_named(const tl_spike_variant *var, int status, tl_info *info);

/* The whole solve of a variant, simulated partition by partition: its
 * phases 1-2 on every partition, phases 3-5 above, the messages recorded
 * in `ledger` (may be NULL), then the verdict: outside-domain for an A
 * that is not strictly row-dominant (no guarantee, x written), else
 * LAPACK's residual ratio of x, >= 30 outside-domain (an ill-conditioned
 * block or reduced system). Every report begins with the variant's name. */
int tl_spike_run_d(const tl_spike_variant *var, size_t n, int parts, const size_t *part_sizes,
                   const double *a, const double *b, const double *c, const double *d, double *x,
                   tl_ledger *ledger, tl_info *info);
int tl_spike_run_z(const tl_spike_variant *var, size_t n, int parts, const size_t *part_sizes,
                   const double complex *a, const double complex *b, const double complex *c,
                   const double complex *d, double complex *x, tl_ledger *ledger, tl_info *info);

/* How phase 4 solves (the registry's parameters `truncate`, `tol` and
 * `reduced`, tl_spike_params): truncate = 0, the whole reduced system
 * (exact SPIKE), by LAPACK's pivoted band solve (recursive = 0) or by
 * recursive SPIKE (recursive = 1); 1, truncated SPIKE -- the P-1
 * decoupled 2x2 systems of the interfaces, each dropping the two far
 * spike entries that couple it to its neighbours (W_j[bottom]
 * x_{j-1}[bottom], V_{j+1}[top] x_{j+2}[top]), and PDD's verdict on what
 * was dropped (tol: the largest dropped entry accepted, as PDD's). */
typedef struct tl_spike_mode {
  int truncate;
  double tol;
  int recursive; /* 1: the whole reduced system by recursive SPIKE */
} tl_spike_mode;

/* The parameters of every variant's registry entry: truncate (0 or 1),
 * tol (default 2 eps, read only when truncate = 1), reduced (band or
 * recursive: how the whole reduced system is solved). */
#define TL_SPIKE_NPARAMS 3
extern const tl_param tl_spike_params[TL_SPIKE_NPARAMS];

/* The mode an entry's parameters ask for (truncate, tol, reduced), read
 * through tl_param_value: for every backend of the SPIKE family.
 * truncate=1 with reduced=recursive is TL_ERR_ARG (truncation solves no
 * whole reduced system to recurse on). */
int tl_spike_mode_of(const tl_algorithm *self, const tl_options *opt, tl_spike_mode *mode,
                     tl_info *info);

/* Phase 4 by recursive SPIKE (Polizzi & Sameh 2006, the recursive
 * scheme): y as tl_spike_reduced_*, from the same tips, by merging
 * neighbouring partitions pairwise, level after level, into blocks of
 * 2, 4, 8, ... partitions -- each merge a 2x2 system at the interface it
 * removes, the merged block's tips from its halves' -- until one block is
 * left, then the interfaces' unknowns from the top level down. No
 * pivoting across partitions (each 2x2 is solved with partial pivoting):
 * a merged block that is singular (a zero pivot in its 2x2, whose
 * determinant is 1 - V[bottom] W[top]) or a 2x2 whose results overflow
 * is TL_ERR_BREAKDOWN ("singular, or its 2x2 overflows") with info->row =
 * the reduced row 2j of the interface that merge removes, where the band
 * solve may still succeed. */
int tl_spike_reduced_recursive_d(int parts, const double *tips, double *y, tl_info *info);
int tl_spike_reduced_recursive_z(int parts, const double complex *tips, double complex *y,
                                 tl_info *info);

/* The same on kernel tips (TL_SPIKE_SEND_KERNEL words per partition): a
 * partition with a column K is first solved for its pinned unknown
 * (divided by 1 - K_pin, without pivoting: its tips become plain ones); a
 * singular block (1 - K_pin = 0) is TL_ERR_BREAKDOWN, info->row the
 * pinned unknown's reduced row. */
int tl_spike_reduced_recursive_kernel_d(int parts, const double *tips, double *y, tl_info *info);
int tl_spike_reduced_recursive_kernel_z(int parts, const double complex *tips, double complex *y,
                                        tl_info *info);

/* Phase 4 of truncated SPIKE: y as tl_spike_reduced_* but from the P-1
 * decoupled 2x2 systems, interface j|j+1 alone:
 *   | 1            V_j[bot] | | y[2j]   |   | g_j[bot]   |
 *   | W_{j+1}[top] 1        | | y[2j+1] | = | g_{j+1}[top] |
 * TL_ERR_BREAKDOWN (info->row = the reduced row 2j) when one is singular
 * or its solution is not finite. */
int tl_spike_reduced_trunc_d(int parts, const double *tips, double *y, tl_info *info);
int tl_spike_reduced_trunc_z(int parts, const double complex *tips, double complex *y,
                             tl_info *info);

/* tl_spike_run_* with the phase 4 of `mode` (NULL: exact). With
 * truncate = 1 the verdict first asks PDD's (reference/spike_bound.c:
 * strict row dominance, the largest dropped entry <= tol; info->dropped,
 * tol, bound as PDD sets them), then spike's. The messages are the same
 * as exact SPIKE's. A kernel variant's block that left a column K != 0
 * couples its two interfaces, which truncation decouples: with
 * truncate = 1 that is TL_ERR_BREAKDOWN naming the partition. */
int tl_spike_run_mode_d(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n,
                        int parts, const size_t *part_sizes, const double *a, const double *b,
                        const double *c, const double *d, double *x, tl_ledger *ledger,
                        tl_info *info);
int tl_spike_run_mode_z(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n,
                        int parts, const size_t *part_sizes, const double complex *a,
                        const double complex *b, const double complex *c,
                        const double complex *d, double complex *x, tl_ledger *ledger,
                        tl_info *info);

/* Phase 4 as the driver runs it (the trace runs it too): the reduced
 * system of `mode` (NULL: the band solve) from the tips of var's size,
 * into y (2(P-1) scalars); a breakdown restated with the matrix row
 * (tl_spike_reduced_failure, or the interface's rows when truncated) and
 * worded with var's name; truncated with a kernel variant whose block
 * left a column K, a breakdown naming the partition. */
int tl_spike_phase4_d(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n, int parts,
                      const size_t *part_sizes, const double *tips, double *y, tl_info *info);
int tl_spike_phase4_z(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n, int parts,
                      const size_t *part_sizes, const double complex *tips, double complex *y,
                      tl_info *info);

/* Phases 4-5 and the verdict of tl_spike_run_mode_*, from phases 1-3's
 * results wherever they were computed (a GPU backend computes them on
 * the device): the variant's factors f (read only for a variant with a
 * kernel column, var->kernel; else may be NULL), g, V, W (n scalars
 * each, V and W read where a partition has that spike) and the tips
 * (TL_SPIKE_SEND per partition, TL_SPIKE_SEND_KERNEL for a kernel
 * variant). x may be g. The boundary messages and the verdict are
 * recorded in ledger (may be NULL); reports begin with var->name. */
int tl_spike_finish_d(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n, int parts,
                      const size_t *part_sizes, const double *a, const double *b, const double *c,
                      const double *d, const double *f, const double *g, const double *v,
                      const double *w, const double *tips, double *x, tl_ledger *ledger,
                      tl_info *info);
int tl_spike_finish_z(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n, int parts,
                      const size_t *part_sizes, const double complex *a, const double complex *b,
                      const double complex *c, const double complex *d, const double complex *f,
                      const double complex *g, const double complex *v, const double complex *w,
                      const double complex *tips, double complex *x, tl_ledger *ledger,
                      tl_info *info);

/* One system of a variant's registry entry, its mode read from opt's
 * parameters (tl_spike_params): the solve of "spike" and "spike_dp". */
int tl_spike_system(const tl_spike_variant *var, const tl_algorithm *self, const tl_batch *one,
                    void *x, const tl_options *opt, tl_info *info);

/* The ledger model of spike and spike_dp (docs/algorithms/spike.md, "Cost
 * and communication"): per system, TL_SPIKE_SEND scalars from every
 * partition to partition 0, 2 back, then the residual verdict. */
int tl_spike_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                          const tl_info *solved, tl_ledger *out);

/* The same with `send` scalars of tips per partition (a kernel variant:
 * TL_SPIKE_SEND_KERNEL, and TL_SPIKE_BACK_KERNEL back). */
void tl_spike_ledger_model_send(const tl_batch *shape, const tl_options *opt, size_t send,
                                tl_ledger *out);

/* The whole solve, simulated partition by partition (the registry's
 * "spike"): tl_spike_run_* with tl_spike_partial. */
int tl_spike_ref_ledger_d(size_t n, int parts, const size_t *part_sizes, const double *a,
                          const double *b, const double *c, const double *d, double *x,
                          tl_ledger *ledger, tl_info *info);
int tl_spike_ref_ledger_z(size_t n, int parts, const size_t *part_sizes, const double complex *a,
                          const double complex *b, const double complex *c,
                          const double complex *d, double complex *x, tl_ledger *ledger,
                          tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
