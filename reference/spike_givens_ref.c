/* reference/spike_givens_ref.c -- SPIKE whose blocks are factored by
 * Givens rotations (A_p = Q R, no pivoting), and which goes on where a
 * block is singular, simulated serially phase by phase.
 *
 * Source: Venetis, Kouris, Sobczyk, Gallopoulos and Sameh, "A direct
 * tridiagonal solver based on Givens rotations for GPU architectures",
 * Parallel Computing 49 (2015) 101-116 (g-Spike): SPIKE's
 * partitioning (E. Polizzi and A. H. Sameh, Parallel Computing 32 (2006),
 * as reference/spike_ref.c) with every block factored by Givens
 * rotations, QR without pivoting, and "a low-rank modification strategy
 * to compute the Spike DS decomposition even when the partitioning
 * defines singular submatrices along the diagonal" (its abstract). Only
 * the abstract was at hand: the modification below -- which entry is
 * changed, by how much, and how the reduced system absorbs it -- is
 * derived here, not transcribed, and may differ from the paper's
 * (docs/algorithms/spike_givens.md says so). Givens rotations: Golub and
 * Van Loan, Matrix Computations, 4th ed., §5.1.8-5.1.9 and §5.2.5.
 *
 * Partitions, tips, reduced system, retrieval, ledger and verdict are
 * spike's driver (tl_spike_run_* in reference/spike_ref.c) with its
 * kernel columns (tl_spike_variant.kernel); this file is phases 1-2 and
 * the registry entry.
 *
 * THE FACTORIZATION. Rotation G_i = [cs_i, sn_i; -conj(sn_i), cs_i] on
 * rows i, i+1 zeroes the subdiagonal entry a_i+1 against the current
 * diagonal entry; row i+1's c then lands two places right of the
 * diagonal in row i. After the m - 1 rotations Q^H A_p = R, upper
 * triangular with TWO superdiagonals (m = 5; + the fill-in):
 *
 *   | b0 c0          |        | r0 r1 +        |   R(i,i)   = r0[i]
 *   | a1 b1 c1       |        |    r0 r1 +     |   R(i,i+1) = r1[i]
 *   |    a2 b2 c2    |   ->   |       r0 r1 +  |   R(i,i+2) = r2[i]
 *   |       a3 b3 c3 |        |          r0 r1 |   (+: sn_i c_i+1)
 *   |          a4 b4 |        |             r0 |
 *
 * the band partial pivoting gives (spike_ref.c's picture), but every
 * step is a rotation -- no choice, no branch -- and Q is orthogonal, so
 * each local solve is backward stable (Golub and Van Loan §5.2.5) with
 * no growth factor at all.
 *
 * WHERE A SINGULAR BLOCK SHOWS. R(i,i) = sqrt(|r|^2 + |a_i+1|^2) for
 * i < m-1, so while the block is irreducible (no a_i+1 = 0 inside it)
 * only the LAST diagonal entry of R can vanish: rank A_p >= m - 1, and
 * A_p is singular exactly when R(m-1,m-1) = 0. Its left null vector is
 * q = Q e_last (e_last^T R = R(m-1,m-1) e_last^T = 0).
 *
 * THE MODIFICATION (derived here). Replace R(m-1,m-1) = r by delta != 0
 * (when, below):
 *   R' = R + (delta - r) e_last e_last^T,   A_p' = Q R' = A_p + s q e_last^T,
 * s = delta - r: a rank-one change of the block's last column. Take
 * D' = diag(A_p') instead of SPIKE's D = diag(A_p). Then S = D'^-1 A is
 * still the identity with the spikes V = A_p'^-1 (c e_last), W =
 * A_p'^-1 (a e_first), except in the modified block's last column:
 *   S_pp = A_p'^-1 A_p = I - A_p'^-1 (s q) e_last^T = I - K e_last^T,
 *   K = s A_p'^-1 q = s R'^-1 Q^H q = R'^-1 (s e_last)
 * (one back substitution: K is the null vector of A_p, scaled so that
 * K_last = s / delta = 1 - r / delta; K_last = 1 exactly when r = 0, so
 * S_pp's diagonal has a 0 where A_p was singular). Block p of S x = g' =
 * D'^-1 d says
 *   x_p = g' - V x_next[top] - W x_prev[bottom] + K x_p[last]      (*)
 * and x_p[last] is the partition's bottom boundary unknown: the reduced
 * system keeps its 2(P-1) unknowns and its band, and gains -K top and
 * -K bottom in that unknown's column (tl_spike_reduced_kernel_*):
 *
 *   row of p's top:     y_top    - K_top y_bot + W_top y_prev + V_top y_next = g'_top
 *   row of p's bottom:  (1 - K_bot) y_bot      + W_bot y_prev + V_bot y_next = g'_bot
 *
 * With r = 0 the second row has no y_bot at all: it is the condition
 * q^H (d_p - c e_last y_next - a e_first y_prev) = 0 (scaled by 1/delta)
 * that makes block p's equations solvable, and y_bot is fixed by the
 * neighbour's rows instead. A is nonsingular exactly when this reduced
 * system is (det A = prod det A_p' det S, and S's determinant is the
 * reduced system's), so the pivoted band solve of the driver (DGBSV)
 * solves it wherever A is nonsingular; a singular A gives a singular
 * reduced system -- a breakdown -- or, where rounding hides it, an
 * answer the verdict calls outside-domain. Then (*) is the retrieval
 * (tl_spike_retrieve_kernel_*). Every step is exact algebra for any r
 * and delta: the modification changes what is solved where, not x.
 *
 * The last partition has no bottom boundary unknown: it factors J A_p J
 * (J the reversal: the block bottom up), so that its modification lands
 * on its FIRST column and (*) uses its top boundary unknown. One
 * partition (P = 1) has neither: there an R(m-1,m-1) = 0 means A is
 * singular, a breakdown.
 *
 * WHEN TO MODIFY. QR meets a singular block as an r of rounding size
 * (1e-17 on the gallery's [1 3; 1/3 1]), not as 0, so the test needs a
 * threshold; it compares the two ways of carrying the block's near-null
 * vector nu (A_p nu = r q, nu_last = 1):
 *  - unmodified, V, W and g carry nu with weights up to w / |r|,
 *    w = max(|q_first| |a_first|, |q_last| |c_last|): the couplings reach
 *    the near-null direction only through q's end entries (q^H (c e_last)
 *    = conj(q_last) c), and so does g's right-hand side, up to r x_last
 *    (q^H d_p = r x_last + the coupling terms). The retrieval cancels
 *    these large terms against each other and loses that factor;
 *  - modified, K carries it with weight 1 - r / delta, at most about 1,
 *    times the pinned unknown.
 * So r is replaced where |r| <= TL_SPIKE_GIVENS_TAU w (tau = 1/8: where
 * the block's own spikes would carry nu 8 times as heavily as K).
 * |q_last| = cs_m-2 and |q_first| = prod |sn_i| come with the rotations.
 * On the gallery every tau from 2^-5 to 1 gives the same verdicts; below
 * it nearly singular blocks stay unmodified and lose accuracy, and from 2
 * up the weakly dominant M-matrices lose it instead: there w / |r| is
 * about 1, and their smooth near-null vector is small at the block's end,
 * so K = nu / nu_last reaches about 200 (docs/algorithms/spike_givens.md,
 * "When to modify"). delta, the value R(m-1,m-1) takes, is the largest of the
 * |R(i,i)| and the couplings: any nonzero value is exact; this one keeps
 * R' scaled as R.
 *
 * Where an inner R(i,i) is 0 (a zero subdiagonal entry splits the block
 * and the part above it is singular) the null vector's last entry is 0:
 * no boundary unknown can carry it, and that is a breakdown naming the
 * partition, as spike's.
 *
 * Where it is guaranteed, and the verdict: spike's (tl_spike_run_*): a
 * strictly row-dominant A with a residual ratio below 30 is ok; anything
 * else gets its answer written and outside-domain.
 *
 * Cost per partition of m rows: the factorization m - 1 rotations (a
 * hypot, 3 divisions and 2 products for the rotation, 8 flops into R and
 * the next row: about 13m and m square roots), the test m products,
 * three solves of 11m (Q^H 6m, the back substitution 5m), K 5m where a
 * block was modified, retrieval 6m (K's term): about 53m flops (spike:
 * about 24m, spike_dp: 25m).
 * Memory: 6m words of factors (cs, sn, r0, r1, r2, K) and g, V, W: 9m.
 * Communication: spike's gather with 8 words per partition instead of 6
 * (K's two tips), 2 back.
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/part_spike_givens.h"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "spike_givens_ref.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "spike_givens_ref.c"
#undef TL_TEMPLATE_PASS

const tl_spike_variant tl_spike_givens = {
    .name = "spike_givens",
    .words = 6, /* cs, sn, r0, r1, r2, K (last, as the driver reads it) */
    .kernel = 1,
    .local_d = givens_local_d,
    .local_z = givens_local_z,
};

