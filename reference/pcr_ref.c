/* reference/pcr_ref.c -- parallel cyclic reduction (PCR), for any n >= 1.
 *
 * Source: R. W. Hockney and C. R. Jesshope (1981), Parallel Computers:
 * Architecture, Programming and Algorithms; paper 002 (Tridsolver), which
 * cites W. Gander and G. H. Golub (1997) for PCR and uses it for the
 * reduced system of its distributed solver (section "Distributed memory
 * algorithms": one exchange with partners ever further away per step);
 * paper 000 (DistD2-TDS) §2.2.1 describes the same use in the hybrid
 * Thomas-PCR algorithm. Symbols: ours (paper 002 eq. (1) has a, b, c, d
 * and u for x, rows 0..N-1); alpha_i = -a_i / b_{i-s} and
 * gamma_i = -c_i / b_{i+s} are the elimination factors at stride s.
 *
 * Where CR reduces only the odd rows and must substitute back, PCR reduces
 * every row at every step. At stride s = 1, 2, 4, ... row i eliminates
 * x[i-s] and x[i+s] with rows i-s and i+s (a neighbour outside 0..n-1 is
 * absent), so afterwards it couples to x[i-2s] and x[i+2s]. Once s >= n no
 * row has a neighbour left and x_i = d_i / b_i. All rows read the old
 * system and write a new one (double buffering). For n = 6:
 *
 *     A x = d              after s = 1          after s = 2          after s = 4
 *     | b c         |    | b   c       |    | b       c   |    | b           |
 *     | a b c       |    |   b   c     |    |   b       c |    |   b         |
 *     |   a b c     |    | a   b   c   |    |     b       |    |     b       |
 *     |     a b c   | -> |   a   b   c | -> |       b     | -> |       b     |
 *     |       a b c |    |     a   b   |    | a       b   |    |         b   |
 *     |         a b |    |       a   b |    |   a       b |    |           b |
 *
 *   step s, row i (l = i-s, r = i+s; an absent l or r contributes 0):
 *     alpha = -a_i / b_l,     gamma = -c_i / b_r
 *     a_i' = alpha a_l        c_i' = gamma c_r
 *     b_i' = b_i + alpha c_l + gamma a_r
 *     d_i' = d_i + alpha d_l + gamma d_r
 *   after the last step: x_i = d_i / b_i
 *
 * Each step is CR applied to both halves at once: after it, the rows
 * i = k (mod 2s) form the Schur complement that eliminates the unknowns
 * i = k + s (mod 2s), so a non-singular system stays non-singular.
 *
 * Cost: ceil(log2 n) steps of 12 flops per row (rows near the ends do
 * less), plus n divisions: about 12 n log2 n flops, more than CR's 17n,
 * bought with full parallelism. Words: every step reads the 4n words of
 * the current system (12n if neighbour rows are not cached) and writes
 * 4n; the first step reads a, b, c, d directly and the end writes x.
 * Scratch: two systems of 4n words. Parallel view: ceil(log2 n) steps,
 * each one synchronisation (distributed: one exchange with the rows s
 * away), all n rows independent within a step, no back substitution.
 *
 * Stability: for row diagonally dominant A each step keeps every row
 * dominant with a margin |b_i| - |a_i| - |c_i| that does not shrink, and
 * the off-diagonal entries do not grow (|a_i'| <= |a_i|, |c_i'| <= |c_i|),
 * as for CR (D. Heller (1976), SIAM J. Numer. Anal. 13): no pivot is small.
 * That is not enough for LAPACK's residual test (see the end of tl_pcr_ref),
 * so the declared class is strict dominance plus a residual self-check;
 * outside them the solve returns TL_OUTSIDE_DOMAIN. PCR divides by every diagonal
 * entry of every intermediate system, original ones included, so it can
 * break down where CR and Thomas do not (b_i = 0 in a row with non-zero
 * neighbours); a zero or non-finite divisor, or a non-finite result, is a
 * breakdown (TL_ERR_BREAKDOWN with its row).
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/residual.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "pcr_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "pcr_ref.c"
#undef TL_TEMPLATE_PASS

static int pcr_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                     tl_info *info)
{
  (void)self;
  (void)opt;
  return tl_solve_each(sys, x, info, tl_pcr_ref_d, tl_pcr_ref_z);
}

const tl_algorithm tl_algo_pcr_ref = {
    .name = "pcr",
    .family = "cyclic-reduction",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 0,
    .min_rows_per_part = 1,
    .params = NULL,
    .nparams = 0,
    .summary = "parallel cyclic reduction, any n: every row reduced at every stride, "
               "12n log2(n) flops",
    .source = "Hockney & Jesshope 1981; paper 002 (Tridsolver) distributed algorithms",
    .solve = pcr_solve,
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

static int FN(pcr_bad_divisor)(S v)
{
  return v == 0 || !ISFINITE(v);
}

/* One step at stride s (public: `tridlab trace` shows each): reads the system (a, b, c, d), writes the reduced
 * one (na, nb, nc, nd). Guards on the indices make absent neighbours add
 * nothing, so the corners a[0] and c[n-1] are never read. Returns the row
 * of a zero or non-finite divisor, or -1. */
