/* tridlab/part_nshaped.h -- the N-shaped partition method, stage by stage.
 *
 * Paper 004 (N-shaped), §4 and Table 1. One system of n rows is split
 * into P partitions (tl_partition_bounds). The first row of partition p
 * is a joint line J_p (§4.1.1); for a plain system row n-1 is a joint
 * line too. The rows strictly between two consecutive joint lines form a
 * block; block p lies inside partition p (it may be empty). Every stage
 * below acts on ONE partition p, reading only that partition's rows of
 * a, b, c, d, or on the explicit exchanged data held in the state:
 *
 *   RD  tl_nshaped_rd_*   downward reduction of block p        (local)
 *   RU  tl_nshaped_ru_*   upward reduction of block p          (local)
 *   JU  tl_nshaped_ju_*   joint line J_p absorbs block p's first row
 *   JD  tl_nshaped_jd_*   joint lines owned by p absorb the last row
 *                         of the block above, received in msg[]
 *   RS  tl_nshaped_rs_*   solve the reduced system of the joint lines
 *                         (serial, or the method again: `levels`)
 *   SS  tl_nshaped_ss_*   support substitution in block p     (local)
 *
 * Call tl_nshaped_init_*, then RD for every p, RU for every p, JU, JD,
 * RS once, SS for every p, then tl_nshaped_free_*. The one-call solve
 * tl_nshaped_ref_* does exactly that. _d is double, _z double complex.
 *
 * The stages of partition p take a, b, c, d and x as pointers to ITS
 * FIRST row (a + begin[p], ...: what an MPI rank holds). A state made by
 * tl_nshaped_init_* holds the block rows of every partition (one address
 * space); one made by tl_nshaped_init_rank_* holds partition p's rows
 * only (an MPI rank: optimized/mpi/nshaped_mpi.c) and its stages run for
 * that p alone, the exchanged msg[] and reduced rows filled in by the
 * caller's messages.
 *
 * Messages (the ledger, docs/ledger.md), per system: "block-row", the
 * last row of block w (4 scalars) to the owner of joint line w+1 when
 * that is another partition and the block is not empty; "reduced", each
 * partition's joint row (ra, rb, rc, rd: 4 scalars) gathered on the last
 * partition, which owns the last joint line of a plain system; "solution",
 * the two support values rx[p], rx[p+1] scattered back; "halo" and
 * "verdict", the domain check (tl_nshaped_ledger_verdict).
 */
#ifndef TRIDLAB_PART_NSHAPED_H
#define TRIDLAB_PART_NSHAPED_H

#include <complex.h>
#include <stddef.h>

#include "tridlab/ledger.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paper's estimate of the optimal number of blocks for one level,
 * paper 004 §5.4.1 eq 7: t ~ alpha n/n_bl + beta n_bl is smallest at
 * n_bl = delta sqrt(n), delta = sqrt(alpha/beta); alpha and beta are "of
 * the same order", so we take delta = 1: round(sqrt(n)), at least 1. */
size_t tl_nshaped_optimal_blocks(size_t n);

/* The same for `levels` nested applications (§4.1.6, §5.4.1 eq 8): each
 * level shrinks the system by n^(1/(levels+1)), so the first level uses
 * round(n^(levels/(levels+1))) blocks (levels = 1: eq 7). At least 1. */
size_t tl_nshaped_optimal_blocks_nested(size_t n, int levels);

/* The state of one solve. Row i of a block, after RD and RU, reads
 *   left[i] x[J_w] + diag[i] x[i] + right[i] x[J_{w+1}] = rhs[i]
 * (paper 004's b_i, a_i, c_i, d_i after Fig. 1.c). */
