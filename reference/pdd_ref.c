/* reference/pdd_ref.c -- Sun's parallel diagonally dominant algorithm (PDD)
 * for plain (non-periodic) systems, simulated with P partitions.
 *
 * Source: paper 000 (DistD2-TDS) §2.2.2, Algorithm 4 and Figure 5; the
 * spike formulation as paper 003 (ITS) §2.2 and §2.4 describe it (column
 * spikes, "the transposed version" of ITS); X.-H. Sun (1995).
 * Symbols: paper 000 writes A_inv for the inverse of the local block
 * A[1:n, 1:n] and overwrites a_i, c_i with A_inv[i, n] c_n and
 * A_inv[i, 1] c_1 (its 1-based local rows); those columns are our spikes
 * w and v below (paper 000's a_i <-> our w_i, its c_i <-> our v_i). Paper 003
 * writes [l, d, r] for our [a, b, c] and m for the partition size.
 *
 * Partition p owns rows [begin, end), m rows; A_p is its diagonal block
 * (without the coupling entries alpha = a[begin] and gamma = c[end-1]).
 * The rows of partition p read exactly
 *
 *   A_p x_p = d_p - alpha x[begin-1] e_0 - gamma x[end] e_{m-1},
 *
 * so with the local solution y and the two spikes v (left) and w (right)
 *
 *   A_p y = d_p,   A_p v = alpha e_0,   A_p w = gamma e_{m-1}        (1)
 *
 * the exact solution is x_p = y - v x[begin-1] - w x[end]             (2)
 *
 * Phase 1 (local, no communication): solve (1). Multiplying each block row
 * by A_p^{-1} leaves identity blocks and two spike columns (P = 3, m = 3):
 *
 *       A x = d                        A_p^{-1} applied (phase 1)
 *   | b c . . . . . . . |           | 1 . . w . . . . . |  p = 0: spike w in
 *   | a b c . . . . . . |           | . 1 . w . . . . . |         column 3
 *   | . a b c . . . . . |           | . . 1 w . . . . . |
 *   | . . a b c . . . . |           | . . v 1 . . w . . |  p = 1: v in column 2,
 *   | . . . a b c . . . |    ->     | . . v . 1 . w . . |         w in column 6
 *   | . . . . a b c . . |           | . . v . . 1 w . . |
 *   | . . . . . a b c . |           | . . . . . v 1 . . |  p = 2: v in column 5
 *   | . . . . . . a b c |           | . . . . . v . 1 . |
 *   | . . . . . . . a b |           | . . . . . v . . 1 |
 *
 * The first and last rows of every partition form a reduced system in the
 * interface unknowns (rows 2, 3, 5, 6 here); it is penta-diagonal:
 *
 *   x2 + w2 x3               = y2
 *   v3 x2 + x3 + [w3] x6     = y3      [w3] = w_0 of p = 1: the far entry
 *   [v5] x2 + x5 + w5 x6     = y5      [v5] = v_{m-1} of p = 1: the far entry
 *   v6 x5 + x6               = y6
 *
 * PDD DROPS the far spike entries (w_0 and v_{m-1} of every partition that
 * has both neighbours, in brackets): in a diagonally dominant matrix the
 * spikes decay away from the coupling row, and the reduced system falls
 * apart into independent 2x2 systems, one per interface (phase 3):
 *
 *   | 1        w_{m-1}^p | | x[end-1] |   | y_{m-1}^p |
 *   | v_0^{p+1}  1       | | x[end]   | = | y_0^{p+1} |                  (3)
 *
 * Phase 2: p+1 sends (y_0, v_0) of its first row to p (one word more, its
 * coupling a[begin], only for the error bound). Phase 3: p solves (3) and
 * keeps x[end]. Phase 4: p sends x[end-1] to p+1 (and c[end-1]). Phase 5:
 * every partition corrects by (2): x = y - v x[begin-1] - w x[end]. Phase 6
 * (diagnostic reduction): the largest dropped entry and the error bound.
 * Sun's original order: two one-way messages in sequence per interface.
 *
 * What is dropped: the far entries w_0^p and v_{m-1}^p of every partition
 * with both neighbours (info->dropped is the largest). TL_OUTSIDE_DOMAIN
 * when it exceeds tol, or when A is not strictly diagonally dominant by
 * rows (the decay, and the 2x2 solves without pivoting, are only
 * guaranteed there). How large an error that leaves, and the bookkeeping
 * behind info->bound, live apart in reference/spike_bound.c: this file
 * only calls it (tl_pdd_bound_*, tl_pdd_ref_reduce_d).
 * P = 1 is Thomas's algorithm (no spikes); P = 2 drops nothing (the
 * reduced system is one 2x2 system) and is exact for any m.
 *
 * Cost per partition of m rows: Thomas for y (8m flops); each spike is a
 * separate elimination of the same block (about 7m flops each: the pivots
 * are recomputed rather than shared, so that RPDD can stop one spike's
 * elimination early); correction 4m: about 26m flops. Words: reads a, b, c, d
 * and writes x (5m), 3m scratch. Messages: 2 per interface, 3 words
 * (y_0, v_0, a[begin]) up and 2 words (x[end-1], c[end-1]) down, in 2
 * dependent steps; plus one reduction of 4 numbers for the report.
 * The smallest partition is one row (its first and last rows coincide;
 * the algebra of (1)-(3) still holds).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_pdd.h"
#include "tridlab/residual.h"

/* ---------------------------------------------------------------- */
/* Partition state                                                    */

