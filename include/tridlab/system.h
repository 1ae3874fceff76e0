/* tridlab/system.h -- tridiagonal systems and batches (docs/design.md §2).
 *
 * Row i of every system:  a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i],
 * i = 0..n-1, all arrays of length n. a is the lower, b the main and c the
 * upper diagonal. a[0] and c[n-1] are the periodic corner entries: a[0]
 * multiplies x[n-1] and c[n-1] multiplies x[0]. In a non-periodic system
 * both must be zero (a non-zero corner is TL_ERR_ARG, never ignored).
 *
 * Periodic systems with n = 1 or 2: indices wrap, so entries that land on
 * the same column add up (n = 1: (a+b+c) x = d; n = 2: row 0 is
 * b[0] x0 + (a[0]+c[0]) x1). The sum is the matrix entry, formed once
 * before anything multiplies it: a[0]+c[0] is one rounded addition, and
 * the 1x1 entry a+b+c is tl_periodic1_entry_d/z (tridlab/backend.h), the
 * sum within about an ulp of the exact one whatever the order of the
 * terms. Every solver (tl_solve() folds the batch before it calls one),
 * the class check and the metrics use that matrix. The 1x1 matrix [s] is
 * diagonal: in every class when s != 0, singular when s = 0; a folded
 * entry that overflows is TL_ERR_ARG.
 *
 *        | b0 c0          a0 |     a0 only when periodic
 *        | a1 b1 c1          |
 *   A =  |    a2 b2 c2       |
 *        |       .  .  .     |
 *        | cn          an bn |     c[n-1] only when periodic
 *
 * A batch holds nsys systems of the same n stored one after the other:
 * system s occupies entries [s*n, (s+1)*n) of a, b, c, d and x.
 */
#ifndef TRIDLAB_SYSTEM_H
#define TRIDLAB_SYSTEM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_dtype {
  TL_F64 = 1,  /* double          */
  TL_C128 = 2  /* double complex  */
} tl_dtype;

typedef struct tl_batch {
  tl_dtype dtype;
  size_t n;          /* rows per system, >= 1                         */
  size_t nsys;       /* systems in the batch, >= 1                    */
  int periodic;      /* 0: corners must be zero; 1: cyclic system      */
  const void *a;     /* nsys*n entries of dtype each                  */
  const void *b;
  const void *c;
  const void *d;     /* right-hand sides; never modified              */
} tl_batch;

/* Size in bytes of one scalar of dtype (0 for an unknown dtype). */
size_t tl_dtype_size(tl_dtype dtype);
const char *tl_dtype_name(tl_dtype dtype);

/* The single system s of a batch, as a batch with nsys = 1. */
tl_batch tl_batch_system(const tl_batch *sys, size_t s);

#ifdef __cplusplus
}
#endif
#endif