#define TL_NSHAPED_STATE(S, SUFFIX)                                                                \
  typedef struct tl_nshaped_state_##SUFFIX {                                                       \
    size_t n;                     /* rows                                                      */  \
    int periodic;                 /* 1: cyclic system; joint lines wrap                         */ \
    int parts;                    /* P                                                          */ \
    size_t *begin;                /* P+1 partition offsets, begin[P] = n                        */ \
    size_t nj;                    /* joint lines: P (periodic, or last partition has one row),  */ \
                                  /* else P+1 (row n-1 is the last joint line)                  */ \
    size_t nblocks;               /* blocks: P (periodic) or nj-1                               */ \
    size_t *joint;                /* joint[w]: global row of joint line w, w < nj               */ \
    size_t row0, held;            /* left..rhs hold rows [row0, row0 + held): all, or one part  */ \
    S *left, *diag, *right, *rhs; /* held each: the reduced block rows          */                 \
    S *msg;                       /* 4 per block: the last row of block w (left, diag, right,   */ \
                                  /* rhs), what partition w sends to the owner of joint w+1     */ \
    unsigned char *msg_empty;     /* 1 per block: the block has no row (from the sizes)  */        \
    S *ra, *rb, *rc, *rd, *rx;    /* nj each: the reduced system and its solution      */          \
    int tiny;                     /* a nested solve (RS, levels > 1) substituted near underflow */ \
    int rows_lent;                /* 1: left..rhs are the caller's (init_rank_in), not freed    */ \
  } tl_nshaped_state_##SUFFIX;

TL_NSHAPED_STATE(double, d)
TL_NSHAPED_STATE(double complex, z)
#undef TL_NSHAPED_STATE

#define TL_NSHAPED_DECLARE(S, SUFFIX)                                                              \
  /* Partition the rows (part_sizes NULL: even split) and allocate. */                             \
  int tl_nshaped_init_##SUFFIX(tl_nshaped_state_##SUFFIX *st, size_t n, int periodic, int parts,   \
                               const size_t *part_sizes, tl_info *info);                           \
  /* The same holding partition p's rows only (an MPI rank). */                                    \
  int tl_nshaped_init_rank_##SUFFIX(tl_nshaped_state_##SUFFIX *st, size_t n, int periodic,         \
                                    int parts, const size_t *part_sizes, int p, tl_info *info);    \
  /* The same with the block rows in the caller's zeroed memory `rows`: 4 x     */                 \
  /* partition p's rows, kept by the caller (a rank's scratch for a batch).    */                  \
  int tl_nshaped_init_rank_in_##SUFFIX(tl_nshaped_state_##SUFFIX *st, size_t n, int periodic,      \
                                       int parts, const size_t *part_sizes, int p, S *rows,        \
                                       tl_info *info);                                             \
  void tl_nshaped_free_##SUFFIX(tl_nshaped_state_##SUFFIX *st);                                    \
  /* RD: eliminate the lower diagonal of block p downwards (fill: column J_p). */                  \
  int tl_nshaped_rd_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *a, const S *b,         \
                             const S *c, const S *d, tl_info *info);                               \
  /* RU: eliminate the upper diagonal of block p upwards (fill: column J_{p+1}). */                \
  int tl_nshaped_ru_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *c);                    \
  /* JU: joint line J_p absorbs the first row of block p (its own rows). */                        \
  int tl_nshaped_ju_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *a, const S *b,         \
                             const S *c, const S *d, tl_info *info);                               \
  /* JD: the joint lines of partition p absorb msg[] of the block above. */                        \
  int tl_nshaped_jd_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *a, tl_info *info);     \
  /* RS: solve the reduced system; levels > 1 applies the method again       */                    \
  /* (tl_nshaped_optimal_blocks_nested blocks) levels-1 more times.          */                    \
  int tl_nshaped_rs_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int levels, tl_info *info);            \
  /* SS: x on the rows of partition p from the support values rx. */                               \
  int tl_nshaped_ss_##SUFFIX(const tl_nshaped_state_##SUFFIX *st, int p, S *x, tl_info *info);     \
  /* 1 when SS took a row of block p from terms near the underflow          */                     \
  /* threshold: the domain check then measures the residual ratio.           */                    \
  int tl_nshaped_ss_tiny_##SUFFIX(const tl_nshaped_state_##SUFFIX *st, int p);                     \
  /* The domain check's numbers for rows [row0, row0 + m) of an n-row       */                     \
  /* system (a, b, c at row row0), as tl_classes_* judges them: flags[0] = 1 */                    \
  /* when a row is not dominant, [1] not strictly, [2] a column is not;      */                    \
  /* *worst_rel, *worst_row the smallest margin / |b| and its row. up and   */                     \
  /* down: |c[row0-1]| and |a[row0+m]| (0 where a plain system has none).   */                     \
  void tl_nshaped_dd_slice_##SUFFIX(size_t n, int periodic, size_t row0, size_t m, const S *a,     \
                                    const S *b, const S *c, double up, double down, int flags[3],  \
                                    double *worst_rel, long *worst_row);                           \
  /* The one-call solve (all stages in order, then the domain check).        */                    \
  int tl_nshaped_ref_##SUFFIX(size_t n, int periodic, const S *a, const S *b, const S *c,          \
                              const S *d, S *x, int parts, const size_t *part_sizes, int levels,   \
                              tl_info *info);                                                      \
  /* The same, recording in ledger (may be NULL) what P ranks exchange.     */                     \
  int tl_nshaped_ref_ledger_##SUFFIX(size_t n, int periodic, const S *a, const S *b, const S *c,   \
                                     const S *d, S *x, int parts, const size_t *part_sizes,        \
                                     int levels, tl_ledger *ledger, tl_info *info);

