/* reference/distd2_ref.c -- DistD2: a distributed, approximate solver for
 * diagonally dominant tridiagonal systems that needs one exchange with the
 * two neighbouring partitions only.
 *
 * Source: paper 000 (DistD2-TDS), §4.2: preprocessing (Algorithm 5),
 * decoupling phase with the compact-scheme right-hand side fused into the
 * forward pass (Algorithm 6, eq. (2)), the 2x2 systems across every
 * partition boundary (Figure 8), substitution (Algorithm 7), and the
 * periodic variant (corner 2x2 between the last and the first partition,
 * Figure 8). The decoupling is the first phase of the hybrid Thomas-PCR
 * algorithm (§2.2.1, Algorithms 2 and 3); the dropping of the weak
 * couplings is the idea of PDD (§2.2.2, Algorithm 4).
 *
 * Symbols (paper -> ours). Paper rows j = 1..n of ONE partition are our
 * local rows j-1 = 0..m-1 (global k = begin + j - 1); a, b, c, d, u keep
 * their letters (u is the field in Algorithm 6 and the solution in
 * Algorithm 7; our solution is x). s^a_j, s^c_j -> sa[k], sc[k];
 * f_j -> fwd_scale[k] (1/pivot); r_j -> fwd_mul[k] (= a_k); w_j ->
 * bwd_mul[k]; w_1 of Algorithm 5 line 18 -> fix_scale[p]; the stencil
 * c_{-2..2} of Algorithm 6 -> st[0..4]; d^s, d^e of Algorithm 7 ->
 * x_first, x_last. The extracted pseudo-code swaps some of these names
 * (Algorithm 6 line 4 scales by r_j where Algorithm 5 stores 1/b_j in
 * f_j; line 19 mixes f_1 and w_1); the recurrences below are derived
 * from the elimination itself and checked against LAPACK in the tests.
 *
 * Phase 1, per partition (Algorithms 5 and 6): rows 0 and 1 are scaled to
 * a unit diagonal; a forward pass from row 2 eliminates the lower
 * diagonal but keeps x_0 (the partition's first unknown) as a column,
 * the "spike" sa; a backward pass from row m-3 to 1 eliminates the upper
 * diagonal but keeps x_{m-1}, the spike sc; row 0 is then combined with
 * row 1. Partition of m = 6 rows, neighbours shown as columns L and R:
 *
 *      L  0  1  2  3  4  5  R          L  0  1  2  3  4  5  R
 *   0  a  b  c                      0  *  1              *
 *   1     a  b  c                   1     *  1           *
 *   2        a  b  c          ->    2     *     1        *
 *   3           a  b  c             3     *        1     *
 *   4              a  b  c          4     *           1  *
 *   5                 a  b  c       5     *              1  *
 *
 * Every interior row now reads x_k = d'_k - sa_k x_0 - sc_k x_5.
 *
 * Phase 2, the reduced system of the first and last rows of all
 * partitions is tridiagonal with a unit diagonal. Its entries sc (first
 * row -> own last unknown) and sa (last row -> own first unknown) are
 * the spikes at the far end of the partition: for a dominant matrix they
 * decay geometrically with m, and DistD2 drops them (x below). What is
 * left are 2x2 systems across the interfaces (boxes), plus the corner
 * 2x2 between the last and the first partition when periodic:
 *
 *        s0 e0 s1 e1 s2 e2                P = 3 partitions; s_p, e_p the
 *   s0 |  1  x  .  .  .  c |              first and last unknown of p;
 *   e0 |  x [1  *] .  .  . |              c: periodic corners (the corner
 *   s1 |  . [*  1] x  .  . |              2x2 couples e2 and s0)
 *   e1 |  .  .  x [1  *] . |
 *   s2 |  .  .  . [*  1] x |
 *   e2 |  c  .  .  .  x  1 |
 *
 * With P = 1 the only 2x2 is the corner (e0, s0), and there nothing is
 * dropped: the solve is exact. Non-periodic, P > 1: the corner "2x2" has
 * zero couplings and gives x_{s0} and x_{e(P-1)} directly.
 *
 * Phase 3 (Algorithm 7): x_k = d'_k - sa_k x_first - sc_k x_last.
 *
 * Cost per partition of m rows. Preprocessing (once per matrix): about
 * 12m flops, writes 5m words (sa, sc, fwd_scale, fwd_mul, bwd_mul).
 * Per right-hand side: decoupling 5m flops (fused stencil: +9m),
 * substitution 4m flops; reads d (or u), the 5 coefficient arrays, writes
 * x: 7 words per unknown plus d' (in the paper's in-place version 5 + the
 * cache-resident d'). Communication: ONE exchange with the two
 * neighbours: 3 words (a row's coupling, its dropped entry, its rhs) each
 * way, 2 words per right-hand side when the couplings are exchanged once
 * with the preprocessing; 1 synchronisation step; both neighbours solve
 * the shared 2x2 redundantly. The fused variant also receives a halo of 2
 * field values from each neighbour before the forward pass.
 *
 * Accuracy (see docs/algorithms/distd2.md): with y the reduced unknowns,
 * the dropped matrix E has one entry per row of size <= dropped, so
 * ||y - y~||_inf <= kappa * dropped * ||y||_inf (kappa: largest
 * ||inv(2x2)||_inf) and, through phase 3,
 *   ||x - x~||_inf / ||x||_inf <= max(1, spike) * kappa * dropped = bound,
 * spike = max |sa_k| + |sc_k| (<= 1 for a row dominant matrix). The
 * residual the dropping leaves is at most 4 kappa dropped ||A||_1 ||x~||_1
 * when the matrix is strictly dominant, so dropped <= tol = 2 eps keeps
 * LAPACK's residual ratio below 30. TL_OUTSIDE_DOMAIN: dropped > tol, or
 * the matrix is not strictly diagonally dominant (the modified Thomas
 * passes are then unguarded). Zero or non-finite pivots: TL_ERR_BREAKDOWN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_distd2.h"

/* ---------------------------------------------------------------- */
/* Plan and Algorithm 5                                              */

