/* reference/ptdma_ref.c -- the parallel tridiagonal algorithm (P-TDMA) of
 * CaNS: a cyclic-reduction step per partition, a reduced system of 2P
 * rows solved by Thomas, and the reconstruction of the interior.
 *
 * Source: paper 001 (CaNS), §2.2.3 (steps 4-6: reduce, transpose the
 * boundary rows, solve the reduced systems of size 2 p_z, transpose back
 * and reconstruct) and §2.2.4 (eqs. (13), (14); Algorithm 1, the
 * cyclic-reduction step; Algorithm 2, the flavour split into an
 * initialization with pre-computed coefficients and a runtime step). The
 * paper takes the method from its refs. [16, 18]; the same local
 * reduction is the first phase of the hybrid algorithm of paper 000
 * (DistD2-TDS) §2.2.1 (Algorithms 2, 3).
 *
 * Symbols (paper -> ours). Paper rows i = 0..m-1 of one partition are our
 * local rows (global k = begin + i); the paper's phi is our x; Algorithm
 * 1's in-place (a, b, c, d) are our inputs A, B, C, D and outputs a, c, d
 * (b = 1, line 20); Algorithm 2's (A, B, C) are our A, B, C, its (a, b, c)
 * our a, b, c; x_0 and x_{m-1} of step 3/4 are x_first, x_last. Paper
 * eq. (14)'s a', c', d' are our a, c, d of Algorithm 1. The non-periodic
 * corners A[0], C[n-1] count as 0 and are never read.
 *
 * Step 1, per partition (Algorithm 1 lines 3-20 / Algorithm 2 step 1-2):
 * rows 0 and 1 stay; a forward pass from row 2 eliminates the lower
 * diagonal but keeps x_0 as a column; a backward pass from row m-3 to 1
 * eliminates the upper diagonal but keeps x_{m-1}; row 0 absorbs row 1.
 * m = 6 rows, neighbours as columns L and R:
 *
 *      L  0  1  2  3  4  5  R          L  0  1  2  3  4  5  R
 *   0  A  B  C                      0  a  b              c
 *   1     A  B  C                   1     a  b           c
 *   2        A  B  C          ->    2     a     b        c
 *   3           A  B  C             3     a        b     c
 *   4              A  B  C          4     a           b  c
 *   5                 A  B  C       5     a              b  c
 *
 * Step 2: rows 0 and m-1 of every partition form a tridiagonal system of
 * 2P rows in the unknowns (x_first, x_last) of partitions 0..P-1 (the
 * rows CaNS transposes to z-aligned pencils; here gathered into arrays):
 *
 *   | b0 c0             |    row 2p:   a x_last(p-1) + b x_first(p) + c x_last(p)
 *   | a1 b1 c1          |    row 2p+1: a x_first(p)  + b x_last(p)  + c x_first(p+1)
 *   |    a2 b2 c2       |
 *   |       a3 b3 c3    |    periodic: corners a0 (row 0 <- x_last(P-1)) and
 *   |          a4 b4 c4 |    c_{2P-1} (row 2P-1 <- x_first(0)): cyclic, solved
 *   |             a5 b5 |    with periodic Thomas (Sherman-Morrison).
 *
 * Step 3 (Algorithm 1 lines 24-30 / Algorithm 2 lines 30-36):
 * x_k = (d_k - a_k x_first - c_k x_last) / b_k for the interior rows.
 *
 * Cost per partition of m rows. Algorithm 1: about 14m flops for the
 * reduction (3 divisions per row become 1 reciprocal), 4m for the
 * reconstruction; reads A, B, C, D, writes x with 3m words of scratch.
 * Algorithm 2: initialization about 10m flops once per matrix, runtime
 * 6m flops (reduction) + 5m (reconstruction) per right-hand side, reading
 * A, C, b, a, c, d: the paper keeps (A, C) because only d changes at
 * runtime (its note: store 1/b to avoid divisions; we keep b, as
 * printed). Communication: each partition sends its two boundary rows,
 * 4 words each with Algorithm 1 and 1 word each with Algorithm 2 (the
 * coefficients are gathered once with the plan), to the rank(s) solving
 * the reduced system (an all-to-all transpose in CaNS), and receives 2
 * values back: 2 synchronisation steps per solve. Reduced system: 8 * 2P
 * flops (Thomas), about twice that when periodic.
 *
 * Stability: the local reduction is Thomas on the partition's interior
 * block with two extra columns; for a row diagonally dominant matrix the
 * pivots do not shrink below the dominance margin, the kept columns obey
 * |a_k| + |c_k| <= |b_k| (maximum principle), and the reduced system is
 * row diagonally dominant again, so Thomas on it is stable. That chain
 * holds in exact arithmetic; in floating point the kept columns a_k, c_k
 * are the boundary weights of the partition's interior block, and where
 * that block is singular to working precision they are rounding noise.
 * Measured (issue 22) on MATLAB's gallery('dorr', n, 1e-4), row dominant
 * with zero margin inside and a true condition number far beyond 1/eps:
 * at n = 255, P = 3 the reduced row of partition 1's first row reads
 * [-6.55, 6.55, -41.8], (|a| + |c|) / |b| - 1 = 6.4 (up to 13.6 over
 * n <= 4096, P <= 16), and the split flavour returned ok with a residual
 * ratio of 3.7e12 (d' of the middle partition grows to 5.6e19 at n =
 * 512). Thomas on the whole matrix has no such step: it never forms the
 * weights. So the reduced solve checks the hypothesis as computed and
 * returns TL_OUTSIDE_DOMAIN when a reduced row misses dominance by more
 * than TL_PTDMA_REDUCED_SLACK = 1e-8 relative; rounding alone stays far
 * below that on the well-posed weakly dominant types (measured at most
 * 7.7e-12 on mmatrix-weak-random and 2.7e-13 on the Dorr matrix with
 * theta = 2e-3, n <= 4096, P <= 16). Since a weakly dominant matrix can
 * be refused this way, the class the registry promises is STRICT_DD (as
 * for the other partition algorithms): there every reduced row keeps a
 * margin that rounding cannot take away unless the margin is itself near
 * eps. A weakly dominant matrix is still solved (tridiag(-1, 2, -1) and
 * the gallery's weak types pass); a refusal there is reported, not a
 * broken promise. Outside row dominance (periodic: strict dominance,
 * which periodic Thomas needs) the solve returns TL_OUTSIDE_DOMAIN. A zero or non-finite pivot is
 * TL_ERR_BREAKDOWN at its global row. Every partition needs m >= 2 rows:
 * with m = 1 its first and last unknown coincide. Algorithm 1 and 2 as
 * printed need m >= 3 (the absorption of row 1 by row 0); with m = 2
 * both rows are already boundary rows and that step is skipped.
 *
 * Underflow (found by fuzzing). Algorithm 2 reconstructs an interior row
 * as x_k = (d_k - a_k x_first - c_k x_last) / b_k, from a row that the
 * boundary rows eliminated exactly: where those terms are subnormal they
 * carry an absolute error up to eps DBL_MIN, and the division by b_k
 * hands it to the boundary rows' residuals multiplied by their coupling
 * over b_k, of any size when rows are scaled very differently (as in
 * cr_ref.c; residual ratio 2e7 on a dominant batch near 1e-246 with d
 * subnormal). Then the plan measures LAPACK's residual ratio of x and
 * returns TL_OUTSIDE_DOMAIN at 30 or more. Algorithm 1 reconstructs from
 * the rows scaled to a unit diagonal, in the scale of x, where such an
 * error is the rounding of x itself.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_ptdma.h"

/* The corners of a non-periodic system are zero and never read. A
 * phase holds its partition's rows from global row `begin` on: its local
 * row i is the system's row begin + i. */