static int spike_givens_system(const tl_algorithm *self, const tl_batch *one, void *x,
                               const tl_options *opt, tl_info *info)
{
  return tl_spike_system(&tl_spike_givens, self, one, x, opt, info);
}

static int spike_givens_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                              const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, spike_givens_system);
}

/* spike's messages with K's two tips: 8 scalars per partition to
 * partition 0, 3 back (its pinned unknown besides spike's 2), the
 * verdict. */
static int spike_givens_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                                     const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  (void)self;
  (void)solved;
  tl_spike_ledger_model_send(shape, opt, TL_SPIKE_SEND_KERNEL, out);
  return TL_OK;
}

/* spike's classes and verdict: what it adds is that a singular block is
 * no longer a breakdown, not a guarantee off strict dominance. */
const tl_algorithm tl_algo_spike_givens_ref = {
    .name = "spike_givens",
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
    .summary = "SPIKE with blocks factored by Givens rotations (QR), a singular block taken by "
               "a rank-one modification the reduced system absorbs, pivoted band solve, "
               "retrieval",
    .source = "Venetis, Kouris, Sobczyk, Gallopoulos and Sameh, Parallel Computing 49 (2015) "
              "(g-Spike; the modification derived here); Polizzi and Sameh 2006 (SPIKE)",
    .solve = spike_givens_solve,
    .ledger_model = spike_givens_ledger_model,
    .dropped_means = "truncate=1: the largest far spike entry dropped, as spike's and pdd's",
    .bound_means = "truncate=1: ||x - x_exact||_inf / ||x||_inf, as spike's and pdd's",
};

