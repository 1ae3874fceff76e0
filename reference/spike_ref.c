/* reference/spike_ref.c -- SPIKE with partially pivoted local
 * factorizations on P partitions, simulated serially phase by phase: the
 * first partition algorithm of tridlab that pivots, so it solves what
 * the others refuse (a matrix that is not diagonally dominant).
 *
 * Source: E. Polizzi and A. H. Sameh, "A parallel hybrid banded system
 * solver: the SPIKE algorithm", Parallel Computing 32 (2006) 177-194:
 * the DS factorization A = D S, the spikes V_j, W_j and their top and
 * bottom tips, the reduced system of the block boundaries (there for a
 * band of any width; here the width is one). The tridiagonal case goes
 * back to A. Sameh and D. Kuck, "On stable parallel linear system
 * solvers", J. ACM 25 (1978) 81-91. The blocks are factored as LAPACK's
 * DGTTRF and solved as DGTTRS (Anderson et al., LAPACK Users' Guide,
 * 1999).
 * docs/algorithms/spike.md is the teaching page.
 *
 * Split A into P diagonal blocks A_p (rows [begin_p, begin_p + m_p)) and
 * the couplings between them: the last row of block p reaches the first
 * unknown of block p+1 with c, the first row of block p+1 the last unknown
 * of block p with a. Multiply by D^-1 = diag(A_p^-1) and A becomes S, the
 * identity with two SPIKES per block (P = 3):
 *
 *        A = D S                         S
 *   | A0  c       |          | I    V0          |   V_p = A_p^-1 (c e_last)
 *   | a  A1  c    |   ->     |   W1  I    V1    |   W_p = A_p^-1 (a e_first)
 *   |    a   A2   |          |          W2  I   |   (columns of m_p entries)
 *
 * S x = g, g = D^-1 d, says for block p:
 *   x_p = g_p - V_p x_{p+1}[top] - W_p x_{p-1}[bottom]        (*)
 * Its top and bottom rows involve only boundary unknowns: the REDUCED
 * SYSTEM, 2(P-1) unknowns y (the last unknown of block j and the first of
 * block j+1, j = 0..P-2), banded with two diagonals below and two above:
 *   row 2j   (bottom of block j):  y[2j]   + V_j[bot] y[2j+1] + W_j[bot] y[2j-2]   = g_j[bot]
 *   row 2j+1 (top of block j+1):   y[2j+1] + W_{j+1}[top] y[2j] + V_{j+1}[top] y[2j+3] =
 * g_{j+1}[top] Then (*) gives every other unknown.
 *
 * The blocks are factored WITH PARTIAL PIVOTING (the difference from the
 * partition algorithms without it, and the reason SPIKE does not need
 * diagonal dominance): at step i the row with the larger entry in column
 * i becomes the pivot row. A swap brings row i+1's c into row i, so U
 * gains a second superdiagonal (u2, the fill-in +):
 *
 *   | b0 c0       |       | * * +    |     L: unit lower bidiagonal,
 *   | a1 b1 c1    |  ->   |   * * +  |        l[i] the multiplier of
 *   |    a2 b2 c2 |       |     * *  |        step i, swap[i] the swap
 *   |       a3 b3 |       |       *  |
 *
 * The growth of partial pivoting on a tridiagonal matrix is at most 2
 * (Higham, Accuracy and Stability of Numerical Algorithms, §9.5), so each
 * local solve is backward stable whenever its block is nonsingular. The
 * reduced system is solved by LAPACK's pivoted band solver (DGBSV), on
 * one partition (a gather of 6 words from each, 2 words back).
 *
 * Where SPIKE is guaranteed: a strictly row-dominant A (every block of
 * every partition is then nonsingular and well conditioned, the spikes
 * decay). There the solve measures LAPACK's residual ratio of its
 * answer, as pcr does (>= 30: outside-domain). Elsewhere the answer is
 * written and usually passes LAPACK's tests, but the status is
 * outside-domain: a residual ratio below 30 does not bound the error of
 * an x that a nearly singular reduced system made far too large (found
 * by fuzzing: ratio < 30, forward-error ratio 4.5e8). A block that is
 * exactly singular for one partition is a breakdown naming the
 * partition; other partitions of the same matrix may avoid it.
 *
 * The block factorization is a choice, a tl_spike_variant
 * (tridlab/part_spike.h): this file's partial pivoting (tl_spike_partial),
 * spike_dp's diagonal pivoting (reference/spike_dp_ref.c), or
 * spike_givens's Givens rotations (reference/spike_givens_ref.c), which
 * modify a singular block and leave a column K in S that the reduced
 * system and the retrieval take (tl_spike_variant.kernel). The driver
 * below, tl_spike_run_*, is every variant's: partitions, tips, reduced
 * system, retrieval, ledger and verdict, its reports under the variant's
 * name.
 *
 * Cost per partition of m rows: factorization about 5m flops and m
 * comparisons, three solves of about 5m each (g, V, W), retrieval 4m:
 * about 24m (Thomas: 8m). Memory: 7m words of factors and spikes.
 * Communication: 6 words per partition to one, 2 back; the reduced solve
 * about 2(P-1) x 25 flops; two synchronisations and the verdict.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_spike.h"
#include "tridlab/residual.h"

/* The reduced system's band: kl = ku = 2, stored as LAPACK's band
 * format wants it (2 kl + ku + 1 rows; the top kl rows are room for the
 * fill-in of the pivoting). */
enum { KL = 2, KU = 2, LDAB = 2 * KL + KU + 1 };

static lapack_int lapack_gbsv_d(lapack_int n, double *ab, lapack_int *ipiv, double *y)
{
  return LAPACKE_dgbsv(LAPACK_COL_MAJOR, n, KL, KU, 1, ab, LDAB, ipiv, y, n);
}

static lapack_int lapack_gbsv_z(lapack_int n, double complex *ab, lapack_int *ipiv,
                                double complex *y)
{
  return LAPACKE_zgbsv(LAPACK_COL_MAJOR, n, KL, KU, 1, ab, LDAB, ipiv, y, n);
}