static double lower_at(size_t n, int periodic, const double *A, size_t begin, size_t i)
{
  (void)n;
  return (begin + i == 0 && !periodic) ? 0.0 : A[i];
}

static double upper_at(size_t n, int periodic, const double *C, size_t begin, size_t i)
{
  return (begin + i + 1 == n && !periodic) ? 0.0 : C[i];
}

static int bad(double v)
{
  return v == 0 || !isfinite(v);
}

static int breakdown(tl_info *info, size_t row, const char *where)
{
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)row, "",
                 "ptdma: zero or non-finite pivot at row %zu (%s); the matrix is far from "
                 "diagonally dominant",
                 row, where);
}

/* ---------------------------------------------------------------- */
/* Algorithm 1: the cyclic-reduction step, unit diagonal             */

int tl_ptdma_reduce_d(size_t n, int periodic, size_t begin, size_t end, const double *A,
                      const double *B, const double *C, const double *D, double *a, double *c,
                      double *d, tl_info *info)
{
  size_t m = end - begin;
  const double *Bp = B, *Dp = D; /* the partition's rows, from row begin */
  double *ap = a, *cp = c, *dp = d;
  /* Lines 3-4: rows 0 and 1 scaled to a unit diagonal. */
  for (size_t i = 0; i < 2; i++) {
    if (bad(Bp[i]))
      return breakdown(info, begin + i, "diagonal of a partition's first rows");
    ap[i] = lower_at(n, periodic, A, begin, i) / Bp[i];
    cp[i] = upper_at(n, periodic, C, begin, i) / Bp[i];
    dp[i] = Dp[i] / Bp[i];
  }
  /* Lines 5-10: forward pass, row i keeps x_0 in a_i. */
  for (size_t i = 2; i < m; i++) {
    double Ai = lower_at(n, periodic, A, begin, i);
    double pivot = Bp[i] - Ai * cp[i - 1];
    if (bad(pivot))
      return breakdown(info, begin + i, "forward pass");
    double r = 1.0 / pivot;
    dp[i] = r * (Dp[i] - Ai * dp[i - 1]);
    cp[i] = r * upper_at(n, periodic, C, begin, i);
    ap[i] = -r * Ai * ap[i - 1];
  }
  /* Lines 11-15: backward pass from m-3 to 1, row i keeps x_{m-1} in c_i. */
  for (size_t i = m - 2; i-- > 1;) {
    dp[i] -= cp[i] * dp[i + 1];
    ap[i] -= cp[i] * ap[i + 1];
    cp[i] = -cp[i] * cp[i + 1];
  }
  /* Lines 16-19: row 0 absorbs row 1 (m = 2: row 1 is the last row). */
  if (m >= 3) {
    double pivot = 1.0 - ap[1] * cp[0];
    if (bad(pivot))
      return breakdown(info, begin, "absorption of row 1 by row 0");
    double r = 1.0 / pivot;
    dp[0] = r * (dp[0] - cp[0] * dp[1]);
    ap[0] = r * ap[0];
    cp[0] = -r * cp[0] * cp[1];
  }
  for (size_t i = 0; i < m; i++)
    if (!isfinite(ap[i]) || !isfinite(cp[i]) || !isfinite(dp[i]))
      return breakdown(info, begin + i, "overflow in the reduction");
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Algorithm 2: initialization and runtime                           */

int tl_ptdma_init_d(size_t n, int periodic, size_t begin, size_t end, const double *A,
                    const double *B, const double *C, double *a, double *b, double *c,
                    tl_info *info)
{
  size_t m = end - begin;
  const double *Bp = B; /* the partition's rows, from row begin */
  double *ap = a, *bp = b, *cp = c;
  /* Lines 3-4 (and rows 0, 1 of an m = 2 partition). */
  for (size_t i = 0; i < 2; i++) {
    if (bad(Bp[i]))
      return breakdown(info, begin + i, "diagonal of a partition's first rows");
    ap[i] = lower_at(n, periodic, A, begin, i);
    bp[i] = Bp[i];
    cp[i] = upper_at(n, periodic, C, begin, i);
  }
  /* Lines 5-8: forward; ratios first, so entries near overflow stay finite. */
  for (size_t i = 2; i < m; i++) {
    double Ai = lower_at(n, periodic, A, begin, i);
    bp[i] = Bp[i] - Ai * (upper_at(n, periodic, C, begin, i - 1) / bp[i - 1]);
    if (bad(bp[i]))
      return breakdown(info, begin + i, "forward pass");
    ap[i] = -Ai * (ap[i - 1] / bp[i - 1]);
    cp[i] = upper_at(n, periodic, C, begin, i); /* lines 9-10 for i = m-1, m-2 */
  }
  /* Lines 11-14: backward from m-3 to 1. */
  for (size_t i = m - 2; i-- > 1;) {
    double Ci = upper_at(n, periodic, C, begin, i);
    ap[i] -= Ci * (ap[i + 1] / bp[i + 1]);
    cp[i] = -Ci * (cp[i + 1] / bp[i + 1]);
  }
  /* Lines 15-17: row 0 absorbs row 1 (b_1 = B_1). */
  if (m >= 3) {
    double C0 = upper_at(n, periodic, C, begin, 0);
    bp[0] = Bp[0] - C0 * (ap[1] / Bp[1]);
    if (bad(bp[0]))
      return breakdown(info, begin, "absorption of row 1 by row 0");
    cp[0] = -C0 * (cp[1] / Bp[1]);
  }
  for (size_t i = 0; i < m; i++)
    if (!isfinite(ap[i]) || !isfinite(cp[i]))
      return breakdown(info, begin + i, "overflow in the initialization");
  return TL_OK;
}

void tl_ptdma_runtime_d(size_t begin, size_t end, const double *A, const double *C,
                        const double *b, const double *D, double *d)
{
  size_t m = end - begin;
  const double *Ap = A, *Cp = C, *bp = b, *Dp = D; /* the partition's rows */
  double *dp = d;
  dp[0] = Dp[0];
  dp[1] = Dp[1];
  for (size_t i = 2; i < m; i++) /* lines 21-23 */
    dp[i] = Dp[i] - Ap[i] * (dp[i - 1] / bp[i - 1]);
  if (m >= 3) /* lines 24-26, i = m-3 .. 0 */
    for (size_t i = m - 2; i-- > 0;)
      dp[i] -= Cp[i] * (dp[i + 1] / bp[i + 1]);
}

/* ---------------------------------------------------------------- */
/* Exchange, reduced system, reconstruction                          */

void tl_ptdma_pack_d(size_t begin, size_t end, int p, const double *a, const double *b,
                     const double *c, const double *d, double *ra, double *rb, double *rc,
                     double *rd)
{
  size_t rows[2] = {0, end - begin - 1}; /* local: the partition's first and last rows */
  for (size_t q = 0; q < 2; q++) {
    size_t r = 2 * (size_t)p + q, k = rows[q];
    if (ra)
      ra[r] = a[k];
    if (rb)
      rb[r] = b ? b[k] : 1.0;
    if (rc)
      rc[r] = c[k];
    if (rd)
      rd[r] = d[k];
  }
}

/* The worst reduced row, as computed: the largest (|a| + |c| - |b|) / |b|
 * (periodic: corners included), and its row. Exact arithmetic keeps it
 * <= 0 for a row dominant matrix (the maximum principle); see
 * "Stability" above for what rounding does to it. */
static double reduced_excess(size_t rows, int periodic, const double *ra, const double *rb,
                             const double *rc, long *row)
{
  double worst = -INFINITY;
  *row = -1;
  for (size_t i = 0; i < rows; i++) {
    double left = (i > 0 || periodic) ? fabs(ra[i]) : 0.0;
    double right = (i + 1 < rows || periodic) ? fabs(rc[i]) : 0.0;
    double excess = (left + right - fabs(rb[i])) / fabs(rb[i]);
    if (!(excess <= worst)) { /* NaN (b = 0) counts as the worst */
      worst = excess;
      *row = (long)i;
    }
  }
  return worst;
}

int tl_ptdma_reduced_solve_d(size_t rows, int periodic, const double *ra, const double *rb,
                             const double *rc, const double *rd, double *rx, tl_info *info)
{
  tl_info inner;
  tl_info_clear(&inner);
  int st = periodic ? tl_thomas_periodic_ref_d(rows, ra, rb, rc, rd, rx, &inner)
                    : tl_thomas_ref_d(rows, ra, rb, rc, rd, rx, &inner);
  if (st < 0)
    return TL_FAIL(info, st, -1, inner.row, "",
                   "ptdma: the reduced system of %zu rows fails at its row %ld: %.150s", rows,
                   inner.row, inner.msg);
  /* Thomas's own domain verdict is not passed on: this is the reduced
   * system's dominance, with the allowance for rounding. The values are
   * written either way (an outside-domain answer is an answer). */
  long row;
  double excess = reduced_excess(rows, periodic, ra, rb, rc, &row);
  if (!(excess <= TL_PTDMA_REDUCED_SLACK))
    return TL_WARN(info, row,
                   "ptdma: reduced row %ld is not diagonally dominant as computed ((|a| + |c|) / "
                   "|b| - 1 = %.2g): rounding broke the maximum principle of the local "
                   "reduction, the matrix is too close to singular for it",
                   row, excess);
  return TL_OK;
}

int tl_ptdma_reconstruct_d(size_t begin, size_t end, const double *a, const double *b,
                           const double *c, const double *d, double x_first, double x_last,
                           double *x, tl_info *info)
{
  size_t m = end - begin; /* local rows; begin names global rows in reports */
  x[0] = x_first;
  for (size_t k = 1; k + 1 < m; k++) {
    double v = d[k] - a[k] * x_first - c[k] * x_last;
    x[k] = b ? v / b[k] : v;
  }
  x[m - 1] = x_last;
  for (size_t k = 0; k < m; k++)
    if (!isfinite(x[k]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(begin + k), "",
                     "ptdma: overflow in the reconstruction at row %zu", begin + k);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Partitions, domain                                                */

static int partition_bounds(size_t n, int parts, const size_t *part_sizes, size_t *begin,
                            tl_info *info)
{
  if (parts < 1 || parts > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "ptdma: parts = %d is outside [1, %d]",
                   parts, TL_MAX_PARTS);
  size_t total = 0;
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    if (!part_sizes && n / (size_t)parts < 2)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "ptdma: n = %zu is too small for %d partitions (2 rows per partition "
                     "needed: a first and a last row)",
                     n, parts);
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    if (hi - lo < 2)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "ptdma: partition %d has %zu rows; at least 2 are needed", p, hi - lo);
    begin[p] = lo;
    begin[p + 1] = hi;
    total += hi - lo;
  }
  if (total != n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "ptdma: partition sizes add up to %zu rows, the system has %zu", total, n);
  return TL_OK;
}