void tl_distd2_plan_destroy(tl_distd2_plan *plan)
{
  if (!plan)
    return;
  free(plan->begin);
  if (!plan->rows_lent) {
    free(plan->sa);
    free(plan->sc);
    free(plan->fwd_scale);
    free(plan->fwd_mul);
    free(plan->bwd_mul);
  }
  free(plan->fix_scale);
  memset(plan, 0, sizeof *plan);
}

static int check_partition_sizes(size_t n, int parts, const size_t *part_sizes, tl_info *info)
{
  if (parts < 1 || parts > TL_MAX_PARTS)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts", "distd2: parts = %d is outside [1, %d]",
                   parts, TL_MAX_PARTS);
  if (!part_sizes) {
    if (n / (size_t)parts < 2)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "distd2: n = %zu is too small for %d partitions (2 rows per partition "
                     "needed: a first and a last row)",
                     n, parts);
    return TL_OK;
  }
  size_t total = 0;
  for (int p = 0; p < parts; p++) {
    if (part_sizes[p] < 2)
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                     "distd2: partition %d has %zu rows; at least 2 are needed", p, part_sizes[p]);
    total += part_sizes[p];
  }
  if (total != n)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "distd2: partition sizes add up to %zu rows, the system has %zu", total, n);
  return TL_OK;
}

/* Entry of a or c as the plan sees it: the corners of a non-periodic
 * system are zero and never read. k is the plan's row; row0 + k the
 * system's (a slice plan holds rows from row0 on). */
static double lower_at(const tl_distd2_plan *plan, const double *a, size_t k)
{
  return (plan->row0 + k == 0 && !plan->periodic) ? 0.0 : a[k];
}

static double upper_at(const tl_distd2_plan *plan, const double *c, size_t k)
{
  return (plan->row0 + k + 1 == plan->n_total && !plan->periodic) ? 0.0 : c[k];
}

/* A breakdown at the plan's row k, reported with its global row. */
static int pivot_breakdown(tl_info *info, const tl_distd2_plan *plan, size_t k, const char *where)
{
  size_t row = plan->row0 + k;
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)row, "",
                 "distd2: zero or non-finite pivot at row %zu (%s); the matrix is far from "
                 "diagonally dominant",
                 row, where);
}

