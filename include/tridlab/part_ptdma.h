/* tridlab/part_ptdma.h -- the phases of the CaNS P-TDMA (paper 001 (CaNS)
 * §2.2.3-2.2.4, Algorithms 1 and 2).
 *
 * The system is split over P partitions ("ranks"). Each partition reduces
 * its rows so that every interior unknown depends only on the partition's
 * first and last unknowns (a cyclic-reduction step, paper 001 eq. (14));
 * the first and last rows of all partitions form a tridiagonal system of
 * 2P rows, gathered (in CaNS: transposed) and solved by Thomas (periodic:
 * by periodic Thomas, the reduced system is then cyclic); the interior is
 * reconstructed from the boundary values. The method is EXACT.
 *
 * Two flavours of the local reduction:
 *  - Algorithm 1 ("combined"): coefficients and right-hand side are
 *    reduced together, normalised to a unit diagonal:
 *      tl_ptdma_reduce_d -> tl_ptdma_pack_d -> tl_ptdma_reduced_solve_d
 *      -> tl_ptdma_reconstruct_d                       (tl_ptdma_solve_d)
 *  - Algorithm 2 ("split"): an initialization that depends on the matrix
 *    only (tl_ptdma_init_d, gathered into a tl_ptdma_plan by
 *    tl_ptdma_plan_create_d) and a runtime step per right-hand side
 *    (tl_ptdma_runtime_d, then pack, reduced solve, reconstruct:
 *    tl_ptdma_plan_solve_d). The plan is reused for any number of d.
 *
 * After either reduction, row k of partition p (rows [begin, end), local
 * j = k - begin, m = end - begin >= 2) reads
 *   j = 0:        a[k] x[begin-1] + b[k] x[k] + c[k] x[end-1] = d'[k]
 *   0 < j < m-1:  a[k] x[begin]   + b[k] x[k] + c[k] x[end-1] = d'[k]
 *   j = m-1:      a[k] x[begin]   + b[k] x[k] + c[k] x[end]   = d'[k]
 * with b = 1 for Algorithm 1 (indices wrap when periodic).
 *
 * A phase for partition [begin, end) takes its arrays as pointers to the
 * partition's FIRST row (A + begin, ..., x + begin: m = end - begin
 * entries each, what an MPI rank holds); begin and n only tell where the
 * rows sit (the ends of a plain system, global rows in reports). The
 * reduced system (ra, rb, rc, rd, rx) has 2P rows. Non-periodic phases
 * never read the corners A[0] and C[n-1]. Capital A, B, C, D are the
 * original coefficients (paper 001 Algorithm 2's A, B, C), small a, b, c,
 * d the reduced ones.
 */
#ifndef TRIDLAB_PART_PTDMA_H
#define TRIDLAB_PART_PTDMA_H

#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The flavours (the registry's parameter "flavour"). */
enum { TL_PTDMA_SPLIT = 0, TL_PTDMA_COMBINED = 1 };

/* Words per system of what a partition sends to the one that solves the
 * reduced systems (docs/ledger.md): the coefficients a, b, c of its 2
 * rows (the plan of Algorithm 2), their d' (its runtime), or a, c, d' of
 * them (Algorithm 1: b = 1 is not sent); x of its 2 rows comes back. The
 * verdict: 5 (value, row) pairs (status, worst margin, not row dominant,
 * not strictly dominant, near underflow). */
#define TL_PTDMA_COEF_WORDS 6
#define TL_PTDMA_RHS_WORDS 2
#define TL_PTDMA_ROW_WORDS 6
#define TL_PTDMA_X_WORDS 2
#define TL_PTDMA_VERDICT_WORDS 10

/* The exchange of the simulated partitions in a ledger (NULL: nothing):
 * partitions 1..P-1 send `words` per system to partition 0 (gather), or
 * receive them from it (scatter); nothing when P = 1. */
void tl_ptdma_ledger_gather(tl_ledger *ledger, const char *phase, int P, size_t words);
void tl_ptdma_ledger_scatter(tl_ledger *ledger, const char *phase, int P, size_t words);

/* Algorithm 1 on partition [begin, end) of an n-row system: reads A, B,
 * C, D there, writes the unit-diagonal a, c, d there. TL_ERR_BREAKDOWN
 * (global row) on a zero or non-finite pivot. */
int tl_ptdma_reduce_d(size_t n, int periodic, size_t begin, size_t end, const double *A,
                      const double *B, const double *C, const double *D, double *a, double *c,
                      double *d, tl_info *info);

/* Algorithm 2, step 1 (initialization): a, b, c of partition [begin, end)
 * from A, B, C. b holds the pivots (not normalised). */
int tl_ptdma_init_d(size_t n, int periodic, size_t begin, size_t end, const double *A,
                    const double *B, const double *C, double *a, double *b, double *c,
                    tl_info *info);