int tl_pdd_part_init_d(tl_pdd_part_d *pt, size_t n, int parts, const size_t *part_sizes, int p,
                       tl_info *info)
{
  return tl_pdd_part_init_in_d(pt, n, parts, part_sizes, p, NULL, info);
}

int tl_pdd_part_init_in_d(tl_pdd_part_d *pt, size_t n, int parts, const size_t *part_sizes, int p,
                          double *spikes, tl_info *info)
{
  *pt = (tl_pdd_part_d){0};
  pt->p = p;
  pt->parts = parts;
  pt->n = n;
  tl_partition_bounds(n, parts, part_sizes, p, &pt->begin, &pt->end);
  pt->m = pt->end - pt->begin;
  pt->margin_row = -1;
  pt->spikes_lent = spikes != NULL;
  pt->v = spikes ? spikes : tl_alloc(pt->m, sizeof(double));
  pt->w = spikes ? spikes + pt->m : tl_alloc(pt->m, sizeof(double));
  if (!pt->v || !pt->w) {
    tl_pdd_part_free_d(pt);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for the spikes of partition %d",
                   p);
  }
  return TL_OK;
}

void tl_pdd_part_free_d(tl_pdd_part_d *pt)
{
  if (!pt->spikes_lent) {
    free(pt->v);
    free(pt->w);
  }
  pt->v = pt->w = NULL;
  pt->spikes_lent = 0;
}

/* ---------------------------------------------------------------- */
/* Spikes                                                              */

/* The left spike A_p v = a[0] e_0 by top-down elimination, split in its
 * two sweeps so that RPDD can stop after any row: the forward sweep over
 * rows [i0, i1) leaves the forward values g_i in v and the multipliers in
 * cp; the back substitution over the leading k rows turns them into the
 * spike of the leading k x k block (PDD: k = m, the whole spike). */
long tl_pdd_ref_spike_first_fwd_d(size_t m, const double *a, const double *b, const double *c,
                                  size_t i0, size_t i1, double *v, double *cp)
{
  for (size_t i = i0; i < i1; i++) {
    double piv = (i == 0) ? b[0] : b[i] - a[i] * cp[i - 1];
    if (piv == 0.0 || !isfinite(piv))
      return (long)i;
    cp[i] = (i + 1 < m) ? c[i] / piv : 0.0;
    v[i] = (i == 0) ? a[0] / piv : -a[i] * v[i - 1] / piv;
    if (!isfinite(v[i]))
      return (long)i;
  }
  return -1;
}

void tl_pdd_ref_spike_first_back_d(size_t k, double *v, const double *cp)
{
  for (size_t i = k; i-- > 1;)
    v[i - 1] -= cp[i - 1] * v[i];
}