int tl_distd2_preprocess_d(tl_distd2_plan *plan, int p, const double *a, const double *b,
                           const double *c, tl_info *info)
{
  size_t k0 = plan->begin[p], m = plan->begin[p + 1] - k0;
  double *sa = plan->sa + k0, *sc = plan->sc + k0;
  double *f = plan->fwd_scale + k0, *r = plan->fwd_mul + k0, *w = plan->bwd_mul + k0;

  /* Algorithm 5 lines 1-6: rows 0 and 1 scaled to a unit diagonal. */
  for (size_t j = 0; j < 2; j++) {
    if (b[k0 + j] == 0 || !isfinite(b[k0 + j]))
      return pivot_breakdown(info, plan, k0 + j, "diagonal of a partition's first rows");
    f[j] = 1.0 / b[k0 + j];
    sa[j] = lower_at(plan, a, k0 + j) * f[j];
    sc[j] = upper_at(plan, c, k0 + j) * f[j];
    r[j] = 0.0;
    w[j] = 0.0;
  }
  /* Lines 7-12, forward pass: row j keeps x_0 in the spike sa_j. */
  for (size_t j = 2; j < m; j++) {
    double aj = lower_at(plan, a, k0 + j);
    double pivot = b[k0 + j] - aj * sc[j - 1];
    if (pivot == 0 || !isfinite(pivot))
      return pivot_breakdown(info, plan, k0 + j, "forward pass");
    f[j] = 1.0 / pivot;
    r[j] = aj;
    sa[j] = -f[j] * aj * sa[j - 1];
    sc[j] = f[j] * upper_at(plan, c, k0 + j);
    w[j] = 0.0;
  }
  /* Lines 13-17, backward pass from m-3 to 1: row j keeps x_{m-1} in sc_j. */
  for (size_t j = m - 2; j-- > 1;) {
    w[j] = sc[j];
    sa[j] -= w[j] * sa[j + 1];
    sc[j] = -w[j] * sc[j + 1];
  }
  /* Lines 18-20: row 0 absorbs row 1, so it couples to x_{m-1}. With
   * m = 2 row 1 already is the last row and row 0 is final. */
  plan->fix_scale[p] = 1.0;
  if (m >= 3) {
    w[0] = sc[0];
    double pivot = 1.0 - w[0] * sa[1];
    if (pivot == 0 || !isfinite(pivot))
      return pivot_breakdown(info, plan, k0, "combination of the first two rows");
    plan->fix_scale[p] = 1.0 / pivot;
    sa[0] *= plan->fix_scale[p];
    sc[0] = -plan->fix_scale[p] * w[0] * sc[1];
  }
  for (size_t j = 1; j + 1 < m; j++) {
    double s = fabs(sa[j]) + fabs(sc[j]);
    if (s > plan->spike)
      plan->spike = s;
  }
  for (size_t j = 0; j < m; j++)
    if (!isfinite(sa[j]) || !isfinite(sc[j]))
      return pivot_breakdown(info, plan, k0 + j, "overflow in a spike");
  return TL_OK;
}

int tl_distd2_plan_create_d(tl_distd2_plan *plan, size_t n, int periodic, int parts,
                            const size_t *part_sizes, const double *a, const double *b,
                            const double *c, tl_info *info)
{
  memset(plan, 0, sizeof *plan);
  if (!a || !b || !c)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2: a, b and c may not be NULL");
  TL_CALL(check_partition_sizes(n, parts, part_sizes, info));
  plan->n = plan->n_total = n;
  plan->parts = parts;
  plan->periodic = periodic ? 1 : 0;
  plan->begin = tl_alloc((size_t)parts + 1, sizeof *plan->begin);
  plan->sa = tl_alloc(n, sizeof(double));
  plan->sc = tl_alloc(n, sizeof(double));
  plan->fwd_scale = tl_alloc(n, sizeof(double));
  plan->fwd_mul = tl_alloc(n, sizeof(double));
  plan->bwd_mul = tl_alloc(n, sizeof(double));
  plan->fix_scale = tl_alloc((size_t)parts, sizeof(double));
  if (!plan->begin || !plan->sa || !plan->sc || !plan->fwd_scale || !plan->fwd_mul ||
      !plan->bwd_mul || !plan->fix_scale) {
    tl_distd2_plan_destroy(plan);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2: no memory for a plan of %zu rows", n);
  }
  for (int p = 0; p < parts; p++) {
    size_t lo, hi;
    tl_partition_bounds(n, parts, part_sizes, p, &lo, &hi);
    plan->begin[p] = lo;
    plan->begin[p + 1] = hi;
  }
  for (int p = 0; p < parts; p++) {
    int st = tl_distd2_preprocess_d(plan, p, a, b, c, info);
    if (st < 0) {
      tl_distd2_plan_destroy(plan);
      return st;
    }
  }
  plan->worst_row = -1;
  plan->classes = tl_classes_d(n, a, b, c, plan->periodic, &plan->worst_row);
  return TL_OK;
}