TL_NSHAPED_DECLARE(double, d)
TL_NSHAPED_DECLARE(double complex, z)
#undef TL_NSHAPED_DECLARE

/* The domain check's reports (the reference and the MPI rank program). */
#define TL_NSHAPED_DD_MSG                                                                          \
  "nshaped: matrix is not %s diagonally dominant (row %ld); the partition method eliminates "      \
  "without pivoting and has no stability guarantee here"
#define TL_NSHAPED_TINY_WHY                                                                        \
  "its substitution (SS) ran near the underflow threshold, where an error of eps DBL_MIN in a "    \
  "block row reaches the joint line through c[J] / diag"

/* Scalars of the messages (docs/algorithms/nshaped.md, "MPI"). */
#define TL_NSHAPED_BLOCK_ROW 4 /* left, diag, right, rhs of a block's last row */
#define TL_NSHAPED_REDUCED 4   /* ra, rb, rc, rd of a joint line              */
#define TL_NSHAPED_SUPPORT 2   /* rx[p], rx[p+1]                              */
/* (value, row) pairs per system in the verdict's allreduce: the status,
 * the weakest row, three dominance flags, SS near underflow, max |x|, max
 * |A| (the last two for the residual ratio). */
#define TL_NSHAPED_VERDICT_PAIRS 8

/* The partition that receives the last row of block w (the owner of
 * joint line w+1) for partitions begin[0..parts] of an n-row system; -1
 * when the block is empty or that owner is partition w itself. */
int tl_nshaped_block_row_dest(size_t n, int periodic, int parts, const size_t *begin, int w);

/* The messages of one solve of nsys systems, w words per scalar, as P
 * ranks exchange them: "block-row", "reduced" and "solution"
 * (tl_nshaped_ledger_exchange), then the verdict's "halo" and "verdict"
 * round 0 (tl_nshaped_ledger_verdict; `tiny` systems whose substitution
 * ran near underflow add rounds 1 and 2 of the residual ratio). */
void tl_nshaped_ledger_exchange(tl_ledger *ledger, size_t n, int periodic, int parts,
                                const size_t *begin, size_t nsys, size_t w);
void tl_nshaped_ledger_verdict(tl_ledger *ledger, int parts, int periodic, size_t nsys, size_t w,
                               size_t tiny);

#ifdef __cplusplus
}
#endif
#endif