/* The right spike A_p w = c[m-1] e_{m-1}, the mirror image: the forward
 * sweep runs bottom-up over t = m-1-i in [t0, t1) (w holds h_i, ap the
 * multipliers), the back substitution top-down over the trailing k rows. */
long tl_pdd_ref_spike_last_fwd_d(size_t m, const double *a, const double *b, const double *c,
                                 size_t t0, size_t t1, double *w, double *ap)
{
  for (size_t t = t0; t < t1; t++) {
    size_t i = m - 1 - t;
    double piv = (t == 0) ? b[i] : b[i] - c[i] * ap[i + 1];
    if (piv == 0.0 || !isfinite(piv))
      return (long)i;
    ap[i] = (i > 0) ? a[i] / piv : 0.0;
    w[i] = (t == 0) ? c[m - 1] / piv : -c[i] * w[i + 1] / piv;
    if (!isfinite(w[i]))
      return (long)i;
  }
  return -1;
}

void tl_pdd_ref_spike_last_back_d(size_t m, size_t k, double *w, const double *ap)
{
  for (size_t i = m - k + 1; i < m; i++)
    w[i] -= ap[i] * w[i - 1];
}

/* PDD's spikes are whole: all m rows of both sweeps. */
static long whole_spike_first(size_t m, const double *a, const double *b, const double *c,
                              double *v, double *cp)
{
  long bad = tl_pdd_ref_spike_first_fwd_d(m, a, b, c, 0, m, v, cp);
  if (bad < 0)
    tl_pdd_ref_spike_first_back_d(m, v, cp);
  return bad;
}

static long whole_spike_last(size_t m, const double *a, const double *b, const double *c, double *w,
                             double *ap)
{
  long bad = tl_pdd_ref_spike_last_fwd_d(m, a, b, c, 0, m, w, ap);
  if (bad < 0)
    tl_pdd_ref_spike_last_back_d(m, m, w, ap);
  return bad;
}

/* ---------------------------------------------------------------- */
/* Phase 1: local solution and spikes                                  */

int tl_pdd_ref_local_y_d(const tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                         const double *d, double *x, double **scratch, tl_info *info)
{
  /* y = A_p^{-1} d_p: Thomas never reads the couplings a[0], c[m-1]. */
  tl_info ti;
  tl_info_clear(&ti);
  int st = tl_thomas_ref_d(pt->m, a, b, c, d, x, &ti);
  if (st == TL_ERR_BREAKDOWN)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)pt->begin + ti.row, "",
                   "pdd: zero or non-finite pivot at row %ld in the local solve of partition %d "
                   "(elimination without pivoting breaks down)",
                   (long)pt->begin + ti.row, pt->p);
  if (st < 0)
    return TL_FAIL(info, st, -1, -1, "", "pdd: local solve of partition %d failed: %s", pt->p,
                   ti.msg);
  /* The spikes' elimination needs m multipliers. */
  *scratch = tl_alloc(pt->m, sizeof(double));
  if (!*scratch)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %zu scratch entries", pt->m);
  return TL_OK;
}

int tl_pdd_ref_spike_breakdown_d(const tl_pdd_part_d *pt, long row, tl_info *info)
{
  return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)pt->begin + row, "",
                 "pdd: zero or non-finite pivot at row %ld in a spike of partition %d "
                 "(elimination without pivoting breaks down)",
                 (long)pt->begin + row, pt->p);
}

void tl_pdd_ref_spike_lengths_d(tl_pdd_part_d *pt)
{
  pt->kv = pt->p > 0 ? pt->m : 0;             /* left spike from alpha = a[begin]  */
  pt->kw = pt->p + 1 < pt->parts ? pt->m : 0; /* right spike from gamma = c[end-1] */
}

/* What phase 1 leaves besides the spikes, from elsewhere. */
static void taken_bound(tl_pdd_part_d *pt, const double bound[3], long margin_row)
{
  tl_pdd_ref_spike_lengths_d(pt);
  pt->drop_v = bound[0], pt->drop_w = bound[1], pt->margin = bound[2];
  pt->margin_row = margin_row;
  pt->tail_coef_v = pt->tail_coef_w = 0.0;
}