int tl_distd2_plan_slice_d(tl_distd2_plan *plan, size_t n_total, int periodic, size_t row0,
                           size_t m, const double *a, const double *b, const double *c,
                           tl_info *info)
{
  return tl_distd2_plan_slice_in_d(plan, n_total, periodic, row0, m, a, b, c, NULL, info);
}

int tl_distd2_plan_slice_in_d(tl_distd2_plan *plan, size_t n_total, int periodic, size_t row0,
                              size_t m, const double *a, const double *b, const double *c,
                              double *rows, tl_info *info)
{
  if (!a || !b || !c)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2: a, b and c may not be NULL");
  TL_CALL(tl_distd2_plan_slice_shell_d(plan, n_total, periodic, row0, m, rows, info));
  int st = tl_distd2_preprocess_d(plan, 0, a, b, c, info);
  if (st < 0) {
    tl_distd2_plan_destroy(plan);
    return st;
  }
  tl_distd2_plan_slice_classes_d(plan, a, b, c);
  return TL_OK;
}

void tl_distd2_plan_slice_classes_d(tl_distd2_plan *plan, const double *a, const double *b,
                                    const double *c)
{
  plan->classes = tl_row_classes_slice_d(plan->n, a, b, c, plan->row0, plan->n_total,
                                         plan->periodic, &plan->worst_rel, &plan->worst_row);
}

int tl_distd2_plan_slice_shell_d(tl_distd2_plan *plan, size_t n_total, int periodic, size_t row0,
                                 size_t m, double *rows, tl_info *info)
{
  /* One partition of m rows, alone: a whole plan of m rows with one
   * partition, except that it knows where its rows sit (row0, n_total),
   * so Algorithm 5 keeps the couplings to the neighbours' rows. */
  memset(plan, 0, sizeof *plan);
  if (m < 2 || row0 + m > n_total)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "parts",
                   "distd2: a slice of %zu rows from row %zu of %zu (at least 2 rows)", m, row0,
                   n_total);
  plan->n = m;
  plan->n_total = n_total;
  plan->row0 = row0;
  plan->parts = 1;
  plan->periodic = periodic ? 1 : 0;
  plan->begin = tl_alloc(2, sizeof *plan->begin);
  plan->rows_lent = rows != NULL;
  plan->sa = rows ? rows : tl_alloc(m, sizeof(double));
  plan->sc = rows ? rows + m : tl_alloc(m, sizeof(double));
  plan->fwd_scale = rows ? rows + 2 * m : tl_alloc(m, sizeof(double));
  plan->fwd_mul = rows ? rows + 3 * m : tl_alloc(m, sizeof(double));
  plan->bwd_mul = rows ? rows + 4 * m : tl_alloc(m, sizeof(double));
  plan->fix_scale = tl_alloc(1, sizeof(double));
  if (!plan->begin || !plan->sa || !plan->sc || !plan->fwd_scale || !plan->fwd_mul ||
      !plan->bwd_mul || !plan->fix_scale) {
    tl_distd2_plan_destroy(plan);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2: no memory for a slice of %zu rows", m);
  }
  plan->begin[0] = 0;
  plan->begin[1] = m;
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Algorithm 6: the decoupling phase                                 */

/* One 5-point stencil value at u[0] (u points into a halo'd array). */
static double stencil_at(const double st[5], const double *u)
{
  return st[0] * u[-2] + st[1] * u[-1] + st[2] * u[0] + st[3] * u[1] + st[4] * u[2];
}