int tl_ptdma_domain_verdict(unsigned classes, long worst, int periodic, tl_info *info)
{
  if (periodic && !(classes & TL_CLASS_STRICT_DD))
    return TL_WARN(info, worst,
                   "ptdma: periodic matrix not strictly diagonally dominant (row %ld); the "
                   "cyclic reduced system has no stability guarantee",
                   worst);
  if (!(classes & TL_CLASS_ROW_DD))
    return TL_WARN(info, worst,
                   "ptdma: matrix not row diagonally dominant (row %ld); the reduction "
                   "without pivoting has no stability guarantee",
                   worst);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Algorithm 2 plan                                                  */

void tl_ptdma_plan_destroy(tl_ptdma_plan *plan)
{
  if (!plan)
    return;
  free(plan->begin);
  free(plan->A);
  free(plan->B);
  free(plan->C);
  free(plan->a);
  free(plan->b);
  free(plan->c);
  free(plan->ra);
  free(plan->rb);
  free(plan->rc);
  memset(plan, 0, sizeof *plan);
}

int tl_ptdma_plan_create_d(tl_ptdma_plan *plan, size_t n, int periodic, int parts,
                           const size_t *part_sizes, const double *A, const double *B,
                           const double *C, tl_info *info)
{
  memset(plan, 0, sizeof *plan);
  if (!A || !B || !C)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "ptdma: A, B and C may not be NULL");
  if (parts < 1 || parts > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "ptdma: parts = %d is outside [1, %d]",
                   parts, TL_MAX_PARTS);
  int status = TL_OK;
  size_t rows = 2 * (size_t)parts;
  plan->n = n;
  plan->parts = parts;
  plan->periodic = periodic ? 1 : 0;
  plan->begin = tl_alloc((size_t)parts + 1, sizeof *plan->begin);
  plan->A = tl_alloc(n, sizeof(double));
  plan->B = tl_alloc(n, sizeof(double));
  plan->C = tl_alloc(n, sizeof(double));
  plan->a = tl_alloc(n, sizeof(double));
  plan->b = tl_alloc(n, sizeof(double));
  plan->c = tl_alloc(n, sizeof(double));
  plan->ra = tl_alloc(rows, sizeof(double));
  plan->rb = tl_alloc(rows, sizeof(double));
  plan->rc = tl_alloc(rows, sizeof(double));
  if (!plan->begin || !plan->A || !plan->B || !plan->C || !plan->a || !plan->b || !plan->c ||
      !plan->ra || !plan->rb || !plan->rc) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "ptdma: no memory for a plan of %zu rows",
                     n);
    goto cleanup;
  }
  TL_CHECK(partition_bounds(n, parts, part_sizes, plan->begin, info));
  for (size_t k = 0; k < n; k++) { /* the originals the runtime step reads */
    plan->A[k] = lower_at(n, plan->periodic, A, 0, k);
    plan->B[k] = B[k];
    plan->C[k] = upper_at(n, plan->periodic, C, 0, k);
  }
  for (int p = 0; p < parts; p++) {
    size_t b0 = plan->begin[p], b1 = plan->begin[p + 1];
    TL_CHECK(tl_ptdma_init_d(n, plan->periodic, b0, b1, plan->A + b0, B + b0, plan->C + b0,
                             plan->a + b0, plan->b + b0, plan->c + b0, info));
    /* The coefficients of the reduced system are gathered once. */
    tl_ptdma_pack_d(b0, b1, p, plan->a + b0, plan->b + b0, plan->c + b0, NULL, plan->ra, plan->rb,
                    plan->rc, NULL);
  }
  plan->worst_row = -1;
  plan->classes = tl_classes_d(n, A, B, C, plan->periodic, &plan->worst_row);