void tl_pdd_ref_local_taken_d(tl_pdd_part_d *pt, const double *v, const double *w,
                              const double bound[3], long margin_row)
{
  memcpy(pt->v, v, pt->m * sizeof *v);
  memcpy(pt->w, w, pt->m * sizeof *w);
  taken_bound(pt, bound, margin_row);
}

void tl_pdd_ref_local_ends_taken_d(tl_pdd_part_d *pt, const double spike_ends[4],
                                   const double bound[3], long margin_row)
{
  pt->v[0] = spike_ends[0], pt->v[pt->m - 1] = spike_ends[1];
  pt->w[0] = spike_ends[2], pt->w[pt->m - 1] = spike_ends[3];
  taken_bound(pt, bound, margin_row);
}

int tl_pdd_ref_local_d(tl_pdd_part_d *pt, const double *a, const double *b, const double *c,
                       const double *d, double *x, tl_info *info)
{
  size_t m = pt->m;
  double *scratch;
  int st = tl_pdd_ref_local_y_d(pt, a, b, c, d, x, &scratch, info);
  if (st < 0)
    return st;
  long bad = -1;
  tl_pdd_ref_spike_lengths_d(pt);
  if (pt->kv)
    bad = whole_spike_first(m, a, b, c, pt->v, scratch);
  if (bad < 0 && pt->kw)
    bad = whole_spike_last(m, a, b, c, pt->w, scratch);
  free(scratch);
  if (bad >= 0)
    return tl_pdd_ref_spike_breakdown_d(pt, bad, info);
  tl_pdd_bound_local_d(pt, a, b, c); /* bookkeeping: what phase 3 drops */
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Messages and the 2x2 interface systems                             */

void tl_pdd_ref_send_first_d(const tl_pdd_part_d *pt, const double *a, const double *x,
                             tl_pdd_edge_d *to_prev)
{
  to_prev->y = x[0];
  to_prev->s = pt->v[0];
  to_prev->coupling = a[0];
}

void tl_pdd_ref_send_last_d(const tl_pdd_part_d *pt, const double *c, const double *x,
                            tl_pdd_edge_d *to_next)
{
  to_next->y = x[pt->m - 1];
  to_next->s = pt->w[pt->m - 1];
  to_next->coupling = c[pt->m - 1];
}

int tl_pdd_ref_solve2_d(const tl_pdd_edge_d *left_last, const tl_pdd_edge_d *right_first,
                        double *x_last, double *x_first)
{
  /* Elimination on [1 w; v 1] with the unit diagonal as pivot (|w|, |v| < 1
   * in a dominant matrix), then back substitution. Not Cramer's rule: it
   * leaves a residual of order eps |x| even when 1 - v w is tiny. */
  double det = 1.0 - right_first->s * left_last->s;
  if (det == 0.0 || !isfinite(det))
    return -1;
  *x_first = (right_first->y - right_first->s * left_last->y) / det;
  *x_last = left_last->y - left_last->s * *x_first;
  return (isfinite(*x_last) && isfinite(*x_first)) ? 0 : -1;
}

int tl_pdd_ref_interface_d(tl_pdd_part_d *pt, const double *c, const double *x,
                           const tl_pdd_edge_d *from_next, tl_pdd_iface_d *to_next, tl_info *info)
{
  tl_pdd_edge_d mine;
  tl_pdd_ref_send_last_d(pt, c, x, &mine);
  double xl, xr;
  if (tl_pdd_ref_solve2_d(&mine, from_next, &xl, &xr) != 0)
    return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)pt->end - 1, "",
                   "pdd: the 2x2 interface system between partitions %d and %d (rows %zu, %zu) "
                   "is singular or overflows",
                   pt->p, pt->p + 1, pt->end - 1, pt->end);
  pt->x_right = xr;
  tl_pdd_bound_from_next_d(pt, from_next->coupling);
  to_next->x_last = xl;
  to_next->coupling = mine.coupling;
  return TL_OK;
}