/* The passes of Algorithm 6 for partition p. The right-hand side of row
 * j is d[begin + j], or, when st is given, the stencil on the halo uh:
 * computed just before the row needs it (the fusion of Figure 9). */
static int decouple(const tl_distd2_plan *plan, int p, const double *d, const double *st,
                    const double *uh, double *dt, tl_info *info)
{
  size_t k0 = plan->begin[p], m = plan->begin[p + 1] - k0;
  const double *f = plan->fwd_scale + k0, *r = plan->fwd_mul + k0, *w = plan->bwd_mul + k0;
  double *y = dt + k0;
  for (size_t j = 0; j < m; j++) {
    double rhs = st ? stencil_at(st, uh + j + 2) : d[k0 + j];
    y[j] = (j < 2) ? rhs * f[j] : f[j] * (rhs - r[j] * y[j - 1]); /* lines 1-12 */
  }
  for (size_t j = m - 2; j-- > 1;) /* lines 13-17 */
    y[j] -= w[j] * y[j + 1];
  if (m >= 3) /* lines 18-20 */
    y[0] = plan->fix_scale[p] * (y[0] - w[0] * y[1]);
  for (size_t j = 0; j < m; j++)
    if (!isfinite(y[j]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(plan->row0 + k0 + j), "",
                     "distd2: overflow in the decoupling phase at row %zu", plan->row0 + k0 + j);
  return TL_OK;
}

int tl_distd2_decouple_d(const tl_distd2_plan *plan, int p, const double *d, double *dt,
                         tl_info *info)
{
  return decouple(plan, p, d, NULL, NULL, dt, info);
}

int tl_distd2_decouple_stencil_d(const tl_distd2_plan *plan, int p, const double st[5],
                                 const double *uh, double *dt, tl_info *info)
{
  return decouple(plan, p, NULL, st, uh, dt, info);
}

/* u[i] with the grid's boundary rule: wrap, or zero outside. */
static double field_at(size_t n, int periodic, const double *u, long i)
{
  long nn = (long)n;
  if (i >= 0 && i < nn)
    return u[i];
  if (!periodic)
    return 0.0;
  return u[((i % nn) + nn) % nn];
}

void tl_distd2_halo_d(const tl_distd2_plan *plan, int p, const double *u, double *uh)
{
  long k0 = (long)plan->begin[p], m = (long)(plan->begin[p + 1] - plan->begin[p]);
  for (long j = -2; j < m + 2; j++)
    uh[j + 2] = field_at(plan->n, plan->periodic, u, k0 + j);
}

void tl_distd2_stencil_rhs_d(size_t n, int periodic, const double st[5], const double *u, double *d)
{
  for (size_t i = 0; i < n; i++) {
    double w[5];
    for (long q = -2; q <= 2; q++)
      w[q + 2] = field_at(n, periodic, u, (long)i + q);
    d[i] = stencil_at(st, w + 2);
  }
}

/* ---------------------------------------------------------------- */
/* Exchange, 2x2 systems, Algorithm 7                                */

void tl_distd2_pack_d(const tl_distd2_plan *plan, int p, const double *dt, tl_distd2_edge *edge)
{
  size_t first = plan->begin[p], last = plan->begin[p + 1] - 1;
  edge->first_lower = plan->sa[first];
  edge->first_upper = plan->sc[first];
  edge->first_rhs = dt[first];
  edge->last_lower = plan->sa[last];
  edge->last_upper = plan->sc[last];
  edge->last_rhs = dt[last];
}

int tl_distd2_interface_d(const tl_distd2_edge *left, const tl_distd2_edge *right, int same,
                          double *x_last, double *x_first, double *dropped, double *kappa, long row,
                          tl_info *info)
{
  double alpha = left->last_upper, beta = right->first_lower;
  if (same) { /* P = 1: the partition's own coupling is kept, nothing dropped */
    alpha += left->last_lower;
    beta += right->first_upper;
    *dropped = 0.0;
  } else {
    *dropped = fmax(fabs(left->last_lower), fabs(right->first_upper));
  }
  double det = 1.0 - alpha * beta;
  if (det == 0 || !isfinite(det))
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, row, "",
                   "distd2: the 2x2 system across the interface after row %ld is singular", row);
  /* Elimination (Thomas on two rows), not Cramer's rule: it stays backward
   * stable when det = 1 - alpha beta cancels (dominant, tiny margin). */
  *x_first = (right->first_rhs - beta * left->last_rhs) / det;
  *x_last = left->last_rhs - alpha * *x_first;
  *kappa = fmax(1.0 + fabs(alpha), 1.0 + fabs(beta)) / fabs(det);
  return TL_OK;
}