cleanup:
  if (status < 0)
    tl_ptdma_plan_destroy(plan);
  return status;
}

/* 1 when the reconstruction of Algorithm 2 (x_k = (d_k - a_k x_first -
 * c_k x_last) / b_k) took an interior row from terms near the underflow
 * threshold: see "Underflow" above. */
int tl_ptdma_reconstruct_tiny_d(size_t m, const double *a, const double *c, const double *d,
                                double x_first, double x_last)
{
  for (size_t k = 1; k + 1 < m; k++)
    if (fabs(d[k]) + fabs(a[k] * x_first) + fabs(c[k] * x_last) < 2 * DBL_MIN)
      return 1;
  return 0;
}

static int reconstruct_tiny(const tl_ptdma_plan *plan, const double *d, const double *rx)
{
  for (int p = 0; p < plan->parts; p++) {
    size_t b0 = plan->begin[p];
    if (tl_ptdma_reconstruct_tiny_d(plan->begin[p + 1] - b0, plan->a + b0, plan->c + b0, d + b0,
                                    rx[2 * p], rx[2 * p + 1]))
      return 1;
  }
  return 0;
}

long tl_ptdma_global_row(const size_t *begin, long r)
{
  if (r < 0)
    return -1;
  size_t p = (size_t)r / 2;
  return (long)((r % 2) ? begin[p + 1] - 1 : begin[p]);
}