/* Phases 3-5 (tips, reduced system, retrieval) are every variant's and
 * word their reports as spike's; a variant's solve puts its own name in
 * front instead ("spike_dp: the reduced system is singular ..."). */
int tl_spike_named(const tl_spike_variant *var, int status, tl_info *info)
{
  static const char ours[] = "spike:";
  if (status != TL_OK && info && strcmp(var->name, "spike") != 0 &&
      strncmp(info->msg, ours, sizeof ours - 1) == 0) {
    char rest[sizeof info->msg];
    snprintf(rest, sizeof rest, "%s", info->msg + sizeof ours - 1);
    snprintf(info->msg, sizeof info->msg, "%.40s:%.200s", var->name, rest);
  }
  return status;
}

/* A breakdown of a truncated phase 4 (info->row: reduced row 2j) restated
 * with the two matrix rows of interface j|j+1, as PDD names them. */
static int interface_failure(const char *name, tl_info *info, int status, size_t n, int parts,
                             const size_t *part_sizes)
{
  int j = info && info->row >= 0 ? (int)(info->row / 2) : 0;
  size_t lo, hi;
  tl_partition_bounds(n, parts, part_sizes, j, &lo, &hi);
  return TL_FAIL(info, status, -1, (long)hi - 1, "",
                 "%s: the 2x2 interface system between partitions %d and %d (rows %zu, %zu) is "
                 "singular or overflows; truncate=0 solves the whole reduced system",
                 name, j, j + 1, hi - 1, hi);
}

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "spike_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "spike_ref.c"
#undef TL_TEMPLATE_PASS

void tl_spike_ledger_reduced(tl_ledger *ledger, int P, int p, size_t w, size_t send, int back)
{
  if (!back) /* partition p's tips to partition 0 */
    tl_ledger_root_trip(ledger, "tips", P, p, send * w, 0);
  else /* its boundary unknowns back (a kernel variant: its pinned one too) */
    tl_ledger_root_trip(ledger, "boundary", P, p,
                        (send == TL_SPIKE_SEND_KERNEL ? TL_SPIKE_BACK_KERNEL : TL_SPIKE_BACK) * w,
                        1);
}

int tl_spike_reduced_failure(tl_info *info, int status, size_t n, int parts,
                             const size_t *part_sizes)
{
  size_t k = info && info->row >= 0 ? (size_t)info->row : 0, lo, hi;
  int j = (int)(k / 2) + (int)(k % 2); /* the partition whose row it is */
  tl_partition_bounds(n, parts, part_sizes, j, &lo, &hi);
  size_t row = k % 2 ? lo : hi - 1;
  char why[160];
  snprintf(why, sizeof why, "%.150s", info ? info->msg : "");
  return TL_FAIL(info, status, -1, (long)row, "", "%s, at reduced row %zu (matrix row %zu)", why,
                 k, row);
}

const tl_param tl_spike_params[TL_SPIKE_NPARAMS] = {
    {"truncate", TL_PARAM_INT, 0, 0, 1, NULL,
     "1: truncated SPIKE, the P-1 interfaces' 2x2 systems alone, far spike entries dropped as "
     "PDD drops them (0: the whole reduced system)"},
    {"tol", TL_PARAM_REAL, 2.0 * TL_EPS, 0.0, 1.0, NULL,
     "truncate=1: largest dropped far spike entry accepted as TL_OK (default 2 eps, as pdd)"},
    {"reduced", TL_PARAM_CHOICE, 0, 0, 0, "band|recursive",
     "band: the whole reduced system by LAPACK's pivoted band solve (DGBSV); recursive: by "
     "recursive SPIKE, partitions merged pairwise in log2 P levels (every merged block must be "
     "non-singular)"},
};

int tl_spike_mode_of(const tl_algorithm *self, const tl_options *opt, tl_spike_mode *mode,
                     tl_info *info)
{
  *mode = (tl_spike_mode){.truncate = tl_param_value(self, opt, "truncate") == 1,
                          .tol = tl_param_value(self, opt, "tol"),
                          .recursive = tl_param_value(self, opt, "reduced") == 1};
  if (mode->truncate && mode->recursive)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "reduced",
                   "%s: truncate=1 solves the interfaces apart; reduced=recursive needs the "
                   "whole reduced system (truncate=0)",
                   self->name);
  return TL_OK;
}

int tl_spike_system(const tl_spike_variant *var, const tl_algorithm *self, const tl_batch *one,
                    void *x, const tl_options *opt, tl_info *info)
{
  tl_spike_mode mode;
  TL_CALL(tl_spike_mode_of(self, opt, &mode, info));
  if (one->dtype == TL_F64)
    return tl_spike_run_mode_d(var, &mode, one->n, opt->parts, opt->part_sizes, one->a, one->b,
                               one->c, one->d, x, opt->ledger, info);
  return tl_spike_run_mode_z(var, &mode, one->n, opt->parts, opt->part_sizes, one->a, one->b,
                             one->c, one->d, x, opt->ledger, info);
}

void tl_spike_ledger_model_send(const tl_batch *shape, const tl_options *opt, size_t send,
                                tl_ledger *out)
{
  tl_ledger_root_solve_model(out, opt->parts, shape->nsys, shape->dtype == TL_C128 ? 2 : 1, "tips",
                             send, "boundary",
                             send == TL_SPIKE_SEND_KERNEL ? TL_SPIKE_BACK_KERNEL : TL_SPIKE_BACK);
}

/* docs/algorithms/spike.md, "Cost and communication": per system 6 scalars from
 * every partition to partition 0, 2 back, and the verdict. */
int tl_spike_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                          const tl_info *solved, tl_ledger *out)
{
  (void)self;
  (void)solved;
  tl_spike_ledger_model_send(shape, opt, TL_SPIKE_SEND, out);
  return TL_OK;
}

const tl_spike_variant tl_spike_partial = {
    .name = "spike",
    .words = 4, /* l, u0, u1, u2 */
    .local_d = partial_local_d,
    .local_z = partial_local_z,
};