int tl_distd2_substitute_d(const tl_distd2_plan *plan, int p, double x_first, double x_last,
                           const double *dt, double *x, tl_info *info)
{
  size_t k0 = plan->begin[p], k1 = plan->begin[p + 1];
  x[k0] = x_first; /* Algorithm 7 lines 1-3 */
  for (size_t k = k0 + 1; k + 1 < k1; k++)
    x[k] = dt[k] - plan->sa[k] * x_first - plan->sc[k] * x_last;
  x[k1 - 1] = x_last; /* lines 9-11 */
  for (size_t k = k0; k < k1; k++)
    if (!isfinite(x[k]))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(plan->row0 + k), "",
                     "distd2: overflow in the substitution at row %zu", plan->row0 + k);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* The whole solve                                                   */

/* The verdict of a solve (one system or a batch): info->dropped, tol and
 * bound = max(1, spike) kappa dropped; outside-domain when the largest
 * dropped coupling exceeds tol, or when the matrix is not strictly
 * diagonally dominant; else ok (part_distd2.h). Shared with the optimized
 * kernels. */
int tl_distd2_verdict(const tl_distd2_plan *plan, double dropped, long drop_row, double kappa,
                      double tol, tl_info *info)
{
  int status = TL_OK;
  if (info) {
    info->dropped = dropped;
    info->tol = tol;
    info->bound = fmax(1.0, plan->spike) * kappa * dropped;
  }
  if (dropped > tol)
    status = TL_WARN(info, drop_row,
                     "distd2: dropped a reduced-system coupling of %.3g (near row %ld) > tol = "
                     "%.3g; the partitions are too small for this matrix's dominance (error "
                     "bound %.3g)",
                     dropped, drop_row, tol, info ? info->bound : 0.0);
  else if (!(plan->classes & TL_CLASS_STRICT_DD))
    status = TL_WARN(info, plan->worst_row,
                     "distd2: matrix not strictly diagonally dominant (row %ld); DistD2 has no "
                     "stability guarantee here",
                     plan->worst_row);
  return status;
}

/* The neighbours partition p sends its boundary rows to: p-1 (its first
 * row) and p+1 (its last row), around the ring when periodic; -1: none.
 * One partition alone sends nothing (its 2x2 is its own). */
void tl_distd2_neighbours(int P, int periodic, int p, int *prev, int *next)
{
  *prev = (P > 1 && (periodic || p > 0)) ? (p + P - 1) % P : -1;
  *next = (P > 1 && (periodic || p + 1 < P)) ? (p + 1) % P : -1;
}

/* What the simulated partitions pass in `edge`, in the ledger: each
 * boundary row that a neighbour needs is a message of 3 words. */
static void record_edges(tl_ledger *ledger, int P, int periodic)
{
  for (int p = 0; p < P; p++) {
    int prev, next;
    tl_distd2_neighbours(P, periodic, p, &prev, &next);
    if (prev >= 0)
      tl_ledger_message(ledger, "edges", 0, p, prev, TL_DISTD2_EDGE_WORDS);
    if (next >= 0)
      tl_ledger_message(ledger, "edges", 0, p, next, TL_DISTD2_EDGE_WORDS);
  }
}