/* The ledger of the simulated exchange (docs/algorithms/ptdma.md,
 * "MPI"): every partition but 0 sends `words` per system to partition 0,
 * which solves the reduced systems (a gather), or receives them back
 * from it (a scatter). One partition alone sends nothing. */
void tl_ptdma_ledger_gather(tl_ledger *ledger, const char *phase, int P, size_t words)
{
  for (int p = 0; P > 1 && p < P; p++)
    tl_ledger_collective(ledger, phase, 0, TL_LEDGER_GATHER, p, 0, p ? words : 0,
                         p ? 0 : (size_t)(P - 1) * words);
}

void tl_ptdma_ledger_scatter(tl_ledger *ledger, const char *phase, int P, size_t words)
{
  for (int p = 0; P > 1 && p < P; p++)
    tl_ledger_collective(ledger, phase, 0, TL_LEDGER_SCATTER, p, 0, p ? 0 : (size_t)(P - 1) * words,
                         p ? words : 0);
}

/* The reduced solve's warning, kept while the solve goes on to write x
 * (the domain verdict below reuses info); given back at the end, unless
 * the matrix's own verdict says more. */
static int keep_warning(int status, const tl_info *info, tl_info *kept)
{
  if (info)
    *kept = *info;
  else
    tl_info_clear(kept);
  return status;
}