static int spike_system(const tl_algorithm *self, const tl_batch *one, void *x,
                        const tl_options *opt, tl_info *info)
{
  return tl_spike_system(&tl_spike_partial, self, one, x, opt, info);
}

static int spike_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, spike_system);
}

const tl_algorithm tl_algo_spike_ref = {
    .name = "spike",
    .family = "partition",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = tl_spike_params,
    .nparams = TL_SPIKE_NPARAMS,
    .summary = "SPIKE: blocks factored with partial pivoting, spikes, 2(P-1)-unknown reduced "
               "system by a pivoted band solve, retrieval",
    .source = "Polizzi and Sameh 2006 (SPIKE: the DS factorization, spikes, reduced system); "
              "Sameh and Kuck 1978; LAPACK DGTTRF/DGTTRS, DGBSV",
    .solve = spike_solve,
    .ledger_model = tl_spike_ledger_model,
    .dropped_means = "truncate=1: the largest far spike entry dropped, |W_j[bottom]| or "
                     "|V_j[top]| of an inner partition, as pdd's (0 with truncate=0)",
    .bound_means = "truncate=1: ||x - x_exact||_inf / ||x||_inf in exact arithmetic for a "
                   "strictly row-dominant A, as pdd's",
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

#undef WORDS
#define WORDS (TL_IS_COMPLEX ? 2u : 1u) /* 8-byte words per scalar */

/* The size LAPACK's complex routines compare pivots by (CABS1: |re| +
 * |im|), and |v| in double. */
static double FN(mag)(S v)
{
#if TL_IS_COMPLEX
  return fabs(creal(v)) + fabs(cimag(v));
#else
  return fabs(v);
#endif
}

int FN(tl_spike_factor)(size_t begin, size_t m, int part, const S *a, const S *b, const S *c,
                        S *l, S *u0, S *u1, S *u2, unsigned char *swap, tl_info *info)
{
  for (size_t i = 0; i < m; i++) {
    u0[i] = b[i];
    u1[i] = i + 1 < m ? c[i] : 0;
    l[i] = i + 1 < m ? a[i + 1] : 0; /* the entry below the diagonal in column i */
    u2[i] = 0;
    swap[i] = 0;
  }
  for (size_t i = 0; i + 1 < m; i++) {
    if (FN(mag)(u0[i]) >= FN(mag)(l[i])) { /* row i is the pivot row */
      if (u0[i] != 0) {
        S fact = l[i] / u0[i];
        l[i] = fact;
        u0[i + 1] = u0[i + 1] - fact * u1[i];
      }
    } else { /* swap rows i and i+1: row i+1 is the pivot row */
      S fact = u0[i] / l[i];
      u0[i] = l[i];
      l[i] = fact;
      S temp = u1[i];
      u1[i] = u0[i + 1];
      u0[i + 1] = temp - fact * u0[i + 1];
      if (i + 2 < m) { /* row i+1's c moves up: the fill-in */
        u2[i] = u1[i + 1];
        u1[i + 1] = -fact * u1[i + 1];
      }
      swap[i] = 1;
    }
  }
  for (size_t i = 0; i < m; i++)
    if (u0[i] == 0 || !ISFINITE(u0[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + i), "",
                     "spike: the diagonal block of partition %d (rows %zu..%zu) is singular: "
                     "U(%zu,%zu) is %s; other partition sizes may avoid it (gtsv solves the "
                     "whole matrix)",
                     part, begin, begin + m - 1, i, i, u0[i] == 0 ? "zero" : "not finite");
  return TL_OK;
}

void FN(tl_spike_solve_block)(size_t m, const S *l, const S *u0, const S *u1, const S *u2,
                              const unsigned char *swap, S *y)
{
  for (size_t i = 0; i + 1 < m; i++) { /* L: the swaps and multipliers, in order */
    if (!swap[i]) {
      y[i + 1] = y[i + 1] - l[i] * y[i];
    } else {
      S temp = y[i];
      y[i] = y[i + 1];
      y[i + 1] = temp - l[i] * y[i];
    }
  }
  y[m - 1] = y[m - 1] / u0[m - 1]; /* U: back substitution, three diagonals */
  if (m > 1)
    y[m - 2] = (y[m - 2] - u1[m - 2] * y[m - 1]) / u0[m - 2];
  for (size_t i = m >= 2 ? m - 2 : 0; i-- > 0;)
    y[i] = (y[i] - u1[i] * y[i + 1] - u2[i] * y[i + 2]) / u0[i];
}

/* The first row of y that is not finite, or m. */
static size_t FN(first_nonfinite)(size_t m, const S *y)
{
  for (size_t i = 0; i < m; i++)
    if (!ISFINITE(y[i]))
      return i;
  return m;
}

int FN(tl_spike_local_apply)(const char *name, size_t begin, size_t m, int has_left,
                             int has_right, const S *a, const S *c, const S *d,
                             tl_spike_apply_fn apply, const void *factors, S *g, S *v, S *w,
                             tl_info *info)
{
  memcpy(g, d, m * sizeof *g);
  apply(factors, m, g);
  size_t bad = FN(first_nonfinite)(m, g);
  if (has_right) { /* V = A_p^-1 (c of the last row) e_last */
    memset(v, 0, m * sizeof *v);
    v[m - 1] = c[m - 1];
    apply(factors, m, v);
    size_t k = FN(first_nonfinite)(m, v);
    bad = k < bad ? k : bad;
  }
  if (has_left) { /* W = A_p^-1 (a of the first row) e_first */
    memset(w, 0, m * sizeof *w);
    w[0] = a[0];
    apply(factors, m, w);
    size_t k = FN(first_nonfinite)(m, w);
    bad = k < bad ? k : bad;
  }
  if (bad < m)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + bad), "",
                   "%s: non-finite local solution or spike at row %zu", name, begin + bad);
  return TL_OK;
}

/* Phase 1's factors, as tl_spike_local_apply hands them to the block solve. */
typedef struct FN(spike_lu) {
  const S *l, *u0, *u1, *u2;
  const unsigned char *swap;
} FN(spike_lu);