void tl_pdd_ref_receive_d(tl_pdd_part_d *pt, const tl_pdd_iface_d *from_prev)
{
  pt->x_left = from_prev->x_last;
  tl_pdd_bound_from_prev_d(pt, from_prev->coupling);
}

/* ---------------------------------------------------------------- */
/* Phase 5: correction                                                 */

int tl_pdd_ref_correct_d(tl_pdd_part_d *pt, double *x, tl_info *info)
{
  size_t o = pt->begin, m = pt->m;
  pt->xmax = 0.0;
  for (size_t k = 0; k < m; k++) {
    double s = x[k];
    if (k < pt->kv)
      s -= pt->v[k] * pt->x_left;
    if (k + pt->kw >= m)
      s -= pt->w[k] * pt->x_right;
    if (!isfinite(s))
      return TL_FAIL(info, TL_ERR_BREAKDOWN, -1, (long)(o + k), "",
                     "pdd: overflow in the correction at row %zu", o + k);
    x[k] = s;
    if (fabs(s) > pt->xmax)
      pt->xmax = fabs(s);
  }
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* The one-call solve                                                  */

int tl_pdd_ref_exchange_d(tl_pdd_part_d *pt, int P, const double *a, const double *c, double *x,
                          double tol, const char *name, tl_ledger *ledger, tl_info *info)
{
  int status = TL_OK;
  tl_pdd_edge_d *up = tl_alloc((size_t)P, sizeof *up);
  tl_pdd_iface_d *down = tl_alloc((size_t)P, sizeof *down);
  if (!up || !down) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for %d partitions", name, P);
    goto cleanup;
  }
  /* Each partition works on its own rows: pointers to its first row. */
#define ROWS(v) ((v) + pt[p].begin)
  for (int p = 1; p < P; p++) { /* phase 2: first rows go up to p-1 */
    tl_pdd_ref_send_first_d(&pt[p], ROWS(a), ROWS(x), &up[p]);
    tl_ledger_message(ledger, "first-row", 0, p, p - 1, TL_PDD_EDGE_WORDS);
  }
  for (int p = 0; p + 1 < P; p++) { /* phase 3: p solves interface p|p+1 */
    TL_CHECK(tl_pdd_ref_interface_d(&pt[p], ROWS(c), ROWS(x), &up[p + 1], &down[p], info));
    tl_ledger_message(ledger, "interface", 0, p, p + 1, TL_PDD_IFACE_WORDS);
  }
  for (int p = 1; p < P; p++) /* phase 4: x[end-1] arrives from p-1 */
    tl_pdd_ref_receive_d(&pt[p], &down[p - 1]);
  for (int p = 0; p < P; p++) /* phase 5: correction */
    TL_CHECK(tl_pdd_ref_correct_d(&pt[p], ROWS(x), info));
#undef ROWS
  status = tl_pdd_ref_reduce_d(pt, P, tol, name, ledger, info); /* phase 6 */
cleanup:
  free(up);
  free(down);
  return status;
}

int tl_pdd_ref_solve_d(size_t n, const double *a, const double *b, const double *c, const double *d,
                       double *x, int parts, const size_t *part_sizes, double tol,
                       tl_ledger *ledger, tl_info *info)
{
  int P = parts, status = TL_OK, ready = 0;
  tl_pdd_part_d *pt = tl_alloc((size_t)P, sizeof *pt);
  if (!pt) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %d partitions", P);
    goto cleanup;
  }
  for (; ready < P; ready++)
    TL_CHECK(tl_pdd_part_init_d(&pt[ready], n, P, part_sizes, ready, info));
  for (int p = 0; p < P; p++) /* phase 1: local solves, each on its own rows */
    TL_CHECK(tl_pdd_ref_local_d(&pt[p], a + pt[p].begin, b + pt[p].begin, c + pt[p].begin,
                                d + pt[p].begin, x + pt[p].begin, info));
  status = tl_pdd_ref_exchange_d(pt, P, a, c, x, tol, "pdd", ledger, info); /* phases 2-6 */