static int give_warning(int status, const tl_info *kept, tl_info *info)
{
  if (info)
    *info = *kept;
  return status;
}

static int plan_solve(const tl_ptdma_plan *plan, const double *d, double *x, tl_ledger *ledger,
                      tl_info *info)
{
  if (!plan || !plan->begin || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "ptdma: plan, d and x may not be NULL");
  int P = plan->parts, status = TL_OK;
  size_t rows = 2 * (size_t)P;
  double *dw = tl_alloc(plan->n, sizeof(double));
  double *rd = tl_alloc(rows, sizeof(double)), *rx = tl_alloc(rows, sizeof(double));
  if (!dw || !rd || !rx) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "ptdma: no memory");
    goto cleanup;
  }
  for (int p = 0; p < P; p++) { /* Algorithm 2 step 2, then send d' of 2 rows */
    size_t b0 = plan->begin[p], b1 = plan->begin[p + 1];
    tl_ptdma_runtime_d(b0, b1, plan->A + b0, plan->C + b0, plan->b + b0, d + b0, dw + b0);
    tl_ptdma_pack_d(b0, b1, p, NULL, NULL, NULL, dw + b0, NULL, NULL, NULL, rd);
  }
  /* What the partitions send to partition 0, which solves the reduced
   * system: the coefficients of their 2 rows once with the plan, d' of
   * them per right-hand side; x of the 2 rows comes back. */
  tl_ptdma_ledger_gather(ledger, "plan-rows", P, TL_PTDMA_COEF_WORDS);
  tl_ptdma_ledger_gather(ledger, "rhs-rows", P, TL_PTDMA_RHS_WORDS);
  status = tl_ptdma_reduced_solve_d(rows, plan->periodic, plan->ra, plan->rb, plan->rc, rd, rx,
                                    info); /* step 3 */
  if (status != TL_OK && info) /* an error, or no guarantee for the reduced solve */
    info->row = tl_ptdma_global_row(plan->begin, info->row);
  if (status < 0)
    goto cleanup;
  tl_info reduced; /* the reduced rows' own warning, given after x is written */
  int reduced_status = keep_warning(status, info, &reduced);
  tl_ptdma_ledger_scatter(ledger, "solution", P, TL_PTDMA_X_WORDS);
  for (int p = 0; p < P; p++) { /* step 4 */
    size_t b0 = plan->begin[p], b1 = plan->begin[p + 1];
    TL_CHECK(tl_ptdma_reconstruct_d(b0, b1, plan->a + b0, plan->b + b0, plan->c + b0, dw + b0,
                                    rx[2 * p], rx[2 * p + 1], x + b0, info));
  }
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1, TL_PTDMA_VERDICT_WORDS,
                           TL_PTDMA_VERDICT_WORDS);
  status = tl_ptdma_domain_verdict(plan->classes, plan->worst_row, plan->periodic, info);
  if (status == TL_OK && reduced_status != TL_OK)
    status = give_warning(reduced_status, &reduced, info);
  if (status == TL_OK && reconstruct_tiny(plan, dw, rx))
    status = tl_residual_check("ptdma", TL_F64, plan->n, plan->periodic, plan->A, plan->B,
                               plan->C, d, x,
                               "its reconstruction divided terms near the underflow threshold "
                               "by b_k; the first and last rows of the partition see that "
                               "error multiplied by their coupling over b_k",
                               info);