static void FN(lu_apply)(const void *factors, size_t m, void *y)
{
  const FN(spike_lu) *f = factors;
  FN(tl_spike_solve_block)(m, f->l, f->u0, f->u1, f->u2, f->swap, y);
}

int FN(tl_spike_local)(size_t begin, size_t m, int has_left, int has_right, const S *a,
                       const S *c, const S *d, const S *l, const S *u0, const S *u1, const S *u2,
                       const unsigned char *swap, S *g, S *v, S *w, tl_info *info)
{
  FN(spike_lu) f = {l, u0, u1, u2, swap};
  return FN(tl_spike_local_apply)("spike", begin, m, has_left, has_right, a, c, d, FN(lu_apply),
                                  &f, g, v, w, info);
}

/* spike's phases 1-2 on one partition (tl_spike_partial): the 4m scalars
 * of f are l, u0, u1, u2; the flags are the swaps. */
static int FN(partial_local)(size_t begin, size_t m, int part, int has_left, int has_right,
                             const S *a, const S *b, const S *c, const S *d, S *f,
                             unsigned char *swap, S *g, S *v, S *w, tl_info *info)
{
  S *l = f, *u0 = l + m, *u1 = u0 + m, *u2 = u1 + m;
  TL_CALL(FN(tl_spike_factor)(begin, m, part, a, b, c, l, u0, u1, u2, swap, info));
  return FN(tl_spike_local)(begin, m, has_left, has_right, a, c, d, l, u0, u1, u2, swap, g, v, w,
                            info);
}

void FN(tl_spike_tips)(size_t m, int has_left, int has_right, const S *g, const S *v, const S *w,
                       S send[TL_SPIKE_SEND])
{
  send[0] = g[0];
  send[1] = g[m - 1];
  send[2] = has_right ? v[0] : 0;
  send[3] = has_right ? v[m - 1] : 0;
  send[4] = has_left ? w[0] : 0;
  send[5] = has_left ? w[m - 1] : 0;
}

void FN(tl_spike_tips_kernel)(size_t m, int has_left, int has_right, const S *g, const S *v,
                              const S *w, const S *k, S send[TL_SPIKE_SEND_KERNEL])
{
  FN(tl_spike_tips)(m, has_left, has_right, g, v, w, send);
  send[6] = k[0];
  send[7] = k[m - 1];
}

/* Entry (i, j) of the reduced matrix in the band storage. */
#define AB(i, j) ab[(size_t)(KL + KU + (i) - (j)) + (size_t)(j)*LDAB]

/* A kernel variant's column K in the pinned unknown's column of its
 * partition's two rows (tl_spike_reduced_kernel): S_pp = I - K e_pin^T. */
static void FN(kernel_entries)(int parts, const S *tips, S *ab)
{
  for (size_t p = 0; p < (size_t)parts; p++) {
    const S *t = tips + TL_SPIKE_SEND_KERNEL * p;
    /* The pinned unknown: p's bottom, or the last partition's top. Row
     * 2p-1 is p's top row, 2p its bottom row. */
    size_t pin = p + 1 < (size_t)parts ? 2 * p : 2 * p - 1;
    if (p > 0)
      AB(2 * p - 1, pin) = AB(2 * p - 1, pin) - t[6];
    if (p + 1 < (size_t)parts)
      AB(2 * p, pin) = AB(2 * p, pin) - t[7];
  }
}

/* The end of every whole phase 4: each of the N reduced unknowns finite,
 * else TL_ERR_BREAKDOWN at the first that is not. */
static int FN(reduced_finite)(size_t N, const S *y, tl_info *info)
{
  for (size_t k = 0; k < N; k++)
    if (!ISFINITE(y[k]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)k, "",
                     "spike: the reduced solution is not finite at reduced row %zu", k);
  return TL_OK;
}

/* Phase 4 on tips of `send` words per partition (TL_SPIKE_SEND, or
 * TL_SPIKE_SEND_KERNEL with the kernel columns). */
static int FN(reduced_send)(int parts, size_t send, const S *tips, S *y, tl_info *info)
{
  if (parts < 2)
    return TL_OK;
  size_t N = 2 * ((size_t)parts - 1);
  if (N > (size_t)INT_MAX / LDAB)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "parts",
                   "spike: %d partitions exceed LAPACK's integer range", parts);
  S *ab = tl_alloc(LDAB * N, sizeof(S));
  lapack_int *ipiv = tl_alloc(N, sizeof *ipiv);
  if (!ab || !ipiv) {
    free(ab);
    free(ipiv);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "spike: no memory for the reduced system");
  }
  for (size_t j = 0; j + 1 < (size_t)parts; j++) {
    const S *lo = tips + send * j, *hi = tips + send * (j + 1);
    size_t r = 2 * j; /* bottom row of block j */
    AB(r, r) = 1;
    AB(r, r + 1) = lo[3]; /* V_j[bottom] x_{j+1}[top] */
    if (j > 0)
      AB(r, r - 2) = lo[5]; /* W_j[bottom] x_{j-1}[bottom] */
    y[r] = lo[1];
    r = 2 * j + 1; /* top row of block j+1 */
    AB(r, r) = 1;
    AB(r, r - 1) = hi[4]; /* W_{j+1}[top] x_j[bottom] */
    if (j + 2 < (size_t)parts)
      AB(r, r + 2) = hi[2]; /* V_{j+1}[top] x_{j+2}[top] */
    y[r] = hi[0];
  }
  if (send == TL_SPIKE_SEND_KERNEL)
    FN(kernel_entries)(parts, tips, ab);
  lapack_int linfo = FN(lapack_gbsv)((lapack_int)N, ab, ipiv, y);
  free(ab);
  free(ipiv);
  if (linfo > 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)linfo - 1, "",
                   "spike: the reduced system is singular (U(%ld,%ld) = 0)", (long)linfo - 1,
                   (long)linfo - 1);
  if (linfo < 0)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "lapack", "spike: LAPACK rejected argument %d",
                   (int)-linfo);
  return FN(reduced_finite)(N, y, info);
}

#undef AB