/* Algorithm 2, step 2 (runtime reduction): d' of partition [begin, end)
 * from D, with the original A, C and the pivots b of step 1. */
void tl_ptdma_runtime_d(size_t begin, size_t end, const double *A, const double *C,
                        const double *b, const double *D, double *d);

/* Copy partition p's first and last reduced rows into rows 2p and 2p+1 of
 * the reduced system (ra, rb, rc, rd; any may be NULL to skip it, e.g. rd
 * only at runtime when the coefficients were gathered once). b NULL: the
 * unit diagonal of Algorithm 1. This is what partition p sends. */
void tl_ptdma_pack_d(size_t begin, size_t end, int p, const double *a, const double *b,
                     const double *c, const double *d, double *ra, double *rb, double *rc,
                     double *rd);

/* The reduced system of rows = 2P rows: Thomas (paper 001 §2.2.4), or
 * periodic Thomas (Sherman-Morrison) for a periodic system. Row 2p is
 * partition p's first unknown, row 2p+1 its last. TL_OUTSIDE_DOMAIN
 * (rx written all the same) when a reduced row, as computed, misses diagonal
 * dominance by more than TL_PTDMA_REDUCED_SLACK relative to its |b|:
 * the local reductions then lost the maximum principle the stability
 * argument rests on (ptdma_ref.c, "Stability"). */
#define TL_PTDMA_REDUCED_SLACK 1e-8
int tl_ptdma_reduced_solve_d(size_t rows, int periodic, const double *ra, const double *rb,
                             const double *rc, const double *rd, double *rx, tl_info *info);

/* Algorithm 1 step 3 / Algorithm 2 step 4: x on partition [begin, end)
 * from its first and last values (b NULL: unit diagonal). */
int tl_ptdma_reconstruct_d(size_t begin, size_t end, const double *a, const double *b,
                           const double *c, const double *d, double x_first, double x_last,
                           double *x, tl_info *info);

/* Reduced row r of the 2P rows -> its global row (begin: the P + 1
 * partition bounds): 2p -> begin[p], 2p+1 -> begin[p+1] - 1; -1 stays. */
long tl_ptdma_global_row(const size_t *begin, long r);

/* 1 when Algorithm 2's reconstruction of a partition (m rows, a, c, d
 * its reduced rows) took an interior row from terms near the underflow
 * threshold: the plan then checks the residual (ptdma_ref.c, "Underflow"). */
int tl_ptdma_reconstruct_tiny_d(size_t m, const double *a, const double *c, const double *d,
                                double x_first, double x_last);

/* The domain verdict from the matrix's classes (tl_classes_d) and its
 * worst row: TL_OK, or TL_OUTSIDE_DOMAIN when it is not row diagonally
 * dominant (periodic: not strictly), with the reason. */
int tl_ptdma_domain_verdict(unsigned classes, long worst, int periodic, tl_info *info);

/* The reusable plan of Algorithm 2 for one matrix and one partitioning:
 * the original A, C (corners of a plain system zeroed), the step-1
 * coefficients a, b, c, and the gathered reduced-system coefficients
 * (ra, rb, rc: transposed once, paper 001 §2.2.4). */
typedef struct tl_ptdma_plan {
  size_t n;
  int parts;
  int periodic;
  size_t *begin;         /* P + 1 bounds; partition p: [begin[p], begin[p+1]) */
  double *A, *B, *C;     /* original diagonals (n; A, C with the corners of a
                            plain system zeroed)                              */
  double *a, *b, *c;     /* Algorithm 2 step 1 (n)                            */
  double *ra, *rb, *rc;  /* reduced system, 2P rows                           */
  unsigned classes;      /* tl_class bits of the matrix                       */
  long worst_row;        /* row with the smallest dominance margin             */
} tl_ptdma_plan;

/* Build the plan (part_sizes NULL: as even as possible; every partition
 * needs >= 2 rows). On failure the plan is empty (destroy is safe). */
int tl_ptdma_plan_create_d(tl_ptdma_plan *plan, size_t n, int periodic, int parts,
                           const size_t *part_sizes, const double *A, const double *B,
                           const double *C, tl_info *info);
void tl_ptdma_plan_destroy(tl_ptdma_plan *plan);

/* Runtime: solve for a new right-hand side d with the plan. TL_OK, or
 * TL_OUTSIDE_DOMAIN when the matrix is not row diagonally dominant
 * (periodic: not strictly), or when the reconstruction ran near the
 * underflow threshold and the residual ratio is >= 30, or an error. */
int tl_ptdma_plan_solve_d(const tl_ptdma_plan *plan, const double *d, double *x, tl_info *info);

/* One shot with Algorithm 1 (no plan). */
int tl_ptdma_solve_d(size_t n, int periodic, int parts, const size_t *part_sizes,
                     const double *A, const double *B, const double *C, const double *D,
                     double *x, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