cleanup:
  free(dw);
  free(rd);
  free(rx);
  return status;
}

/* ---------------------------------------------------------------- */
/* Algorithm 1, one shot                                             */

int tl_ptdma_plan_solve_d(const tl_ptdma_plan *plan, const double *d, double *x, tl_info *info)
{
  return plan_solve(plan, d, x, NULL, info);
}

/* ---------------------------------------------------------------- */
/* Algorithm 1, one shot                                             */

static int solve_combined(size_t n, int periodic, int parts, const size_t *part_sizes,
                          const double *A, const double *B, const double *C, const double *D,
                          double *x, tl_ledger *ledger, tl_info *info)
{
  if (!A || !B || !C || !D || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "ptdma: no array may be NULL");
  if (parts < 1 || parts > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "ptdma: parts = %d is outside [1, %d]",
                   parts, TL_MAX_PARTS);
  int status = TL_OK;
  size_t rows = 2 * (size_t)parts;
  size_t *begin = tl_alloc((size_t)parts + 1, sizeof *begin);
  double *a = tl_alloc(n, sizeof(double)), *c = tl_alloc(n, sizeof(double));
  double *d = tl_alloc(n, sizeof(double)), *red = tl_alloc(5 * rows, sizeof(double));
  if (!begin || !a || !c || !d || !red) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "ptdma: no memory for %zu rows", n);
    goto cleanup;
  }
  double *ra = red, *rb = red + rows, *rc = red + 2 * rows, *rd = red + 3 * rows;
  double *rx = red + 4 * rows;
  TL_CHECK(partition_bounds(n, parts, part_sizes, begin, info));
  for (int p = 0; p < parts; p++) { /* step 1 and the send of 2 rows */
    size_t b0 = begin[p], b1 = begin[p + 1];
    TL_CHECK(tl_ptdma_reduce_d(n, periodic, b0, b1, A + b0, B + b0, C + b0, D + b0, a + b0, c + b0,
                               d + b0, info));
    tl_ptdma_pack_d(b0, b1, p, a + b0, NULL, c + b0, d + b0, ra, rb, rc, rd);
  }
  tl_ptdma_ledger_gather(ledger, "rows", parts, TL_PTDMA_ROW_WORDS);
  status = tl_ptdma_reduced_solve_d(rows, periodic, ra, rb, rc, rd, rx, info); /* step 2 */
  if (status != TL_OK && info) /* an error, or no guarantee for the reduced solve */
    info->row = tl_ptdma_global_row(begin, info->row);
  if (status < 0)
    goto cleanup;
  tl_info reduced; /* the reduced rows' own warning, given after x is written */
  int reduced_status = keep_warning(status, info, &reduced);
  tl_ptdma_ledger_scatter(ledger, "solution", parts, TL_PTDMA_X_WORDS);
  for (int p = 0; p < parts; p++) /* step 3 */
    TL_CHECK(tl_ptdma_reconstruct_d(begin[p], begin[p + 1], a + begin[p], NULL, c + begin[p],
                                    d + begin[p], rx[2 * p], rx[2 * p + 1], x + begin[p], info));
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, parts, -1,
                           TL_PTDMA_VERDICT_WORDS, TL_PTDMA_VERDICT_WORDS);
  long worst = -1;
  unsigned classes = tl_classes_d(n, A, B, C, periodic, &worst);
  status = tl_ptdma_domain_verdict(classes, worst, periodic, info);
  if (status == TL_OK && reduced_status != TL_OK)
    status = give_warning(reduced_status, &reduced, info);