long FN(tl_pcr_ref_step)(size_t n, size_t s, const S *a, const S *b, const S *c, const S *d, S *na,
                         S *nb, S *nc, S *nd)
{
  for (size_t i = 0; i < n; i++) {
    S ai = 0, bi = b[i], ci = 0, di = d[i];
    if (i >= s) { /* left neighbour l = i - s */
      size_t l = i - s;
      if (FN(pcr_bad_divisor)(b[l]))
        return (long)l;
      S alpha = -a[i] / b[l]; /* ratio first: safe near overflow/underflow */
      if (l >= s)
        ai = alpha * a[l];
      bi += alpha * c[l];
      di += alpha * d[l];
    }
    if (i + s < n) { /* right neighbour r = i + s */
      size_t r = i + s;
      if (FN(pcr_bad_divisor)(b[r]))
        return (long)r;
      S gamma = -c[i] / b[r];
      if (r + s < n)
        ci = gamma * c[r];
      bi += gamma * a[r];
      di += gamma * d[r];
    }
    na[i] = ai;
    nb[i] = bi;
    nc[i] = ci;
    nd[i] = di;
  }
  return -1;
}

/* Every row is alone: x_i = d_i / b_i. Returns the row of a zero or
 * non-finite divisor or result, or -1. */
static long FN(pcr_divide)(size_t n, const S *b, const S *d, S *x)
{
  for (size_t i = 0; i < n; i++) {
    if (FN(pcr_bad_divisor)(b[i]))
      return (long)i;
    x[i] = d[i] / b[i];
    if (!ISFINITE(x[i]))
      return (long)i;
  }
  return -1;
}

int FN(tl_pcr_ref)(size_t n, const S *a, const S *b, const S *c, const S *d, S *x, tl_info *info)
{
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "pcr: n must be >= 1 and no array may be NULL");
  S *w = tl_alloc(n, 8 * sizeof(S));
  if (!w)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pcr: no memory for %zu scratch rows", n);
  S *buf[2][4] = {{w, w + n, w + 2 * n, w + 3 * n}, {w + 4 * n, w + 5 * n, w + 6 * n, w + 7 * n}};

  /* The first step reads the input; later steps alternate the buffers. */
  const S *ca = a, *cb = b, *cc = c, *cd = d;
  int k = 0;
  for (size_t s = 1; s < n; s *= 2, k ^= 1) {
    long bad = FN(tl_pcr_ref_step)(n, s, ca, cb, cc, cd, buf[k][0], buf[k][1], buf[k][2], buf[k][3]);
    if (bad >= 0) {
      free(w);
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                     "pcr: zero or non-finite pivot b at row %ld in the step with stride %zu "
                     "(cyclic reduction without pivoting breaks down; try gtsv)",
                     bad, s);
    }
    ca = buf[k][0];
    cb = buf[k][1];
    cc = buf[k][2];
    cd = buf[k][3];
  }
  long bad = FN(pcr_divide)(n, cb, cd, x);
  free(w);
  if (bad >= 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, bad, "",
                   "pcr: zero or non-finite pivot or result at row %ld in the final division", bad);

  /* Domain: strict row dominance is kept by every step, so no pivot is
   * small; but see the residual check below. */
  long worst = -1;
  if (!(CLASSES(n, a, b, c, 0, &worst) & TL_CLASS_STRICT_DD))
    return TL_WARN(info, worst,
                   "pcr: matrix is not strictly row diagonally dominant (row %ld); parallel "
                   "cyclic reduction has no stability guarantee here",
                   worst);
  /* Every x_i comes out of its own reduction tree, so x is not the exact
   * solution of ONE nearby system: PCR is forward stable on dominant
   * matrices but not backward stable, and its residual grows with the
   * condition number (gallery: ratio 1e6 on a dominant 2x2 with cond 3e7,
   * 1e4 on tridiag(-1, 2, -1) with n = 4096 and a smooth solution). So the
   * solve measures LAPACK's residual ratio of its own answer (O(n), less
   * than the solve) and reports TL_OUTSIDE_DOMAIN when it fails (>= 30). */
  return tl_residual_check("pcr", TL_IS_COMPLEX ? TL_C128 : TL_F64, n, 0, a, b, c, d, x,
                           "PCR is not backward stable on this ill-conditioned matrix (its "
                           "error is still bounded by cond(A) eps)",
                           info);
}

#endif