int FN(tl_spike_reduced)(int parts, const S *tips, S *y, tl_info *info)
{
  return FN(reduced_send)(parts, TL_SPIKE_SEND, tips, y, info);
}

int FN(tl_spike_reduced_kernel)(int parts, const S *tips, S *y, tl_info *info)
{
  return FN(reduced_send)(parts, TL_SPIKE_SEND_KERNEL, tips, y, info);
}

/* Truncated phase 4 on tips of `send` words per partition. */
static int FN(reduced_trunc_send)(int parts, size_t send, const S *tips, S *y, tl_info *info)
{
  for (size_t j = 0; j + 1 < (size_t)parts; j++) {
    const S *lo = tips + send * j, *hi = tips + send * (j + 1);
    /* The rows 2j and 2j+1 of the banded system without W_j[bottom] and
     * V_{j+1}[top]: Cramer's rule, as PDD's 2x2 solve. */
    S det = 1 - lo[3] * hi[4];
    S yb = (lo[1] - lo[3] * hi[0]) / det, yt = (hi[0] - hi[4] * lo[1]) / det;
    if (det == 0 || !ISFINITE(det) || !ISFINITE(yb) || !ISFINITE(yt))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(2 * j), "",
                     "spike: the 2x2 system of interface %zu is singular or overflows", j);
    y[2 * j] = yb;
    y[2 * j + 1] = yt;
  }
  return TL_OK;
}

int FN(tl_spike_reduced_trunc)(int parts, const S *tips, S *y, tl_info *info)
{
  return FN(reduced_trunc_send)(parts, TL_SPIKE_SEND, tips, y, info);
}

/* Recursive SPIKE (Polizzi & Sameh 2006, the recursive scheme) on the
 * same tips. A SEGMENT of partitions [lo, hi) obeys, at its top and its
 * bottom row, spike equations like a single partition's,
 *
 *   x_top = g_t - V_t x_next - W_t x_prev,   x_bot = g_b - V_b x_next - W_b x_prev,
 *
 * x_prev the last unknown before the segment, x_next the first after it:
 * six numbers t = {g_t, g_b, V_t, V_b, W_t, W_b}, a partition's tips at
 * level 0. Two neighbouring segments L | R merge into one: the two
 * unknowns at their interface, u = L's bottom and z = R's top, solve
 *
 *   | 1       V_b(L) | | u |   | g_b(L) - W_b(L) x_prev |
 *   | W_t(R)  1      | | z | = | g_t(R) - V_t(R) x_next |
 *
 * so u = ug - uv x_next - uw x_prev and z = zg - zv x_next - zw x_prev
 * (the merge's six coefficients, kept for the way down), and the merged
 * segment's top (L's, which needs z) and bottom (R's, which needs u) are
 * spike equations again:
 *
 *   level 0:  [p0] [p1] [p2] [p3] [p4]      pairs merge, an odd one
 *   level 1:  [p0   p1] [p2   p3] [p4]      waits for the next level
 *   level 2:  [p0   p1    p2   p3] [p4]
 *   level 3:  [p0   p1    p2   p3    p4]    no x_prev, no x_next: done
 *
 * The way down runs the merges backwards: a merge's x_prev and x_next
 * are unknowns of interfaces merged above it (or absent: 0), so its u
 * and z follow from them. Each 2x2 is solved with partial pivoting
 * (within the 2x2: nothing pivots across merges, as DGBSV pivots across
 * the whole band). ceil(log2 P) levels; each level's merges are
 * independent (on P processors, log2 P steps where the band solve is one
 * processor's 2(P-1) rows). 1 - V_b(L) W_t(R) is the determinant of the
 * merged block's S, so it is 0 exactly when the merged block of A is
 * singular: recursive SPIKE needs every merged block non-singular, not
 * only A -- it pivots inside partitions, never across them. A kernel
 * variant's block with a column K is folded into plain tips first
 * (fold_kernel): a singular block cannot be. */
typedef struct FN(spike_merge) {
  int lo, hi, j; /* the merged segment [lo, hi), the interface j|j+1 it removes */
  S ug, uv, uw, zg, zv, zw;
} FN(spike_merge);

/* The 2x2 of a merge, | 1 p ; q 1 | (u, z) = (r0, r1), for one
 * right-hand side, by Gaussian elimination with partial pivoting (rows
 * swapped when |q| > 1). Returns 0 for a zero or non-finite pivot. */
static int FN(solve2)(S p, S q, S r0, S r1, S *u, S *z)
{
  S piv;
  if (FN(mag)(q) > 1) { /* | q 1 ; 1 p |: eliminate with l = 1 / q */
    S l = 1 / q;
    piv = p - l;
    *z = (r0 - l * r1) / piv;
    *u = (r1 - *z) / q;
  } else { /* eliminate with l = q */
    piv = 1 - q * p;
    *z = (r1 - q * r0) / piv;
    *u = r0 - p * *z;
  }
  return piv != 0 && ISFINITE(piv) && ISFINITE(*u) && ISFINITE(*z);
}

/* L | R -> M (tips of 6), the merge's coefficients into mg: the 2x2
 * with three right-hand sides, (g_b(L), g_t(R)) for ug, zg, (0, V_t(R))
 * for uv, zv (x_next's column) and (W_b(L), 0) for uw, zw (x_prev's).
 * Returns 0 when the 2x2 is singular or a result overflows. */
static int FN(merge_segments)(const S *L, const S *R, S *M, FN(spike_merge) * mg)
{
  int ok = FN(solve2)(L[3], R[4], L[1], R[0], &mg->ug, &mg->zg) &&
           FN(solve2)(L[3], R[4], 0, R[2], &mg->uv, &mg->zv) &&
           FN(solve2)(L[3], R[4], L[5], 0, &mg->uw, &mg->zw);
  M[0] = L[0] - L[2] * mg->zg; /* the top row is L's */
  M[2] = -(L[2] * mg->zv);
  M[4] = L[4] - L[2] * mg->zw;
  M[1] = R[1] - R[5] * mg->ug; /* the bottom row is R's */
  M[3] = R[3] - R[5] * mg->uv;
  M[5] = -(R[5] * mg->uw);
  return ok; /* M is not checked: the first segment's top and the last's
                bottom are read by no 2x2, and a non-finite value that is
                read shows in the boundary unknowns */
}