cleanup:
  free(begin);
  free(a);
  free(c);
  free(d);
  free(red);
  return status;
}

int tl_ptdma_solve_d(size_t n, int periodic, int parts, const size_t *part_sizes, const double *A,
                     const double *B, const double *C, const double *D, double *x, tl_info *info)
{
  return solve_combined(n, periodic, parts, part_sizes, A, B, C, D, x, NULL, info);
}

/* ---------------------------------------------------------------- */
/* Registry                                                          */

static const tl_param ptdma_params[] = {
    {.name = "flavour",
     .kind = TL_PARAM_CHOICE,
     .def = TL_PTDMA_SPLIT,
     .min = 0,
     .max = 0,
     .choices = "split|combined",
     .help = "split: Algorithm 2 (plan + runtime step); combined: Algorithm 1 (one pass)"},
};

static int ptdma_system(const tl_algorithm *self, const tl_batch *one, void *x,
                        const tl_options *opt, tl_info *info)
{
  int flavour = (int)tl_param_value(self, opt, "flavour");
  if (flavour == TL_PTDMA_COMBINED)
    return solve_combined(one->n, one->periodic, opt->parts, opt->part_sizes, one->a, one->b,
                          one->c, one->d, x, opt->ledger, info);
  tl_ptdma_plan plan;
  TL_CALL(tl_ptdma_plan_create_d(&plan, one->n, one->periodic, opt->parts, opt->part_sizes,
                                 one->a, one->b, one->c, info));
  int st = plan_solve(&plan, one->d, x, opt->ledger, info);
  tl_ptdma_plan_destroy(&plan);
  return st;
}

static int ptdma_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                       const tl_options *opt, tl_info *info)
{
  return tl_for_each_system(self, sys, x, opt, info, ptdma_system);
}

/* The ledger of one solve of nsys systems (docs/algorithms/ptdma.md,
 * "MPI"), P > 1: partition 0 solves the reduced systems. Split flavour
 * (Algorithm 2): a gather of the 2 rows' coefficients (6 words per system)
 * with the plan, a gather of their d' (2 words) per solve; combined
 * (Algorithm 1): one gather of a, c, d' of the 2 rows (6 words). Then a
 * scatter of x of the 2 rows (2 words), and the verdict's allreduce. */
static int ptdma_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                              const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  (void)solved;
  size_t nsys = shape->nsys;
  int P = opt->parts;
  tl_ledger_reset(out);
  for (int p = 0; P > 1 && p < P; p++) {
    size_t others = (size_t)(P - 1);
    if ((int)tl_param_value(self, opt, "flavour") == TL_PTDMA_COMBINED) {
      tl_ledger_collective(out, "rows", 0, TL_LEDGER_GATHER, p, 0, p ? 6 * nsys : 0,
                           p ? 0 : others * 6 * nsys);
    } else {
      tl_ledger_collective(out, "plan-rows", 0, TL_LEDGER_GATHER, p, 0, p ? 6 * nsys : 0,
                           p ? 0 : others * 6 * nsys);
      tl_ledger_collective(out, "rhs-rows", 0, TL_LEDGER_GATHER, p, 0, p ? 2 * nsys : 0,
                           p ? 0 : others * 2 * nsys);
    }
    tl_ledger_collective(out, "solution", 0, TL_LEDGER_SCATTER, p, 0, p ? 0 : others * 2 * nsys,
                         p ? 2 * nsys : 0);
  }
  tl_ledger_collective_all(out, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1, 10 * nsys, 10 * nsys);
  return TL_OK;
}

const tl_algorithm tl_algo_ptdma_ref = {
    .name = "ptdma",
    .family = "partition",
    .backend = "reference",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD, /* weakly dominant: tried, see "Stability" above */
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC | TL_PERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 2,
    .params = ptdma_params,
    .nparams = 1,
    .summary = "CaNS P-TDMA: cyclic-reduction step per partition, reduced system of 2P rows "
               "by Thomas, reconstruction",
    .source = "paper 001 (CaNS) §2.2.3-2.2.4 Algorithms 1 and 2",
    .solve = ptdma_solve,
    .ledger_model = ptdma_ledger_model,
};