static int plan_solve(const tl_distd2_plan *plan, const double *d, const double *st,
                      const double *u, double *x, double tol, tl_ledger *ledger, tl_info *info)
{
  int P = plan->parts, status = TL_OK;
  size_t n = plan->n, maxm = 0;
  for (int p = 0; p < P; p++)
    if (plan->begin[p + 1] - plan->begin[p] > maxm)
      maxm = plan->begin[p + 1] - plan->begin[p];
  double *dt = tl_alloc(n, sizeof(double));
  double *uh = st ? tl_alloc(maxm + 4, sizeof(double)) : NULL;
  double *xs = tl_alloc((size_t)P, sizeof(double)), *xe = tl_alloc((size_t)P, sizeof(double));
  tl_distd2_edge *edge = tl_alloc((size_t)P, sizeof *edge);
  if (!dt || (st && !uh) || !xs || !xe || !edge) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "distd2: no memory for %zu rows", n);
    goto cleanup;
  }
  /* Phase 1: every partition decouples and packs its two boundary rows. */
  for (int p = 0; p < P; p++) {
    if (st) {
      tl_distd2_halo_d(plan, p, u, uh);
      TL_CHECK(tl_distd2_decouple_stencil_d(plan, p, st, uh, dt, info));
    } else {
      TL_CHECK(tl_distd2_decouple_d(plan, p, d, dt, info));
    }
    tl_distd2_pack_d(plan, p, dt, &edge[p]);
  }
  record_edges(ledger, P, plan->periodic);
  /* Phase 2: the 2x2 across interface p | p+1; p = P-1 is the corner. */
  double dropped = 0.0, kappa = 1.0;
  long drop_row = -1;
  for (int p = 0; p < P; p++) {
    int q = (p + 1) % P;
    double dp, kp;
    long row = (long)plan->begin[p + 1] - 1;
    TL_CHECK(
        tl_distd2_interface_d(&edge[p], &edge[q], P == 1, &xe[p], &xs[q], &dp, &kp, row, info));
    if (drop_row < 0 || dp > dropped) {
      dropped = dp;
      drop_row = row;
    }
    kappa = fmax(kappa, kp);
  }
  /* Phase 3: every partition substitutes. */
  for (int p = 0; p < P; p++)
    TL_CHECK(tl_distd2_substitute_d(plan, p, xs[p], xe[p], dt, x, info));

  /* The verdict needs every partition's numbers: over MPI one allreduce. */
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1,
                           TL_DISTD2_VERDICT_WORDS, TL_DISTD2_VERDICT_WORDS);
  status = tl_distd2_verdict(plan, dropped, drop_row, kappa, tol, info);
cleanup:
  free(dt);
  free(uh);
  free(xs);
  free(xe);
  free(edge);
  return status;
}

int tl_distd2_plan_solve_d(const tl_distd2_plan *plan, const double *d, double *x, double tol,
                           tl_info *info)
{
  if (!plan || !plan->begin || !d || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array", "distd2: plan, d and x may not be NULL");
  return plan_solve(plan, d, NULL, NULL, x, tol, NULL, info);
}

int tl_distd2_plan_solve_stencil_d(const tl_distd2_plan *plan, const double st[5], const double *u,
                                   double *x, double tol, tl_info *info)
{
  if (!plan || !plan->begin || !st || !u || !x)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "array",
                   "distd2: plan, stencil, u and x may not be NULL");
  return plan_solve(plan, NULL, st, u, x, tol, NULL, info);
}

int tl_distd2_solve_d(size_t n, int periodic, int parts, const size_t *part_sizes, const double *a,
                      const double *b, const double *c, const double *d, double *x, double tol,
                      tl_info *info)
{
  tl_distd2_plan plan;
  TL_CALL(tl_distd2_plan_create_d(&plan, n, periodic, parts, part_sizes, a, b, c, info));
  int st = tl_distd2_plan_solve_d(&plan, d, x, tol, info);
  tl_distd2_plan_destroy(&plan);
  return st;
}

int tl_distd2_solve_stencil_d(size_t n, int periodic, int parts, const size_t *part_sizes,
                              const double *a, const double *b, const double *c, const double st[5],
                              const double *u, double *x, double tol, tl_info *info)
{
  tl_distd2_plan plan;
  TL_CALL(tl_distd2_plan_create_d(&plan, n, periodic, parts, part_sizes, a, b, c, info));
  int s = tl_distd2_plan_solve_stencil_d(&plan, st, u, x, tol, info);
  tl_distd2_plan_destroy(&plan);
  return s;
}

/* ---------------------------------------------------------------- */
/* Registry                                                          */