/* A kernel variant's partition p: its pinned unknown (its bottom, or the
 * last partition's top) appears on both sides of its tip equations,
 * x_pin = ... + K_pin x_pin; solved for it, the tips are spike tips
 * again (t: 8 words in, the first 6 rewritten). 1 - K_pin is the
 * determinant of the block's S_pp = I - K e_pin^T: 0 for a block that is
 * singular, which returns 0; small for one the variant modified for being
 * nearly singular, which is divided by it -- without pivoting, the one
 * thing the band solve would do better; the verdict's residual test
 * judges the answer. The other row's tips may overflow on partition 0
 * (its top) and the last (its bottom), which no 2x2 reads: the
 * recursion checks the boundary unknowns it returns, not the tips. */
static int FN(fold_kernel)(int p, int parts, S *t)
{
  if (t[6] == 0 && t[7] == 0)
    return 1;
  int pin = p + 1 < parts ? 1 : 0; /* 1: the bottom tip; 0: the top */
  S den = 1 - t[6 + pin], kother = t[6 + !pin];
  if (den == 0 || !ISFINITE(den))
    return 0;
  for (int k = 0; k < 3; k++) { /* g, V, W */
    t[2 * k + pin] = t[2 * k + pin] / den;
    t[2 * k + !pin] = t[2 * k + !pin] + kother * t[2 * k + pin];
  }
  return 1;
}

/* Level after level, pairs of neighbouring segments merge (seg: 6 words
 * per segment, its partitions' span in lo/hi); the merges go into mg in
 * the order made. Returns the number made, or -(1 + the index of the
 * merge that failed). */
static int FN(merge_up)(int parts, S *seg, int *lo, int *hi, FN(spike_merge) * mg)
{
  int count = parts, made = 0;
  while (count > 1) {
    int next = 0;
    for (int k = 0; k < count; k += 2, next++) {
      if (k + 1 == count) { /* the odd one out waits for the next level */
        memmove(seg + 6 * next, seg + 6 * k, 6 * sizeof(S));
        lo[next] = lo[k], hi[next] = hi[k];
        continue;
      }
      FN(spike_merge) *m = &mg[made];
      m->lo = lo[k], m->hi = hi[k + 1], m->j = hi[k] - 1;
      S M[6];
      if (!FN(merge_segments)(seg + 6 * k, seg + 6 * (k + 1), M, m))
        return -(1 + made);
      memcpy(seg + 6 * next, M, sizeof M);
      lo[next] = m->lo, hi[next] = m->hi;
      made++;
    }
    count = next;
  }
  return made;
}

/* Phase 4 by recursive SPIKE on tips of `send` words per partition. */
static int FN(reduced_recursive_send)(int parts, size_t send, const S *tips, S *y, tl_info *info)
{
  if (parts < 2)
    return TL_OK;
  size_t P = (size_t)parts;
  S *seg = tl_alloc(6 * P, sizeof(S));
  int *span = tl_alloc(2 * P, sizeof(int));
  FN(spike_merge) *mg = tl_alloc(P, sizeof *mg);
  int status = TL_OK;
  if (!seg || !span || !mg) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "spike: no memory for the reduced system");
    goto cleanup;
  }
  int *lo = span, *hi = span + P;
  for (int p = 0; p < parts; p++) { /* level 0: the partitions' own tips */
    S t[TL_SPIKE_SEND_KERNEL] = {0};
    memcpy(t, tips + send * (size_t)p, send * sizeof(S));
    if (!FN(fold_kernel)(p, parts, t)) {
      status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, p + 1 < parts ? 2L * p : 2L * p - 1, "",
                       "spike: recursive SPIKE: the diagonal block of partition %d is singular "
                       "(1 - K = 0 at its pinned row), and recursive SPIKE needs every block "
                       "non-singular (reduced=band solves it)",
                       p);
      goto cleanup;
    }
    memcpy(seg + 6 * (size_t)p, t, 6 * sizeof(S));
    lo[p] = p, hi[p] = p + 1;
  }
  int made = FN(merge_up)(parts, seg, lo, hi, mg);
  if (made < 0) {
    const FN(spike_merge) *m = &mg[-made - 1];
    status = TL_FAIL(info, TL_ERR_BREAKDOWN, -1, 2L * m->j, "",
                     "spike: recursive SPIKE: the block of partitions %d..%d is singular, or "
                     "its 2x2 at interface %d|%d overflows (reduced=band pivots across "
                     "partitions)",
                     m->lo, m->hi - 1, m->j, m->j + 1);
    goto cleanup;
  }
  /* The way down: each merge's x_prev and x_next are already known. */
  for (int k = made; k-- > 0;) {
    const FN(spike_merge) *m = &mg[k];
    S xp = m->lo > 0 ? y[2 * m->lo - 2] : 0, xn = m->hi < parts ? y[2 * m->hi - 1] : 0;
    y[2 * m->j] = m->ug - m->uv * xn - m->uw * xp;
    y[2 * m->j + 1] = m->zg - m->zv * xn - m->zw * xp;
  }
  status = FN(reduced_finite)(2 * (P - 1), y, info);
cleanup:
  free(seg);
  free(span);
  free(mg);
  return status;
}

int FN(tl_spike_reduced_recursive)(int parts, const S *tips, S *y, tl_info *info)
{
  return FN(reduced_recursive_send)(parts, TL_SPIKE_SEND, tips, y, info);
}

int FN(tl_spike_reduced_recursive_kernel)(int parts, const S *tips, S *y, tl_info *info)
{
  return FN(reduced_recursive_send)(parts, TL_SPIKE_SEND_KERNEL, tips, y, info);
}

int FN(tl_spike_retrieve)(size_t begin, size_t m, int has_left, int has_right, const S *g,
                          const S *v, const S *w, S prev_bottom, S next_top, S *x, tl_info *info)
{
  return FN(tl_spike_retrieve_kernel)(begin, m, has_left, has_right, g, v, w, NULL, prev_bottom,
                                      next_top, 0, x, info);
}