#else /* ---- the algorithm, once for S = double and S = double complex ---- */

#undef CONJ
#if TL_IS_COMPLEX
#define CONJ(v) conj(v)
#else
#define CONJ(v) (v)
#endif

/* The entries of the matrix being factored: the block A_p, or J A_p J
 * (its rows and columns reversed) when flip. Its diagonal entry i, its
 * subdiagonal entry (i+1, i) and its superdiagonal entry (i, i+1). */
static S FN(diag_at)(const S *b, size_t m, int flip, size_t i)
{
  return b[flip ? m - 1 - i : i];
}

static S FN(sub_at)(const S *a, const S *c, size_t m, int flip, size_t i)
{
  return flip ? c[m - 2 - i] : a[i + 1];
}

static S FN(sup_at)(const S *a, const S *c, size_t m, int flip, size_t i)
{
  return flip ? a[m - 1 - i] : c[i];
}

/* The rotation that takes [x; z] to [rho; 0]: cs real, cs^2 + |sn|^2 =
 * 1, rho = (x / |x|) sqrt(|x|^2 + |z|^2) (hypot: no overflow near 1e308,
 * no underflow near 1e-308). */
static void FN(rotation)(S x, S z, S *cs, S *sn, S *rho)
{
  if (z == 0) {
    *cs = 1, *sn = 0, *rho = x;
  } else if (x == 0) {
    *cs = 0, *sn = CONJ(z) / ABS(z), *rho = ABS(z);
  } else {
    double ax = ABS(x), r = hypot(ax, ABS(z));
    S phase = x / ax;
    *cs = ax / r, *sn = phase * (CONJ(z) / r), *rho = phase * r;
  }
}

static int FN(inner_zero)(size_t begin, size_t m, int part, int flip, size_t i, tl_info *info)
{
  size_t row = begin + (flip ? m - 1 - i : i);
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)row, "",
                 "spike_givens: the diagonal block of partition %d (rows %zu..%zu) is singular "
                 "inside: R(%zu,%zu) = 0 at row %zu, where a zero subdiagonal entry splits it; "
                 "no boundary unknown can carry its null vector; other partition sizes may "
                 "avoid it (gtsv solves the whole matrix)",
                 part, begin, begin + m - 1, i, i, row);
}

