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
 */
#ifndef TRIDLAB_PART_NSHAPED_H
#define TRIDLAB_PART_NSHAPED_H

#include <complex.h>
#include <stddef.h>

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
#define TL_NSHAPED_STATE(S, SUFFIX)                                                           \
  typedef struct tl_nshaped_state_##SUFFIX {                                                  \
    size_t n;         /* rows                                                      */        \
    int periodic;     /* 1: cyclic system; joint lines wrap                         */        \
    int parts;        /* P                                                          */        \
    size_t *begin;    /* P+1 partition offsets, begin[P] = n                        */        \
    size_t nj;        /* joint lines: P (periodic, or last partition has one row),  */        \
                      /* else P+1 (row n-1 is the last joint line)                  */        \
    size_t nblocks;   /* blocks: P (periodic) or nj-1                               */        \
    size_t *joint;    /* joint[w]: global row of joint line w, w < nj               */        \
    S *left, *diag, *right, *rhs; /* n each: the reduced block rows                 */        \
    S *msg;           /* 4 per block: the last row of block w (left, diag, right,   */        \
                      /* rhs), what partition w sends to the owner of joint w+1     */        \
    unsigned char *msg_empty; /* 1 per block: the block has no row                  */        \
    S *ra, *rb, *rc, *rd, *rx; /* nj each: the reduced system and its solution      */        \
    int tiny;         /* a nested solve (RS, levels > 1) substituted near underflow */        \
  } tl_nshaped_state_##SUFFIX;

TL_NSHAPED_STATE(double, d)
TL_NSHAPED_STATE(double complex, z)
#undef TL_NSHAPED_STATE

#define TL_NSHAPED_DECLARE(S, SUFFIX)                                                         \
  /* Partition the rows (part_sizes NULL: even split) and allocate. */                        \
  int tl_nshaped_init_##SUFFIX(tl_nshaped_state_##SUFFIX *st, size_t n, int periodic,         \
                               int parts, const size_t *part_sizes, tl_info *info);           \
  void tl_nshaped_free_##SUFFIX(tl_nshaped_state_##SUFFIX *st);                               \
  /* RD: eliminate the lower diagonal of block p downwards (fill: column J_p). */             \
  int tl_nshaped_rd_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *a, const S *b,    \
                             const S *c, const S *d, tl_info *info);                          \
  /* RU: eliminate the upper diagonal of block p upwards (fill: column J_{p+1}). */           \
  int tl_nshaped_ru_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *c);               \
  /* JU: joint line J_p absorbs the first row of block p (its own rows). */                   \
  int tl_nshaped_ju_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *a, const S *b,    \
                             const S *c, const S *d, tl_info *info);                          \
  /* JD: the joint lines of partition p absorb msg[] of the block above. */                   \
  int tl_nshaped_jd_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int p, const S *a, tl_info *info); \
  /* RS: solve the reduced system; levels > 1 applies the method again       */               \
  /* (tl_nshaped_optimal_blocks_nested blocks) levels-1 more times.          */               \
  int tl_nshaped_rs_##SUFFIX(tl_nshaped_state_##SUFFIX *st, int levels, tl_info *info);       \
  /* SS: x on the rows of partition p from the support values rx. */                          \
  int tl_nshaped_ss_##SUFFIX(const tl_nshaped_state_##SUFFIX *st, int p, S *x, tl_info *info); \
  /* The one-call solve (all stages in order, then the domain check).        */               \
  int tl_nshaped_ref_##SUFFIX(size_t n, int periodic, const S *a, const S *b, const S *c,     \
                              const S *d, S *x, int parts, const size_t *part_sizes,          \
                              int levels, tl_info *info);

TL_NSHAPED_DECLARE(double, d)
TL_NSHAPED_DECLARE(double complex, z)
#undef TL_NSHAPED_DECLARE

#ifdef __cplusplus
}
#endif
#endif