/* k NULL: spike's retrieval (no kernel column). */
int FN(tl_spike_retrieve_kernel)(size_t begin, size_t m, int has_left, int has_right, const S *g,
                                 const S *v, const S *w, const S *k, S prev_bottom, S next_top,
                                 S pin, S *x, tl_info *info)
{
  for (size_t i = 0; i < m; i++) {
    S xi = g[i];
    if (has_right)
      xi = xi - v[i] * next_top;
    if (has_left)
      xi = xi - w[i] * prev_bottom;
    if (k)
      xi = xi + k[i] * pin;
    x[i] = xi;
  }
  size_t bad = FN(first_nonfinite)(m, x);
  if (bad < m)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + bad), "",
                   "spike: non-finite result at row %zu (retrieval)", begin + bad);
  return TL_OK;
}

/* Truncated SPIKE with a kernel variant: a partition whose block left a
 * column K != 0 couples its top and bottom rows, so the interfaces on
 * either side of it are not independent 2x2 systems: a breakdown naming
 * the first such partition. */
static int FN(kernel_untruncatable)(const tl_spike_variant *var, size_t n, int parts,
                                    const size_t *part_sizes, const S *tips, tl_info *info)
{
  for (int p = 0; p < parts; p++) {
    const S *t = tips + TL_SPIKE_SEND_KERNEL * (size_t)p;
    if (t[6] == 0 && t[7] == 0)
      continue;
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(p + 1 < parts ? hi - 1 : lo), "",
                   "%s: the diagonal block of partition %d (rows %zu..%zu) is singular or "
                   "nearly so: its modified block couples the interfaces on either side, which "
                   "truncated SPIKE solves apart; truncate=0 solves the whole reduced system",
                   var->name, p, lo, hi - 1);
  }
  return TL_OK;
}

/* Phase 4 on partition 0, whole (band or recursive) or truncated, its
 * breakdowns restated with rows of A and worded with the variant's name. */
int FN(tl_spike_phase4)(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n,
                        int parts, const size_t *part_sizes, const S *tips, S *y, tl_info *info)
{
  size_t send = var->kernel ? TL_SPIKE_SEND_KERNEL : TL_SPIKE_SEND;
  int truncate = mode && mode->truncate, recursive = mode && mode->recursive;
  if (truncate && var->kernel)
    TL_CALL(FN(kernel_untruncatable)(var, n, parts, part_sizes, tips, info));
  int status = truncate    ? FN(reduced_trunc_send)(parts, send, tips, y, info)
               : recursive ? FN(reduced_recursive_send)(parts, send, tips, y, info)
                           : FN(reduced_send)(parts, send, tips, y, info);
  if (status == TL_ERR_BREAKDOWN)
    status = truncate ? interface_failure(var->name, info, status, n, parts, part_sizes)
                      : tl_spike_reduced_failure(info, status, n, parts, part_sizes);
  return status < 0 ? tl_spike_named(var, status, info) : status;
}

/* Partition p's numbers for PDD's bookkeeping (reference/spike_bound.c),
 * in magnitudes (the bound reads nothing else): PDD's left spike v is
 * SPIKE's W, its right spike w SPIKE's V. mag: 5 m doubles. */
static void FN(trunc_part)(tl_pdd_part_d *pt, size_t n, int parts, int p, size_t lo, size_t hi,
                           const S *a, const S *b, const S *c, const S *v, const S *w,
                           const S *y, const S *x, double *mag)
{
  size_t m = hi - lo;
  double *am = mag, *bm = am + m, *cm = bm + m, *lv = cm + m, *rw = lv + m;
  *pt = (tl_pdd_part_d){.p = p, .parts = parts, .n = n, .begin = lo, .end = hi, .m = m,
                        .v = lv, .w = rw, .margin_row = -1, .spikes_lent = 1};
  tl_pdd_ref_spike_lengths_d(pt);
  for (size_t i = 0; i < m; i++) {
    am[i] = ABS(a[lo + i]);
    bm[i] = ABS(b[lo + i]);
    cm[i] = ABS(c[lo + i]);
    lv[i] = pt->kv ? ABS(w[lo + i]) : 0;
    rw[i] = pt->kw ? ABS(v[lo + i]) : 0;
    pt->xmax = fmax(pt->xmax, ABS(x[lo + i]));
  }
  tl_pdd_bound_local_d(pt, am, bm, cm);
  if (p > 0) { /* the values the 2x2 systems gave, as PDD's x_left */
    pt->x_left = ABS(y[2 * p - 2]);
    tl_pdd_bound_from_prev_d(pt, ABS(c[lo - 1]));
  }
  if (p + 1 < parts) {
    pt->x_right = ABS(y[2 * p + 1]);
    tl_pdd_bound_from_next_d(pt, ABS(a[hi]));
  }
}

/* Truncated SPIKE's first verdict: PDD's on what phase 4 dropped
 * (dominance, dropped <= tol; info->dropped, tol, bound). Its two
 * reductions are not recorded: the ledger stays spike's (the numbers
 * travel with the residual verdict's under MPI, were it built). */
static int FN(trunc_verdict)(const tl_spike_variant *var, double tol, size_t n, int parts,
                             const size_t *part_sizes, const S *a, const S *b, const S *c,
                             const S *v, const S *w, const S *y, const S *x, tl_info *info)
{
  tl_pdd_part_d *pt = tl_alloc((size_t)parts, sizeof *pt);
  double *mag = tl_alloc(5 * n, sizeof(double));
  int status = TL_OK;
  if (!pt || !mag) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the verdict", var->name);
    goto cleanup;
  }
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    FN(trunc_part)(&pt[p], n, parts, p, lo, hi, a, b, c, v, w, y, x, mag + 5 * lo);
  }
  status = tl_pdd_ref_reduce_d(pt, parts, tol, var->name, NULL, info);
cleanup:
  free(pt);
  free(mag);
  return status;
}

/* A kernel variant's column K of the partition at row lo (m rows): the
 * last m scalars of its factors. */