static const tl_param distd2_params[] = {
    {.name = "tol",
     .kind = TL_PARAM_REAL,
     .def = TL_DISTD2_DEFAULT_TOL,
     .min = 0.0,
     .max = 1.0,
     .choices = NULL,
     .help = "largest reduced-system coupling that may be dropped (default 2^-52 = 2 eps)"},
    {.name = "minibatch",
     .kind = TL_PARAM_INT,
     .def = 0,
     .min = 0,
     .max = 1e9,
     .choices = NULL,
     .help = "across ranks: systems per mini-batch, whose Algorithms 5-7 and exchange run before "
             "the next's, so that Algorithm 7 reads sa, sc and d' from cache (a multiple of 8 "
             "keeps the SIMD groups whole); 0 = automatic: as many as make 2^15 rows of "
             "ceil(n/P), a multiple of 8; nsys or more = the whole batch at once"},
};

static int distd2_system(const tl_algorithm *self, const tl_batch *one, void *x,
                         const tl_options *opt, tl_info *info)
{
  double tol = tl_param_value(self, opt, "tol");
  tl_distd2_plan plan;
  TL_CALL(tl_distd2_plan_create_d(&plan, one->n, one->periodic, opt->parts, opt->part_sizes, one->a,
                                  one->b, one->c, info));
  int st = plan_solve(&plan, one->d, NULL, NULL, x, tol, opt->ledger, info);
  tl_distd2_plan_destroy(&plan);
  return st;
}

/* The ledger of one solve of nsys systems (docs/algorithms/distd2.md,
 * "MPI"), per mini-batch k of mb systems (tl_minibatch_systems; round
 * k of "edges"): every partition sends its first row to the previous
 * partition and its last row to the next (3 words per system each; the
 * ends of a plain system have no neighbour); then one allreduce of 6
 * pairs per system for the verdict, once for the batch. At P = 2
 * periodic both rows of a partition go to the same neighbour: one ledger
 * entry of 6 words per system. */
static int distd2_ledger_model(const tl_algorithm *self, const tl_batch *shape,
                               const tl_options *opt, const tl_info *solved, tl_ledger *out)
{
  (void)solved;
  int P = opt->parts, ring = shape->periodic;
  size_t nsys = shape->nsys, verdict = TL_DISTD2_VERDICT_WORDS * nsys;
  size_t mb =
      tl_minibatch_systems(shape->n, P, nsys, (size_t)tl_param_value(self, opt, "minibatch"));
  tl_ledger_reset(out);
  for (size_t s0 = 0, k = 0; P > 1 && (s0 < nsys || k == 0); s0 += mb, k++) {
    size_t row = TL_DISTD2_EDGE_WORDS * (nsys - s0 < mb ? nsys - s0 : mb);
    for (int p = 0; p < P; p++) {
      if (ring || p > 0) /* the first row, to the previous partition */
        tl_ledger_message(out, "edges", (int)k, p, (p + P - 1) % P, row);
      if (ring || p + 1 < P) /* the last row, to the next */
        tl_ledger_message(out, "edges", (int)k, p, (p + 1) % P, row);
    }
  }
  tl_ledger_collective_all(out, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1, verdict, verdict);
  return TL_OK;
}

/* System by system; the messages of each mini-batch in rounds of their
 * own, as distd2_mpi sends them. */
static int distd2_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                        const tl_options *opt, tl_info *info)
{
  size_t mb = tl_minibatch_systems(sys->n, opt->parts, sys->nsys,
                                   (size_t)tl_param_value(self, opt, "minibatch"));
  return tl_for_each_system_in_minibatches(self, sys, x, opt, mb, 1, info, distd2_system);
}

const tl_algorithm tl_algo_distd2_ref = {
    .name = "distd2",
    .family = "partition",
    .backend = "reference",
    .exact = 0,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC | TL_PERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 2,
    .params = distd2_params,
    .nparams = 2,
    .summary = "DistD2: modified Thomas per partition, weak couplings dropped, 2x2 systems "
               "across interfaces (approximate)",
    .source = "paper 000 (DistD2-TDS) §4.2 Algorithms 5, 6, 7, Figure 8",
    .solve = distd2_solve,
    .ledger_model = distd2_ledger_model,
    .dropped_means =
        "the largest dropped entry of the reduced system (one per reduced row; relative to ||x||)",
    .bound_means = "||x - x_exact||_inf / ||x_exact||_inf in exact arithmetic",
};