cleanup:
  for (int p = 0; p < ready; p++)
    tl_pdd_part_free_d(&pt[p]);
  free(pt);
  return status;
}

/* The messages of one solve of nsys systems (docs/algorithms/pdd.md),
 * per mini-batch k of mb systems (tl_minibatch_systems; round k): every
 * partition but the first sends its first rows up (3 words per system),
 * every partition but the last sends the solved interfaces down (2 words
 * per system); then all take part in the two reductions of the verdict
 * (tl_pdd_ledger_verdict, shared with RPDD), once for the batch. */
static int pdd_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                            const tl_info *solved, tl_ledger *out)
{
  (void)solved;
  size_t nsys = shape->nsys;
  int P = opt->parts;
  size_t mb =
      tl_minibatch_systems(shape->n, P, nsys, (size_t)tl_param_value(self, opt, "minibatch"));
  tl_ledger_reset(out);
  for (size_t s0 = 0, k = 0; s0 < nsys || k == 0; s0 += mb, k++) {
    size_t ns = nsys - s0 < mb ? nsys - s0 : mb;
    for (int p = 1; p < P; p++)
      tl_ledger_message(out, "first-row", (int)k, p, p - 1, TL_PDD_EDGE_WORDS * ns);
    for (int p = 0; p + 1 < P; p++)
      tl_ledger_message(out, "interface", (int)k, p, p + 1, TL_PDD_IFACE_WORDS * ns);
  }
  tl_pdd_ledger_verdict(out, P, nsys);
  return TL_OK;
}

/* ---------------------------------------------------------------- */
/* Registry                                                            */

static const tl_param pdd_params[] = {
    {"tol", TL_PARAM_REAL, 2.0 * TL_EPS, 0.0, 1.0, NULL,
     "largest dropped far spike entry accepted as TL_OK (default 2 eps)"},
    {"minibatch", TL_PARAM_INT, 0, 0, 1e9, NULL,
     "across ranks: systems per mini-batch, whose phases 1-5 and 2 messages run before the "
     "next's, so that the second solve reads the rows from cache (a multiple of 8 keeps the "
     "SIMD groups whole); 0 = automatic: as many as make 2^15 rows of ceil(n/P), a multiple of "
     "8, or the whole batch on one rank; nsys or more = the whole batch at once"},
};

static int pdd_system(const tl_algorithm *self, const tl_batch *one, void *x, const tl_options *opt,
                      tl_info *info)
{
  double tol = tl_param_value(self, opt, "tol");
  return tl_pdd_ref_solve_d(one->n, one->a, one->b, one->c, one->d, x, opt->parts, opt->part_sizes,
                            tol, opt->ledger, info);
}

/* System by system; the messages of each mini-batch in rounds of their
 * own, as pdd_mpi sends them. */
static int pdd_solve(const tl_algorithm *self, const tl_batch *sys, void *x, const tl_options *opt,
                     tl_info *info)
{
  size_t mb = tl_minibatch_systems(sys->n, opt->parts, sys->nsys,
                                   (size_t)tl_param_value(self, opt, "minibatch"));
  return tl_for_each_system_in_minibatches(self, sys, x, opt, mb, 1, info, pdd_system);
}

const tl_algorithm tl_algo_pdd_ref = {
    .name = "pdd",
    .family = "partition",
    .backend = "reference",
    .exact = 0,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .params = pdd_params,
    .nparams = 2,
    .summary = "Sun's PDD: local solves + spikes, far spike entries dropped, 2x2 interface "
               "systems",
    .source = "paper 000 (DistD2-TDS) §2.2.2 Algorithm 4; paper 003 (ITS) §2.2, §2.4; Sun 1995",
    .solve = pdd_solve,
    .dropped_means = "the largest far spike entry neglected, |w_0| or |v_m-1| of an inner "
                     "partition (already relative: change of x per unit of the neighbour's x)",
    .bound_means =
        "||x - x_exact||_inf / ||x||_inf in exact arithmetic, for a strictly row-dominant A",
    .ledger_model = pdd_ledger_model,
};