static const S *FN(kernel_of)(const tl_spike_variant *var, const S *f, size_t lo, size_t m)
{
  return f + var->words * lo + (var->words - 1) * m;
}

int FN(tl_spike_run)(const tl_spike_variant *var, size_t n, int parts, const size_t *part_sizes,
                     const S *a, const S *b, const S *c, const S *d, S *x, tl_ledger *ledger,
                     tl_info *info)
{
  return FN(tl_spike_run_mode)(var, NULL, n, parts, part_sizes, a, b, c, d, x, ledger, info);
}

int FN(tl_spike_run_mode)(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n,
                          int parts, const size_t *part_sizes, const S *a, const S *b, const S *c,
                          const S *d, S *x, tl_ledger *ledger, tl_info *info)
{
  const char *name = var->name;
  if (n == 0 || !a || !b || !c || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, n == 0 ? "n" : "array",
                   "%s: n must be >= 1 and no array may be NULL", name);
  if (parts < 1 || parts > TL_MAX_PARTS || (!part_sizes && n / (size_t)parts < 1))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "%s: %d partitions of %zu rows: every partition needs >= 1 row", name, parts,
                   n);
  size_t P = (size_t)parts, words = var->words;
  size_t send = var->kernel ? TL_SPIKE_SEND_KERNEL : TL_SPIKE_SEND;
  /* Scratch: the variant's factors (words n), g, V, W (3n), the tips
   * (send P), a flag byte per row. */
  S *mem = tl_alloc((words + 3) * n + send * P, sizeof(S));
  unsigned char *flags = tl_alloc(n, 1);
  if (!mem || !flags) {
    free(mem);
    free(flags);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for scratch", name);
  }
  S *f = mem, *g = f + words * n, *v = g + n, *w = v + n, *tips = w + n;
  int status = TL_OK;

  /* Phases 1-3 on every partition: local, no communication. */
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    int left = p > 0, right = p + 1 < parts;
    size_t m = hi - lo;
    TL_CHECK(var->FN(local)(lo, m, p, left, right, a + lo, b + lo, c + lo, d + lo,
                            f + words * lo, flags + lo, g + lo, v + lo, w + lo, info));
    const S *k = var->kernel ? FN(kernel_of)(var, f, lo, m) : NULL;
    if (k)
      FN(tl_spike_tips_kernel)(m, left, right, g + lo, v + lo, w + lo, k, tips + send * p);
    else
      FN(tl_spike_tips)(m, left, right, g + lo, v + lo, w + lo, tips + send * p);
    tl_spike_ledger_reduced(ledger, parts, p, WORDS, send, 0); /* the tips go to partition 0 */
  }
  /* Phases 4-5 and the verdict, from the tips, g, V and W. */
  status = FN(tl_spike_finish)(var, mode, n, parts, part_sizes, a, b, c, d, f, g, v, w, tips, x,
                               ledger, info);
cleanup:
  free(mem);
  free(flags);
  return status;
}

int FN(tl_spike_finish)(const tl_spike_variant *var, const tl_spike_mode *mode, size_t n,
                        int parts, const size_t *part_sizes, const S *a, const S *b, const S *c,
                        const S *d, const S *f, const S *g, const S *v, const S *w, const S *tips,
                        S *x, tl_ledger *ledger, tl_info *info)
{
  int truncate = mode && mode->truncate, status = TL_OK;
  size_t send = var->kernel ? TL_SPIKE_SEND_KERNEL : TL_SPIKE_SEND;
  const char *name = var->name;
  S *y = tl_alloc(2 * (size_t)parts, sizeof(S)); /* the reduced solution */
  if (!y)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for scratch", name);
  /* Phase 4 on partition 0: the reduced system (truncated: its 2x2
   * systems, which the neighbours could solve instead; not built). */
  status = FN(tl_spike_phase4)(var, mode, n, parts, part_sizes, tips, y, info);
  if (status < 0)
    goto cleanup;
  /* Phase 5 on every partition, with its two boundary unknowns (the scatter). */
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    int left = p > 0, right = p + 1 < parts;
    tl_spike_ledger_reduced(ledger, parts, p, WORDS, send, 1);
    const S *k = var->kernel ? FN(kernel_of)(var, f, lo, hi - lo) : NULL;
    S pin = right ? y[2 * p] : left ? y[2 * p - 1] : 0; /* its own pinned unknown */
    int st = FN(tl_spike_retrieve_kernel)(lo, hi - lo, left, right, g + lo, v + lo, w + lo, k,
                                          left ? y[2 * p - 2] : 0, right ? y[2 * p + 1] : 0, pin,
                                          x + lo, info);
    TL_CHECK(tl_spike_named(var, st, info));
  }
  /* The verdict (under MPI, a halo exchange and three reductions): a
   * guarantee only for a strictly row-dominant A; there, LAPACK's
   * residual ratio of x must pass. */
  tl_ledger_residual_verdict(ledger, parts, 0, 1, WORDS);
  if (truncate) {
    status = FN(trunc_verdict)(var, mode->tol, n, parts, part_sizes, a, b, c, v, w, y, x, info);
    if (status != TL_OK)
      goto cleanup;
  }
  long worst = -1;
  if (!(CLASSES(n, a, b, c, 0, &worst) & TL_CLASS_STRICT_DD)) {
    status = TL_WARN(info, worst,
                     "%s: matrix is not strictly row diagonally dominant (row %ld); %s", name,
                     worst, TL_SPIKE_DD_WHY);
    goto cleanup;
  }
  status = tl_residual_check(name, TL_IS_COMPLEX ? TL_C128 : TL_F64, n, 0, a, b, c, d, x,
                             TL_SPIKE_RESIDUAL_WHY, info);
cleanup:
  free(y);
  return status;
}

int FN(tl_spike_ref_ledger)(size_t n, int parts, const size_t *part_sizes, const S *a, const S *b,
                            const S *c, const S *d, S *x, tl_ledger *ledger, tl_info *info)
{
  return FN(tl_spike_run)(&tl_spike_partial, n, parts, part_sizes, a, b, c, d, x, ledger, info);
}

#endif