int FN(tl_spike_givens_factor)(size_t begin, size_t m, int part, int flip, const S *a, const S *b,
                               const S *c, S *cs, S *sn, S *r0, S *r1, S *r2, tl_info *info)
{
  /* Row i of what is left, before rotation i: x at column i, y at i+1. */
  S x = FN(diag_at)(b, m, flip, 0), y = m > 1 ? FN(sup_at)(a, c, m, flip, 0) : 0;
  for (size_t i = 0; i + 1 < m; i++) {
    S z = FN(sub_at)(a, c, m, flip, i), bb = FN(diag_at)(b, m, flip, i + 1);
    S cc = i + 2 < m ? FN(sup_at)(a, c, m, flip, i + 1) : 0; /* row i+1's c, inside the block */
    FN(rotation)(x, z, &cs[i], &sn[i], &r0[i]);
    if (r0[i] == 0) /* x = z = 0: column i of what is left is zero */
      return FN(inner_zero)(begin, m, part, flip, i, info);
    r1[i] = cs[i] * y + sn[i] * bb;
    r2[i] = sn[i] * cc; /* the fill-in */
    x = -CONJ(sn[i]) * y + cs[i] * bb;
    y = cs[i] * cc;
  }
  cs[m - 1] = 1, sn[m - 1] = 0;
  r0[m - 1] = x, r1[m - 1] = 0, r2[m - 1] = 0;
  for (size_t i = 0; i < m; i++)
    if (!ISFINITE(r0[i]) || !ISFINITE(r1[i]) || !ISFINITE(r2[i]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + (flip ? m - 1 - i : i)), "",
                     "spike_givens: the QR factorization of the block of partition %d (rows "
                     "%zu..%zu) is not finite at R(%zu,%zu)",
                     part, begin, begin + m - 1, i, i);
  return TL_OK;
}

S FN(tl_spike_givens_shift)(size_t m, const S *cs, const S *sn, S *r0, double top, double bottom)
{
  /* |q| at both ends of q = Q e_last: Q^H = G_m-2 ... G_0, so q_last =
   * cs_m-2 and |q_0| = prod |sn_i|. */
  double q0 = 1;
  for (size_t i = 0; i + 1 < m; i++)
    q0 *= ABS(sn[i]);
  double qm = m > 1 ? ABS(cs[m - 2]) : 1, weight = fmax(q0 * top, qm * bottom);
  double delta = fmax(top, bottom);
  for (size_t i = 0; i < m; i++)
    delta = fmax(delta, ABS(r0[i]));
  S r = r0[m - 1];
  if (delta == 0 || weight == 0 || ABS(r) > TL_SPIKE_GIVENS_TAU * weight)
    return 0;
  r0[m - 1] = delta;
  return delta - r;
}

/* y = R'^-1 y: back substitution on the three diagonals of R'. */
static void FN(back_substitute)(size_t m, const S *r0, const S *r1, const S *r2, S *y)
{
  for (size_t i = m; i-- > 0;) {
    S t = y[i];
    if (i + 1 < m)
      t = t - r1[i] * y[i + 1];
    if (i + 2 < m)
      t = t - r2[i] * y[i + 2];
    y[i] = t / r0[i];
  }
}

static void FN(reverse)(size_t m, S *y)
{
  for (size_t i = 0, j = m - 1; i < j; i++, j--) {
    S t = y[i];
    y[i] = y[j];
    y[j] = t;
  }
}

void FN(tl_spike_givens_solve_block)(size_t m, int flip, const S *cs, const S *sn, const S *r0,
                                     const S *r1, const S *r2, S *y)
{
  if (flip) /* (J A J)^-1 = J A^-1 J */
    FN(reverse)(m, y);
  for (size_t i = 0; i + 1 < m; i++) { /* Q^H y: the rotations, in order */
    S t0 = y[i], t1 = y[i + 1];
    y[i] = cs[i] * t0 + sn[i] * t1;
    y[i + 1] = -CONJ(sn[i]) * t0 + cs[i] * t1;
  }
  FN(back_substitute)(m, r0, r1, r2, y);
  if (flip)
    FN(reverse)(m, y);
}

void FN(tl_spike_givens_kernel)(size_t m, int flip, const S *r0, const S *r1, const S *r2, S shift,
                                S *k)
{
  memset(k, 0, m * sizeof *k);
  if (shift == 0)
    return;
  k[m - 1] = shift;
  FN(back_substitute)(m, r0, r1, r2, k);
  if (flip)
    FN(reverse)(m, k);
}

/* Phase 1's factors, as tl_spike_local_apply hands them to the block solve. */
typedef struct FN(givens_qr) {
  const S *cs, *sn, *r0, *r1, *r2;
  int flip;
} FN(givens_qr);

static void FN(qr_apply)(const void *factors, size_t m, void *y)
{
  const FN(givens_qr) *f = factors;
  FN(tl_spike_givens_solve_block)(m, f->flip, f->cs, f->sn, f->r0, f->r1, f->r2, y);
}

int FN(tl_spike_givens_local)(size_t begin, size_t m, int has_left, int has_right, int flip,
                              const S *a, const S *c, const S *d, const S *cs, const S *sn,
                              const S *r0, const S *r1, const S *r2, S *g, S *v, S *w,
                              tl_info *info)
{
  FN(givens_qr) f = {cs, sn, r0, r1, r2, flip};
  return FN(tl_spike_local_apply)("spike_givens", begin, m, has_left, has_right, a, c, d,
                                  FN(qr_apply), &f, g, v, w, info);
}

/* R(m-1,m-1) = 0 where no boundary unknown can carry the null vector:
 * one partition (A itself is singular), or a 1x1 zero block with zero
 * couplings (a zero row of A). */
static int FN(singular)(size_t begin, size_t m, int part, int alone, tl_info *info)
{
  if (alone)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + m - 1), "",
                   "spike_givens: the matrix is singular: R(%zu,%zu) of its QR factorization "
                   "is zero (one partition)",
                   m - 1, m - 1);
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)begin, "",
                 "spike_givens: row %zu of the matrix is zero (partition %d): the matrix is "
                 "singular",
                 begin, part);
}

/* spike_givens's phases 1-2 on one partition (tl_spike_givens): f is
 * cs, sn, r0, r1, r2 and K (m scalars each); the first flag byte says
 * whether the block was flipped and modified. The last partition flips,
 * so that its pinned unknown is its top, the one the reduced system has. */
static int FN(givens_local)(size_t begin, size_t m, int part, int has_left, int has_right,
                            const S *a, const S *b, const S *c, const S *d, S *f,
                            unsigned char *flags, S *g, S *v, S *w, tl_info *info)
{
  S *cs = f, *sn = cs + m, *r0 = sn + m, *r1 = r0 + m, *r2 = r1 + m, *k = r2 + m;
  int flip = has_left && !has_right;
  TL_CALL(FN(tl_spike_givens_factor)(begin, m, part, flip, a, b, c, cs, sn, r0, r1, r2, info));
  /* The couplings at the first and last row of what was factored. */
  double left = has_left ? ABS(a[0]) : 0, right = has_right ? ABS(c[m - 1]) : 0;
  S shift = FN(tl_spike_givens_shift)(m, cs, sn, r0, flip ? right : left, flip ? left : right);
  if (r0[m - 1] == 0)
    return FN(singular)(begin, m, part, !has_left && !has_right, info);
  memset(flags, 0, m);
  flags[0] = (unsigned char)((flip ? TL_SPIKE_GIVENS_FLIPPED : 0) |
                             (shift != 0 ? TL_SPIKE_GIVENS_SHIFTED : 0));
  FN(tl_spike_givens_kernel)(m, flip, r0, r1, r2, shift, k);
  return FN(tl_spike_givens_local)(begin, m, has_left, has_right, flip, a, c, d, cs, sn, r0, r1, r2,
                                   g, v, w, info);
}

int FN(tl_spike_givens_ref_ledger)(size_t n, int parts, const size_t *part_sizes, const S *a,
                                   const S *b, const S *c, const S *d, S *x, tl_ledger *ledger,
                                   tl_info *info)
{
  return FN(tl_spike_run)(&tl_spike_givens, n, parts, part_sizes, a, b, c, d, x, ledger, info);
}

#endif
